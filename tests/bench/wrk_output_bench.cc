// ParseWrkOutput on recorded pace.lua outputs (fixtures/wrk/). One phase
// produces one such document, so this bounds the parser's share of a run.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/engine/wrk_output.h"

namespace {

std::string Load(const char* name) {
  std::ifstream in(std::string(FVBENCH_FIXTURES) + "/wrk/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Parse(benchmark::State& state, const char* name, double target) {
  const std::string text = Load(name);
  if (text.empty()) {
    state.SkipWithError("fixture missing or empty");
    return;
  }
  for (auto _ : state) {
    auto r = fvbench::ParseWrkOutput(text, name, target);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}

void BM_ParseWrkPaced(benchmark::State& state) { Parse(state, "paced_get_2000rps.json", 2000); }
void BM_ParseWrkCounted(benchmark::State& state) { Parse(state, "status_429_counted.json", 1000); }
void BM_ParseWrkTruncated(benchmark::State& state) {
  const std::string text = Load("bad_truncated.json");
  for (auto _ : state) {
    auto r = fvbench::ParseWrkOutput(text, "bad_truncated.json", 2000);
    benchmark::DoNotOptimize(r);
  }
}

// Baseline: nlohmann::json::parse alone on the same text, to separate the
// JSON library's cost from the field checks.
void BM_JsonParseOnly(benchmark::State& state) {
  const std::string text = Load("paced_get_2000rps.json");
  for (auto _ : state) {
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    benchmark::DoNotOptimize(j);
  }
}

BENCHMARK(BM_JsonParseOnly);
BENCHMARK(BM_ParseWrkPaced);
BENCHMARK(BM_ParseWrkCounted);
BENCHMARK(BM_ParseWrkTruncated);

}  // namespace
