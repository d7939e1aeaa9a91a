// The history part of a run's report (report step with FVBENCH_HISTORY set;
// docs/history.md "History and change points"): report.md gets a "History" section and
// BENCH_DIR/report/ one trend plot per scenario (trend_plot.h).
//
//   auto h = LoadHistory(db);                       // history_store.h
//   WithRun(*h, record);                            // + this run, in memory only
//   RenderHistoryReport(BuildSeries(*h), gate, db.Where());
//
// The run itself is recorded by the fvbench.history step that follows (it
// records and gates); the report shows the history as it will be with this
// run, without writing to the store. Pure except HistoryReportForRun.
#pragma once

#include <string>
#include <vector>

#include "support/history/gate.h"
#include "support/history/history_store.h"
#include "support/history/series.h"
#include "support/report/svg_plot.h"

namespace fvbench {

// `history` plus `run` as its newest run (ids after the stored ones), unless a
// run with the same run_key is stored already. Metrics in series order.
void WithRun(History& history, const RunRecord& run);

struct HistoryReport {
  std::string markdown;            // "## History" section, ends with a newline
  std::vector<PlotFile> plots;     // history_<scenario>.svg, scenario order
  std::vector<Regression> regressions;
};

// Per scenario a table (metric, runs, newest value, last change point: run
// position, commits before -> after, means, change, p-value) and a link to its
// plot; first the regressions `check` would report with `gate`.
// `history` given: a change point or regression whose two runs'
// environments differ names what changed (environment_history.h).
HistoryReport RenderHistoryReport(const std::vector<MetricSeries>& series, const GateOptions& gate,
                                  const std::string& where, const History* history = nullptr);

// I/O: reads the history at `location` (history_store.h; where nothing is
// recorded yet, an empty one), reads results.json at `results_json_path`, and
// renders the report with that run added, with the environments of the runs
// at its change points. Writes nothing to the history.
Result<HistoryReport> HistoryReportForRun(const std::string& location, const std::string& results_json_path,
                                          const SeriesOrder& order = {});

}  // namespace fvbench
