// JSON for the result model (scenario_result.h). Two documents, both with
// "schema_version": 1:
//
// 1. One scenario, BENCH_DIR/controller-results/<scenario id>.json, written by
//    the scenario test and read back by the report step:
//      {"schema_version": 1, "scenario": {<ScenarioResult>}}
//    A ScenarioResult object has the fields of the struct under the same
//    names; "load" is a LoadResult with "latency_us": {p50,p90,p99,p999,max};
//    optional values (ratelimit_evidence, a check's reference) are null when
//    absent. Units as in the structs: µs, RPS, fraction 0..1, Unix seconds.
//
// 2. The run, results.json, in the schema of reference.json (so a results.json
//    can be used as a reference) plus the run's meta and full detail:
//      {"schema_version": 1,
//       "meta": {<RunMeta>},
//       "latency_us": {"raw_nginx": {"p50","p90","p99","p999"}, ...},  measured scenarios only
//       "throughput_rps": {"simple": RPS, ...},        measured scenarios only (measured rate)
//       "throughput_ceiling_reached": {"simple": true}, only scenarios whose top step passed
//       "scenarios": [{<ScenarioResult>}, ...],        every scenario given, in order
//       "same_run_ratios": [{"scenario", "base", "metric", "value", "base_value", "ratio"}, ...]}
//                                                      RunReport::ratios; derived, not read back
//
// Each check and ratio check carries "headroom": {"kind": "rise" | "fall" |
// "fails_now" | "never" | "undefined", "size": number or null, "unit":
// "relative" | "points"}, the change that would fail it
// (threshold_headroom.h); derived from the check's other fields, not read back.
//
// Fields added after the first documents (a step's "role"; a scenario's
// "search", "confirmed", "search_resolution", "search_load_s", "search_stop",
// "search_rule" (written only when the result carries it),
// "repeats", "spread", "ratio_checks"; "interrupted" (written only when
// true); "ab" in A/B mode, ab_json.h; "limits" in limits scenarios,
// limits_json.h; "reject_cost" in limits.reject_cost, reject_cost_json.h;
// "profile" with FVBENCH_PROFILE on, profile_json.h) are
// optional on read, so older schema_version 1 files still load.
//
// Readers reject a missing or different schema_version, and name the source
// and the key path of any field that is missing or of the wrong type, and of
// a number no run can have measured (plausible.h): in a LoadResult, a rate
// or error rate out of range, or, when it completed requests, a latency that
// is not > 0, subnormal, above 1e15 µs or out of order (p50 <= p90 <= p99 <=
// p999 <= max).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "support/core/result.h"
#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"
#include "support/report/run_report.h"

namespace fvbench {

std::string ScenarioResultToJson(const ScenarioResult& r);
Result<ScenarioResult> ScenarioResultFromJson(std::string_view text, const std::string& source_name);

std::string RunResultsToJson(const RunReport& report);
// The same for results not yet in a RunReport: RunResultsToJson(BuildRunReport(results, meta, nullptr)).
std::string RunResultsToJson(const std::vector<ScenarioResult>& results, const RunMeta& meta);

struct RunResults {
  RunMeta meta;
  std::vector<ScenarioResult> scenarios;
};
// Reads the "meta" and "scenarios" parts of a results.json (the summary blocks
// are derived from them and not read back).
Result<RunResults> RunResultsFromJson(std::string_view text, const std::string& source_name);

// Thin file wrappers (the only I/O here). Save writes through a temporary
// file and rename, so a reader never sees half a document.
Result<void> SaveScenarioResult(const std::string& path, const ScenarioResult& r);
Result<ScenarioResult> LoadScenarioResult(const std::string& path);
Result<void> SaveRunResults(const std::string& path, const RunReport& report);
Result<void> SaveRunResults(const std::string& path, const std::vector<ScenarioResult>& results,
                            const RunMeta& meta);

namespace detail {
class JsonWriter;  // json_writer.h
// The objects behind the documents, written at the writer's position
// (exposed for tests; a LoadResult's object is in load_result_json.h).
void WriteScenarioResult(JsonWriter& w, const ScenarioResult& r);
// Throws detail::JsonFieldError (json_fields.h) naming `path`.
ScenarioResult ScenarioResultFromJsonValue(const nlohmann::json& v, const std::string& path);
}  // namespace detail

}  // namespace fvbench
