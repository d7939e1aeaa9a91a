#include "support/report/report_step.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "support/core/bench_layout.h"
#include "support/core/connection_string.h"
#include "support/core/json_fields.h"
#include "support/judge/ratios.h"
#include "support/judge/reference.h"
#include "support/judge/thresholds.h"
#include "support/report/baseline.h"
#include "support/report/html_report.h"
#include "support/report/markdown_report.h"
#include "support/report/profile_flames.h"
#include "support/report/results_io.h"
#include "support/report/run_report.h"
#include "support/report/summary_table.h"
#include "support/report/svg_plot.h"

namespace fvbench {
namespace {

namespace fs = std::filesystem;

void Problem(const std::string& message) { std::fprintf(stderr, "fvbench report: %s\n", message.c_str()); }

// Every scenario id, in report order (kLatencyScenarios, kThroughputScenarios, kLimitsScenarios).
std::vector<std::string> ScenarioIds() {
  std::vector<std::string> ids(std::begin(kLatencyScenarios), std::end(kLatencyScenarios));
  ids.insert(ids.end(), std::begin(kThroughputScenarios), std::end(kThroughputScenarios));
  ids.insert(ids.end(), std::begin(kLimitsScenarios), std::end(kLimitsScenarios));
  return ids;
}

RunMeta LoadMeta(const std::string& bench_dir) {
  RunMeta meta;
  const std::string path = layout::RunMetaPath(bench_dir);
  if (auto text = detail::ReadTextFile(path); text) {
    auto m = RunMetaFromJson(*text, path);
    if (m) meta = *m;
    else std::fprintf(stderr, "fvbench report: %s (meta left empty)\n", m.error().message.c_str());
  }
  meta.finished_unix = NowUnix();
  return meta;
}

// The comparison of the table, plots and report.md: FVBENCH_BASELINE when
// set (and readable), else the reference; counts an unreadable baseline.
std::optional<Reference> LoadComparison(const Config& config, int& bad) {
  auto reference = LoadReference(config.reference);
  if (!reference) std::fprintf(stderr, "fvbench report: %s (no reference shown)\n", reference.error().message.c_str());
  if (!config.baseline.empty()) {
    auto b = LoadBaseline(config.baseline);
    if (b) return std::move(*b);
    std::fprintf(stderr, "fvbench report: FVBENCH_BASELINE: %s (no baseline shown)\n", b.error().message.c_str());
    ++bad;
  }
  if (reference) return std::move(*reference);
  return std::nullopt;
}

// SVG plots (svg_plot.h): latency.svg and throughput_<policy>.svg, with the
// pass rule each throughput search used (ScenarioResult::search_rule); only
// those of scenarios that were run (PlotFilesOfRun, as report.md links them).
// A plot left from an earlier run for a scenario not run now is removed: it
// is not this report's. So is a timeline (timeline_plot.h,
// steps_timeline_plot.h, ab_timeline_plot.h) of a scenario whose phase,
// steps or A/B runs have no intervals now.
void WritePlots(const RunReport& report, const std::string& report_dir, int& bad) {
  const std::vector<std::string> wanted = PlotFilesOfRun(report.results);
  std::vector<fs::path> stale;
  std::error_code ec;
  for (fs::directory_iterator it(report_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const bool timeline = name.rfind("timeline_", 0) == 0 || name.rfind("steps_timeline_", 0) == 0 ||
                          name.rfind("ab_timeline_", 0) == 0;
    if (!timeline || it->path().extension() != ".svg") continue;
    if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) stale.push_back(it->path());
  }
  for (const fs::path& p : stale) {
    std::error_code rm;
    fs::remove(p, rm);
  }
  std::string names;
  for (const PlotFile& f : RenderPlots(report)) {
    if (std::find(wanted.begin(), wanted.end(), f.name) == wanted.end()) {
      std::error_code rm;
      fs::remove(report_dir + "/" + f.name, rm);
      continue;
    }
    if (auto w = detail::WriteTextFile(report_dir + "/" + f.name, f.svg); !w) {
      Problem(w.error().message);
      ++bad;
    }
    names += (names.empty() ? "" : ", ") + f.name;
  }
  std::printf("plots in %s: %s\n", report_dir.c_str(), names.empty() ? "none (no scenario was run)" : names.c_str());
}

// summary.txt, results.json and report.md; counts the files not written.
void WriteReportFiles(const std::string& table, const RunReport& report, const std::string& report_dir, int& bad) {
  auto w1 = detail::WriteTextFile(report_dir + "/summary.txt", table);
  auto w2 = SaveRunResults(report_dir + "/results.json", report);
  auto w3 = detail::WriteTextFile(report_dir + "/report.md", RenderMarkdownReport(report));
  for (const Result<void>* w : {&w1, &w2, &w3}) {
    if (!*w) {
      Problem(w->error().message);
      ++bad;
    }
  }
}

// report.html (html_report.h) from report.md as it was written, the history's
// section included, and the SVG files beside it; a failure leaves the others.
void WriteHtmlReport(const std::string& report_dir, int& bad) {
  auto md = detail::ReadTextFile(report_dir + "/report.md");
  std::map<std::string, std::string> svgs;
  std::error_code ec;
  for (fs::directory_iterator it(report_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".svg" || !it->is_regular_file()) continue;
    auto svg = detail::ReadTextFile(it->path().string());
    if (svg) svgs[it->path().filename().string()] = std::move(*svg);
    else Problem("report.html: " + svg.error().message + " (not in the page)");
  }
  auto html = md ? RenderHtmlReport(*md, svgs, "fvbench report") : Result<std::string>(md.error());
  auto w = html ? detail::WriteTextFile(report_dir + "/report.html", *html) : Result<void>(html.error());
  if (!w) {
    Problem("report.html not written: " + w.error().message);
    ++bad;
  }
}

// The history's section of report.md and its plots (ReportExtension).
void AddHistory(const Config& config, const ReportExtension& history, const std::string& report_dir, int& bad) {
  auto add = history(config.history, report_dir + "/results.json");
  if (!add) {
    Problem("FVBENCH_HISTORY: " + RedactConnectionSecrets(add.error().message, config.history) +
            " (no history in the report)");
    ++bad;
    return;
  }
  auto md = detail::ReadTextFile(report_dir + "/report.md");
  auto w = md ? detail::WriteTextFile(report_dir + "/report.md", *md + "\n" + add->markdown) : Result<void>(md.error());
  std::vector<Result<void>> written{w};
  for (const PlotFile& f : add->plots) written.push_back(detail::WriteTextFile(report_dir + "/" + f.name, f.svg));
  for (const Result<void>& r : written) {
    if (!r) {
      Problem(r.error().message);
      ++bad;
    }
  }
  std::printf("history %s: section in report.md, %zu trend plot(s) in %s\n",
              RedactConnectionString(config.history).c_str(), add->plots.size(),
              report_dir.c_str());
}

// LoadRunResults with the run's meta already read.
RunResultFiles LoadResultsOfRun(const Config& config, RunMeta meta) {
  RunResultFiles run;
  run.meta = std::move(meta);
  for (const std::string& id : ScenarioIds()) {
    std::string path = layout::ScenarioResultPath(config.bench_dir, id);
    if (!fs::exists(path)) continue;
    auto r = LoadScenarioResult(path);
    if (!r) {
      // Shown as FAILED with the reason in the table, not silently dropped.
      Problem(r.error().message);
      ++run.unreadable;
      ScenarioResult unreadable;
      unreadable.id = id;
      unreadable.error = "result file unreadable: " + r.error().message;
      run.results.push_back(std::move(unreadable));
      continue;
    }
    if (FromEarlierRun(*r, run.meta.started_unix)) {
      r->notes.push_back("from an earlier ctest run, measured at " + FormatUtc(r->started_unix));
    }
    run.results.push_back(std::move(*r));
  }
  // The run ended when its last scenario finished, not when this report was
  // rendered (a report rendered again later kept the later time).
  double last = 0;
  for (const ScenarioResult& r : run.results) {
    if (!FromEarlierRun(r, run.meta.started_unix)) last = std::max(last, r.finished_unix);
  }
  if (last > 0) run.meta.finished_unix = last;
  return run;
}

}  // namespace

RunResultFiles LoadRunResults(const Config& config) { return LoadResultsOfRun(config, LoadMeta(config.bench_dir)); }

int WriteRunReport(const Config& config, const ReportExtension& history) {
  RunMeta meta = LoadMeta(config.bench_dir);
  if (meta.provision_incomplete) {
    // A report now would pass or fail on earlier runs' results alone.
    std::fprintf(stderr,
                 "fvbench report: this run's provisioning did not finish (%s/run_meta.json: provision_incomplete), "
                 "so nothing was measured in it; no report written. The earlier run's report is in "
                 "%s/report/previous/\n",
                 layout::ControllerDir(config.bench_dir).c_str(), config.bench_dir.c_str());
    return 1;
  }
  RunResultFiles run = LoadResultsOfRun(config, std::move(meta));
  int bad = run.unreadable;
  const std::optional<Reference> comparison = LoadComparison(config, bad);
  auto profile = LoadThresholdProfile(config.thresholds);
  if (!profile) {
    std::fprintf(stderr, "fvbench report: %s (ratio checks not evaluated)\n", profile.error().message.c_str());
    ++bad;
  }
  const std::string report_dir = layout::ReportDir(config.bench_dir);
  std::error_code ec;
  fs::create_directories(report_dir, ec);
  // The flame graphs of FVBENCH_PROFILE's profiles (profile_flames.h), before
  // the report is built: their summaries are part of results.json.
  for (const std::string& p : WriteProfileFlames(run.results, layout::ControllerDir(config.bench_dir), report_dir)) {
    Problem("flame graph: " + p);
    ++bad;
  }
  // Built once: every file below only formats it (run_report.h).
  const RunReport report = BuildRunReport(std::move(run.results), std::move(run.meta),
                                          comparison ? &*comparison : nullptr, profile ? &*profile : nullptr);
  for (const std::string& failed : report.failed_ratio_checks) {
    std::fprintf(stderr, "fvbench report: ratio check FAILED: %s\n", failed.c_str());
  }
  std::string table = RenderSummaryTable(report);
  std::printf("%s\n", table.c_str());
  WritePlots(report, report_dir, bad);
  WriteReportFiles(table, report, report_dir, bad);
  if (!config.history.empty() && history) AddHistory(config, history, report_dir, bad);
  WriteHtmlReport(report_dir, bad);
  std::printf("report: %s/summary.txt, %s/results.json, %s/report.md, %s/report.html; per-scenario results and raw "
              "engine outputs in %s\n",
              report_dir.c_str(), report_dir.c_str(), report_dir.c_str(), report_dir.c_str(),
              layout::ControllerDir(config.bench_dir).c_str());
  const size_t ratio_failures = report.failed_ratio_checks.size();
  if (ratio_failures > 0) {
    std::fprintf(stderr, "fvbench report: %zu same-run ratio check(s) failed (profile %s)\n", ratio_failures,
                 config.thresholds.c_str());
  }
  return bad == 0 && ratio_failures == 0 ? 0 : 1;
}

}  // namespace fvbench
