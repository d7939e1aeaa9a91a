#include "support/scenario_runner.h"

#include <fmt/format.h>

#include <chrono>
#include <functional>

#include "support/jwt.h"
#include "support/step_search.h"
#include "support/sut_services.h"
#include "support/units_format.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;

double NowUnix() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

int PortFor(const Config& c, const ScenarioPlan& plan) {
  return plan.sut == SutSetup::kBaseline ? c.nginx_port : c.fv_port;
}

// Starts what the scenario needs; for fairvisor also proves the policy live.
Result<void> StartSut(Testbed& tb, SutServices& svc, const ScenarioPlan& plan, const std::string& jwt,
                      const std::string& body, ScenarioResult& out) {
  const Config& c = tb.config();
  switch (plan.sut) {
    case SutSetup::kBaseline:
      return svc.StartBaseline();
    case SutSetup::kDecisionService:
    case SutSetup::kReverseProxy: {
      if (plan.sut == SutSetup::kReverseProxy) {
        if (auto r = svc.StartBackend(); !r) return r;
      }
      out.policy = c.policy_dir + "/" + plan.policy_file;
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

}  // namespace

std::vector<std::string> PhaseNotes(const LoadResult& load, bool expect_evidence) {
  std::vector<std::string> notes;
  if (!load.kept_up) {
    notes.push_back(fmt::format("engine fell behind its schedule ({} dropped iterations, max send lag {})",
                                load.dropped_iterations, FormatUs(load.max_send_lag_us)));
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
  progress(fmt::format("{}: starting the SUT", plan.id));
  if (auto r = StartSut(tb, svc, plan, jwt, body, out); !r) {
    (void)svc.StopAll();
    return finish(r.error().message);
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
  const double warm_rate = plan.kind == ScenarioKind::kLatency ? c.latency_rps : c.throughput_search_max * 0.5;
  if (c.warmup_dur_s > 0) {
    LoadSpec w = spec;
    w.phase = phase_base + "_warmup";
    w.rate_rps = warm_rate;
    w.duration_s = c.warmup_dur_s;
    w.count_ratelimit = false;
    progress(fmt::format("{}: warmup {} RPS for {} s (not measured)", plan.id, FormatNumber(warm_rate),
                         FormatNumber(c.warmup_dur_s)));
    if (auto r = tb.engine().warmup(w); !r) error = "warmup: " + r.error().message;
  }

  if (error.empty() && plan.kind == ScenarioKind::kLatency) {
    spec.phase = phase_base;
    spec.rate_rps = c.latency_rps;
    spec.duration_s = c.latency_dur_s;
    progress(fmt::format("{}: measuring {} RPS for {} s", plan.id, FormatNumber(spec.rate_rps),
                         FormatNumber(spec.duration_s)));
    auto r = tb.engine().run(spec, tb.loadgen_dir(), tb.raw_dir());
    if (r) {
      out.load = *r;
      out.measured = true;
      for (auto& n : PhaseNotes(out.load, spec.count_ratelimit)) out.notes.push_back(std::move(n));
    } else {
      error = r.error().message;
    }
  } else if (error.empty()) {
    SearchParams sp;
    sp.search_max_rps = c.throughput_search_max;
    sp.slo_p99_us = c.throughput_slo_p99_us;
    auto step = [&](double target, int index) -> Result<LoadResult> {
      LoadSpec s = spec;
      s.phase = fmt::format("{}_s{:02}", phase_base, index);
      s.rate_rps = target;
      s.duration_s = c.step_dur_s;
      progress(fmt::format("{}: step {} at {} RPS for {} s", plan.id, index + 1, FormatNumber(target),
                           FormatNumber(s.duration_s)));
      auto r = tb.engine().run(s, tb.loadgen_dir(), tb.raw_dir());
      if (r) {
        progress(fmt::format("{}: step {} achieved {} RPS, p99 {}, errors {}", plan.id, index + 1,
                             FormatNumber(r->achieved_rps), FormatUs(r->latency_us.p99),
                             FormatPercent(r->error_rate)));
      }
      return r;
    };
    SearchOutcome so = SeedStepSearch(sp, step);
    out.steps = so.steps;
    out.ceiling_reached = so.ceiling_reached;
    if (so.reported_step >= 0) {
      out.measured = true;
      out.load = so.steps[so.reported_step].load;
      out.throughput_rps = so.reported_rps;
      for (auto& n : PhaseNotes(out.load, spec.count_ratelimit)) out.notes.push_back(std::move(n));
      if (so.ceiling_reached) {
        out.notes.push_back(fmt::format("ceiling reached: every step up to {} RPS passed; raise THROUGHPUT_SEARCH_MAX",
                                        FormatNumber(so.steps.back().target_rps)));
      }
    } else if (!so.steps.empty()) {
      out.measured = true;  // steps were measured; none passed
      out.load = so.steps.front().load;
      if (so.error.empty()) {
        error = fmt::format("no step passed (first step {} RPS: {})", FormatNumber(so.steps.front().target_rps),
                            so.steps.front().verdict);
      }
    }
    if (!so.error.empty()) error = so.error;
  }

  if (error.empty()) {
    if (auto r = CheckSutAfterLoad(svc, tb.sut()); !r) error = r.error().message;
  }
  if (error.empty() && !plan.policy_id.empty()) {
    // Still live after the load (and no policy errors logged during it).
    auto ev = svc.CheckPolicyLive(plan.policy_id, ProbeFor(plan.request, plan.path, jwt, body));
    if (!ev) error = "after the load: " + ev.error().message;
  }
  if (auto r = svc.StopAll(); !r && error.empty()) error = "stopping the SUT: " + r.error().message;
  progress(fmt::format("{}: done{}", plan.id, error.empty() ? "" : " with an error"));
  return finish(error);
}

}  // namespace fvbench
