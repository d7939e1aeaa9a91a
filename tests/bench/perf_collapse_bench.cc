// CollapsePerfScript on the real perf script capture of an nginx+Lua worker
// (fixtures/perf/nginx_lua_worker.script, 61 samples), and on it repeated 50
// times (~3000 samples, 14 500 lines: a 3 s recording at 999 Hz of one
// busy worker), so the collapse's share of a profiled run is known.
// ParseFolded and RenderFlameSvg of the result for comparison.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/core/folded_stacks.h"
#include "support/judge/perf_collapse.h"
#include "support/report/flame_svg.h"

namespace {

std::string Load(const char* name) {
  std::ifstream in(std::string(FVBENCH_FIXTURES) + "/perf/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Repeated(int times) {
  const std::string one = Load("nginx_lua_worker.script");
  std::string all;
  for (int i = 0; i < times; ++i) all += one;
  return all;
}

void Collapse(benchmark::State& state, const std::string& text) {
  if (text.empty()) {
    state.SkipWithError("fixture missing or empty");
    return;
  }
  for (auto _ : state) {
    auto r = fvbench::CollapsePerfScript(text, "bench");
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_CollapsePerfScriptFixture(benchmark::State& state) { Collapse(state, Load("nginx_lua_worker.script")); }
void BM_CollapsePerfScript3s(benchmark::State& state) { Collapse(state, Repeated(50)); }

void BM_ParseFolded(benchmark::State& state) {
  auto f = fvbench::CollapsePerfScript(Load("nginx_lua_worker.script"), "bench");
  const std::string text = f.ok() ? fvbench::WriteFolded(*f) : "";
  for (auto _ : state) {
    auto r = fvbench::ParseFolded(text, "bench");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(text.size()));
}

void BM_RenderFlameSvg(benchmark::State& state) {
  auto f = fvbench::CollapsePerfScript(Repeated(50), "bench");
  if (!f.ok()) {
    state.SkipWithError(f.error().message.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(fvbench::RenderFlameSvg(*f, fvbench::FlameSvgOptions{}));
}

BENCHMARK(BM_CollapsePerfScriptFixture);
BENCHMARK(BM_CollapsePerfScript3s);
BENCHMARK(BM_ParseFolded);
BENCHMARK(BM_RenderFlameSvg);

}  // namespace
