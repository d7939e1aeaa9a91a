// Cost of the report side of a run: rendering the console table and the
// results.json document for all six scenarios, and evaluating one scenario
// against a threshold profile. Inputs are the synthetic samples of
// tests/unit/report_samples.h (not measurements).
#include <benchmark/benchmark.h>

#include "support/reference.h"
#include "support/results_io.h"
#include "support/summary_table.h"
#include "support/thresholds.h"
#include "tests/unit/report_samples.h"

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
