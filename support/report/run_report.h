// The run's report, computed once: every number the reporters show that is
// not in a ScenarioResult itself. The report step builds it from the run's
// scenario results (report_step.h); the summary table, report.md,
// results.json and the SVG plots only format it.
//
//   ratios        same-run ratios (ratios.h SameRunRatios), this run's
//                 results only (FromEarlierRun results are never paired);
//   ratio checks  with a profile: each result's ratio_checks (thresholds.h
//                 EvaluateRatios) and the notes saying which were skipped;
//   compared      per scenario and metric, the comparison's value (reference
//                 or, with FVBENCH_BASELINE, baseline) and the delta
//                 (measured − comparison) / |comparison| (a fraction; shown
//                 as "+171.4 %" by units_format.h FormatDeltaFraction);
//   verdicts      per result, in order: verdict.h JudgeScenario's verdict and summary,
//                 and the counts;
//   load_mismatch the warning that latency deltas compare different loads
//                 (reference.h LatencyLoadMismatch), "" when none;
//   environment_mismatch  with a baseline: the warning that it ran on other
//                 machine facts (environment_drift.h EnvironmentChanges),
//                 "" when none or either run recorded none.
// Pure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"
#include "support/judge/ratios.h"
#include "support/judge/reference.h"
#include "support/judge/thresholds.h"
#include "support/judge/verdict.h"

namespace fvbench {

// One metric of one measured scenario beside the comparison's value. Present
// only when the comparison has the metric and the measured value is not a
// lower bound from timeouts (a censored latency percentile shows no
// comparison at all).
struct ComparedMetric {
  double comparison = 0;                // the comparison's value, µs or RPS
  bool comparison_lower_bound = false;  // throughput: the comparison reached its ceiling (shown "≥ N")
  // (measured − comparison) / |comparison|; none when either side is a lower
  // bound (throughput: MeasuredIsLowerBound, a ceiling in the comparison),
  // the comparison is 0, or a value is not finite.
  std::optional<double> delta;
};

struct VerdictLine {
  std::string id;
  Verdict verdict = Verdict::kFail;
  std::string reason;  // Judgement::summary; "" for PASS
};

struct RunReport {
  RunMeta meta;
  std::vector<ScenarioResult> results;  // in scenario order; ratio_checks filled when a profile was given
  std::optional<Reference> comparison;  // reference or baseline; none: measured values only
  std::vector<Ratio> ratios;
  std::vector<VerdictLine> verdicts;    // one per result, same order
  VerdictCounts counts;
  std::string load_mismatch;
  std::string environment_mismatch;
  // scenario id -> metric ("p50_us" .. "max_us" for latency, "rps" for throughput)
  std::map<std::string, std::map<std::string, ComparedMetric>> compared;
  // Failed same-run ratio checks, "<scenario id>: <DescribeRatioCheck>"
  // (empty without a profile).
  std::vector<std::string> failed_ratio_checks;

  const Reference* cmp() const { return comparison ? &*comparison : nullptr; }
  // The result of `id`, or null when it was not run.
  const ScenarioResult* Find(const std::string& id) const;
  // The comparison of `metric` of `id`, or null (see ComparedMetric).
  const ComparedMetric* Compared(const std::string& id, const std::string& metric) const;
};

// `comparison` may be null; `profile` null: the results' ratio_checks are
// kept as they are (a results.json read back already carries them).
RunReport BuildRunReport(std::vector<ScenarioResult> results, RunMeta meta, const Reference* comparison,
                         const ThresholdProfile* profile = nullptr);

}  // namespace fvbench
