// Cost of the results history on an SQLite file in /tmp (support/history):
//   BM_AppendRunSqlite        one run (a perturbed copy of
//                             fixtures/report/recorded_local_run.json, 32
//                             metrics + the document) per iteration; the
//                             bound: 10 ms
//   BM_LoadAndDetectSqlite/n  read a history of n runs and find the change
//                             points of all its series (what show/check do)
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <filesystem>

#include "support/history/history_store.h"
#include "support/history/series.h"
#include "tests/unit/history_samples.h"

namespace fvbench {
namespace {

std::string FreshPath(const char* name) {
  std::string path = fmt::format("/tmp/fvb-history-bench-{}-{}.sqlite", ::getpid(), name);
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  return path;
}

void BM_AppendRunSqlite(benchmark::State& state) {
  const std::string path = FreshPath("append");
  auto db = OpenHistoryForWriting(path);
  if (!db.ok()) std::abort();
  detection_study::Rng rng(1);
  auto base = RunRecordFromResultsJson(history_samples::PerturbedRun(0, rng), "bench");
  if (!base.ok()) std::abort();
  int64_t i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    RunRecord r = *base;
    r.run_key += std::to_string(i);
    r.started_unix += static_cast<double>(++i);
    state.ResumeTiming();
    if (!AppendRun(**db, r, 1.0).ok()) std::abort();
  }
  db->reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
}
BENCHMARK(BM_AppendRunSqlite)->Unit(benchmark::kMillisecond);

void BM_LoadAndDetectSqlite(benchmark::State& state) {
  const std::string path = FreshPath("load");
  auto db = OpenHistoryForWriting(path);
  if (!db.ok()) std::abort();
  detection_study::Rng rng(2);
  for (int64_t i = 0; i < state.range(0); ++i) {
    auto r = RunRecordFromResultsJson(history_samples::PerturbedRun(static_cast<int>(i), rng), "bench");
    if (!r.ok() || !AppendRun(**db, *r, 1.0).ok()) std::abort();
  }
  for (auto _ : state) {
    auto h = LoadHistory(**db);
    if (!h.ok()) std::abort();
    benchmark::DoNotOptimize(BuildSeries(*h));
  }
  db->reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
}
BENCHMARK(BM_LoadAndDetectSqlite)->Arg(200)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fvbench
