#include "support/judge/environment_drift.h"

#include <fmt/format.h>

namespace fvbench {
namespace {

const HostEnvironment* FindHost(const std::vector<HostEnvironment>& envs, const HostEnvironment& like) {
  for (const HostEnvironment& e : envs) {
    if (e.role == like.role && e.host == like.host) return &e;
  }
  return nullptr;
}

bool HasKey(const HostEnvironment& e, const std::string& key) {
  for (const EnvironmentValue& v : e.values) {
    if (v.key == key) return true;
  }
  return false;
}

// A value on one line: backslashes and newlines escaped, so no value reads as another line.
std::string OneLine(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Shown(const std::string& value) { return value.empty() ? std::string(kNotExposed) : value; }

void HostChanges(const HostEnvironment& a, const HostEnvironment& b, std::vector<std::string>& out) {
  auto line = [&](const std::string& key, const std::string& va, const std::string& vb) {
    if (va != vb) out.push_back(fmt::format("{} {}: {} {} -> {}", b.role, b.host, key, Shown(va), Shown(vb)));
  };
  for (const EnvironmentValue& v : b.values) line(v.key, a.Get(v.key), v.value);
  for (const EnvironmentValue& v : a.values) {
    if (!HasKey(b, v.key)) line(v.key, v.value, "");
  }
}

}  // namespace

std::vector<std::string> EnvironmentChanges(const std::vector<HostEnvironment>& before,
                                            const std::vector<HostEnvironment>& after) {
  std::vector<std::string> out;
  if (before.empty() || after.empty()) return out;
  for (const HostEnvironment& b : after) {
    if (const HostEnvironment* a = FindHost(before, b)) {
      HostChanges(*a, b, out);
    } else {
      out.push_back(fmt::format("{} {}: in the later run only", b.role, b.host));
    }
  }
  for (const HostEnvironment& a : before) {
    if (!FindHost(after, a)) out.push_back(fmt::format("{} {}: in the earlier run only", a.role, a.host));
  }
  return out;
}

std::string EnvironmentCanonicalText(const std::vector<HostEnvironment>& envs) {
  std::string out;
  for (const HostEnvironment& e : envs) {
    out += fmt::format("{} {}\n", OneLine(e.role), OneLine(e.host));
    for (const EnvironmentValue& v : e.values) out += fmt::format("  {}={}\n", OneLine(v.key), OneLine(v.value));
  }
  return out;
}

}  // namespace fvbench
