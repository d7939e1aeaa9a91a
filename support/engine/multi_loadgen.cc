#include "support/engine/multi_loadgen.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/loadgen_share.h"
#include "support/core/units_format.h"
#include "support/engine/k6_engine.h"
#include "support/engine/loadgen_clocks.h"
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

namespace {

using detail::FormatNumber;

double SystemNowEpochUs() {
  using namespace std::chrono;
  return static_cast<double>(duration_cast<microseconds>(system_clock::now().time_since_epoch()).count());
}

// One process's run, read back with what the merge needs beyond LoadResult
// (engine-neutral): its measured window on the controller's clock, when it
// was ready to start, and its histogram.
struct ProcessOutcome {
  Result<LoadResult> result = Error{"not run"};
  double start_epoch_us = 0;  // wrk: its first send mapped back to the common start; k6: resumed
  double end_epoch_us = 0;
  double ready_host_us = 0;   // wrk started / k6's REST API answered (paused), its host's clock; 0: not written
  uint64_t missed_slots = 0;  // wrk: slots due before it was up, skipped (pace.lua)
  LatencyHistogram histogram;
};

// One launch of every process toward one common start.
struct Attempt {
  double lead_s = 0;
  double launch = 0;  // the controller's clock when the processes were launched
  double start = 0;   // the common start, the controller's clock
  std::vector<LoadSpec> specs;  // each process's, its start on its host's clock
  std::vector<ProcessOutcome> outcomes;
  std::vector<ProcessStart> starts;
  std::string late;   // LateStarts: "" when every process was ready at the start
};

class MultiLoadgenEngine : public LoadEngine {
 public:
  MultiLoadgenEngine(std::vector<LoadgenProcess> processes, MultiLoadgenOptions options)
      : processes_(std::move(processes)),
        options_(std::move(options)),
        clocks_(options_.clock_hosts, options_.parallel) {
    if (!options_.now_epoch_us) options_.now_epoch_us = SystemNowEpochUs;
    ReadLeadFile();
  }

  std::string name() const override { return processes_.front().engine->name(); }
  Result<std::string> Version() override { return processes_.front().engine->Version(); }

  // Every process warms up at its share, at the same time (no common start).
  // Each warmup command's wall time less its duration bounds its launch from
  // above: the first phase's lead follows from it.
  Result<void> Warmup(const LoadSpec& spec, const std::string& remote_dir) override {
    if (auto ok = CheckEngines(); !ok) return ok;
    std::vector<Result<void>> results(processes_.size(), Ok());
    std::vector<double> launches(processes_.size(), -1);
    const bool k6 = name() == "k6";
    ForEachProcess([&](size_t i) {
      // Its share, connections and CPUs as in Run(), but unsynchronised,
      // whole (no k6 segment: rate / n each) and without a histogram.
      LoadSpec s = ProcessSpec(spec, i, processes_.size(), processes_[i].cpuset, 0, 0);
      s.offset_us = 0;
      s.k6_segment.clear();
      s.k6_sequence.clear();
      s.latency_histogram = false;
      const auto t0 = std::chrono::steady_clock::now();
      results[i] = processes_[i].engine->Warmup(s, remote_dir);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      launches[i] = wall - (k6 ? spec.duration_s : std::ceil(spec.duration_s));  // wrk runs whole seconds
    });
    std::string failed;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) failed += fmt::format("{}loadgen {}: {}", failed.empty() ? "" : "; ", processes_[i].name,
                                             results[i].error().message);
    }
    if (!failed.empty()) return Error{failed};
    double slowest = 0;
    for (double l : launches) slowest = std::max(slowest, l);
    if (spec.duration_s > 0 && *std::min_element(launches.begin(), launches.end()) >= 0) {
      NoteLaunch(std::max(last_launch_s_, slowest), spec.phase);
    }
    return Ok();
  }

  Result<LoadResult> Run(const LoadSpec& spec, const std::string& remote_dir,
                         const std::string& controller_dir) override {
    if (auto ok = CheckEngines(); !ok) return ok.error();
    const size_t n = processes_.size();
    const std::string refused = fmt::format("phase {} with {} load generators: refused before load", spec.phase, n);
    if (auto ok = CheckShareSize(spec.rate_rps, spec.duration_s, n,
                                 fmt::format("{} RPS for {} s", FormatNumber(spec.rate_rps),
                                             FormatNumber(spec.duration_s)));
        !ok) {
      return Error{fmt::format("{}: {}", refused, ok.error().message)};
    }
    std::vector<ClockOffset> offsets;
    if (!options_.clock_hosts.empty()) {
      auto o = clocks_.Current(options_.max_clock_offset_us);
      if (!o) return Error{fmt::format("{}: {}", refused, o.error().message)};
      offsets = *o;
    }
    Attempt a = Launch(spec, LeadS(), offsets, remote_dir, controller_dir);
    if (auto failed = Failures(spec, a, controller_dir); !failed.empty()) return Error{failed};
    std::string retried;
    if (!a.late.empty()) {
      // A harness fault, not the engine: run again with the lead the launch calls for.
      const double lead = std::max(LeadS(), std::min(2 * a.lead_s, kLoadgenMaxLeadS));
      const std::string first = fmt::format("attempt 1 (lead {} s): {}", FormatNumber(a.lead_s), a.late);
      (void)detail::WriteTextFile(controller_dir + "/" + spec.phase + ".attempt1.json",
                                  AttemptSummary(spec, a, offsets).dump(2) + "\n");
      a = Launch(spec, lead, offsets, remote_dir, controller_dir);
      if (auto failed = Failures(spec, a, controller_dir); !failed.empty()) return Error{failed};
      if (!a.late.empty()) {
        return Error{fmt::format(
            "phase {} with {} load generators: a harness fault, not the engine: processes were not ready at the "
            "common start in both attempts: {}; attempt 2 (lead {} s): {} (each process's output is in {}; "
            "attempt 1's summary in {}.attempt1.json)",
            spec.phase, n, first, FormatNumber(a.lead_s), a.late, controller_dir, spec.phase)};
      }
      retried = first + fmt::format("; retried with lead {} s, all ready", FormatNumber(a.lead_s));
    }
    return Merge(spec, a, offsets, retried, controller_dir);
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

  // ---- the lead ----

  double LeadS() const { return last_launch_s_ >= 0 ? NextLoadgenLeadS(last_launch_s_) : options_.lead_s; }

  // The loadgen hosts' names, sorted: what a kept lead must have been measured on.
  std::vector<std::string> HostNames() const {
    std::set<std::string> names;
    for (const Host* h : options_.clock_hosts) names.insert(h->name());
    if (names.empty()) names.insert("local");
    return {names.begin(), names.end()};
  }

  void ReadLeadFile() {
    if (options_.lead_file.empty()) return;
    auto text = detail::ReadTextFile(options_.lead_file);
    if (!text) return;  // none yet
    auto r = LoadgenLeadFromJson(*text, options_.lead_file);
    if (r && r->hosts == HostNames()) last_launch_s_ = r->launch_s;
  }

  // The slowest launch last measured (s), kept for the next phase and, in
  // lead_file, for the next scenario process.
  void NoteLaunch(double launch_s, const std::string& measured_in) {
    last_launch_s_ = launch_s;
    if (options_.lead_file.empty()) return;
    LoadgenLeadRecord r;
    r.hosts = HostNames();
    r.launch_s = launch_s;
    r.measured_in = measured_in;
    r.updated_unix = options_.now_epoch_us() / 1e6;
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(options_.lead_file).parent_path(), ec);
    (void)detail::WriteTextFile(options_.lead_file, LoadgenLeadToJson(r));
  }

  // ---- one attempt ----

  double OffsetOf(size_t i, const std::vector<ClockOffset>& offsets) const {
    const size_t h = processes_[i].host;
    return h < offsets.size() ? offsets[h].offset_us : 0;
  }
  std::string HostOf(size_t i) const {
    const size_t h = processes_[i].host;
    return h < options_.clock_hosts.size() ? options_.clock_hosts[h]->name() : "local";
  }

  // Launches every process toward a common start `lead_s` ahead, each given
  // it on its host's clock, and reads each one's start back onto the
  // controller's.
  Attempt Launch(const LoadSpec& spec, double lead_s, const std::vector<ClockOffset>& offsets,
                 const std::string& remote_dir, const std::string& controller_dir) {
    const size_t n = processes_.size();
    Attempt a;
    a.lead_s = lead_s;
    a.launch = options_.now_epoch_us();
    a.start = StartEpochUs(a.launch, lead_s * 1e6);
    for (size_t i = 0; i < n; ++i) {
      const double start_host = std::round(a.start + OffsetOf(i, offsets));
      a.specs.push_back(ProcessSpec(spec, i, n, processes_[i].cpuset, start_host, lead_s));
    }
    a.outcomes.resize(n);
    ForEachProcess([&](size_t i) { a.outcomes[i] = RunOne(i, a.specs[i], remote_dir, controller_dir); });
    for (size_t i = 0; i < n; ++i) {
      ProcessOutcome& o = a.outcomes[i];
      if (!o.result) continue;
      const double offset = OffsetOf(i, offsets);
      o.start_epoch_us -= offset;
      o.end_epoch_us -= offset;
      if (!o.result->intervals.empty()) o.result->intervals.start_epoch_us -= offset;  // onto the controller's clock
      ProcessStart st;
      st.name = processes_[i].name;
      st.host = HostOf(i);
      st.missed_slots = o.missed_slots;
      if (o.ready_host_us > 0) {
        st.late_us = o.ready_host_us - a.specs[i].start_epoch_us;
        st.launch_s = (o.ready_host_us - offset - a.launch) / 1e6;
      }
      a.starts.push_back(st);
    }
    if (a.starts.size() == n) {
      a.late = LateStarts(a.starts, lead_s);
      if (const double slowest = SlowestLaunchS(a.starts); slowest >= 0) NoteLaunch(slowest, spec.phase);
    }
    return a;
  }

  // "" when every process ran; else the phase's Error text naming each failed one.
  std::string Failures(const LoadSpec& spec, const Attempt& a, const std::string& controller_dir) const {
    std::string failed;
    for (size_t i = 0; i < a.outcomes.size(); ++i) {
      if (!a.outcomes[i].result) {
        failed += fmt::format("{}loadgen {}: {}", failed.empty() ? "" : "; ", processes_[i].name,
                              a.outcomes[i].result.error().message);
      }
    }
    if (failed.empty()) return "";
    return fmt::format("phase {} with {} load generators: {} (the other processes' outputs are in {})", spec.phase,
                       a.outcomes.size(), failed, controller_dir);
  }

  // Process i's phase, and its output read back for the window and the histogram.
  ProcessOutcome RunOne(size_t i, const LoadSpec& s, const std::string& remote_dir,
                        const std::string& controller_dir) {
    ProcessOutcome o;
    o.result = processes_[i].engine->Run(s, remote_dir, controller_dir);
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
    o.ready_host_us = w.wrk_start_epoch_us;
    o.missed_slots = w.missed_slots;
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
    o.ready_host_us = run->ready_epoch_us;
    o.histogram = std::move(run->histogram);
    return Ok();
  }

  // ---- the merged result ----

  InstanceRun Instance(size_t i, const Attempt& a, const std::vector<ClockOffset>& offsets) const {
    const LoadSpec& s = a.specs[i];
    const ProcessOutcome& o = a.outcomes[i];
    InstanceRun run;
    run.meta.name = processes_[i].name;
    run.meta.target_rps = s.rate_rps;
    const bool k6 = processes_[i].engine->name() == "k6";
    run.meta.offset_us = k6 ? 0 : s.offset_us;
    run.meta.segment = k6 ? s.k6_segment : "";
    run.meta.start_epoch_us = o.start_epoch_us;
    run.meta.end_epoch_us = o.end_epoch_us;
    run.meta.launch_s = a.starts[i].launch_s;
    run.meta.clock_offset_us = OffsetOf(i, offsets);
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

  Result<LoadResult> Merge(const LoadSpec& spec, const Attempt& a, const std::vector<ClockOffset>& offsets,
                           const std::string& retried, const std::string& controller_dir) {
    std::vector<InstanceRun> runs;
    for (size_t i = 0; i < processes_.size(); ++i) runs.push_back(Instance(i, a, offsets));
    auto merged = MergeLoadgens(runs, options_.validity);
    if (!merged) return Error{fmt::format("phase {}: {}", spec.phase, merged.error().message)};
    LoadResult m = std::move(merged->merged);
    m.target_rps = spec.rate_rps;
    m.loadgen_checks.push_back(StartNote(a, offsets, retried));
    // The load's wall time runs from the common start: the lead before it
    // (launch, connect, wait) is fixed cost, not load, and a search does not
    // count it against THROUGHPUT_BUDGET_S (a 3 s step was charged 6.02 s).
    for (const auto& o : a.outcomes) m.wall_s = std::max(m.wall_s, o.result->wall_s);
    m.wall_s = std::max(0.0, m.wall_s - (a.start - a.launch) / 1e6);
    m.raw_path = controller_dir + "/" + spec.phase + ".json";
    nlohmann::json doc = AttemptSummary(spec, a, offsets);
    doc["start_skew_us"] = std::round(m.loadgen_start_skew_us);
    doc["window_s"] = m.duration_s;
    if (!retried.empty()) doc["retried"] = retried;
    for (size_t i = 0; i < runs.size(); ++i) {
      doc["instances"][i]["measured_start_epoch_us"] = static_cast<int64_t>(std::llround(runs[i].meta.start_epoch_us));
    }
    if (auto w = detail::WriteTextFile(m.raw_path, doc.dump(2) + "\n"); !w) {
      return Error{fmt::format("phase {}: {}", spec.phase, w.error().message)};
    }
    return m;
  }

  // Informational: the start the processes met, the clocks it was mapped
  // through, a harness fault that was retried.
  ValidityCheck StartNote(const Attempt& a, const std::vector<ClockOffset>& offsets, const std::string& retried) const {
    std::string launches;
    for (const ProcessStart& s : a.starts) {
      launches += fmt::format("{}{} {}", launches.empty() ? "" : ", ", s.name,
                              s.launch_s >= 0 ? FormatNumber(std::round(s.launch_s * 1e4) / 10) + " ms" : "?");
    }
    std::string clocks;
    for (size_t h = 0; h < offsets.size(); ++h) {
      clocks += fmt::format("{}{} {} (+- {})", clocks.empty() ? "" : ", ", options_.clock_hosts[h]->name(),
                            FormatClockOffset(offsets[h].offset_us),
                            FormatClockOffset(offsets[h].uncertainty_us()).substr(1));
    }
    ValidityCheck c;
    c.name = "loadgen_start";
    c.informational = true;
    c.passed = true;
    c.measured = c.limit = std::nan("");
    c.detail = fmt::format("common start {} s after the launch; launches {}; next lead {} s", FormatNumber(a.lead_s),
                           launches, FormatNumber(LeadS()));
    if (!clocks.empty()) {
      c.detail += fmt::format("; clock offsets to the controller {} (measured {} s ago in {} s; starts and windows "
                              "mapped through them)",
                              clocks, FormatNumber(std::round(clocks_.age_s() * 10) / 10),
                              FormatNumber(std::round(clocks_.cost_s() * 1000) / 1000));
    }
    if (!retried.empty()) c.detail += "; harness fault: " + retried;
    return c;
  }

  nlohmann::json AttemptSummary(const LoadSpec& spec, const Attempt& a, const std::vector<ClockOffset>& offsets) const {
    nlohmann::json doc = {{"schema", "fvbench.loadgens/1"},
                          {"phase", spec.phase},
                          {"target_rps", spec.rate_rps},
                          {"start_epoch_us", static_cast<int64_t>(std::llround(a.start))},
                          {"launch_epoch_us", static_cast<int64_t>(std::llround(a.launch))},
                          {"lead_s", a.lead_s}};
    if (!a.late.empty()) doc["late"] = a.late;
    for (size_t h = 0; h < offsets.size(); ++h) {
      doc["clock_offsets"].push_back({{"host", options_.clock_hosts[h]->name()},
                                      {"offset_us", std::round(offsets[h].offset_us * 10) / 10},
                                      {"uncertainty_us", std::round(offsets[h].uncertainty_us() * 10) / 10},
                                      {"exchanges", offsets[h].exchanges}});
    }
    for (size_t i = 0; i < a.specs.size(); ++i) {
      const LoadSpec& s = a.specs[i];
      const bool have = i < a.starts.size();
      const double launch = have ? a.starts[i].launch_s : -1;
      nlohmann::json e = {{"name", processes_[i].name},
                          {"host", HostOf(i)},
                          {"target_rps", s.rate_rps},
                          {"offset_us", processes_[i].engine->name() == "k6" ? 0 : s.offset_us},
                          {"segment", processes_[i].engine->name() == "k6" ? s.k6_segment : ""},
                          {"cpuset", s.cpuset},
                          {"start_host_epoch_us", static_cast<int64_t>(std::llround(s.start_epoch_us))},
                          {"raw_path", a.outcomes[i].result ? a.outcomes[i].result->raw_path : ""},
                          {"launch_ms", launch >= 0 ? nlohmann::json(std::round(launch * 1e4) / 10)
                                                    : nlohmann::json(nullptr)},
                          {"ready_late_ms", have ? nlohmann::json(std::round(a.starts[i].late_us / 100) / 10)
                                                 : nlohmann::json(nullptr)},
                          {"missed_slots", have ? a.starts[i].missed_slots : uint64_t{0}}};
      doc["instances"].push_back(std::move(e));
    }
    return doc;
  }

  std::vector<LoadgenProcess> processes_;
  MultiLoadgenOptions options_;
  LoadgenClocks clocks_;
  double last_launch_s_ = -1;  // the slowest launch last measured (s); < 0: none yet
};

}  // namespace

std::unique_ptr<LoadEngine> MakeMultiLoadgenEngine(std::vector<LoadgenProcess> processes,
                                                   MultiLoadgenOptions options) {
  return std::make_unique<MultiLoadgenEngine>(std::move(processes), std::move(options));
}

}  // namespace fvbench
