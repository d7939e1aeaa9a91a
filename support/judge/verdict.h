// The verdict of one scenario's result and its reasons: the one decision the
// scenario test's gtest failures, every report (console table, report.md,
// the history) and `fvbench_baseline save` state.
//
//   FAIL     the scenario produced no number (failed before measuring, was
//            interrupted, not run because the environment failed), or it
//            recorded an error after measuring, or a threshold check or a
//            same-run ratio check failed, or the A/B gate was on
//            (AbResult::gate, AB_GATE=1) and side B is significantly worse
//            (AbVerdict::kBWorse) on a metric the gate covers (every metric,
//            or those of AB_GATE_METRICS: AbResult::Gates);
//   INVALID  it measured, but a validity check of the reported phase failed
//            (validity.h: the number is not worth reporting), and nothing
//            above made it FAIL;
//   PASS     measured, valid, every check passed.
//
// Everything the verdict rests on is in the result itself (its checks, ratio
// checks, validity, the A/B gate), so a report of saved results judges a
// scenario as the run did. The gate policy decides only what the scenario's
// test does with an INVALID number: VALIDITY=fail (default) fails the test
// on each failed validity check; VALIDITY=warn prints them (the verdict stays
// INVALID). Pure.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/core/validity_params.h"
#include "support/judge/reference.h"
#include "support/judge/thresholds.h"

namespace fvbench {

enum class Verdict { kPass, kFail, kInvalid };

struct GatePolicy {
  ValidityMode validity = ValidityMode::kFail;  // VALIDITY
};

struct Judgement {
  Verdict verdict = Verdict::kFail;
  // One line: why the verdict is not PASS, e.g. "not measured: <error's first
  // line>", "interrupted: <...>", "2 checks failed (p99_us, rps)",
  // "A/B gate failed (AB_GATE=1): B worse in p99, p99.9",
  // "validity failed: engine_kept_up"; "" for PASS.
  std::string summary;
  // One line per problem that fails the scenario's test, in this order: the
  // error (whole; "not measured: (no error message recorded)" when a result
  // without a number has none), each failed threshold check (thresholds.h DescribeCheck),
  // each failed ratio check ("ratio check failed: " DescribeRatioCheck), each
  // gated metric where B is worse ("A/B regression (AB_GATE=1): "
  // ab_compare.h DescribeAbMetric), each failed validity check under
  // VALIDITY=fail ("validity check failed: " DescribeValidity). Empty for PASS,
  // and for INVALID under VALIDITY=warn.
  std::vector<std::string> failures;
  // Lines the scenario's test prints and does not fail on, in this order:
  // under the A/B gate, each metric where B is worse that AB_GATE_METRICS
  // leaves out ("A/B: B worse, not gated (AB_GATE_METRICS): "
  // DescribeAbMetric); under VALIDITY=warn, each failed validity check
  // ("INVALID (VALIDITY=warn, not failed): " DescribeValidity).
  std::vector<std::string> warnings;
};

Judgement JudgeScenario(const ScenarioResult& r, const GatePolicy& policy = {});

// The checks a scenario's result carries into its file, so that the reports
// and `fvbench_baseline save` judge it as its test does: the threshold
// profile's (thresholds.h Evaluate against `reference`; none when `profile` is
// null) and, in A/B mode, whether the A/B gate applies and on which metrics
// (AbResult::gate and gate_metrics, from AB_GATE and AB_GATE_METRICS; empty =
// every metric; recorded only with the gate on).
void AddRunChecks(ScenarioResult& r, const ThresholdProfile* profile, const Reference* reference, bool ab_gate,
                  const std::vector<std::string>& ab_gate_metrics);

// "PASS" | "FAIL" | "INVALID".
const char* VerdictName(Verdict v);

struct VerdictCounts {
  int pass = 0;
  int fail = 0;
  int invalid = 0;
};
VerdictCounts CountVerdicts(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
