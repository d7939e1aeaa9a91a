#include "support/core/host_environment.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"

namespace fvbench {

using nlohmann::json;

std::string HostEnvironment::Get(std::string_view key) const {
  for (const EnvironmentValue& v : values) {
    if (v.key == key) return v.value;
  }
  return "";
}

void HostEnvironment::Set(std::string_view key, std::string value) {
  for (EnvironmentValue& v : values) {
    if (v.key == key) {
      v.value = std::move(value);
      return;
    }
  }
  values.push_back({std::string(key), std::move(value)});
}

namespace {

bool IsKnownKey(std::string_view key) {
  for (const EnvironmentKey& k : kEnvironmentKeys) {
    if (k.key == key) return true;
  }
  return false;
}

}  // namespace

void WriteEnvironments(detail::JsonWriter& w, const std::vector<HostEnvironment>& envs) {
  w.StartArray();
  for (const HostEnvironment& e : envs) {
    w.StartObject();
    w.Field("role", e.role);
    w.Field("host", e.host);
    w.Key("values");
    w.StartObject();
    for (const EnvironmentKey& k : kEnvironmentKeys) {
      const std::string v = e.Get(k.key);
      if (!v.empty()) w.Field(k.key, v);
    }
    for (const EnvironmentValue& v : e.values) {
      if (!IsKnownKey(v.key) && !v.value.empty()) w.Field(v.key, v.value);
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
}

Result<std::vector<HostEnvironment>> EnvironmentsFromJsonValue(const json& v, const std::string& path) {
  using namespace detail;
  std::vector<HostEnvironment> out;
  try {
    if (!v.is_array()) return Error{fmt::format("{}: not an array", path)};
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string p = fmt::format("{}[{}]", path, i);
      RequireObject(v[i], p);
      HostEnvironment e;
      e.role = GetString(v[i], "role", p);
      e.host = GetString(v[i], "host", p);
      const json& values = GetObject(v[i], "values", p);
      for (const EnvironmentKey& k : kEnvironmentKeys) {
        if (values.contains(k.key)) e.values.push_back({std::string(k.key), GetString(values, k.key, p + ".values")});
      }
      for (auto it = values.begin(); it != values.end(); ++it) {
        if (!IsKnownKey(it.key())) e.values.push_back({it.key(), GetString(values, it.key(), p + ".values")});
      }
      out.push_back(std::move(e));
    }
  } catch (const JsonFieldError& e) {
    return Error{e.message};
  }
  return out;
}

}  // namespace fvbench
