#include "support/history/history_report.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "support/core/json_fields.h"
#include "support/core/run_meta.h"
#include "support/core/text.h"
#include "support/history/environment_history.h"
#include "support/history/trend_plot.h"
#include "support/report/markdown_text.h"

namespace fvbench {
namespace {

std::string LastChange(const MetricSeries& s, const History* history) {
  if (s.change_points.empty()) return "none";
  const ChangePoint& cp = s.change_points.back();
  std::string out = fmt::format("#{}: `{}` -> `{}`, {:.6g} -> {:.6g} ({}), p = {:.3g}", cp.index,
                     detail::ShortCommit(s.points[cp.index - 1].edge_commit), detail::ShortCommit(s.points[cp.index].edge_commit), cp.mean_before,
                     cp.mean_after, ChangeText(s.metric, cp), cp.p_value);
  if (history != nullptr) {
    const std::string note = EnvironmentChangeNote(*history, s.points[cp.index - 1].run_id, s.points[cp.index].run_id);
    if (!note.empty()) out += "; " + detail::MarkdownCell(note);
  }
  return out;
}

std::string ScenarioTable(const std::vector<MetricSeries>& series, const std::string& scenario,
                          const History* history) {
  std::string out = fmt::format("### {}\n\n![history of {}]({})\n\n", scenario, scenario, TrendPlotFileName(scenario));
  out += "| metric | runs | newest | change points | last change point (run #: commits, means, change, p) |\n"
         "|---|---:|---:|---:|---|\n";
  for (const MetricSeries& s : series) {
    if (s.scenario != scenario || s.points.empty()) continue;
    out += fmt::format("| {} | {} | {:.6g} | {} | {} |\n", s.metric, s.points.size(), s.points.back().value,
                       s.change_points.size(), LastChange(s, history));
  }
  return out + "\n";
}

}  // namespace

void WithRun(History& history, const RunRecord& run) {
  for (const StoredRun& r : history.runs) {
    if (r.run_key == run.run_key) return;
  }
  int64_t id = 1;
  for (const StoredRun& r : history.runs) id = std::max(id, r.id + 1);
  history.runs.push_back({id, run.started_unix, run.edge_commit, run.edge_ref, run.usable, run.note, run.run_key});
  for (const MetricRow& m : run.metrics) history.metrics.push_back({id, m.scenario, m.metric, m.value, m.usable});
  history.environments[id] = run.environments;
  // BuildSeries orders the points itself; runs must stay by start time.
  std::stable_sort(history.runs.begin(), history.runs.end(), [](const StoredRun& a, const StoredRun& b) {
    return a.started_unix != b.started_unix ? a.started_unix < b.started_unix : a.id < b.id;
  });
}

HistoryReport RenderHistoryReport(const std::vector<MetricSeries>& series, const GateOptions& gate,
                                  const std::string& where, const History* history) {
  HistoryReport report;
  report.regressions = FindRegressions(series, gate);
  std::set<std::string> scenarios;
  for (const MetricSeries& s : series) scenarios.insert(s.scenario);
  std::string& md = report.markdown;
  md = fmt::format("## History\n\n{} series of {} scenario(s) in `{}`, this run included; change points by "
                   "E-Divisive (docs/history.md \"History and change points\"). ",
                   series.size(), scenarios.size(), where);
  if (report.regressions.empty()) {
    md += fmt::format("No significant change for the worse of >= {:.1f}% among the newest {} runs.\n\n",
                      100 * gate.min_effect, gate.recent_runs);
  } else {
    md += fmt::format("**{} regression(s)** among the newest {} runs:\n\n", report.regressions.size(),
                      gate.recent_runs);
    for (const Regression& r : report.regressions) {
      for (const MetricSeries& s : series) {
        if (s.scenario == r.scenario && s.metric == r.metric) md += "- " + DescribeRegression(r, s, history) + "\n";
      }
    }
    md += "\n";
  }
  for (const std::string& scenario : scenarios) {
    md += ScenarioTable(series, scenario, history);
    std::string svg = RenderTrendPlot(series, scenario);
    if (!svg.empty()) report.plots.push_back({TrendPlotFileName(scenario), std::move(svg)});
  }
  return report;
}

Result<HistoryReport> HistoryReportForRun(const std::string& location, const std::string& results_json_path,
                                          const SeriesOrder& order) {
  // The first run of a new history: nothing recorded yet, the run alone.
  bool nothing_recorded = false;
  auto db = OpenHistoryForReading(location, &nothing_recorded);
  if (!db.ok() && !nothing_recorded) return db.error();
  Result<History> history = db.ok() ? LoadHistory(**db) : History{};
  if (!history.ok()) return history.error();
  auto text = detail::ReadTextFile(results_json_path);
  if (!text.ok()) return text.error();
  auto run = RunRecordFromResultsJson(*text, results_json_path);
  if (!run.ok()) return run.error();
  WithRun(*history, *run);
  const std::vector<MetricSeries> series = BuildSeries(*history, {}, order);
  if (db.ok()) {
    if (auto envs = LoadRunEnvironments(**db, ChangePointRuns(series), *history); !envs.ok()) return envs.error();
  }
  return RenderHistoryReport(series, GateOptions{}, LocationForMessages(location), &*history);
}

}  // namespace fvbench
