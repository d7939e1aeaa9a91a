// A/B mode in the reports: the JSON of an AbResult (inside a scenario's
// result and results.json, results_io.h) and the console section (appended
// to the summary table by RenderSummaryTable). Reporters: they format the
// AbResult (ab_compare.h) and compute nothing. Pure.
//
// JSON of one scenario's "ab" (all numbers in the units of ab_compare.h):
//   {"method": str, "rate_rps": RPS, "duration_s": s, "error": str,
//    "a": {"edge_source", "edge_ref", "edge_commit", "policy": str,
//          "runs": [<LoadResult>...], "fv_cpu_cores": [cores or null...]},
//    "b": {same},
//    "metrics": [{"metric", "scale": "ratio"|"absolute", "better": "lower"|"higher",
//                 "pairs", "a_median", "b_median",
//                 "delta", "ci_low", "ci_high", "noise": number or null,
//                 "verdict": "n/a"|"insufficient"|"no_difference"|"b_worse"|"b_better",
//                 "verdict_text": str (derived, ignored on read), "reason": str}]}
// Reading throws detail::JsonFieldError naming the key path (json_fields.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "support/judge/ab_compare.h"
#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// The "A/B comparison" section: one header naming both sides (meta), the
// method and the significance rule, then per scenario with an AbResult a
// table of metric | A median | B median | delta | 95 % CI | noise | verdict,
// and a last line counting the significant differences. "" when no result
// has an AbResult.
std::string RenderAbSection(const std::vector<ScenarioResult>& results, const RunMeta& meta);

// The same section as Markdown (for the Markdown report / a CI job summary):
// "## A/B comparison", the two sides and the rule, then per scenario a table
// | metric | A median | B median | delta | 95 % CI | noise | verdict |, with
// significant verdicts in bold. "" when no result has an AbResult.
std::string RenderAbMarkdown(const std::vector<ScenarioResult>& results, const RunMeta& meta);

// One metric on one line, for test output and gate messages:
// "p99: A 812 µs, B 1.02 ms, delta +25.6 % (95 % CI +20.1..+31.4 %, noise 6.0 %): B slower by 25.6 % (CI 20.1..31.4 %)".
std::string DescribeAbMetric(const AbComparison& c);

namespace detail {
class JsonWriter;  // json_writer.h
void WriteAbResult(JsonWriter& w, const AbResult& ab);
AbResult AbResultFromJsonValue(const nlohmann::json& v, const std::string& path);
}  // namespace detail

}  // namespace fvbench
