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
//     -> RenderHtmlReport     report/report.html (html_report.h: report.md, with
//                             the history's section, and the SVGs beside it in one page)
//
// With FVBENCH_BASELINE the table, plots and report.md compare with that
// earlier run instead of the reference (baseline.h); thresholds keep the
// reference. Problems are printed to stderr prefixed "fvbench report: ".
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/run_meta.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/report/svg_plot.h"

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

// A part of the report made outside this layer: with FVBENCH_HISTORY set
// (Config::history), the results history's section of report.md and its trend
// plots (support/history/history_report.h; the fixture main passes it). Given
// the history location and the path of the results.json just written; an
// error is printed and counts as a file not written. The location is printed
// as RedactConnectionString shows it (core/connection_string.h: host and
// database only), never with a password.
struct ReportAddition {
  std::string markdown;          // appended to report.md
  std::vector<PlotFile> plots;   // written beside it
};
using ReportExtension = std::function<Result<ReportAddition>(const std::string& history, const std::string& results_json)>;

// The whole step; its exit status: 0, or 1 when a file could not be read or
// written, the profile or baseline could not be loaded, a same-run ratio
// check failed, or `history` (called only when config.history is set) failed.
// After a provision that did not finish (run_meta.json provision_incomplete,
// run_outputs.h) it writes nothing and returns 1: the only results there are
// earlier runs', and a report of them would read as this run's verdict.
int WriteRunReport(const Config& config, const ReportExtension& history = {});

}  // namespace fvbench
