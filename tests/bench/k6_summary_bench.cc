// ParseK6Summary on a recorded handleSummary fixture. Target: one summary
// parsed in <= 0.2 ms (the suite parses one per phase / search step).
//   ./k6_summary_bench --benchmark_min_time=0.5
#include <fstream>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>

#include "support/engine/k6_summary.h"
#include "support/judge/reference.h"
#include "support/core/scenario_result.h"
#include "support/judge/thresholds.h"

namespace {

std::string ReadFixture(const std::string& name) {
  std::ifstream in(std::string(FVBENCH_FIXTURES) + "/k6/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_ParseK6Summary(benchmark::State& state, const char* fixture) {
  const std::string text = ReadFixture(fixture);
  if (text.empty()) {
    state.SkipWithError("fixture missing or empty");
    return;
  }
  if (auto r = fvbench::ParseK6Summary(text, fixture, 10000); !r.ok()) {
    state.SkipWithError(r.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto r = fvbench::ParseK6Summary(text, fixture, 10000);
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

BENCHMARK_CAPTURE(BM_ParseK6Summary, handle_summary, "handle_summary_latency_ok.json")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_ParseK6Summary, summary_export, "summary_export_dropped.json")
    ->Unit(benchmark::kMicrosecond);

// The target: parse AND gate one k6 summary in-process in <= 0.2 ms
// (the seed's jq + bc pipeline took ~224 ms per file). Gating = Evaluate()
// against the shipped reference-machine profile with the reference attached,
// the same calls the scenario test makes.
void BM_ParseAndGateK6Summary(benchmark::State& state) {
  const char* fixture = "handle_summary_latency_ok.json";
  const std::string text = ReadFixture(fixture);
  const std::string src = std::string(FVBENCH_FIXTURES) + "/..";
  auto profile = fvbench::LoadThresholdProfile(src + "/thresholds/reference-c7i.json");
  auto reference = fvbench::LoadReference(src + "/reference.json");
  if (text.empty() || !profile.ok() || !reference.ok()) {
    state.SkipWithError("fixture, profile or reference missing");
    return;
  }
  for (auto _ : state) {
    auto load = fvbench::ParseK6Summary(text, fixture, 10000);
    fvbench::ScenarioResult r;
    r.id = "latency.decision_service";
    r.measured = load.ok();
    if (load.ok()) r.load = std::move(load).value();
    auto checks = fvbench::Evaluate(*profile, r, &*reference);
    benchmark::DoNotOptimize(checks);
  }
}
BENCHMARK(BM_ParseAndGateK6Summary)->Unit(benchmark::kMicrosecond);

}  // namespace
