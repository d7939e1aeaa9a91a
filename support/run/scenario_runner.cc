#include "support/run/scenario_runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <optional>

#include "support/core/bench_layout.h"
#include "support/core/cpu_list.h"
#include "support/core/path_text.h"
#include "support/engine/jwt.h"
#include "support/run/cost_parts.h"
#include "support/run/environment_preflight.h"
#include "support/run/hop_counters.h"
#include "support/run/limits_log.h"
#include "support/run/limits_phase.h"
#include "support/run/phase_monitor.h"
#include "support/run/progress.h"
#include "support/run/profile_phase.h"
#include "support/run/progress_ticker.h"
#include "support/core/key_sweep.h"
#include "support/judge/ab_compare.h"
#include "support/judge/reject_cost.h"
#include "support/judge/key_sweep_break.h"
#include "support/judge/limit_accuracy.h"
#include "support/judge/noise_study.h"
#include "support/judge/repeats.h"
#include "support/judge/rule_evidence.h"
#include "support/judge/step_search.h"
#include "support/judge/sut_saturation.h"
#include "support/judge/throughput_search.h"
#include "support/sut/lua_profiler.h"
#include "support/sut/perf_capture.h"
#include "support/sut/sut_services.h"
#include "support/core/units_format.h"
#include "support/judge/validity.h"

namespace fvbench {

namespace fs = std::filesystem;
namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;

// How many CPUs two CPU lists share (the engine's and the SUT's); 0 when
// either does not parse.
int SharedCpus(const std::string& sut, const std::string& engine) {
  auto a = ParseCpuList(sut);
  auto b = ParseCpuList(engine);
  return a && b ? static_cast<int>(IntersectCpus(*a, *b).size()) : 0;
}

// ", SUT CPUs 82.00% busy (2 shared with the engine)" for a step's progress
// line; "" when not measured.
std::string SutCpuText(const LoadResult& r) {
  if (!r.sut_cpu_share) return "";
  std::string text = fmt::format(", SUT CPUs {} busy", FormatPercent(*r.sut_cpu_share));
  if (r.sut_cpus_shared > 0) text += fmt::format(" ({} shared with the engine)", r.sut_cpus_shared);
  return text;
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int PortFor(const Config& c, const ScenarioPlan& plan) {
  return plan.sut == SutSetup::kBaseline ? c.nginx_port : c.fv_port;
}

// After the load: the SUT is still up and edge did not start logging policy errors.
Result<void> CheckSutAfterLoad(SutServices& svc, Host& sut) {
  for (const ServiceHandle& h : svc.handles()) {
    if (!sut.IsAlive(h)) return Error{fmt::format("{} (pid {}) died during the load", h.name, h.pid)};
  }
  return Ok();
}

// REPEAT: one run is the result as is; n runs are summarised as the
// per-metric median (what thresholds gate) with the spread beside it.
void ApplyRepeats(ScenarioResult& out, const std::vector<LoadResult>& runs) {
  if (runs.size() == 1) {
    out.load = runs.front();
    return;
  }
  RepeatSummary s = SummarizeRepeats(runs);
  out.load = s.median;
  out.repeats = runs;
  out.spread = s.spread;
}

// Edge's CPU (cores) in a phase's SUT usage; NaN when not sampled.
double FvCpu(const std::vector<ServiceUsage>& usage) {
  for (const ServiceUsage& u : usage) {
    if (u.service == "fv") return u.cpu_cores;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// The loads of measured phases, in order.
std::vector<LoadResult> LoadsOf(const std::vector<MeasuredPhase>& phases) {
  std::vector<LoadResult> loads;
  for (const MeasuredPhase& p : phases) loads.push_back(p.load);
  return loads;
}

// The phases a search's result reports, with their checks: REPEAT's
// confirmation runs, else the reported step, else (no number) the first step.
std::vector<MeasuredPhase> ReportedPhases(const SearchOutcome& so) {
  std::vector<int> shown = so.repeats.size() > 1 ? so.repeats : std::vector<int>{};
  if (shown.empty() && so.reported_step >= 0) shown.push_back(so.reported_step);
  if (shown.empty() && !so.steps.empty()) shown.push_back(0);
  std::vector<MeasuredPhase> phases;
  for (int i : shown) {
    const StepResult& s = so.steps[i];
    phases.push_back({s.load, s.validity, s.sut_usage, s.sut_timeline});
  }
  return phases;
}

// A/B mode's sides (ab_compare.h): A runs edge from EDGE_SRC, B from
// EDGE_SRC_B. Outside A/B mode every phase runs on side A.
enum class Side { kA, kB };

const char* SideName(Side side) { return side == Side::kB ? "B" : "A"; }

// One measured phase to run: what the engine runs, what the progress lines
// call it, and on which side's services.
struct PhaseRequest {
  LoadSpec spec;                    // phase file stem, rate, duration (from the scenario's base spec)
  std::string label = "measuring";  // "measuring", "run 2 of 3", "step 4 (bisect)", ...
  // In a search: its load seconds before this phase (the progress lines' budget).
  std::optional<double> search_load_s = std::nullopt;
  Side side = Side::kA;  // whose services are up
  // Runs right before the engine's load (the profile phase starts its profilers).
  std::function<void()> at_load_start = nullptr;
};

}  // namespace

std::vector<std::string> PhaseNotes(const LoadResult& load, bool expect_evidence) {
  std::vector<std::string> notes;
  if (!load.kept_up) {
    notes.push_back(fmt::format(
        "engine fell behind its schedule ({} dropped iterations, {} of sends > 10 ms late, max send lag {})",
        load.dropped_iterations, FormatPercent(load.late_send_share), FormatUs(load.max_send_lag_us)));
  }
  if (load.target_rps > 0 && load.achieved_rps < kMinAchievedFraction * load.target_rps) {
    notes.push_back(fmt::format("achieved {} RPS is under {}% of the target {} RPS", FormatNumber(load.achieved_rps),
                                FormatNumber(kMinAchievedFraction * 100), FormatNumber(load.target_rps)));
  }
  if (expect_evidence && load.ratelimit_evidence && load.requests > 0) {
    notes.push_back(fmt::format("{} of responses carried RateLimit headers",
                                FormatPercent(static_cast<double>(*load.ratelimit_evidence) / load.requests)));
  }
  return notes;
}

namespace {

// One scenario's run: what its pieces share (the services of both sides,
// the base LoadSpec, the result, the cost counters) and the pieces:
//   Start, Warmup                      before any measurement
//   StartEdge                          start one side's edge, prove its policy live
//   MeasurePhase                       one measured phase (quiet SUT, monitor,
//                                      engine, validity); every flow uses it
//   LatencyFlow / ThroughputFlow       the two kinds of scenario
//   AbPairs                            A/B mode: pairs of runs on both sides
//   AfterLoad, Finish                  checks after the load, stop, redact
// Everything about one phase travels as arguments: a PhaseRequest in, a
// MeasuredPhase (its load, checks and SUT usage) out.
class ScenarioRun {
 public:
  ScenarioRun(Testbed& tb, const ScenarioPlan& plan, const ProgressFn& progress,
              std::vector<KernelCounterLimit> kernel_limits)
      : tb_(tb),
        c_(tb.config()),
        plan_(plan),
        progress_(progress),
        kernel_limits_(std::move(kernel_limits)),
        jwt_(plan.with_jwt ? BenchJwt() : ""),
        body_(plan.chat_body ? kLlmBody : ""),
        ab_mode_(c_.ab && !plan.policy_id.empty() && !IsLimitsKind(plan.kind)),
        svc_(tb.sut(), c_, tb.sut_info(), tb.sut_cpuset()),
        svc_b_(tb.sut(), c_, tb.sut_info_b(), tb.sut_cpuset()) {}

  ScenarioResult Run();

 private:
  // A/B mode: the pairs' runs of each side, and the side whose services are
  // up after them.
  struct AbRuns {
    AbResult ab;
    std::vector<MeasuredPhase> a, b;
    Side up = Side::kA;
  };

  SutServices& Services(Side side) { return side == Side::kB ? svc_b_ : svc_; }
  std::string PolicyPath(Side side) const;
  ProbeRequest Probe(bool after_load = false) const;
  bool Preflight();
  bool Start();
  Result<void> StartSut();
  Result<std::string> StartEdge(Side side, int workers = 0);
  void PrepareSpec();
  void Warmup(const std::string& stem_suffix = "");
  std::unique_ptr<ProgressTicker> TickerFor(const LoadSpec& s, const std::string& label,
                                            std::optional<double> search_load_s, const SutServices& services) const;
  // What one phase watches while its engine runs, and what it saw.
  struct PhaseWatch {
    std::unique_ptr<PhaseMonitor> monitor;
    bool monitoring = false;  // the monitor started
    std::vector<HopTarget> hops;
    std::vector<HopCounters> hops_before;
    std::unique_ptr<ProgressTicker> ticker;
  };
  struct PhaseSeen {
    PhaseObservation obs;
    std::optional<double> served;  // the ticker's served rate (stub_status)
    std::vector<HopCounters> hops_after;
  };
  Result<MeasuredPhase> MeasurePhase(const PhaseRequest& req);
  std::optional<QuietOutcome> AwaitQuietSut(std::vector<std::string>& problems);
  PhaseWatch StartWatching(const PhaseRequest& req, std::vector<std::string>& problems);
  PhaseSeen StopWatching(PhaseWatch& w);
  void AddSutFigures(LoadResult& r, const PhaseWatch& w, const PhaseSeen& seen) const;
  std::vector<HopTarget> HopTargets(const SutServices& services) const;
  MeasuredPhase CheckMeasuredPhase(const LoadSpec& s, LoadResult r, PhaseObservation obs,
                                   std::vector<std::string> problems) const;
  void ReportPhaseValidity(const MeasuredPhase& phase, const std::string& label,
                           const std::optional<double>& served) const;
  void Attach(const std::vector<MeasuredPhase>& shown);
  void SetMeasured(const std::vector<MeasuredPhase>& runs);
  void LatencyFlow();
  void ThroughputFlow();
  void LimitsFlow();
  void LimitPhase();
  void RecordLimitRun(const PhaseRequest& req, MeasuredPhase& phase, int keys, const std::string& workers);
  void KeySweepFlow();
  void SweepPoint(int keys);
  void RunWarmup(const LoadSpec& w);
  double LimitsRate() const;
  void RejectCostFlow();
  Result<RejectCostPhase> RejectCostPhaseOf(const std::string& name, int keys);
  Result<MeasuredPhase> SearchStep(const StepRequest& req, double& search_load_s);
  void ApplySearch(const SearchOutcome& so);
  AbRuns AbPairs(double rate, double dur, bool first_a_started);
  std::string AbRestart(int i, Side side, double rate, Side& up);
  std::string AbMeasure(AbRuns& runs, int i, Side side, double rate, double dur);
  void AttachAbValidity(const AbRuns& runs);
  Side AbLatencyFlow();
  Side AbThroughputFlow();
  void AfterLoad(Side up);
  bool ProfileTaken();
  void Profile(Side up);
  Side ProfileAb(Side up);
  ProfileResult ProfileSide(Side side, double rate, const std::string& local_dir);
  ProfileResult RunProfile(Side side, double rate, const std::string& stem, const std::string& local_dir);
  std::vector<std::unique_ptr<Profiler>> Profilers(SutServices& services) const;
  void CheckRules(SutServices& services);
  void ForgetDryRunNumbers();
  ScenarioResult Finish();

  Testbed& tb_;
  const Config& c_;
  const ScenarioPlan& plan_;
  const ProgressFn& progress_;
  const std::vector<KernelCounterLimit> kernel_limits_;  // the threshold profile's (thresholds.h)
  const std::string jwt_;
  const std::string body_;
  // A/B mode (ab_compare.h): side B's services run edge from B's tree. One
  // side runs at a time; the flows pass which one (Side) to each piece.
  const bool ab_mode_;
  bool profile_start_ = false;  // StartEdge: with the Lua profile's locations (ProfileAb's restarts)
  SutServices svc_;
  SutServices svc_b_;
  ScenarioResult out_;
  std::string error_;        // the scenario's error, "" while none
  LoadSpec spec_;            // the base every phase's LoadSpec starts from
  std::string phase_base_;   // plan id with '.' -> '_': the phase file names' stem
  std::string sharing_;      // PhaseContext::sharing
  int shared_cpus_ = 0;      // sharing: how many of the SUT's CPUs the engine's overlap (0: not known)
  std::optional<TokenBucketLimit> limit_;    // limits scenarios: the policy's bucket (Preflight)
  double load_s_ = 0;  // configured seconds of load run: warmups and measured phases
  CostParts cost_;     // where the time beyond load_s_ went (ScenarioResult::fixed_cost_parts_s)
};

ScenarioResult ScenarioRun::Run() {
  out_.id = plan_.id;
  out_.started_unix = NowUnix();
  out_.notes.push_back(tb_.PinningNote());
  if (!Preflight()) return Finish();
  if (!Start()) return Finish();
  PrepareSpec();
  // RejectCostFlow warms each of its phases, the sweep each of its points
  if (plan_.kind != ScenarioKind::kRejectCost && plan_.kind != ScenarioKind::kKeySweep) Warmup();
  Side up = Side::kA;  // whose services are up after the flows
  if (error_.empty() && plan_.kind == ScenarioKind::kLatency) {
    if (ab_mode_) {
      up = AbLatencyFlow();
    } else {
      LatencyFlow();
    }
  } else if (error_.empty() && plan_.kind == ScenarioKind::kLimits) {
    LimitsFlow();
  } else if (error_.empty() && plan_.kind == ScenarioKind::kRejectCost) {
    RejectCostFlow();
  } else if (error_.empty() && plan_.kind == ScenarioKind::kKeySweep) {
    KeySweepFlow();
  } else if (error_.empty()) {
    ThroughputFlow();
  }
  if (error_.empty() && ab_mode_ && plan_.kind == ScenarioKind::kThroughput && out_.measured) up = AbThroughputFlow();
  AfterLoad(up);
  if (c_.dry_run) ForgetDryRunNumbers();
  progress_(fmt::format("{}: done{}", plan_.id, error_.empty() ? "" : " with an error"));
  return Finish();
}

// The copy of the policy a side's edge loads (shipped to the SUT host by
// Testbed::Open: policy_dir for A, policy_dir_b for B).
std::string ScenarioRun::PolicyPath(Side side) const {
  return (side == Side::kB ? tb_.policy_dir_b() : tb_.policy_dir()) + "/" + plan_.policy_file;
}

// The request that proves the policy live: the engine's request shape; in a
// limits scenario with a key of its own, whose bucket the load never drains
// (kLimitsProbeKey before the load, kLimitsAfterLoadProbeKey after it).
ProbeRequest ScenarioRun::Probe(bool after_load) const {
  ProbeRequest p = ProbeFor(plan_.request, plan_.path, jwt_, body_);
  if (IsLimitsKind(plan_.kind)) {
    p.headers.emplace_back(kBenchKeyHeader, after_load ? kLimitsAfterLoadProbeKey : kLimitsProbeKey);
  }
  return p;
}

// Before anything starts: in a limits scenario, the policy's token bucket
// (ReadTokenBucket); then the preflight lint of the hosts' machine facts
// against this scenario's busiest phase (environment_preflight.h). False
// (error_ set) when either refuses it. Its warnings are the run's, printed
// once by the provision step and kept in the run meta (RunMeta::preflight).
bool ScenarioRun::Preflight() {
  if (IsLimitsKind(plan_.kind) && !c_.dry_run) {
    // The bucket the figures are judged by, from the copy edge will load:
    // a policy the scenario cannot judge stops it before anything starts.
    auto limit = ReadTokenBucket(tb_.sut(), PolicyPath(Side::kA), plan_.policy_id, plan_.limit_algorithm);
    if (!limit) {
      error_ = limit.error().message;
      return false;
    }
    limit_ = limit->limit;
    if (!limit->note.empty()) out_.notes.push_back(limit->note);
    if (plan_.kind == ScenarioKind::kLimits) {
      if (auto fits = CheckPlannedOverload(c_.limits_overload, c_.limits_dur_s, *limit_); !fits) {
        error_ = plan_.id + ": " + fits.error().message;
        return false;
      }
    }
    if (plan_.kind == ScenarioKind::kKeySweep) {
      if (auto fits = CheckSweepOverload(c_.limits_keys_sweep, c_.limits_keys_rps, c_.limits_dur_s, *limit_); !fits) {
        error_ = fits.error().message;
        return false;
      }
    }
  }
  std::string refused;
  for (const EnvironmentFinding& f : PreflightFindings(tb_, plan_.kind)) {
    if (f.severity == EnvironmentFinding::Severity::kRefuse) refused += (refused.empty() ? "" : "; ") + f.message;
  }
  if (refused.empty()) return true;
  error_ = "refused before load by the preflight lint: " + refused;
  return false;
}

// Starts what the scenario needs; false (error_ set, services stopped) when it could not.
bool ScenarioRun::Start() {
  TimedPart timed(cost_, "sut_start");
  progress_(fmt::format("{}: starting the SUT", plan_.id));
  auto started = StartSut();
  for (const std::string& l : svc_.leftovers_stopped()) {
    out_.notes.push_back("stopped a leftover of an earlier, interrupted run: " + l);
  }
  if (started) return true;
  (void)svc_.StopAll();
  error_ = started.error().message;
  return false;
}

// Side A's services: raw nginx, or edge with its policy proven live (StartEdge).
Result<void> ScenarioRun::StartSut() {
  if (plan_.sut == SutSetup::kBaseline) return svc_.StartBaseline();
  out_.policy = PolicyPath(Side::kA);
  auto live = StartEdge(Side::kA);
  if (!live) return live.error();
  out_.notes.push_back("policy live before load: " + *live);
  return Ok();
}

// Starts one side's edge: the backend first (reverse_proxy), then edge from
// that side's tree (Testbed::sut_info / sut_info_b, given to the services'
// constructors) with that side's copy of the policy, and proves the policy
// live (CheckPolicyLive: no load error in edge's log, RateLimit evidence
// naming the policy on a probe of the request shape the engine sends).
// Returns the evidence's summary.
Result<std::string> ScenarioRun::StartEdge(Side side, int workers) {
  SutServices& svc = Services(side);
  if (plan_.sut == SutSetup::kReverseProxy) {
    if (auto r = svc.StartBackend(); !r) return r.error();
  }
  const std::string policy = PolicyPath(side);
  const char* mode = plan_.sut == SutSetup::kDecisionService ? "decision_service" : "reverse_proxy";
  FairvisorOptions options;
  options.limits_log = IsAccessLogJudged(plan_.kind);
  options.worker_processes = workers;
  // The Lua profile's locations and poll timer only where a profile is taken (Profile below).
  options.lua_profile = c_.profile.lua && (!ab_mode_ || profile_start_) &&
                        (plan_.kind == ScenarioKind::kLatency || plan_.kind == ScenarioKind::kThroughput);
  if (auto r = svc.StartFairvisor(mode, policy, options); !r) return r.error();
  auto ev = svc.CheckPolicyLive(plan_.policy_id, Probe());
  if (!ev) return Error{fmt::format("policy {} ({}) is not live: {}", plan_.policy_id, policy, ev.error().message)};
  return ev->summary();
}

// The LoadSpec every phase starts from, and how the engine shares cores with the SUT.
void ScenarioRun::PrepareSpec() {
  spec_.url = fmt::format("http://{}:{}{}", c_.fairvisor_target_host, PortFor(c_, plan_), plan_.path);
  spec_.kind = plan_.request;
  spec_.jwt = jwt_;
  spec_.body = body_;
  spec_.connections = c_.connections;
  spec_.cpuset = tb_.loadgens().front().cpuset;  // one process; several get theirs (multi_loadgen.h)
  spec_.count_ratelimit = !plan_.policy_id.empty();
  spec_.interval_us = std::round(c_.interval_s * 1e3) * 1e3;  // FVBENCH_INTERVAL_S, whole ms
  phase_base_ = detail::PhaseFileStem(plan_.id);
  if (plan_.kind == ScenarioKind::kLimits) spec_.keys = c_.limits_keys;
  sharing_ = tb_.core_sharing();
  if (!sharing_.empty()) shared_cpus_ = SharedCpus(tb_.sut_cpus(), tb_.loadgen_cpus());
}

// WARMUP_DUR s at the phase's rate over spec_'s keys, unmeasured; its file
// stem is the phase base + stem_suffix + "_warmup".
void ScenarioRun::Warmup(const std::string& stem_suffix) {
  if (c_.warmup_dur_s <= 0) return;
  const double rate = plan_.kind == ScenarioKind::kLatency || plan_.kind == ScenarioKind::kRejectCost ? c_.latency_rps
                      : plan_.kind == ScenarioKind::kLimits ? LimitsRate()
                                                             : c_.throughput_search_max * 0.5;
  LoadSpec w = spec_;
  w.phase = phase_base_ + stem_suffix + "_warmup";
  w.rate_rps = rate;
  w.duration_s = c_.warmup_dur_s;
  RunWarmup(w);
}

// One unmeasured warmup phase as `w` says (its RateLimit headers not counted).
void ScenarioRun::RunWarmup(const LoadSpec& spec) {
  LoadSpec w = spec;
  w.count_ratelimit = false;
  progress_(fmt::format("{}: warmup {} RPS for {} s (not measured)", plan_.id, FormatNumber(w.rate_rps),
                        FormatNumber(w.duration_s)));
  auto ticker = TickerFor(w, "warmup", std::nullopt, svc_);
  ticker->Start();
  load_s_ += w.duration_s;
  const auto t0 = std::chrono::steady_clock::now();
  if (auto r = tb_.engine().Warmup(w, tb_.loadgen_dir()); !r) error_ = "warmup: " + r.error().message;
  AddCost(cost_, "engine", SecondsSince(t0) - w.duration_s);
  (void)ticker->Stop();
}

// Progress lines while a phase runs (progress_ticker.h): what it is, the
// target rate, elapsed/total s, the rate the SUT served so far (its nginx's
// stub_status) and, in a search, the load used out of the budget.
std::unique_ptr<ProgressTicker> ScenarioRun::TickerFor(const LoadSpec& s, const std::string& label,
                                                       std::optional<double> search_load_s,
                                                       const SutServices& services) const {
  TickerSetup t;
  t.base.scenario = plan_.id;
  t.base.phase = label;
  t.base.target_rps = s.rate_rps;
  t.base.total_s = s.duration_s;
  t.base.search_load_s = search_load_s;
  t.base.budget_s = tb_.run_plan().search.load_budget_s;  // 0 for the seed search: no budget
  t.tick_s = c_.dry_run ? 0 : TickPeriod(c_.progress, s.duration_s);
  t.status_socket = services.status_socket(plan_.sut == SutSetup::kBaseline ? "baseline" : "fv");
  t.unavailable = services.status_unavailable();
  return std::make_unique<ProgressTicker>(tb_.sut(), std::move(t), progress_);
}

// One measured phase (a latency run, a search step, a confirmation run, an
// A/B run) on req.side's services: wait for a quiet SUT (WaitQuiet), monitor
// both hosts while the engine runs (PhaseMonitor), check the phase
// (CheckPhase, the hops, the load generators' own checks). The checks travel
// with the phase; a search step judges them (JudgeStep, VALIDITY=fail).
Result<MeasuredPhase> ScenarioRun::MeasurePhase(const PhaseRequest& req) {
  const LoadSpec& s = req.spec;
  if (c_.dry_run) {
    if (req.at_load_start) req.at_load_start();
    auto r = tb_.engine().Run(s, tb_.loadgen_dir(), tb_.raw_dir());
    if (!r) return r.error();
    return MeasuredPhase{std::move(*r)};
  }
  std::vector<std::string> problems;
  const std::optional<QuietOutcome> quiet = AwaitQuietSut(problems);
  PhaseWatch watch = StartWatching(req, problems);
  load_s_ += s.duration_s;
  if (req.at_load_start) req.at_load_start();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = tb_.engine().Run(s, tb_.loadgen_dir(), tb_.raw_dir());
  AddCost(cost_, "engine", SecondsSince(t0) - s.duration_s);
  TimedPart checks(cost_, "phase_checks");
  PhaseSeen seen = StopWatching(watch);
  if (!r) return r.error();
  // A SUT service that died during the phase fails the phase: an error
  // stops a throughput search at once, instead of stepping down against a
  // dead server until THROUGHPUT_BUDGET_S is spent (raw outputs stay in raw/).
  if (auto alive = CheckSutAfterLoad(Services(req.side), tb_.sut()); !alive) {
    return Error{fmt::format("{}: {}", s.phase, alive.error().message)};
  }
  seen.obs.quiet = quiet;
  AddSutFigures(*r, watch, seen);
  MeasuredPhase phase = CheckMeasuredPhase(s, std::move(*r), std::move(seen.obs), std::move(problems));
  for (size_t i = 0; i < watch.hops.size(); ++i) {
    const HopTarget& h = watch.hops[i];
    phase.validity.push_back(DescribeHop(h.hop, h.port, watch.hops_before[i], seen.hops_after[i]));
  }
  // Several load generators: each one's own checks (loadgen_merge.h).
  for (const ValidityCheck& c : phase.load.loadgen_checks) phase.validity.push_back(c);
  ReportPhaseValidity(phase, req.label, seen.served);
  return phase;
}

// Waits for the SUT's CPUs to be quiet (QUIET_TIMEOUT, WaitQuiet); nullopt
// when the check is off or /proc could not be read (then `problems` says why).
std::optional<QuietOutcome> ScenarioRun::AwaitQuietSut(std::vector<std::string>& problems) {
  const ValidityParams& vp = c_.validity;
  if (vp.quiet_timeout_s <= 0) return std::nullopt;
  TimedPart timed(cost_, "quiet_wait");
  auto q = WaitQuiet(tb_.sut(), tb_.sut_cpus(), vp.quiet_max_per_core, vp.quiet_timeout_s);
  if (q) return *q;
  problems.push_back(q.error().message);
  return std::nullopt;
}

// Right before the engine runs: the monitor's first samples and the hop
// counters (independent reads, /proc and stub_status + ss, taken at once so
// they cost the slower of the two), then the progress ticker.
ScenarioRun::PhaseWatch ScenarioRun::StartWatching(const PhaseRequest& req, std::vector<std::string>& problems) {
  TimedPart timed(cost_, "phase_setup");
  const SutServices& services = Services(req.side);
  PhaseWatch w;
  std::vector<MonitoredService> watched;
  for (const ServiceHandle& h : services.handles()) {
    watched.push_back({h.name, h.pid, services.run_dir(h.name) + "/logs/error.log"});
  }
  MonitorOptions mo;
  mo.loadgen_cpuset = tb_.loadgens().front().cpuset;
  mo.loadgen_usable_cpus = tb_.loadgen_cpus();
  mo.sut_cpus = tb_.sut_cpus();
  for (size_t i = 1; i < tb_.loadgens().size(); ++i) mo.more_loadgens.push_back(tb_.loadgens()[i].host);
  w.monitor = std::make_unique<PhaseMonitor>(tb_.sut(), tb_.loadgen(), watched, mo);
  w.hops = HopTargets(services);
  auto hops_read = std::async(std::launch::async, [&] { return ReadHops(tb_.sut(), w.hops); });
  auto monitoring = w.monitor->Start();
  w.monitoring = monitoring.ok();
  if (!monitoring) problems.push_back(monitoring.error().message);
  w.hops_before = hops_read.get();
  w.ticker = TickerFor(req.spec, req.label, req.search_load_s, services);
  w.ticker->Start();
  return w;
}

// Right after the engine ran: the monitor's last samples, the ticker's last
// read and the hop counters, at once.
ScenarioRun::PhaseSeen ScenarioRun::StopWatching(PhaseWatch& w) {
  PhaseSeen seen;
  auto hops_read = std::async(std::launch::async, [&] { return ReadHops(tb_.sut(), w.hops); });
  auto served_read = std::async(std::launch::async, [&] { return w.ticker->Stop(); });
  seen.obs = w.monitoring ? w.monitor->Stop() : PhaseObservation{};
  seen.served = served_read.get();
  seen.hops_after = hops_read.get();
  return seen;
}

// What the SUT did, for the search's engine-limited rule (step_search.h).
// Served = requests the nginx under load counted (stub_status, read just
// before and after the engine ran) over the engine's own duration: the same
// window as achieved_rps; the ticker's rate spans a longer one.
void ScenarioRun::AddSutFigures(LoadResult& r, const PhaseWatch& w, const PhaseSeen& seen) const {
  r.sut_served_rps = seen.served;
  const std::vector<HopCounters>& before = w.hops_before;
  const std::vector<HopCounters>& after = seen.hops_after;
  if (!before.empty() && before[0].requests && after[0].requests && *after[0].requests >= *before[0].requests &&
      r.duration_s > 0) {
    r.sut_served_rps = static_cast<double>(*after[0].requests - *before[0].requests) / r.duration_s;
  }
  r.sut_cpu_share = SutCpuShare(seen.obs, !sharing_.empty());
  if (!sharing_.empty()) r.sut_cpus_shared = shared_cpus_ > 0 ? shared_cpus_ : seen.obs.quiet ? seen.obs.quiet->cpus : 0;
}

// The hops whose connections per request and TIME_WAIT growth each measured
// phase reports (judge/hop_connections.h): load generator -> the nginx under
// load, and edge -> backend when a backend runs (reverse_proxy policies).
std::vector<HopTarget> ScenarioRun::HopTargets(const SutServices& services) const {
  const bool baseline = plan_.sut == SutSetup::kBaseline;
  std::vector<HopTarget> t{{baseline ? "loadgen -> nginx" : "loadgen -> fv",
                            services.status_socket(baseline ? "baseline" : "fv"), PortFor(c_, plan_)}};
  if (std::string b = services.status_socket("backend"); !b.empty()) {
    t.push_back({"fv -> backend", b, c_.backend_port});
  }
  return t;
}

// The phase with its validity checks and SUT usage, plus an informational
// check naming any sampling problem.
MeasuredPhase ScenarioRun::CheckMeasuredPhase(const LoadSpec& s, LoadResult r, PhaseObservation obs,
                                              std::vector<std::string> problems) const {
  problems.insert(problems.end(), obs.problems.begin(), obs.problems.end());
  PhaseContext ctx;
  ctx.expect_evidence = s.count_ratelimit;
  ctx.planned_duration_s = s.duration_s;
  ctx.sharing = sharing_;
  ctx.kernel_limits = kernel_limits_;
  ctx.rejections_expected = IsLimitsKind(plan_.kind);
  MeasuredPhase phase;
  phase.validity = CheckPhase(r, obs, ctx, c_.validity);
  phase.sut_usage = obs.sut_usage;
  phase.sut_timeline = std::move(obs.sut_timeline);
  phase.load = std::move(r);
  if (!problems.empty()) {
    ValidityCheck m;
    m.name = "monitor";
    m.informational = true;
    m.measured = m.limit = std::numeric_limits<double>::quiet_NaN();
    m.detail = "sampling problems: " + fmt::format("{}", fmt::join(problems, "; "));
    phase.validity.push_back(std::move(m));
  }
  return phase;
}

void ScenarioRun::ReportPhaseValidity(const MeasuredPhase& phase, const std::string& label,
                                      const std::optional<double>& served) const {
  const std::string failed = FailedValidity(phase.validity);
  progress_(fmt::format("{}: {} validity {}{}; SUT {}{}", plan_.id, label, failed.empty() ? "ok" : "FAILED: " + failed,
                        !failed.empty() && c_.validity.mode == ValidityMode::kWarn ? " (VALIDITY=warn: recorded only)"
                                                                                    : "",
                        phase.sut_usage.empty() ? "usage not sampled" : DescribeUsage(phase.sut_usage),
                        served ? fmt::format("; SUT served {} RPS (stub_status)", FormatNumber(std::round(*served)))
                               : ""));
}

// The result's validity and SUT usage: those of the phase(s) it reports
// (REPEAT: every run's checks, the detail naming the run; the last run's usage).
void ScenarioRun::Attach(const std::vector<MeasuredPhase>& shown) {
  for (size_t i = 0; i < shown.size(); ++i) {
    for (ValidityCheck v : shown[i].validity) {
      if (shown.size() > 1) v.detail = fmt::format("run {} of {}: {}", i + 1, shown.size(), v.detail);
      out_.validity.push_back(std::move(v));
    }
    if (i + 1 == shown.size() || out_.sut_usage.empty()) {
      out_.sut_usage = shown[i].sut_usage;
      out_.sut_timeline = shown[i].sut_timeline;
    }
  }
}

// A latency result from its runs: the median of them (REPEAT), notes, validity.
void ScenarioRun::SetMeasured(const std::vector<MeasuredPhase>& runs) {
  out_.measured = true;
  ApplyRepeats(out_, LoadsOf(runs));
  for (auto& n : PhaseNotes(out_.load, spec_.count_ratelimit)) out_.notes.push_back(std::move(n));
  Attach(runs);
}

// REPEAT=n: n measured phases back to back after the one warmup. Each
// scenario is its own process, so runs cannot interleave with the other
// scenarios; back to back is the honest simple form.
void ScenarioRun::LatencyFlow() {
  const int planned_runs = tb_.run_plan().latency_runs;
  std::vector<MeasuredPhase> runs;
  for (int i = 0; i < planned_runs && error_.empty(); ++i) {
    PhaseRequest req{spec_};
    req.spec.rate_rps = c_.latency_rps;
    req.spec.duration_s = c_.latency_dur_s;
    req.spec.phase = planned_runs > 1 ? fmt::format("{}_r{}", phase_base_, i + 1) : phase_base_;
    if (planned_runs > 1) req.label = fmt::format("run {} of {}", i + 1, planned_runs);
    progress_(fmt::format("{}: measuring {} RPS for {} s{}", plan_.id, FormatNumber(req.spec.rate_rps),
                          FormatNumber(req.spec.duration_s),
                          planned_runs > 1 ? fmt::format(" (run {} of {})", i + 1, planned_runs) : ""));
    auto r = MeasurePhase(req);
    if (r) {
      runs.push_back(std::move(*r));
    } else {
      error_ = r.error().message;
    }
  }
  if (!runs.empty()) SetMeasured(runs);
}

// Limits scenarios: the offered rate, LIMITS_OVERLOAD x the keys' allowed
// rate (DRY_RUN, which reads no policy: kDryRunLimitRate per key).
double ScenarioRun::LimitsRate() const {
  const double per_key = limit_ ? limit_->rate_per_s : kDryRunLimitRate;
  return c_.limits_overload * c_.limits_keys * per_key;
}

// Limits scenarios: one phase on edge with all its workers (as started),
// then, when that is more than one, one on a restarted edge with one worker
// after its own warmup: cross-worker effects show as the difference.
void ScenarioRun::LimitsFlow() {
  LimitPhase();
  if (!error_.empty() || svc_.fv_worker_processes() == "1") return;
  {
    TimedPart timed(cost_, "sut_start");
    (void)svc_.StopAll();
    if (auto live = StartEdge(Side::kA, 1); !live) {
      error_ = "restarting edge with 1 worker: " + live.error().message;
      return;
    }
  }
  Warmup();
  if (error_.empty()) LimitPhase();
}

// One limits phase: the access log emptied, the load at LimitsRate() over the
// keys, then the log reduced on the SUT host and judged (limits_phase.h);
// the run is labelled with the workers edge was started with.
void ScenarioRun::LimitPhase() {
  const std::string workers = svc_.fv_worker_processes();  // as edge was started
  PhaseRequest req{spec_};
  req.spec.rate_rps = LimitsRate();
  req.spec.duration_s = c_.limits_dur_s;
  req.spec.phase = fmt::format("{}_w{}", phase_base_, workers);
  req.label = fmt::format("{} worker{}", workers, workers == "1" ? "" : "s");
  if (!c_.dry_run) {
    if (auto r = ResetLimitsLog(tb_.sut(), svc_.limits_log_path()); !r) {
      error_ = r.error().message;
      return;
    }
  }
  progress_(fmt::format("{}: measuring {} RPS over {} keys for {} s ({})", plan_.id, FormatNumber(req.spec.rate_rps),
                        c_.limits_keys, FormatNumber(req.spec.duration_s), req.label));
  auto phase = MeasurePhase(req);
  if (!phase) {
    error_ = phase.error().message;
    return;
  }
  RecordLimitRun(req, *phase, c_.limits_keys, workers);
}

// A measured limits phase over `keys` keys judged by its access log
// (JudgeLimitPhase) and added to the result's limits runs; its checks join
// the result's validity, named by the phase's label; the first one is the
// result's load.
void ScenarioRun::RecordLimitRun(const PhaseRequest& req, MeasuredPhase& phase, int keys, const std::string& workers) {
  LimitRun run;
  run.workers = std::atoi(workers.c_str());
  run.phase = req.spec.phase;
  run.load = phase.load;
  if (!c_.dry_run && limit_) {
    auto judged = JudgeLimitPhase(tb_.sut(), svc_.limits_log_path(), *limit_, keys, phase);
    if (judged) {
      run.accuracy = *judged;
    } else {
      error_ = fmt::format("{}: {}", req.spec.phase, judged.error().message);
    }
  }
  for (ValidityCheck v : phase.validity) {
    v.detail = fmt::format("{}: {}", req.label, v.detail);
    out_.validity.push_back(std::move(v));
  }
  if (out_.limits.empty()) {
    out_.measured = true;
    out_.load = phase.load;
    out_.sut_usage = phase.sut_usage;
    out_.sut_timeline = phase.sut_timeline;
    for (auto& n : PhaseNotes(out_.load, spec_.count_ratelimit)) out_.notes.push_back(std::move(n));
  }
  out_.limits.push_back(std::move(run));
}

// limits.reject_cost: two phases at LATENCY_RPS for LIMITS_DUR s on the same
// edge, each after its own warmup over its own keys (judge/reject_cost.h):
// every key offered at most half its bucket's rate (admitted), then a few
// keys offered at least 20 x it (rejected; the warmup leaves their buckets
// empty). The result's `load` and SUT usage are the admitted phase's; the
// ratios are the rejected phase's figures over the admitted one's.
void ScenarioRun::RejectCostFlow() {
  RejectCostRun run;
  run.limit = limit_ ? *limit_ : TokenBucketLimit{kDryRunLimitRate, 0};
  run.rate_rps = c_.latency_rps;
  auto admitted = RejectCostPhaseOf("admitted", AdmittedPhaseKeys(run.rate_rps, run.limit.rate_per_s));
  if (!admitted) {
    error_ = admitted.error().message;
    return;
  }
  run.admitted = std::move(*admitted);
  auto rejected = RejectCostPhaseOf("rejected", RejectedPhaseKeys(run.rate_rps, run.limit.rate_per_s));
  if (rejected) {
    run.rejected = std::move(*rejected);
    SetRejectCostRatios(run);
  } else {
    error_ = rejected.error().message;
  }
  out_.reject_cost = std::move(run);
}

// One limits.reject_cost phase over `keys` keys: its warmup, the measured
// phase, its 429 share checked against the phase's bound (the check joins
// the result's validity with the phase's others, each detail naming it).
Result<RejectCostPhase> ScenarioRun::RejectCostPhaseOf(const std::string& name, int keys) {
  spec_.keys = keys;
  Warmup("_" + name);
  if (!error_.empty()) return Error{name + " phase: " + error_};
  PhaseRequest req{spec_};
  req.spec.rate_rps = c_.latency_rps;
  req.spec.duration_s = c_.limits_dur_s;
  req.spec.phase = fmt::format("{}_{}", phase_base_, name);
  req.label = name + " phase";
  progress_(fmt::format("{}: measuring the {} phase: {} RPS over {} key{} for {} s", plan_.id, name,
                        FormatNumber(req.spec.rate_rps), keys, keys == 1 ? "" : "s",
                        FormatNumber(req.spec.duration_s)));
  auto phase = MeasurePhase(req);
  if (!phase) return phase.error();
  RejectCostPhase p = MakeRejectCostPhase(name, req.spec.phase, keys, phase->load, FvCpu(phase->sut_usage));
  if (!c_.dry_run) {
    phase->validity.push_back(name == "admitted" ? AdmittedPhaseCheck(p) : RejectedPhaseCheck(p));
    const LatencyUs& l = p.load.latency_us;
    progress_(fmt::format("{}: {} phase p50 {} p99 {} (all statuses), 429 share {}, achieved {} RPS, edge CPU {}",
                          plan_.id, name, detail::FormatLatency(l, l.p50), detail::FormatLatency(l, l.p99),
                          FormatPercent(p.reject_share), FormatNumber(p.load.achieved_rps),
                          std::isnan(p.cpu_us_per_request)
                              ? "not sampled"
                              : fmt::format("{:.1f} µs per request", p.cpu_us_per_request)));
  }
  for (ValidityCheck v : phase->validity) {
    v.detail = fmt::format("{}: {}", req.label, v.detail);
    out_.validity.push_back(std::move(v));
  }
  if (!out_.measured) {
    out_.measured = true;
    out_.load = phase->load;
    out_.sut_usage = phase->sut_usage;
    out_.sut_timeline = phase->sut_timeline;
    for (auto& n : PhaseNotes(out_.load, spec_.count_ratelimit)) out_.notes.push_back(std::move(n));
  }
  return p;
}

// limits.keys: one point per LIMITS_KEYS_SWEEP key count on the edge as
// started (all its workers), in ascending order, at LIMITS_KEYS_RPS; then
// the break line (key_sweep_break.h) as a note.
void ScenarioRun::KeySweepFlow() {
  for (int keys : c_.limits_keys_sweep) {
    SweepPoint(keys);
    if (!error_.empty()) break;
  }
  if (!c_.dry_run && !out_.limits.empty()) out_.notes.push_back("key sweep: " + KeySweepBreakLine(out_));
}

// One sweep point: a warmup over the point's keys (SweepPointWarmup), the
// access log emptied, the measured phase (SweepPointDuration) judged like a
// limits phase, and edge's RSS from the phase's SUT usage.
void ScenarioRun::SweepPoint(int keys) {
  const std::string workers = svc_.fv_worker_processes();
  const double rps = c_.limits_keys_rps;
  LoadSpec w = spec_;
  w.keys = keys;
  w.phase = fmt::format("{}_k{}_warmup", phase_base_, keys);
  w.rate_rps = rps;
  w.duration_s = SweepPointWarmup(keys, rps, c_.warmup_dur_s);
  if (w.duration_s > 0) RunWarmup(w);
  if (!error_.empty()) return;
  if (!c_.dry_run) {
    if (auto r = ResetLimitsLog(tb_.sut(), svc_.limits_log_path()); !r) {
      error_ = r.error().message;
      return;
    }
  }
  PhaseRequest req{spec_};
  req.spec.keys = keys;
  req.spec.rate_rps = rps;
  req.spec.duration_s = SweepPointDuration(keys, rps, c_.limits_dur_s);
  req.spec.phase = fmt::format("{}_k{}", phase_base_, keys);
  req.label = fmt::format("{} keys", keys);
  progress_(fmt::format("{}: measuring {} RPS over {} keys for {} s ({} worker{})", plan_.id, FormatNumber(rps), keys,
                        FormatNumber(req.spec.duration_s), workers, workers == "1" ? "" : "s"));
  auto phase = MeasurePhase(req);
  if (!phase) {
    error_ = phase.error().message;
    return;
  }
  KeySweepPoint point;
  point.keys = keys;
  point.duration_s = req.spec.duration_s;
  for (const ServiceUsage& u : phase->sut_usage) {
    if (u.service == "fv") {
      point.fv_rss_mib = u.rss_mib;
      point.fv_rss_peak_mib = u.rss_peak_mib;
    }
  }
  RecordLimitRun(req, *phase, keys, workers);
  out_.key_sweep.push_back(point);
  if (!c_.dry_run) {
    const LimitRun& run = out_.limits.back();
    progress_(fmt::format("{}: {} keys: p99 {}, over-admission {} ({} keys over), edge RSS {}", plan_.id, keys,
                          FormatUs(run.load.latency_us.p99), FormatPercent(run.accuracy.over_admission),
                          run.accuracy.keys_over,
                          point.fv_rss_mib ? fmt::format("{:.1f} MiB", *point.fv_rss_mib) : "not sampled"));
  }
}

// The throughput search (throughput_search.h) over MeasurePhase; every step
// carries its phase's checks, and the result those of the phase(s) it reports.
void ScenarioRun::ThroughputFlow() {
  out_.search = c_.throughput_search == ThroughputSearchKind::kSeed ? "seed" : "bisect";
  double search_load_s = 0;  // planned seconds of the steps run so far (the budget's measure)
  SearchOutcome so = SearchMaxThroughput(
      c_, tb_.run_plan().search, [&](const StepRequest& req) { return SearchStep(req, search_load_s); });
  ApplySearch(so);
  Attach(ReportedPhases(so));
  if (!so.error.empty()) error_ = so.error;
}

Result<MeasuredPhase> ScenarioRun::SearchStep(const StepRequest& step, double& search_load_s) {
  PhaseRequest req{spec_};
  req.spec.phase = fmt::format("{}_s{:02}{}", phase_base_, step.index, step.role.empty() ? "" : "_" + step.role);
  req.spec.rate_rps = step.target_rps;
  req.spec.duration_s = step.duration_s;
  req.label = fmt::format("step {}{}", step.index + 1, step.role.empty() ? "" : " (" + step.role + ")");
  req.search_load_s = search_load_s;
  progress_(fmt::format("{}: {} at {} RPS for {} s", plan_.id, req.label, FormatNumber(step.target_rps),
                        FormatNumber(req.spec.duration_s)));
  auto r = MeasurePhase(req);
  search_load_s += req.spec.duration_s;
  if (r) {
    const LoadResult& l = r->load;
    progress_(fmt::format("{}: {} achieved {} RPS, p99 {}, errors {}{}", plan_.id, req.label,
                          FormatNumber(l.achieved_rps), detail::FormatLatency(l.latency_us, l.latency_us.p99),
                          FormatPercent(l.error_rate), SutCpuText(l)));
  }
  return r;
}

// The search's outcome as the result: the reported step (REPEAT: the median
// of the confirmation runs), notes on a ceiling, an unconfirmed value, an
// early stop; or why there is no number.
void ScenarioRun::ApplySearch(const SearchOutcome& so) {
  out_.steps = so.steps;
  out_.ceiling_reached = so.ceiling_reached;
  out_.confirmed = so.confirmed;
  out_.search_resolution = so.resolution;
  out_.search_load_s = so.load_s;
  out_.search_stop = so.stop_reason;
  out_.search_rule = so.rule;
  out_.engine_limited = so.engine_limited;
  if (so.reported_step >= 0) {
    out_.measured = true;
    out_.load = so.steps[so.reported_step].load;
    out_.throughput_rps = so.reported_rps;
    if (so.repeats.size() > 1) {
      std::vector<LoadResult> runs;
      for (int i : so.repeats) runs.push_back(so.steps[i].load);
      ApplyRepeats(out_, runs);
      out_.spread["rps"] = out_.spread["achieved_rps"];
    }
    for (auto& n : PhaseNotes(out_.load, spec_.count_ratelimit)) out_.notes.push_back(std::move(n));
    if (so.ceiling_reached) {
      out_.notes.push_back(fmt::format("ceiling reached: the cap THROUGHPUT_SEARCH_MAX={} RPS passed, so {} RPS is "
                                       "a lower bound, not a maximum; raise THROUGHPUT_SEARCH_MAX",
                                       FormatNumber(so.steps[so.reported_step].target_rps),
                                       FormatNumber(so.reported_rps)));
    }
    if (so.engine_limited) {
      out_.notes.push_back(fmt::format("at least {} RPS (engine-limited: the load generator, not the SUT, was the "
                                       "limit); add load generators or cores",
                                       FormatNumber(std::round(so.reported_rps))));
    } else if (out_.search == "bisect" && !so.confirmed) {
      out_.notes.push_back("unconfirmed: no confirmation run passed; the value is the best passing search step's");
    }
    if (!so.stop_reason.empty()) out_.notes.push_back("search stopped early: " + so.stop_reason);
  } else if (so.steps.empty() && so.error.empty()) {
    error_ = NoResultReason(so);
  } else if (!so.steps.empty()) {
    // Steps were measured (and are kept), but no rate was sustained: there
    // is no number to report, so the scenario is not "measured" (the table
    // shows FAILED with the reason, results.json has no value, never a 0).
    out_.measured = false;
    out_.load = so.steps.front().load;
    if (so.error.empty()) error_ = NoResultReason(so);
  }
}

// A/B mode: REPEAT pairs at `rate` for `dur` s each, alternating A B A B
// ..., every run on a freshly started edge of its side after one unmeasured
// warmup at the same rate (`first_a_started`: the first A run uses the
// start and warmup just made). Stops at the first error, keeping what ran.
ScenarioRun::AbRuns ScenarioRun::AbPairs(double rate, double dur, bool first_a_started) {
  AbRuns runs;
  AbResult& ab = runs.ab;
  ab.rate_rps = rate;
  ab.duration_s = dur;
  const ProvisionInfo& ia = tb_.sut_info();
  const ProvisionInfo& ib = tb_.sut_info_b();
  ab.a = AbSide{c_.edge_src, c_.edge_ref, ia.edge_commit + (ia.edge_dirty ? " (dirty)" : ""), PolicyPath(Side::kA),
                c_.policy_dir + "/" + plan_.policy_file, {}, {}, {}};
  ab.b = AbSide{c_.edge_src_b, c_.edge_ref_b, ib.edge_commit + (ib.edge_dirty ? " (dirty)" : ""),
                PolicyPath(Side::kB), c_.policy_dir_b + "/" + plan_.policy_file, {}, {}, {}};
  for (int i = 0; i < tb_.run_plan().ab_pairs && ab.error.empty(); ++i) {
    for (Side side : {Side::kA, Side::kB}) {
      if (!ab.error.empty()) break;
      if (!(i == 0 && side == Side::kA && first_a_started)) ab.error = AbRestart(i, side, rate, runs.up);
      if (ab.error.empty()) ab.error = AbMeasure(runs, i, side, rate, dur);
    }
  }
  ab.metrics = CompareAbRuns(ab.a, ab.b);
  if (IsAaStudy(ab.a, ab.b)) ab.aa = NoiseStudy(ab.a, ab.b);
  AttachAbValidity(runs);
  return runs;
}

// Stops the running side (`up`), starts `side` for pair i (StartEdge) and
// warms it up; the error, or "".
std::string ScenarioRun::AbRestart(int i, Side side, double rate, Side& up) {
  const char* name = SideName(side);
  if (auto r = Services(up).StopAll(); !r) {
    return fmt::format("stopping the SUT before side {} run {}: {}", name, i + 1, r.error().message);
  }
  up = side;
  progress_(fmt::format("{}: A/B pair {} of {}: starting side {}", plan_.id, i + 1, tb_.run_plan().ab_pairs, name));
  if (auto r = StartEdge(side); !r) {
    return fmt::format("starting side {} for run {}: {}", name, i + 1, r.error().message);
  }
  if (c_.warmup_dur_s > 0) {
    LoadSpec w = spec_;
    w.phase = fmt::format("{}_ab{}{}_warmup", phase_base_, i + 1, side == Side::kB ? "b" : "a");
    w.rate_rps = rate;
    w.duration_s = c_.warmup_dur_s;
    w.count_ratelimit = false;
    load_s_ += w.duration_s;
    if (auto r = tb_.engine().Warmup(w, tb_.loadgen_dir()); !r) {
      return fmt::format("warmup of side {} run {}: {}", name, i + 1, r.error().message);
    }
  }
  return "";
}

// Measures `side`'s run of pair i and adds it to that side; the error, or "".
std::string ScenarioRun::AbMeasure(AbRuns& runs, int i, Side side, double rate, double dur) {
  const char* name = SideName(side);
  const std::string pair = fmt::format("A/B pair {} of {}", i + 1, tb_.run_plan().ab_pairs);
  PhaseRequest req{spec_};
  req.spec.phase = fmt::format("{}_ab{}{}", phase_base_, i + 1, side == Side::kB ? "b" : "a");
  req.spec.rate_rps = rate;
  req.spec.duration_s = dur;
  req.label = fmt::format("{} side {}", pair, name);
  req.side = side;
  progress_(fmt::format("{}: {}: measuring side {} at {} RPS for {} s", plan_.id, pair, name, FormatNumber(rate),
                        FormatNumber(dur)));
  auto r = MeasurePhase(req);
  if (!r) return fmt::format("side {} run {}: {}", name, i + 1, r.error().message);
  const LoadResult& l = r->load;
  const double cpu = FvCpu(r->sut_usage);
  progress_(fmt::format("{}: {}: side {} p50 {} p99 {}, errors {}, achieved {} RPS, edge CPU {}", plan_.id, pair, name,
                        detail::FormatLatency(l.latency_us, l.latency_us.p50),
                        detail::FormatLatency(l.latency_us, l.latency_us.p99), FormatPercent(l.error_rate),
                        FormatNumber(l.achieved_rps),
                        std::isnan(cpu) ? "not sampled" : fmt::format("{:.2f} cores", cpu)));
  AbSide& sd = side == Side::kB ? runs.ab.b : runs.ab.a;
  sd.runs.push_back(l);
  sd.fv_cpu_cores.push_back(cpu);
  sd.sut_timelines.push_back(r->sut_timeline);
  (side == Side::kB ? runs.b : runs.a).push_back(std::move(*r));
  return "";
}

// Validity of every A/B run, named by side and run (A's latency runs are
// the result's own runs and are attached with them).
void ScenarioRun::AttachAbValidity(const AbRuns& runs) {
  for (Side side : {Side::kA, Side::kB}) {
    if (side == Side::kA && plan_.kind == ScenarioKind::kLatency) continue;
    const std::vector<MeasuredPhase>& phases = side == Side::kA ? runs.a : runs.b;
    for (size_t i = 0; i < phases.size(); ++i) {
      for (ValidityCheck v : phases[i].validity) {
        v.detail = fmt::format("A/B side {} run {} of {}: {}", SideName(side), i + 1, phases.size(), v.detail);
        out_.validity.push_back(std::move(v));
      }
    }
  }
}

// Latency A/B: the pairs at LATENCY_RPS; side A's runs are the result. The
// side whose services are up after them.
Side ScenarioRun::AbLatencyFlow() {
  AbRuns runs = AbPairs(c_.latency_rps, c_.latency_dur_s, /*first_a_started=*/true);
  runs.ab.method = fmt::format("latency: {} RPS for {} s per run, {} pairs", FormatNumber(c_.latency_rps),
                               FormatNumber(c_.latency_dur_s), tb_.run_plan().ab_pairs);
  if (!runs.a.empty()) SetMeasured(runs.a);
  if (!runs.ab.error.empty()) error_ = "A/B: " + runs.ab.error;
  out_.ab = std::move(runs.ab);
  return runs.up;
}

// Throughput A/B: one search (on A, ThroughputFlow), then the pairs at a
// fixed fraction of A's maximum, below the knee where p99 and edge's CPU per
// request are stable; a B that does more work shows it as more CPU and
// latency at the same rate, or fails to achieve the rate. The side whose
// services are up after them.
Side ScenarioRun::AbThroughputFlow() {
  const double rate = out_.throughput_rps * c_.ab_rate_fraction;
  const double run_s = tb_.run_plan().ab_throughput_run_s;
  AbRuns runs = AbPairs(rate, run_s, /*first_a_started=*/false);
  runs.ab.method =
      fmt::format("throughput: fixed rate {} % of A's searched maximum {} RPS = {} RPS, {} s per run, {} pairs",
                  FormatNumber(c_.ab_rate_fraction * 100), FormatNumber(out_.throughput_rps), FormatNumber(rate),
                  FormatNumber(run_s), tb_.run_plan().ab_pairs);
  if (!runs.ab.error.empty()) error_ = "A/B: " + runs.ab.error;
  out_.ab = std::move(runs.ab);
  return runs.up;
}

// Every rule of the policy ran on the requests (judge/rule_evidence.h):
// edge's own counters, read once after the load, whatever its log level.
// The check joins the result's validity; a failed read is a failed check
// that says why (the numbers measured stay).
void ScenarioRun::CheckRules(SutServices& services) {
  // The copy edge loaded (StartSut: shipped to the SUT host by Testbed::Open),
  // as the result's `policy` names it: not the source folder, which may change.
  const std::string& policy_path = out_.policy;
  auto text = tb_.sut().ReadFile(policy_path, kPolicyFileCap);
  auto rules = text ? LimiterRules(*text) : Result<std::vector<std::string>>(text.error());
  auto metrics = services.ReadEdgeMetrics();
  auto counters = metrics ? ParseEdgeRuleCounters(*metrics) : Result<EdgeRuleCounters>(metrics.error());
  const ValidityCheck v = !rules      ? RuleEvidenceNotRead(fmt::format("{}: {}", policy_path, rules.error().message))
                          : !counters ? RuleEvidenceNotRead("edge /metrics: " + counters.error().message)
                                      : RuleEvidenceCheck(*counters, *rules);
  progress_(fmt::format("{}: {} {}", plan_.id, v.passed ? "rule evidence ok:" : "rule evidence FAILED:", v.detail));
  out_.validity.push_back(v);
}

// After the load, on the side whose services are up: they are alive, the
// policy still live (and no policy errors logged during it), its rules all
// ran; then the services stop.
void ScenarioRun::AfterLoad(Side up) {
  TimedPart timed(cost_, "after_load");
  SutServices& services = Services(up);
  if (error_.empty()) {
    if (auto r = CheckSutAfterLoad(services, tb_.sut()); !r) error_ = r.error().message;
  }
  if (error_.empty() && !plan_.policy_id.empty()) {
    auto ev = services.CheckPolicyLive(plan_.policy_id, Probe(true));
    if (!ev) error_ = "after the load: " + ev.error().message;
  }
  if (error_.empty() && !plan_.policy_id.empty() && !ab_mode_ && !c_.dry_run) CheckRules(services);
  if (error_.empty() && c_.profile.on() && ProfileTaken()) {
    if (ab_mode_) {
      up = ProfileAb(up);
    } else {
      Profile(up);
    }
  }
  if (auto r = Services(up).StopAll(); !r && error_.empty()) error_ = "stopping the SUT: " + r.error().message;
}

// FVBENCH_PROFILE (profile_phase.h): after the checks of the measured
// phases; latency and throughput scenarios only (the limits scenarios' load
// is a rejection mix). Says why when not.
bool ScenarioRun::ProfileTaken() {
  const bool kind = plan_.kind == ScenarioKind::kLatency || plan_.kind == ScenarioKind::kThroughput;
  if (kind && out_.measured) return true;
  progress_(fmt::format("{}: profile: not taken ({})", plan_.id,
                        !kind ? "only latency and throughput scenarios are profiled" : "nothing was measured"));
  return false;
}

// On the services still up, at the scenario's profile rate (ProfileRate).
void ScenarioRun::Profile(Side up) {
  const double rate = ProfileRate(c_, plan_.kind == ScenarioKind::kThroughput, out_);
  out_.profile = RunProfile(up, rate, phase_base_, layout::ProfileDir(c_.bench_dir, plan_.id));
}

// A/B mode: each side's edge started afresh (with the Lua profile's
// locations) and profiled at the rate of the pairs, A then B, into
// profile/<id>/A and /B; the report step draws B against A. Returns the side
// whose services are up.
Side ScenarioRun::ProfileAb(Side up) {
  const double rate = plan_.kind == ScenarioKind::kThroughput ? (out_.ab ? out_.ab->rate_rps : 0) : c_.latency_rps;
  const std::string dir = layout::ProfileDir(c_.bench_dir, plan_.id);
  std::error_code ec;
  fs::remove_all(dir, ec);  // the previous run's profiles of this scenario
  for (Side side : {Side::kA, Side::kB}) {
    ProfileResult p;
    if (auto r = Services(up).StopAll(); !r) {
      p.errors.push_back(fmt::format("stopping the SUT before side {}'s profile: {}", SideName(side), r.error().message));
    } else {
      up = side;
      p = ProfileSide(side, rate, dir + "/" + SideName(side));
    }
    p.side = SideName(side);
    if (p.profilers.empty()) p.profilers = c_.profile.Text();
    (side == Side::kB ? out_.profile_b : out_.profile) = std::move(p);
  }
  return up;
}

ProfileResult ScenarioRun::ProfileSide(Side side, double rate, const std::string& local_dir) {
  progress_(fmt::format("{}: profile: starting side {}", plan_.id, SideName(side)));
  profile_start_ = true;
  auto started = StartEdge(side);
  profile_start_ = false;
  if (!started) {
    ProfileResult p;
    p.rate_rps = rate;
    p.errors.push_back(fmt::format("starting side {} for its profile: {}", SideName(side), started.error().message));
    progress_(fmt::format("{}: profile: {}", plan_.id, p.errors.back()));
    return p;
  }
  const std::string stem = phase_base_ + "_" + (side == Side::kB ? "b" : "a");
  return RunProfile(side, rate, stem, local_dir);
}

// The profile phases on `side`'s services (measured with its phase monitor).
ProfileResult ScenarioRun::RunProfile(Side side, double rate, const std::string& stem, const std::string& local_dir) {
  ProfileSetup s;
  s.scenario_id = plan_.id;
  s.base = spec_;
  s.phase_stem = stem;
  s.rate_rps = rate;
  s.duration_s = c_.profile.duration_s;
  s.warmup_s = c_.warmup_dur_s;
  s.hz = c_.profile.hz;
  s.profilers = c_.profile.Text();
  s.cpu_service = plan_.sut == SutSetup::kBaseline ? "baseline" : "fv";
  s.edge_dir = plan_.sut == SutSetup::kBaseline ? "" : (side == Side::kB ? tb_.sut_info_b() : tb_.sut_info()).edge_dir;
  s.local_dir = local_dir;
  s.results_dir = layout::ControllerDir(c_.bench_dir);
  ProfileHooks h;
  h.progress = progress_;
  h.warmup = [this](const LoadSpec& w) -> Result<void> {
    progress_(fmt::format("{}: warmup {} RPS for {} s (not measured)", plan_.id, FormatNumber(w.rate_rps),
                          FormatNumber(w.duration_s)));
    load_s_ += w.duration_s;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = tb_.engine().Warmup(w, tb_.loadgen_dir());
    AddCost(cost_, "engine", SecondsSince(t0) - w.duration_s);
    return r;
  };
  h.measure = [this, side](const LoadSpec& spec, const std::string& label, const std::function<void()>& at_start) {
    PhaseRequest req{spec, label};
    req.side = side;
    req.at_load_start = at_start;
    return MeasurePhase(req);
  };
  std::vector<std::unique_ptr<Profiler>> profilers = Profilers(Services(side));
  if (profilers.empty() && plan_.sut == SutSetup::kBaseline) {
    ProfileResult p;
    p.profilers = s.profilers;
    p.rate_rps = rate;
    p.duration_s = s.duration_s;
    p.hz = s.hz;
    p.cpu_service = s.cpu_service;
    p.errors.push_back(fmt::format("FVBENCH_PROFILE={} profiles edge's Lua; the raw nginx baseline runs no Lua "
                                   "(FVBENCH_PROFILE=cpu or both profile its nginx); the profile phases did not run",
                                   s.profilers));
    progress_(fmt::format("{}: profile: {}", plan_.id, p.errors.back()));
    return p;
  }
  return RunProfilePhases(s, std::move(profilers), h);
}

// The profilers of FVBENCH_PROFILE on the services under load: edge, and the
// backend behind reverse_proxy, or the raw nginx baseline.
std::vector<std::unique_ptr<Profiler>> ScenarioRun::Profilers(SutServices& services) const {
  std::vector<std::unique_ptr<Profiler>> p;
  if (c_.profile.cpu) {
    std::vector<PerfTarget> targets;
    for (const ServiceHandle& h : services.handles()) targets.push_back({h.name, h.pid, services.run_dir(h.name)});
    p.push_back(std::make_unique<PerfProfiler>(tb_.sut(), std::move(targets), PerfOptions{c_.profile.hz, c_.dry_run}));
  }
  if (c_.profile.lua && plan_.sut != SutSetup::kBaseline) {
    p.push_back(std::make_unique<LuaProfiler>(tb_.sut(), services.status_socket("fv"),
                                              LuaProfilePeriodMs(c_.profile.hz), c_.dry_run));
  }
  return p;
}

// DRY_RUN: the engines returned placeholders (testbed.h): nothing of it is a result.
void ScenarioRun::ForgetDryRunNumbers() {
  out_.measured = false;
  out_.load = LoadResult{};
  out_.steps.clear();
  out_.throughput_rps = 0;
  out_.ceiling_reached = false;
  out_.ab.reset();
  out_.reject_cost.reset();
  for (std::optional<ProfileResult>* p : {&out_.profile, &out_.profile_b}) {
    if (*p) (*p)->without = (*p)->with = ProfilePhaseFigures{};
  }
  out_.notes = {"DRY_RUN=1: nothing was run or measured; the plan assumes every search step passes (the longest "
                "search)"};
}

// The result goes to JSON, the report and JUnit: no JWT or secret in it.
ScenarioResult ScenarioRun::Finish() {
  if (!error_.empty() && out_.error.empty()) out_.error = std::move(error_);
  out_.error = RedactSecrets(std::move(out_.error));
  for (std::string& n : out_.notes) n = RedactSecrets(std::move(n));
  for (StepResult& s : out_.steps) s.verdict = RedactSecrets(std::move(s.verdict));
  out_.finished_unix = NowUnix();
  if (!c_.dry_run) {
    // What the scenario cost beyond its configured load (docs/outputs.md "Files": load_s, fixed_cost_s).
    out_.load_s = load_s_;
    out_.fixed_cost_s = std::max(0.0, out_.finished_unix - out_.started_unix - load_s_);
    out_.fixed_cost_parts_s = SplitFixedCost(*out_.fixed_cost_s, cost_);
  }
  return std::move(out_);
}

}  // namespace

ScenarioResult RunScenario(Testbed& tb, const ScenarioPlan& plan, const ProgressFn& progress,
                           std::vector<KernelCounterLimit> kernel_limits) {
  return ScenarioRun(tb, plan, progress, std::move(kernel_limits)).Run();
}

}  // namespace fvbench
