// A/B mode in the reports: the console section (appended to the summary
// table by RenderSummaryTable) and the Markdown section. Reporters: they
// format the AbResult (ab_result.h) and compute nothing. Pure. Its JSON is in
// ab_json.h.
#pragma once

#include <string>
#include <vector>

#include "support/judge/ab_compare.h"
#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// The "A/B comparison" section: one header naming both sides (meta), the
// method and the significance rule (and, with meta.ab_gate, the AB_GATE
// line: "AB_GATE=1: a metric where B is significantly worse fails its
// scenario.", or with meta.ab_gate_metrics "AB_GATE=1 on edge CPU/req
// (AB_GATE_METRICS=fv_cpu_us_per_request): B significantly worse there fails
// its scenario; other metrics are reported, not gated."), then per scenario
// with an AbResult a
// table of metric | A median | B median | delta | 99 % CI | noise | detectable | verdict,
// the sentence "With n pairs this comparison could detect changes of p99
// 40.0 % or more, ... (90 % power, 99 % CI)." (metrics with a detectable
// change), and a last line counting the significant differences. Under the
// gate, a verdict where B is worse on a metric the scenario's gate leaves out
// (AbResult::Gates) ends with " (not gated)", in the table, the list of
// significant differences and the Markdown table alike. A scenario
// whose AbResult has `aa` (an A/A run) is headed "(A/A noise study)" and
// adds a table metric | runs | CV | spread | drift. "" when no result has an
// AbResult.
std::string RenderAbSection(const std::vector<ScenarioResult>& results, const RunMeta& meta);

// The same section as Markdown (for the Markdown report / a CI job summary):
// "## A/B comparison", the two sides, the rule and the AB_GATE line (the
// variable's value as a code span), then per scenario a table
// | metric | A median | B median | delta | 99 % CI | noise | detectable | verdict |,
// with significant verdicts in bold, and the detectable sentence; an A/A run
// is headed "### <id>: A/A noise study" and adds its noise table. "" when no
// result has an AbResult.
std::string RenderAbMarkdown(const std::vector<ScenarioResult>& results, const RunMeta& meta);

}  // namespace fvbench
