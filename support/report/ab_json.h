// The JSON of a scenario's AbResult (ab_result.h), inside a scenario's result
// and results.json (results_io.h).
//
// JSON of one scenario's "ab" (all numbers in the units of ab_compare.h):
//   {"method": str, "rate_rps": RPS, "duration_s": s, "error": str,
//    "gate": true (AB_GATE=1; absent = false),
//    "gate_metrics": [metric...] (AB_GATE_METRICS, the metrics the gate is on; absent = every metric),
//    "ci_level": 0.99 (kAbCiLevel, ab_compare.h: the level of every CI and verdict),
//    "a": {"edge_source", "edge_ref", "edge_commit", "policy", "policy_source": str,
//          "runs": [<LoadResult>...], "fv_cpu_cores": [cores or null...],
//          "sut_timelines": [<SUT timeline> (sut_timeline_json.h) or null (run not sampled)...]
//            (one per run; absent when no run was sampled: read as an empty timeline per run)},
//    "b": {same},
//    "metrics": [{"metric", "scale": "ratio"|"absolute", "better": "lower"|"higher",
//                 "pairs", "a_median", "b_median",
//                 "delta", "ci_low", "ci_high", "noise", "detectable": number or null,
//                 "verdict": "n/a"|"insufficient"|"no_difference"|"b_worse"|"b_better"|"not_estimable",
//                 "verdict_text": str (derived, ignored on read), "reason": str}],
//    "aa": {metric: {"runs", "cv", "spread", "drift": number or null}}  (A/A runs only; noise_study.h)}
// Reading: "metrics" and "aa" are derived data. Their shapes are checked,
// then both are computed again from the saved runs (CompareAbRuns, and
// NoiseStudy when IsAaStudy), so a report rendered from saved results shows
// what the runs say under this fvbench's rule: a hand-edited verdict, CI or
// "aa", or a document decided under an earlier rule (no "ci_level": 95 %
// intervals and the sides' min-max spread as a second criterion), reads as
// its runs decide. "ci_level", when present, must be a level in (0, 1).
// Reading throws detail::JsonFieldError naming the key path (json_fields.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/ab_result.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h
void WriteAbResult(JsonWriter& w, const AbResult& ab);
AbResult AbResultFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench::detail
