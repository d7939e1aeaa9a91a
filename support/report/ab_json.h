// The JSON of a scenario's AbResult (ab_result.h), inside a scenario's result
// and results.json (results_io.h).
//
// JSON of one scenario's "ab" (all numbers in the units of ab_compare.h):
//   {"method": str, "rate_rps": RPS, "duration_s": s, "error": str,
//    "gate": true (AB_GATE=1; absent = false),
//    "ci_level": 0.99 (kAbCiLevel, ab_compare.h: the level of every CI and verdict),
//    "a": {"edge_source", "edge_ref", "edge_commit", "policy", "policy_source": str,
//          "runs": [<LoadResult>...], "fv_cpu_cores": [cores or null...]},
//    "b": {same},
//    "metrics": [{"metric", "scale": "ratio"|"absolute", "better": "lower"|"higher",
//                 "pairs", "a_median", "b_median",
//                 "delta", "ci_low", "ci_high", "noise", "detectable": number or null,
//                 "verdict": "n/a"|"insufficient"|"no_difference"|"b_worse"|"b_better"|"not_estimable",
//                 "verdict_text": str (derived, ignored on read), "reason": str}],
//    "aa": {metric: {"runs", "cv", "spread", "drift": number or null}}  (A/A runs only; noise_study.h)}
// Older documents: without "ci_level", or with another level (they were
// decided with 95 % intervals and the sides' min-max spread as a second
// criterion), "metrics" is computed again from the saved runs under the
// current rule (CompareAbRuns; verdicts, and so the A/B gate, may differ from
// the ones saved); without "aa", it is derived (NoiseStudy) when the sides
// are an A/A study (IsAaStudy), else empty.
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
