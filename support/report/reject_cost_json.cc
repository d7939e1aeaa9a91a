#include "support/report/reject_cost_json.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/report/load_result_json.h"

namespace fvbench::detail {

using nlohmann::json;

namespace {

struct PhaseNumber {
  const char* name;
  double RejectCostPhase::*field;
};
constexpr PhaseNumber kPhaseNumbers[] = {
    {"offered_per_key_rps", &RejectCostPhase::offered_per_key_rps},
    {"reject_share", &RejectCostPhase::reject_share},
    {"fv_cpu_cores", &RejectCostPhase::fv_cpu_cores},
    {"cpu_us_per_request", &RejectCostPhase::cpu_us_per_request},
};
struct PhaseCount {
  const char* name;
  uint64_t RejectCostPhase::*field;
};
constexpr PhaseCount kPhaseCounts[] = {
    {"ok", &RejectCostPhase::ok},
    {"rejected", &RejectCostPhase::rejected},
    {"other", &RejectCostPhase::other},
};
struct RunNumber {
  const char* name;
  double RejectCostRun::*field;
};
constexpr RunNumber kRunNumbers[] = {
    {"rate_rps", &RejectCostRun::rate_rps},
    {"p50_ratio", &RejectCostRun::p50_ratio},
    {"p99_ratio", &RejectCostRun::p99_ratio},
    {"cpu_ratio", &RejectCostRun::cpu_ratio},
};

void WritePhase(JsonWriter& w, const RejectCostPhase& p) {
  w.StartObject();
  w.Field("name", p.name);
  w.Field("phase", p.phase);
  w.Field("keys", p.keys);
  w.Field("by_status", p.by_status);
  for (const PhaseNumber& f : kPhaseNumbers) w.Field(f.name, p.*f.field);
  for (const PhaseCount& f : kPhaseCounts) w.Field(f.name, p.*f.field);
  w.Key("load");
  WriteLoadResult(w, p.load);
  w.EndObject();
}

RejectCostPhase PhaseFromJson(const json& v, const std::string& path) {
  RequireObject(v, path);
  RejectCostPhase p;
  p.name = GetString(v, "name", path);
  p.phase = GetString(v, "phase", path);
  const uint64_t keys = GetUint(v, "keys", path);
  if (keys > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    throw JsonFieldError{JoinPath(path, "keys") + ": out of range"};
  }
  p.keys = static_cast<int>(keys);
  p.by_status = GetBool(v, "by_status", path);
  for (const PhaseNumber& f : kPhaseNumbers) p.*f.field = GetNumberOrNaN(v, f.name, path);
  for (const PhaseCount& f : kPhaseCounts) p.*f.field = GetUint(v, f.name, path);
  p.load = LoadResultFromJsonValue(GetObject(v, "load", path), JoinPath(path, "load"));
  return p;
}

}  // namespace

void WriteRejectCostRun(JsonWriter& w, const RejectCostRun& run) {
  w.StartObject();
  w.Field("rate_per_s", run.limit.rate_per_s);
  w.Field("burst", run.limit.burst);
  for (const RunNumber& f : kRunNumbers) w.Field(f.name, run.*f.field);
  w.Key("admitted");
  WritePhase(w, run.admitted);
  w.Key("rejected");
  WritePhase(w, run.rejected);
  w.EndObject();
}

RejectCostRun RejectCostRunFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  RejectCostRun run;
  run.limit.rate_per_s = GetNumberOrNaN(v, "rate_per_s", path);
  run.limit.burst = GetNumberOrNaN(v, "burst", path);
  for (const RunNumber& f : kRunNumbers) run.*f.field = GetNumberOrNaN(v, f.name, path);
  run.admitted = PhaseFromJson(GetObject(v, "admitted", path), JoinPath(path, "admitted"));
  run.rejected = PhaseFromJson(GetObject(v, "rejected", path), JoinPath(path, "rejected"));
  return run;
}

}  // namespace fvbench::detail
