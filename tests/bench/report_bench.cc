// Cost of the report side of a run: rendering the console table, the
// results.json document and the Markdown report (and the full report,
// BM_RenderFullReport) for all six scenarios, and evaluating one scenario
// against a threshold profile. Inputs are the synthetic samples of
// tests/unit/report_samples.h (not measurements).
#include <benchmark/benchmark.h>

#include "support/core/json_fields.h"
#include "support/report/markdown_report.h"
#include "support/judge/reference.h"
#include "support/report/results_io.h"
#include "support/report/summary_table.h"
#include "support/report/svg_plot.h"
#include "support/judge/thresholds.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"


namespace fvbench {
namespace {

const Reference& BenchReference() {
  static const Reference ref = [] {
    auto r = LoadReference(FVBENCH_SOURCE_DIR "/reference.json");
    if (!r.ok()) std::abort();
    return *r;
  }();
  return ref;
}

const ThresholdProfile& BenchProfile() {
  static const ThresholdProfile p = [] {
    auto r = LoadThresholdProfile(FVBENCH_SOURCE_DIR "/thresholds/reference-c7i.json");
    if (!r.ok()) std::abort();
    return *r;
  }();
  return p;
}

std::vector<ScenarioResult> BenchRun() {
  auto run = testing_samples::SampleRunAllMeasured();
  for (auto& r : run) r.checks = Evaluate(BenchProfile(), r, &BenchReference());
  return run;
}

void BM_RenderSummaryTable(benchmark::State& state) {
  auto run = BenchRun();
  RunMeta meta = testing_samples::SampleMeta();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string t = RenderSummaryTable(run, meta, &BenchReference());
    bytes = t.size();
    benchmark::DoNotOptimize(t);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderSummaryTable);

void BM_RunResultsToJson(benchmark::State& state) {
  auto run = BenchRun();
  RunMeta meta = testing_samples::SampleMeta();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string j = RunResultsToJson(run, meta);
    bytes = j.size();
    benchmark::DoNotOptimize(j);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RunResultsToJson);

void BM_TableAndResultsJson(benchmark::State& state) {
  auto run = BenchRun();
  RunMeta meta = testing_samples::SampleMeta();
  for (auto _ : state) {
    std::string t = RenderSummaryTable(run, meta, &BenchReference());
    std::string j = RunResultsToJson(run, meta);
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(j);
  }
}
BENCHMARK(BM_TableAndResultsJson);

void BM_RenderMarkdownReport(benchmark::State& state) {
  auto run = testing_samples::SampleRunBisect();
  for (auto& r : run) r.checks = Evaluate(BenchProfile(), r, &BenchReference());
  RunMeta meta = testing_samples::SampleMeta();
  size_t bytes = 0;
  for (auto _ : state) {
    std::string md = RenderMarkdownReport(run, meta, &BenchReference());
    bytes = md.size();
    benchmark::DoNotOptimize(md);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_RenderMarkdownReport);

// Everything fvbench.report renders from the results of a run: the console
// table, results.json, report.md and the SVG plots (all four). File writes
// are not included.
void RenderFullReportLoop(benchmark::State& state, const std::vector<ScenarioResult>& run, const RunMeta& meta) {
  size_t bytes = 0;
  for (auto _ : state) {
    std::string t = RenderSummaryTable(run, meta, &BenchReference());
    std::string j = RunResultsToJson(run, meta);
    std::string md = RenderMarkdownReport(run, meta, &BenchReference());
    auto plots = RenderPlots(run, meta, &BenchReference());
    bytes = t.size() + j.size() + md.size();
    for (const auto& p : plots) bytes += p.svg.size();
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(j);
    benchmark::DoNotOptimize(md);
    benchmark::DoNotOptimize(plots);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel("table + results.json + report.md + SVG plots");
}

// A full run: six scenarios, the throughput ones by a 10-step bisect search
// (synthetic samples).
void BM_RenderFullReport(benchmark::State& state) {
  auto run = testing_samples::SampleRunBisect();
  for (auto& r : run) r.checks = Evaluate(BenchProfile(), r, &BenchReference());
  RenderFullReportLoop(state, run, testing_samples::SampleMeta());
}
BENCHMARK(BM_RenderFullReport);

void BM_RenderPlots(benchmark::State& state) {
  auto run = testing_samples::SampleRunBisect();
  RunMeta meta = testing_samples::SampleMeta();
  for (auto _ : state) {
    auto plots = RenderPlots(run, meta, &BenchReference());
    benchmark::DoNotOptimize(plots);
  }
}
BENCHMARK(BM_RenderPlots);

void BM_RunResultsToJsonBisect(benchmark::State& state) {
  auto run = testing_samples::SampleRunBisect();
  RunMeta meta = testing_samples::SampleMeta();
  for (auto _ : state) {
    std::string j = RunResultsToJson(run, meta);
    benchmark::DoNotOptimize(j);
  }
}
BENCHMARK(BM_RunResultsToJsonBisect);

// The same work on a recorded run instead of synthetic samples: a full local
// run (six scenarios, bisect searches, validity and SUT usage per step; its
// results.json is ~190 kB, the synthetic one ~35 kB) as fvbench wrote it,
// read once outside the timed loop. Paths in the file were replaced by
// placeholders; nothing else was edited.
const RunResults* RecordedRun(benchmark::State& state) {
  static const std::string path = FVBENCH_FIXTURES "/report/recorded_local_run.json";
  static const Result<RunResults> rec = [] {
    auto text = detail::ReadTextFile(path);
    if (!text.ok()) return Result<RunResults>(text.error());
    return RunResultsFromJson(*text, path);
  }();
  if (!rec.ok()) {
    state.SkipWithError(rec.error().message.c_str());
    return nullptr;
  }
  return &*rec;
}

void BM_RenderFullReportRecordedRun(benchmark::State& state) {
  const RunResults* rec = RecordedRun(state);
  if (rec != nullptr) RenderFullReportLoop(state, rec->scenarios, rec->meta);
}
BENCHMARK(BM_RenderFullReportRecordedRun);

// Its parts, to see where the time goes: `part` renders one of them.
template <typename Part>
void RecordedRunPartLoop(benchmark::State& state, Part part) {
  const RunResults* rec = RecordedRun(state);
  if (rec == nullptr) return;
  for (auto _ : state) benchmark::DoNotOptimize(part(*rec));
}

void BM_RecordedRunTable(benchmark::State& state) {
  RecordedRunPartLoop(state,
                      [](const RunResults& r) { return RenderSummaryTable(r.scenarios, r.meta, &BenchReference()); });
}
BENCHMARK(BM_RecordedRunTable);

void BM_RecordedRunResultsJson(benchmark::State& state) {
  RecordedRunPartLoop(state, [](const RunResults& r) { return RunResultsToJson(r.scenarios, r.meta); });
}
BENCHMARK(BM_RecordedRunResultsJson);

void BM_RecordedRunMarkdown(benchmark::State& state) {
  RecordedRunPartLoop(state,
                      [](const RunResults& r) { return RenderMarkdownReport(r.scenarios, r.meta, &BenchReference()); });
}
BENCHMARK(BM_RecordedRunMarkdown);

void BM_RecordedRunPlots(benchmark::State& state) {
  RecordedRunPartLoop(state, [](const RunResults& r) {
    return RenderPlots(r.scenarios, r.meta, &BenchReference());
  });
}
BENCHMARK(BM_RecordedRunPlots);

void BM_EvaluateOneScenario(benchmark::State& state) {
  ScenarioResult r = testing_samples::SampleLatency("latency.raw_nginx", 71.4, 446.2);
  for (auto _ : state) {
    auto checks = Evaluate(BenchProfile(), r, &BenchReference());
    benchmark::DoNotOptimize(checks);
  }
}
BENCHMARK(BM_EvaluateOneScenario);

}  // namespace
}  // namespace fvbench
