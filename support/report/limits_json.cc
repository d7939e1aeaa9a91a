#include "support/report/limits_json.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/report/load_result_json.h"

namespace fvbench::detail {

using nlohmann::json;

namespace {

// The accuracy's numbers and counts, by name, in the order written.
struct NumberField {
  const char* name;
  double LimitAccuracy::*field;
};
constexpr NumberField kNumbers[] = {
    {"window_s", &LimitAccuracy::window_s},
    {"offered_rps", &LimitAccuracy::offered_rps},
    {"allowed_per_key", &LimitAccuracy::allowed_per_key},
    {"floor_per_key", &LimitAccuracy::floor_per_key},
    {"admitted_min", &LimitAccuracy::admitted_min},
    {"admitted_median", &LimitAccuracy::admitted_median},
    {"admitted_max", &LimitAccuracy::admitted_max},
    {"over_admission", &LimitAccuracy::over_admission},
    {"under_admission", &LimitAccuracy::under_admission},
    {"window_allowed", &LimitAccuracy::window_allowed},
    {"bin_s", &LimitAccuracy::bin_s},
    {"reject_share", &LimitAccuracy::reject_share},
    {"expected_reject_share", &LimitAccuracy::expected_reject_share},
};
struct CountField {
  const char* name;
  uint64_t LimitAccuracy::*field;
};
constexpr CountField kCounts[] = {
    {"worst_window_admitted", &LimitAccuracy::worst_window_admitted},
    {"over_admission_key_admitted", &LimitAccuracy::over_admission_key_admitted},
    {"admitted", &LimitAccuracy::admitted},
    {"rejected", &LimitAccuracy::rejected},
    {"other", &LimitAccuracy::other},
    {"before_window", &LimitAccuracy::before_window},
};
struct IntField {
  const char* name;
  int LimitAccuracy::*field;
};
constexpr IntField kInts[] = {
    {"keys_planned", &LimitAccuracy::keys_planned},
    {"keys_seen", &LimitAccuracy::keys_seen},
    {"keys_over", &LimitAccuracy::keys_over},
    {"keys_under", &LimitAccuracy::keys_under},
    {"window_bins", &LimitAccuracy::window_bins},
};
struct TextField {
  const char* name;
  std::string LimitAccuracy::*field;
};
constexpr TextField kTexts[] = {
    {"over_admission_key", &LimitAccuracy::over_admission_key},
    {"worst_window_key", &LimitAccuracy::worst_window_key},
};

// The plot series (limit_figures.h): at most this many entries each, the
// largest LIMITS_KEYS (per key) and a day of seconds with room to spare.
constexpr size_t kMaxSeries = 100000;
struct SeriesField {
  const char* name;
  std::vector<uint64_t> LimitAccuracy::*field;
};
constexpr SeriesField kSeries[] = {
    {"admitted_per_key", &LimitAccuracy::admitted_per_key},
    {"admitted_per_second", &LimitAccuracy::admitted_per_second},
};

// Absent or null: empty (results written before the series were kept).
std::vector<uint64_t> SeriesFromJson(const json& v, const char* name, const std::string& path) {
  std::vector<uint64_t> out;
  if (!v.contains(name) || v.at(name).is_null()) return out;
  const json& items = GetArray(v, name, path);
  const std::string at = JoinPath(path, name);
  if (items.size() > kMaxSeries) {
    throw JsonFieldError{fmt::format("{}: {} entries, more than {}", at, items.size(), kMaxSeries)};
  }
  for (size_t i = 0; i < items.size(); ++i) {
    const json& n = items[i];
    if (!n.is_number_unsigned() && !(n.is_number_integer() && n.get<int64_t>() >= 0)) {
      throw JsonFieldError{fmt::format("{}[{}]: expected a non-negative integer, got {}", at, i, n.dump())};
    }
    out.push_back(n.get<uint64_t>());
  }
  return out;
}

void WriteAccuracy(JsonWriter& w, const LimitAccuracy& a) {
  w.StartObject();
  w.Field("rate_per_s", a.limit.rate_per_s);
  w.Field("burst", a.limit.burst);
  for (const IntField& f : kInts) w.Field(f.name, a.*f.field);
  for (const NumberField& f : kNumbers) w.Field(f.name, a.*f.field);
  for (const CountField& f : kCounts) w.Field(f.name, a.*f.field);
  for (const TextField& f : kTexts) w.Field(f.name, a.*f.field);
  for (const SeriesField& f : kSeries) {
    w.Key(f.name);
    w.StartArray();
    for (uint64_t n : a.*f.field) w.Uint(n);
    w.EndArray();
  }
  w.EndObject();
}

LimitAccuracy AccuracyFromJson(const json& v, const std::string& path) {
  RequireObject(v, path);
  LimitAccuracy a;
  a.limit.rate_per_s = GetNumber(v, "rate_per_s", path);
  a.limit.burst = GetNumber(v, "burst", path);
  for (const IntField& f : kInts) {
    const uint64_t n = GetUint(v, f.name, path);
    if (n > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
      throw JsonFieldError{JoinPath(path, f.name) + ": out of range"};
    }
    a.*f.field = static_cast<int>(n);
  }
  for (const NumberField& f : kNumbers) a.*f.field = GetNumberOrNaN(v, f.name, path);
  for (const CountField& f : kCounts) a.*f.field = GetUint(v, f.name, path);
  for (const TextField& f : kTexts) a.*f.field = GetString(v, f.name, path);
  for (const SeriesField& f : kSeries) a.*f.field = SeriesFromJson(v, f.name, path);
  return a;
}

}  // namespace

void WriteLimitRun(JsonWriter& w, const LimitRun& run) {
  w.StartObject();
  w.Field("workers", run.workers);
  w.Field("phase", run.phase);
  w.Key("load");
  WriteLoadResult(w, run.load);
  w.Key("accuracy");
  WriteAccuracy(w, run.accuracy);
  w.EndObject();
}

LimitRun LimitRunFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  LimitRun run;
  const uint64_t workers = GetUint(v, "workers", path);
  if (workers > 4096) throw JsonFieldError{JoinPath(path, "workers") + ": more than 4096 workers"};
  run.workers = static_cast<int>(workers);
  run.phase = GetString(v, "phase", path);
  run.load = LoadResultFromJsonValue(GetObject(v, "load", path), JoinPath(path, "load"));
  run.accuracy = AccuracyFromJson(GetObject(v, "accuracy", path), JoinPath(path, "accuracy"));
  return run;
}

}  // namespace fvbench::detail
