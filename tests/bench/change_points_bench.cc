// Cost of change-point detection (support/judge/change_points.h) on synthetic
// series (tests/unit/detection_study.h; not measurements):
//   BM_DetectionStudy      the whole study (2 noise kinds x 350 series x 200 runs,
//                          three methods); prints the detection table once
//   BM_Detect10kRuns20Metrics  20 series of 10 000 runs, 2 % noise, a 5 % shift
//                          every 1000 runs: the goal is at most 1 s per iteration
//   BM_DetectOneSeries/n   one series of n runs without a shift
#include <benchmark/benchmark.h>

#include <cstdio>

#include "tests/unit/detection_study.h"

namespace fvbench {
namespace {

using namespace detection_study;

void BM_DetectionStudy(benchmark::State& state) {
  static bool printed = false;
  for (auto _ : state) {
    auto rows = RunStudy();
    if (!printed) {
      std::printf("%s", FormatTable(rows).c_str());
      printed = true;
    }
    benchmark::DoNotOptimize(rows);
  }
}
BENCHMARK(BM_DetectionStudy)->Unit(benchmark::kMillisecond)->Iterations(1);

std::vector<std::vector<double>> LongSeries(size_t runs, int metrics) {
  std::vector<std::vector<double>> out;
  Rng rng(42);
  for (int m = 0; m < metrics; ++m) {
    std::vector<double> x;
    double level = 1000;
    for (size_t i = 0; i < runs; ++i) {
      if (i > 0 && i % 1000 == 0) level *= rng.Uniform() < 0.5 ? 0.95 : 1.05;
      x.push_back(level * (1 + 0.02 * rng.Normal()));
    }
    out.push_back(std::move(x));
  }
  return out;
}

void BM_Detect10kRuns20Metrics(benchmark::State& state) {
  auto series = LongSeries(10000, 20);
  size_t found = 0;
  for (auto _ : state) {
    found = 0;
    for (const auto& x : series) found += FindChangePoints(x).size();
    benchmark::DoNotOptimize(found);
  }
  state.counters["change_points"] = static_cast<double>(found);  // 9 shifts x 20 series planted
}
BENCHMARK(BM_Detect10kRuns20Metrics)->Unit(benchmark::kMillisecond);

void BM_DetectOneSeries(benchmark::State& state) {
  Rng rng(7);
  std::vector<double> x;
  for (int64_t i = 0; i < state.range(0); ++i) x.push_back(1000 * (1 + 0.02 * rng.Normal()));
  for (auto _ : state) benchmark::DoNotOptimize(FindChangePoints(x));
}
BENCHMARK(BM_DetectOneSeries)->Arg(200)->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace fvbench
