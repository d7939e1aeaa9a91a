// The report step: the CTest fixture fvbench.report (FIXTURES_CLEANUP, run
// by `fvbench_fixture report` after the scenarios) turns the per-scenario
// result files of one run into the run's report:
//
//   BENCH_DIR/controller-results/run_meta.json, <scenario id>.json
//     -> LoadRunResults       (a result of an earlier ctest run is marked so)
//     -> BuildRunReport       once (run_report.h): same-run ratio checks and
//                             ratios, deltas, verdicts, the load-mismatch warning
//     -> RenderSummaryTable   stdout and report/summary.txt
//     -> RenderPlots          report/latency.svg, report/throughput_<policy>.svg
//     -> SaveRunResults       report/results.json
//     -> RenderMarkdownReport report/report.md
//
// With FVBENCH_BASELINE the table, plots and report.md compare with that
// earlier run instead of the reference (baseline.h); thresholds keep the
// reference. Problems are printed to stderr prefixed "fvbench report: ".
#pragma once

#include <vector>

#include "support/core/config.h"
#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// The results in BENCH_DIR/controller-results, in scenario order; a result
// file that cannot be read is an unmeasured result saying why (and counts in
// `*unreadable`). `meta` is the run's, finished_unix set to now.
struct RunResultFiles {
  RunMeta meta;
  std::vector<ScenarioResult> results;
  int unreadable = 0;
};
RunResultFiles LoadRunResults(const Config& config);

// The whole step; its exit status: 0, or 1 when a file could not be read or
// written, the profile or baseline could not be loaded, or a same-run ratio
// check failed.
int WriteRunReport(const Config& config);

}  // namespace fvbench
