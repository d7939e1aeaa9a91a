#include "support/run/scenario_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>

#include "support/engine/jwt.h"
#include "support/run/phase_monitor.h"
#include "support/run/progress.h"
#include "support/run/progress_ticker.h"
#include "support/judge/ab_compare.h"
#include "support/judge/repeats.h"
#include "support/judge/step_search.h"
#include "support/judge/throughput_search.h"
#include "support/sut/sut_services.h"
#include "support/core/units_format.h"
#include "support/judge/validity.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;

int PortFor(const Config& c, const ScenarioPlan& plan) {
  return plan.sut == SutSetup::kBaseline ? c.nginx_port : c.fv_port;
}

// Starts what the scenario needs; for fairvisor also proves the policy live.
Result<void> StartSut(Testbed& tb, SutServices& svc, const ScenarioPlan& plan, const std::string& jwt,
                      const std::string& body, ScenarioResult& out) {
  switch (plan.sut) {
    case SutSetup::kBaseline:
      return svc.StartBaseline();
    case SutSetup::kDecisionService:
    case SutSetup::kReverseProxy: {
      if (plan.sut == SutSetup::kReverseProxy) {
        if (auto r = svc.StartBackend(); !r) return r;
      }
      out.policy = tb.policy_dir() + "/" + plan.policy_file;  // shipped there by Testbed::Open
      const char* mode = plan.sut == SutSetup::kDecisionService ? "decision_service" : "reverse_proxy";
      if (auto r = svc.StartFairvisor(mode, out.policy); !r) return r;
      auto ev = svc.CheckPolicyLive(plan.policy_id, ProbeFor(plan.request, plan.path, jwt, body));
      if (!ev) return Error{fmt::format("policy {} ({}) is not live: {}", plan.policy_id, out.policy, ev.error().message)};
      out.notes.push_back("policy live before load: " + ev->summary());
      return Ok();
    }
  }
  return Ok();
}

// After the load: the SUT is still up and edge did not start logging policy errors.
Result<void> CheckSutAfterLoad(SutServices& svc, Host& sut) {
  for (const ServiceHandle& h : svc.handles()) {
    if (!sut.is_alive(h)) return Error{fmt::format("{} (pid {}) died during the load", h.name, h.pid)};
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

// A/B mode: (re)starts the SUT for one side: the backend (reverse_proxy) and
// edge on that side's tree (Testbed::sut_info_b for B, given to `svc`'s
// constructor) with that side's copy of the policy (policy_dir / policy_dir_b),
// then proves the policy live, as StartSut does.
Result<void> StartAbSide(Testbed& tb, SutServices& svc, const ScenarioPlan& plan, bool side_b, const std::string& jwt,
                         const std::string& body) {
  if (plan.sut == SutSetup::kReverseProxy) {
    if (auto r = svc.StartBackend(); !r) return r;
  }
  const std::string policy = (side_b ? tb.policy_dir_b() : tb.policy_dir()) + "/" + plan.policy_file;
  const char* mode = plan.sut == SutSetup::kDecisionService ? "decision_service" : "reverse_proxy";
  if (auto r = svc.StartFairvisor(mode, policy); !r) return r;
  auto ev = svc.CheckPolicyLive(plan.policy_id, ProbeFor(plan.request, plan.path, jwt, body));
  if (!ev) return Error{fmt::format("policy {} ({}) is not live: {}", plan.policy_id, policy, ev.error().message)};
  return Ok();
}

// Edge's CPU (cores) in a phase's SUT usage; NaN when not sampled.
double FvCpu(const std::vector<ServiceUsage>& usage) {
  for (const ServiceUsage& u : usage) {
    if (u.service == "fv") return u.cpu_cores;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

std::vector<std::string> PhaseNotes(const LoadResult& load, bool expect_evidence) {
  std::vector<std::string> notes;
  if (!load.kept_up) {
    notes.push_back(fmt::format(
        "engine fell behind its schedule ({} dropped iterations, {} of sends > 10 ms late, max send lag {})",
        load.dropped_iterations, FormatPercent(load.late_send_share), FormatUs(load.max_send_lag_us)));
  }
  if (load.target_rps > 0 && load.achieved_rps < 0.97 * load.target_rps) {
    notes.push_back(fmt::format("achieved {} RPS is under 97% of the target {} RPS",
                                FormatNumber(load.achieved_rps), FormatNumber(load.target_rps)));
  }
  if (expect_evidence && load.ratelimit_evidence && load.requests > 0) {
    notes.push_back(fmt::format("{} of responses carried RateLimit headers",
                                FormatPercent(static_cast<double>(*load.ratelimit_evidence) / load.requests)));
  }
  return notes;
}

ScenarioResult RunScenario(Testbed& tb, const ScenarioPlan& plan,
                           const std::function<void(const std::string&)>& progress) {
  const Config& c = tb.config();
  ScenarioResult out;
  out.id = plan.id;
  out.started_unix = NowUnix();
  out.notes.push_back(tb.PinningNote());
  auto finish = [&](std::string error) {
    if (!error.empty() && out.error.empty()) out.error = std::move(error);
    // The result goes to JSON, the report and JUnit: no JWT or secret in it.
    out.error = RedactSecrets(std::move(out.error));
    for (std::string& n : out.notes) n = RedactSecrets(std::move(n));
    for (StepResult& s : out.steps) s.verdict = RedactSecrets(std::move(s.verdict));
    out.finished_unix = NowUnix();
    return out;
  };

  const std::string jwt = plan.with_jwt ? BenchJwt() : "";
  const std::string body = plan.chat_body ? kLlmBody : "";
  SutServices svc(tb.sut(), c, tb.sut_info());
  // A/B mode (ab_compare.h): side B's services run edge from B's tree. One
  // side runs at a time; `active` is the one whose processes are up.
  const bool ab_mode = c.ab && !plan.policy_id.empty();
  SutServices svc_b(tb.sut(), c, tb.sut_info_b());
  SutServices* active = &svc;
  progress(fmt::format("{}: starting the SUT", plan.id));
  auto started = StartSut(tb, svc, plan, jwt, body, out);
  for (const std::string& l : svc.leftovers_stopped()) {
    out.notes.push_back("stopped a leftover of an earlier, interrupted run: " + l);
  }
  if (!started) {
    (void)svc.StopAll();
    return finish(started.error().message);
  }

  LoadSpec spec;
  spec.url = fmt::format("http://{}:{}{}", c.fairvisor_target_host, PortFor(c, plan), plan.path);
  spec.kind = plan.request;
  spec.jwt = jwt;
  spec.body = body;
  spec.connections = c.connections;
  spec.cpuset = c.k6_cpuset;
  spec.count_ratelimit = !plan.policy_id.empty();
  std::string phase_base = plan.id;
  for (char& ch : phase_base) {
    if (ch == '.') ch = '_';
  }

  std::string error;
  // Validity checks of every measured phase (validity.h): the bounds, and
  // whether the engine shares cores with the SUT.
  const ValidityParams& vp = c.validity;
  std::string sharing;
  if (auto sh = CoreSharing(&tb.sut() == &tb.loadgen(), c.oresty_cpuset, c.k6_cpuset); sh) {
    sharing = *sh;
  } else {
    error = sh.error().message;
  }
  // Progress lines while a phase runs (progress_ticker.h): what it is, the
  // target rate, elapsed/total s, the rate the SUT served so far (its nginx's
  // stub_status) and, in a search, the load used out of the budget.
  const ProgressParams& progress_params = c.progress;
  std::string phase_label = "measuring";       // what the lines call the phase
  std::optional<double> search_load_before;    // a search's load seconds before this phase
  const double search_budget_s = c.throughput_search == ThroughputSearchKind::kSeed
                                     ? 0
                                     : c.throughput_budget_s + (c.repeat - 1) * c.confirm_dur_s;
  auto ticker_for = [&](const LoadSpec& s, const std::string& label, const SutServices& services) {
    TickerSetup t;
    t.base.scenario = plan.id;
    t.base.phase = label;
    t.base.target_rps = s.rate_rps;
    t.base.total_s = s.duration_s;
    t.base.search_load_s = search_load_before;
    t.base.budget_s = search_budget_s;
    t.tick_s = c.dry_run ? 0 : TickPeriod(progress_params, s.duration_s);
    t.status_socket = services.status_socket(plan.sut == SutSetup::kBaseline ? "baseline" : "fv");
    t.unavailable = services.status_unavailable();
    return std::make_unique<ProgressTicker>(tb.sut(), std::move(t), progress);
  };
  const double warm_rate = plan.kind == ScenarioKind::kLatency ? c.latency_rps : c.throughput_search_max * 0.5;
  if (c.warmup_dur_s > 0) {
    LoadSpec w = spec;
    w.phase = phase_base + "_warmup";
    w.rate_rps = warm_rate;
    w.duration_s = c.warmup_dur_s;
    w.count_ratelimit = false;
    progress(fmt::format("{}: warmup {} RPS for {} s (not measured)", plan.id, FormatNumber(warm_rate),
                         FormatNumber(c.warmup_dur_s)));
    auto ticker = ticker_for(w, "warmup", svc);
    ticker->Start();
    if (auto r = tb.engine().warmup(w); !r) error = "warmup: " + r.error().message;
    (void)ticker->Stop();
  }

  // Every measured phase (a latency run, a search step, a confirmation run)
  // goes through here: the one place for checks around a measured phase.
  // Validity: wait for a quiet SUT (WaitQuiet), monitor both hosts while the
  // engine runs (PhaseMonitor), check the phase (CheckPhase). The checks and
  // the SUT usage are kept per phase, keyed by the raw output path (unique
  // per phase), and attached to the steps and the result below. With
  // VALIDITY=fail a failed check sets LoadResult::validity_failure, which
  // fails a search step (JudgeStep) with its reason.
  struct PhaseRecord {
    std::vector<ValidityCheck> validity;
    std::vector<ServiceUsage> usage;
  };
  std::map<std::string, PhaseRecord> phase_records;
  auto measure = [&](const LoadSpec& s) -> Result<LoadResult> {
    if (c.dry_run) return tb.engine().run(s, tb.loadgen_dir(), tb.raw_dir());
    std::optional<QuietOutcome> quiet;
    std::vector<std::string> problems;
    if (vp.quiet_timeout_s > 0) {
      auto q = WaitQuiet(tb.sut(), c.oresty_cpuset, vp.quiet_max_per_core, vp.quiet_timeout_s);
      if (q) {
        quiet = *q;
      } else {
        problems.push_back(q.error().message);
      }
    }
    std::vector<MonitoredService> watched;
    for (const ServiceHandle& h : active->handles()) {
      watched.push_back({h.name, h.pid, active->run_dir(h.name) + "/logs/error.log"});
    }
    MonitorOptions mo;
    mo.loadgen_cpuset = c.k6_cpuset;
    PhaseMonitor monitor(tb.sut(), tb.loadgen(), watched, mo);
    auto monitoring = monitor.Start();
    if (!monitoring) problems.push_back(monitoring.error().message);
    auto ticker = ticker_for(s, phase_label, *active);
    ticker->Start();
    auto r = tb.engine().run(s, tb.loadgen_dir(), tb.raw_dir());
    PhaseObservation obs = monitoring ? monitor.Stop() : PhaseObservation{};
    const std::optional<double> served = ticker->Stop();
    if (!r) return r;
    // A SUT service that died during the phase fails the phase: an error
    // stops a throughput search at once, instead of stepping down against a
    // dead server until THROUGHPUT_BUDGET_S is spent (raw outputs stay in raw/).
    if (auto alive = CheckSutAfterLoad(*active, tb.sut()); !alive) {
      return Error{fmt::format("{}: {}", s.phase, alive.error().message)};
    }
    obs.quiet = quiet;
    problems.insert(problems.end(), obs.problems.begin(), obs.problems.end());
    PhaseContext ctx;
    ctx.expect_evidence = s.count_ratelimit;
    ctx.planned_duration_s = s.duration_s;
    ctx.sharing = sharing;
    PhaseRecord rec{CheckPhase(*r, obs, ctx, vp), obs.sut_usage};
    if (!problems.empty()) {
      ValidityCheck m;
      m.name = "monitor";
      m.informational = true;
      m.measured = m.limit = std::numeric_limits<double>::quiet_NaN();
      m.detail = "sampling problems: " + fmt::format("{}", fmt::join(problems, "; "));
      rec.validity.push_back(std::move(m));
    }
    const std::string failed = FailedValidity(rec.validity);
    progress(fmt::format("{}: {} validity {}{}; SUT {}{}", plan.id, phase_label,
                         failed.empty() ? "ok" : "FAILED: " + failed,
                         !failed.empty() && vp.mode == ValidityMode::kWarn ? " (VALIDITY=warn: recorded only)" : "",
                         rec.usage.empty() ? "usage not sampled" : DescribeUsage(rec.usage),
                         served ? fmt::format("; SUT served {} RPS (stub_status)", FormatNumber(std::round(*served)))
                                : ""));
    if (!failed.empty() && vp.mode == ValidityMode::kFail) r->validity_failure = failed;
    phase_records[r->raw_path] = std::move(rec);
    return r;
  };
  // The result's validity: the checks of the phase(s) it reports (REPEAT:
  // every run's, the detail naming the run).
  auto attach = [&](const std::vector<LoadResult>& shown) {
    for (size_t i = 0; i < shown.size(); ++i) {
      auto it = phase_records.find(shown[i].raw_path);
      if (it == phase_records.end()) continue;
      for (ValidityCheck v : it->second.validity) {
        if (shown.size() > 1) v.detail = fmt::format("run {} of {}: {}", i + 1, shown.size(), v.detail);
        out.validity.push_back(std::move(v));
      }
      if (i + 1 == shown.size() || out.sut_usage.empty()) out.sut_usage = it->second.usage;
    }
  };

  // A/B mode: REPEAT pairs at `rate` for `dur` s each, alternating A B A B
  // ..., every run on a freshly started edge of its side after one unmeasured
  // warmup at the same rate (`first_a_started`: the first A run uses the
  // start and warmup just made). Stops at the first error, keeping what ran.
  auto run_ab = [&](double rate, double dur, bool first_a_started) {
    AbResult ab;
    ab.rate_rps = rate;
    ab.duration_s = dur;
    const ProvisionInfo& ia = tb.sut_info();
    const ProvisionInfo& ib = tb.sut_info_b();
    ab.a = AbSide{c.edge_src, c.edge_ref, ia.edge_commit + (ia.edge_dirty ? " (dirty)" : ""),
                  tb.policy_dir() + "/" + plan.policy_file, {}, {}};
    ab.b = AbSide{c.edge_src_b, c.edge_ref_b, ib.edge_commit + (ib.edge_dirty ? " (dirty)" : ""),
                  tb.policy_dir_b() + "/" + plan.policy_file, {}, {}};
    for (int i = 0; i < c.repeat && ab.error.empty(); ++i) {
      for (int side = 0; side < 2 && ab.error.empty(); ++side) {
        const bool b = side == 1;
        const char* name = b ? "B" : "A";
        const std::string pair = fmt::format("A/B pair {} of {}", i + 1, c.repeat);
        if (!(i == 0 && !b && first_a_started)) {
          if (auto r = active->StopAll(); !r) {
            ab.error = fmt::format("stopping the SUT before side {} run {}: {}", name, i + 1, r.error().message);
            break;
          }
          active = b ? &svc_b : &svc;
          progress(fmt::format("{}: {}: starting side {}", plan.id, pair, name));
          if (auto r = StartAbSide(tb, *active, plan, b, jwt, body); !r) {
            ab.error = fmt::format("starting side {} for run {}: {}", name, i + 1, r.error().message);
            break;
          }
          if (c.warmup_dur_s > 0) {
            LoadSpec w = spec;
            w.phase = fmt::format("{}_ab{}{}_warmup", phase_base, i + 1, b ? "b" : "a");
            w.rate_rps = rate;
            w.duration_s = c.warmup_dur_s;
            w.count_ratelimit = false;
            if (auto r = tb.engine().warmup(w); !r) {
              ab.error = fmt::format("warmup of side {} run {}: {}", name, i + 1, r.error().message);
              break;
            }
          }
        }
        LoadSpec s = spec;
        s.phase = fmt::format("{}_ab{}{}", phase_base, i + 1, b ? "b" : "a");
        s.rate_rps = rate;
        s.duration_s = dur;
        progress(fmt::format("{}: {}: measuring side {} at {} RPS for {} s", plan.id, pair, name, FormatNumber(rate),
                             FormatNumber(dur)));
        auto r = measure(s);
        if (!r) {
          ab.error = fmt::format("side {} run {}: {}", name, i + 1, r.error().message);
          break;
        }
        auto rec = phase_records.find(r->raw_path);
        const double cpu = rec == phase_records.end() ? std::numeric_limits<double>::quiet_NaN()
                                                      : FvCpu(rec->second.usage);
        progress(fmt::format("{}: {}: side {} p50 {} p99 {}, errors {}, achieved {} RPS, edge CPU {}", plan.id, pair,
                             name, FormatUs(r->latency_us.p50), FormatUs(r->latency_us.p99),
                             FormatPercent(r->error_rate), FormatNumber(r->achieved_rps),
                             std::isnan(cpu) ? "not sampled" : fmt::format("{:.2f} cores", cpu)));
        AbSide& sd = b ? ab.b : ab.a;
        sd.runs.push_back(std::move(*r));
        sd.fv_cpu_cores.push_back(cpu);
      }
    }
    ab.metrics = CompareAbRuns(ab.a, ab.b);
    // Validity of every A/B run, named by side and run (A's latency runs are
    // the result's own runs and are attached with them).
    for (int side = 0; side < 2; ++side) {
      const AbSide& sd = side == 0 ? ab.a : ab.b;
      if (side == 0 && plan.kind == ScenarioKind::kLatency) continue;
      for (size_t i = 0; i < sd.runs.size(); ++i) {
        auto it = phase_records.find(sd.runs[i].raw_path);
        if (it == phase_records.end()) continue;
        for (ValidityCheck v : it->second.validity) {
          v.detail = fmt::format("A/B side {} run {} of {}: {}", side == 0 ? "A" : "B", i + 1, sd.runs.size(), v.detail);
          out.validity.push_back(std::move(v));
        }
      }
    }
    return ab;
  };

  if (error.empty() && ab_mode && plan.kind == ScenarioKind::kLatency) {
    AbResult ab = run_ab(c.latency_rps, c.latency_dur_s, /*first_a_started=*/true);
    ab.method = fmt::format("latency: {} RPS for {} s per run, {} pairs", FormatNumber(c.latency_rps),
                            FormatNumber(c.latency_dur_s), c.repeat);
    if (!ab.a.runs.empty()) {
      // Side A is the scenario's own result: the median of its runs (REPEAT).
      out.measured = true;
      ApplyRepeats(out, ab.a.runs);
      for (auto& n : PhaseNotes(out.load, spec.count_ratelimit)) out.notes.push_back(std::move(n));
      attach(ab.a.runs);
    }
    if (!ab.error.empty()) error = "A/B: " + ab.error;
    out.ab = std::move(ab);
  } else if (error.empty() && plan.kind == ScenarioKind::kLatency) {
    // REPEAT=n: n measured phases back to back after the one warmup. Each
    // scenario is its own process, so runs cannot interleave with the other
    // scenarios; back to back is the honest simple form.
    spec.rate_rps = c.latency_rps;
    spec.duration_s = c.latency_dur_s;
    std::vector<LoadResult> runs;
    for (int i = 0; i < c.repeat && error.empty(); ++i) {
      LoadSpec s = spec;
      s.phase = c.repeat > 1 ? fmt::format("{}_r{}", phase_base, i + 1) : phase_base;
      phase_label = c.repeat > 1 ? fmt::format("run {} of {}", i + 1, c.repeat) : "measuring";
      progress(fmt::format("{}: measuring {} RPS for {} s{}", plan.id, FormatNumber(s.rate_rps),
                           FormatNumber(s.duration_s),
                           c.repeat > 1 ? fmt::format(" (run {} of {})", i + 1, c.repeat) : ""));
      auto r = measure(s);
      if (r) {
        runs.push_back(std::move(*r));
      } else {
        error = r.error().message;
      }
    }
    if (!runs.empty()) {
      out.measured = true;
      ApplyRepeats(out, runs);
      for (auto& n : PhaseNotes(out.load, spec.count_ratelimit)) out.notes.push_back(std::move(n));
      attach(runs);
    }
  } else if (error.empty()) {
    out.search = c.throughput_search == ThroughputSearchKind::kSeed ? "seed" : "bisect";
    double search_load_s = 0;  // planned seconds of the steps run so far (the budget's measure)
    auto step = [&](const StepRequest& req) -> Result<LoadResult> {
      LoadSpec s = spec;
      s.phase = fmt::format("{}_s{:02}{}", phase_base, req.index, req.role.empty() ? "" : "_" + req.role);
      s.rate_rps = req.target_rps;
      s.duration_s = req.duration_s;
      std::string label = fmt::format("step {}{}", req.index + 1, req.role.empty() ? "" : " (" + req.role + ")");
      progress(fmt::format("{}: {} at {} RPS for {} s", plan.id, label, FormatNumber(req.target_rps),
                           FormatNumber(s.duration_s)));
      phase_label = label;
      search_load_before = search_load_s;
      auto r = measure(s);
      search_load_s += s.duration_s;
      if (r) {
        progress(fmt::format("{}: {} achieved {} RPS, p99 {}, errors {}", plan.id, label,
                             FormatNumber(r->achieved_rps), FormatUs(r->latency_us.p99),
                             FormatPercent(r->error_rate)));
      }
      return r;
    };
    Config search_config = c;
    if (ab_mode) search_config.repeat = 1;  // A/B: REPEAT counts the pairs, not confirmations
    SearchOutcome so = SearchMaxThroughput(search_config, step);
    out.steps = so.steps;
    out.ceiling_reached = so.ceiling_reached;
    out.confirmed = so.confirmed;
    out.search_resolution = so.resolution;
    out.search_load_s = so.load_s;
    out.search_stop = so.stop_reason;
    if (so.reported_step >= 0) {
      out.measured = true;
      out.load = so.steps[so.reported_step].load;
      out.throughput_rps = so.reported_rps;
      if (so.repeats.size() > 1) {
        std::vector<LoadResult> runs;
        for (int i : so.repeats) runs.push_back(so.steps[i].load);
        ApplyRepeats(out, runs);
        out.spread["rps"] = out.spread["achieved_rps"];
      }
      for (auto& n : PhaseNotes(out.load, spec.count_ratelimit)) out.notes.push_back(std::move(n));
      if (so.ceiling_reached) {
        out.notes.push_back(fmt::format("ceiling reached: the cap THROUGHPUT_SEARCH_MAX={} RPS passed, so {} RPS is "
                                        "a lower bound, not a maximum; raise THROUGHPUT_SEARCH_MAX",
                                        FormatNumber(so.steps[so.reported_step].target_rps),
                                        FormatNumber(so.reported_rps)));
      }
      if (out.search == "bisect" && !so.confirmed) {
        out.notes.push_back("unconfirmed: no confirmation run passed; the value is the best passing search step's");
      }
      if (!so.stop_reason.empty()) out.notes.push_back("search stopped early: " + so.stop_reason);
    } else if (so.steps.empty() && so.error.empty()) {
      error = "the throughput search ran no step: " + so.stop_reason;
    } else if (!so.steps.empty()) {
      // Steps were measured (and are kept), but no rate was sustained: there
      // is no number to report, so the scenario is not "measured" (the table
      // shows FAILED with the reason, results.json has no value, never a 0).
      out.measured = false;
      out.load = so.steps.front().load;
      if (so.error.empty()) {
        error = fmt::format("no step passed (first step {} RPS: {})", FormatNumber(so.steps.front().target_rps),
                            so.steps.front().verdict);
      }
    }
    for (StepResult& st : out.steps) {
      auto it = phase_records.find(st.load.raw_path);
      if (it == phase_records.end()) continue;
      st.validity = it->second.validity;
      st.sut_usage = it->second.usage;
    }
    std::vector<LoadResult> shown;
    if (so.repeats.size() > 1) {
      for (int i : so.repeats) shown.push_back(so.steps[i].load);
    } else if (so.reported_step >= 0) {
      shown.push_back(so.steps[so.reported_step].load);
    } else if (!so.steps.empty()) {
      shown.push_back(so.steps.front().load);
    }
    attach(shown);
    if (!so.error.empty()) error = so.error;
  }
  if (error.empty() && ab_mode && plan.kind == ScenarioKind::kThroughput && out.measured) {
    // Throughput A/B: one search (on A, above), then the pairs at a fixed
    // fraction of A's maximum, below the knee where p99 and edge's CPU per
    // request are stable; a B that does more work shows it as more CPU and
    // latency at the same rate, or fails to achieve the rate.
    const double rate = out.throughput_rps * c.ab_rate_fraction;
    AbResult ab = run_ab(rate, c.step_dur_s, /*first_a_started=*/false);
    ab.method = fmt::format("throughput: fixed rate {} % of A's searched maximum {} RPS = {} RPS, {} s per run, {} pairs",
                            FormatNumber(c.ab_rate_fraction * 100), FormatNumber(out.throughput_rps),
                            FormatNumber(rate), FormatNumber(c.step_dur_s), c.repeat);
    if (!ab.error.empty()) error = "A/B: " + ab.error;
    out.ab = std::move(ab);
  }

  if (error.empty()) {
    if (auto r = CheckSutAfterLoad(*active, tb.sut()); !r) error = r.error().message;
  }
  if (error.empty() && !plan.policy_id.empty()) {
    // Still live after the load (and no policy errors logged during it).
    auto ev = active->CheckPolicyLive(plan.policy_id, ProbeFor(plan.request, plan.path, jwt, body));
    if (!ev) error = "after the load: " + ev.error().message;
  }
  if (auto r = active->StopAll(); !r && error.empty()) error = "stopping the SUT: " + r.error().message;
  if (c.dry_run) {
    // The engines returned placeholders (testbed.h): nothing of it is a result.
    out.measured = false;
    out.load = LoadResult{};
    out.steps.clear();
    out.throughput_rps = 0;
    out.ceiling_reached = false;
    out.ab.reset();
    out.notes = {"DRY_RUN=1: nothing was run or measured; the plan assumes every search step passes (the longest "
                 "search)"};
  }
  progress(fmt::format("{}: done{}", plan.id, error.empty() ? "" : " with an error"));
  return finish(error);
}

}  // namespace fvbench
