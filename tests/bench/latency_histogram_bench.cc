// Merging the latency histograms of several load generators:
// 4 instances of a 100 000 RPS x 60 s phase (6 M samples each) must merge in
// at most 10 ms, with memory independent of the request count: a histogram is
// kBuckets counters whatever it holds (reported as bytes_per_histogram).
//   build/tests/latency_histogram_bench --benchmark_filter=Merge
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "support/core/latency_histogram.h"
#include "support/core/latency_histogram_json.h"

namespace {

using fvbench::LatencyHistogram;

constexpr uint64_t kSamplesPerInstance = 100000ull * 60;  // 100 000 RPS x 60 s

// One instance's phase: lognormal latencies around 800 µs with a slow tail.
LatencyHistogram Instance(uint64_t seed, uint64_t samples) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> latency(6.7, 0.7);
  LatencyHistogram h;
  for (uint64_t i = 0; i < samples; ++i) h.RecordUs(latency(rng));
  (void)h.RecordTimeouts(samples / 100000, 10e6);
  return h;
}

const std::vector<std::string>& StoredInstances() {
  static const std::vector<std::string> docs = [] {
    std::vector<std::string> out;
    for (uint64_t i = 0; i < 4; ++i) out.push_back(fvbench::HistogramToJson(Instance(i + 1, kSamplesPerInstance)).dump());
    return out;
  }();
  return docs;
}

// The controller's work: decode the 4 stored histograms, merge, read the percentiles.
void BM_DecodeMergeFour100kRpsX60s(benchmark::State& state) {
  const auto& docs = StoredInstances();
  for (auto _ : state) {
    LatencyHistogram merged;
    for (const std::string& d : docs) {
      auto h = fvbench::ParseHistogramJson(d, "bench");
      if (!h.ok() || !merged.Merge(*h).ok()) {
        state.SkipWithError("decode or merge failed");
        return;
      }
    }
    benchmark::DoNotOptimize(merged.ToLatencyUs());
  }
  size_t bytes = 0;
  for (const std::string& d : docs) bytes += d.size();
  state.counters["stored_bytes_per_instance"] = static_cast<double>(bytes) / 4;
  state.counters["bytes_per_histogram"] = LatencyHistogram::kBuckets * sizeof(uint64_t);
}

// Merge alone, on already decoded histograms; the sample count does not matter (Arg = samples).
void BM_MergeFour(benchmark::State& state) {
  std::vector<LatencyHistogram> parts;
  for (uint64_t i = 0; i < 4; ++i) parts.push_back(Instance(i + 1, static_cast<uint64_t>(state.range(0))));
  for (auto _ : state) {
    LatencyHistogram merged;
    for (const auto& p : parts) (void)merged.Merge(p);
    benchmark::DoNotOptimize(merged.ToLatencyUs());
  }
}

// Recording one sample (what the k6 reducer and pace.lua do per request).
void BM_RecordUs(benchmark::State& state) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> latency(6.7, 0.7);
  std::vector<double> values(1 << 16);
  for (double& v : values) v = latency(rng);
  LatencyHistogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.RecordUs(values[i++ & 0xffff]);
  }
  benchmark::DoNotOptimize(h.recorded());
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

BENCHMARK(BM_DecodeMergeFour100kRpsX60s)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MergeFour)->Arg(1000)->Arg(kSamplesPerInstance)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RecordUs);

}  // namespace
