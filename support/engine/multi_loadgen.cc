#include "support/engine/multi_loadgen.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/engine/k6_engine.h"
#include "support/engine/wrk_engine.h"
#include "support/engine/wrk_output.h"
#include "support/judge/loadgen_merge.h"
#include "support/judge/loadgen_shards.h"

namespace fvbench {

LoadSpec ProcessSpec(const LoadSpec& spec, size_t i, size_t n, const std::string& cpuset, double start_epoch_us,
                     double lead_s) {
  const ShardPlan shard = PlanShards(spec.rate_rps, n).at(i);
  LoadSpec s = spec;
  s.phase = fmt::format("{}_lg{}", spec.phase, i + 1);
  s.rate_rps = shard.rate_rps;
  s.offset_us = shard.offset_us;
  s.k6_segment = shard.k6_segment;  // k6 only; wrk keeps to its offset
  s.k6_sequence = shard.k6_sequence;
  if (spec.connections > 0) s.connections = static_cast<int>((spec.connections + n - 1) / n);
  s.cpuset = cpuset;
  s.start_epoch_us = start_epoch_us;
  s.start_wait_s = lead_s;
  s.latency_histogram = true;
  return s;
}

double NextLoadgenLeadS(double slowest_launch_s) {
  if (!(slowest_launch_s >= 0)) return kLoadgenStartLeadS;
  return std::clamp(2 * slowest_launch_s + kLoadgenLeadMarginS, kLoadgenMinLeadS, kLoadgenStartLeadS);
}

namespace {

double SystemNowEpochUs() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<microseconds>(system_clock::now().time_since_epoch()).count());
}

// One process's run, read back with what the merge needs beyond LoadResult
// (engine-neutral): its measured window on the common start's clock, when
// it was ready to start, and its histogram.
struct ProcessOutcome {
  Result<LoadResult> result = Error{"not run"};
  double start_epoch_us = 0;  // wrk: its first send mapped back to the common start; k6: resumed
  double end_epoch_us = 0;
  double ready_epoch_us = 0;  // wrk started / k6's REST API answered (paused); 0: not written
  LatencyHistogram histogram;
};

class MultiLoadgenEngine : public LoadEngine {
 public:
  MultiLoadgenEngine(std::vector<LoadgenProcess> processes, MultiLoadgenOptions options)
      : processes_(std::move(processes)), options_(std::move(options)), lead_s_(options_.lead_s) {
    if (!options_.now_epoch_us) options_.now_epoch_us = SystemNowEpochUs;
  }

  std::string name() const override { return processes_.front().engine->name(); }
  Result<std::string> version() override { return processes_.front().engine->version(); }

  // Every process warms up at its share, at the same time (no common start).
  Result<void> warmup(const LoadSpec& spec, const std::string& remote_dir) override {
    if (auto ok = CheckEngines(); !ok) return ok;
    std::vector<Result<void>> results(processes_.size(), Ok());
    ForEachProcess([&](size_t i) {
      // Its share, connections and CPUs as in run(), but unsynchronised,
      // whole (no k6 segment: rate / n each) and without a histogram.
      LoadSpec s = ProcessSpec(spec, i, processes_.size(), processes_[i].cpuset, 0, 0);
      s.offset_us = 0;
      s.k6_segment.clear();
      s.k6_sequence.clear();
      s.latency_histogram = false;
      results[i] = processes_[i].engine->warmup(s, remote_dir);
    });
    std::string failed;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) failed += fmt::format("{}loadgen {}: {}", failed.empty() ? "" : "; ", processes_[i].name,
                                             results[i].error().message);
    }
    if (!failed.empty()) return Error{failed};
    return Ok();
  }

  Result<LoadResult> run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    if (auto ok = CheckEngines(); !ok) return ok.error();
    const size_t n = processes_.size();
    const double lead_s = lead_s_;
    const double launch = options_.now_epoch_us();
    const double start = StartEpochUs(launch, lead_s * 1e6);
    std::vector<LoadSpec> specs;
    for (size_t i = 0; i < n; ++i) {
      specs.push_back(ProcessSpec(spec, i, n, processes_[i].cpuset, start, lead_s));
    }
    std::vector<ProcessOutcome> outcomes(n);
    ForEachProcess([&](size_t i) { outcomes[i] = RunOne(i, specs[i], remote_dir, controller_dir); });
    std::string failed;
    for (size_t i = 0; i < n; ++i) {
      if (!outcomes[i].result) {
        failed += fmt::format("{}loadgen {}: {}", failed.empty() ? "" : "; ", processes_[i].name,
                              outcomes[i].result.error().message);
      }
    }
    if (!failed.empty()) {
      return Error{fmt::format("phase {} with {} load generators: {} (the other processes' outputs are in {})",
                               spec.phase, n, failed, controller_dir)};
    }
    std::vector<InstanceRun> runs;
    std::vector<double> launches;  // controller's launch -> ready to start (s); < 0: not written
    for (size_t i = 0; i < n; ++i) {
      runs.push_back(Instance(i, specs[i], outcomes[i]));
      const double w = outcomes[i].ready_epoch_us;
      launches.push_back(w > 0 ? (w - launch) / 1e6 : -1);
      slowest_launch_s_ = std::max(slowest_launch_s_, launches.back());
    }
    lead_s_ = NextLoadgenLeadS(slowest_launch_s_);
    auto merged = MergeLoadgens(runs, options_.validity);
    if (!merged) return Error{fmt::format("phase {}: {}", spec.phase, merged.error().message)};
    LoadResult m = std::move(merged->merged);
    m.validity_failure.clear();  // the runner judges loadgen_checks with the phase's own checks
    m.target_rps = spec.rate_rps;
    // The load's wall time runs from the common start: the lead before it
    // (launch, connect, wait) is fixed cost, not load, and a search does not
    // count it against THROUGHPUT_BUDGET_S (a 3 s step was charged 6.02 s).
    for (const auto& o : outcomes) m.wall_s = std::max(m.wall_s, o.result->wall_s);
    m.wall_s = std::max(0.0, m.wall_s - (start - launch) / 1e6);
    m.raw_path = controller_dir + "/" + spec.phase + ".json";
    if (auto w = detail::WriteTextFile(m.raw_path, Summary(spec, start, lead_s, specs, runs, launches, m).dump(2) + "\n");
        !w) {
      return Error{fmt::format("phase {}: {}", spec.phase, w.error().message)};
    }
    return m;
  }

 private:
  Result<void> CheckEngines() const {
    if (processes_.size() < 2) return Error{"several load generators: fewer than 2 processes"};
    const std::string engine = processes_.front().engine->name();
    if (engine != "wrk" && engine != "k6") {
      return Error{fmt::format("several load generators: engine {} cannot share a phase", engine)};
    }
    for (const auto& p : processes_) {
      if (p.engine->name() != engine) {
        return Error{fmt::format("several load generators: {} runs {}, {} runs {}: all must run the same engine",
                                 processes_.front().name, engine, p.name, p.engine->name())};
      }
    }
    return Ok();
  }

  template <typename F>
  void ForEachProcess(F&& f) {
    if (!options_.parallel) {
      for (size_t i = 0; i < processes_.size(); ++i) f(i);
      return;
    }
    std::vector<std::thread> threads;
    for (size_t i = 0; i < processes_.size(); ++i) threads.emplace_back([&f, i] { f(i); });
    for (auto& t : threads) t.join();
  }

  // Process i's phase, and its output read back for the window and the histogram.
  ProcessOutcome RunOne(size_t i, const LoadSpec& s, const std::string& remote_dir,
                        const std::string& controller_dir) {
    ProcessOutcome o;
    o.result = processes_[i].engine->run(s, remote_dir, controller_dir);
    if (!o.result) return o;
    if (auto ok = processes_[i].engine->name() == "k6" ? ReadK6(s, controller_dir, o) : ReadWrk(s, o); !ok) {
      o.result = ok.error();
    }
    return o;
  }

  // wrk: pace.lua's output (raw_path) holds its window and histogram.
  static Result<void> ReadWrk(const LoadSpec& s, ProcessOutcome& o) {
    auto text = detail::ReadTextFile(o.result->raw_path);
    if (!text) return text.error();
    auto out = ParseWrkPaceOutput(*text, o.result->raw_path, s.rate_rps);
    if (!out) return out.error();
    const WrkOutput::Window& w = out->window;
    if (!w.synchronised) {
      return Error{fmt::format("{}: field `window`: not synchronised (pace.lua did not take the common start)",
                               o.result->raw_path)};
    }
    if (!out->histogram) {
      return Error{fmt::format("{}: no field `histogram` (FVBENCH_HISTOGRAM=1 was asked)", o.result->raw_path)};
    }
    o.start_epoch_us = w.start_epoch_us - s.offset_us + w.first_send_lag_us.value_or(0);
    o.end_epoch_us = w.end_epoch_us - s.offset_us;
    o.ready_epoch_us = w.wrk_start_epoch_us;
    o.histogram = std::move(*out->histogram);
    return Ok();
  }

  // k6: the engine's <phase>.instance.json (k6_engine.h): resumed at the
  // common start, for the phase's duration; its samples' histogram.
  static Result<void> ReadK6(const LoadSpec& s, const std::string& controller_dir, ProcessOutcome& o) {
    const std::string path = K6InstancePath(controller_dir, s.phase);
    auto text = detail::ReadTextFile(path);
    if (!text) return text.error();
    auto run = ParseK6InstanceJson(*text, path);
    if (!run) return run.error();
    o.start_epoch_us = run->resumed_epoch_us;
    o.end_epoch_us = run->resumed_epoch_us + s.duration_s * 1e6;
    o.ready_epoch_us = run->ready_epoch_us;
    o.histogram = std::move(run->histogram);
    return Ok();
  }

  InstanceRun Instance(size_t i, const LoadSpec& s, const ProcessOutcome& o) const {
    InstanceRun run;
    run.meta.name = processes_[i].name;
    run.meta.target_rps = s.rate_rps;
    const bool k6 = processes_[i].engine->name() == "k6";
    run.meta.offset_us = k6 ? 0 : s.offset_us;
    run.meta.segment = k6 ? s.k6_segment : "";
    run.meta.start_epoch_us = o.start_epoch_us;
    run.meta.end_epoch_us = o.end_epoch_us;
    run.result = *o.result;
    run.histogram = o.histogram;
    // A wrk process's own CPU over the window, as a share of the cores its
    // threads could use (not measured for k6: engine_cpu_s < 0).
    auto threads = WrkThreadsFor(s.cpuset);
    if (o.result->engine_cpu_s >= 0 && threads && o.result->duration_s > 0) {
      run.meta.cpu_busy = o.result->engine_cpu_s / (o.result->duration_s * *threads);
    }
    return run;
  }

  nlohmann::json Summary(const LoadSpec& spec, double start, double lead_s, const std::vector<LoadSpec>& specs,
                         const std::vector<InstanceRun>& runs, const std::vector<double>& launches,
                         const LoadResult& m) const {
    nlohmann::json doc = {{"schema", "fvbench.loadgens/1"},
                          {"phase", spec.phase},
                          {"target_rps", spec.rate_rps},
                          {"start_epoch_us", static_cast<int64_t>(std::llround(start))},
                          {"lead_s", lead_s},
                          {"start_skew_us", std::round(m.loadgen_start_skew_us)},
                          {"window_s", m.duration_s}};
    for (size_t i = 0; i < runs.size(); ++i) {
      doc["instances"].push_back({{"name", runs[i].meta.name},
                                  {"target_rps", specs[i].rate_rps},
                                  {"offset_us", runs[i].meta.offset_us},
                                  {"segment", runs[i].meta.segment},
                                  {"cpuset", specs[i].cpuset},
                                  {"raw_path", runs[i].result.raw_path},
                                  {"launch_ms", launches[i] >= 0 ? nlohmann::json(std::round(launches[i] * 1e4) / 10)
                                                                 : nlohmann::json(nullptr)},
                                  {"measured_start_epoch_us", static_cast<int64_t>(std::llround(runs[i].meta.start_epoch_us))}});
    }
    return doc;
  }

  std::vector<LoadgenProcess> processes_;
  MultiLoadgenOptions options_;
  double lead_s_;                   // this phase's lead (NextLoadgenLeadS)
  double slowest_launch_s_ = -1;    // the slowest launch seen, over every phase
};

}  // namespace

std::unique_ptr<LoadEngine> MakeMultiLoadgenEngine(std::vector<LoadgenProcess> processes,
                                                   MultiLoadgenOptions options) {
  return std::make_unique<MultiLoadgenEngine>(std::move(processes), std::move(options));
}

}  // namespace fvbench
