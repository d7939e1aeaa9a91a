#include "support/core/scenario_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/core/key_sweep.h"
#include "support/core/units_format.h"

namespace fvbench {

namespace {

using detail::FormatNumber;

constexpr double kPhaseExtraS = 5;       // monitoring, fetching and parsing the output
constexpr double kStartStopExtraS = 60;  // config checks, starting, stopping
constexpr double kHangS = 60;            // one phase timing out (the engines' slack: k6 60 s, wrk 30 s)

class Sum {
 public:
  void Add(double seconds, std::string what) {
    seconds_ += seconds;
    parts_.push_back(std::move(what));
  }
  ScenarioTimeBound Bound() const { return {seconds_, fmt::format("{}", fmt::join(parts_, " + "))}; }

 private:
  double seconds_ = 0;
  std::vector<std::string> parts_;
};

// The SUT services of a scenario: up to two (edge and its backend).
double StartStop(const ScenarioTimeInputs& c) { return 2 * c.health_timeout_s; }

void AddCommon(Sum& s, const ScenarioTimeInputs& c, double phases, double quiet_timeout_s) {
  const double per_phase = quiet_timeout_s + kPhaseExtraS;
  s.Add(phases * per_phase, fmt::format("{} phase{} x (QUIET_TIMEOUT {} + {})", FormatNumber(phases),
                                        phases == 1 ? "" : "s", FormatNumber(quiet_timeout_s),
                                        FormatNumber(kPhaseExtraS)));
  s.Add(StartStop(c) + kStartStopExtraS,
        fmt::format("start/stop 2 x HEALTH_TIMEOUT {} + {}", FormatNumber(c.health_timeout_s), FormatNumber(kStartStopExtraS)));
  s.Add(kHangS, fmt::format("one phase timing out {}", FormatNumber(kHangS)));
}

// A/B mode: REPEAT pairs of two runs, each on a freshly started edge after its warmup.
void AddAbPairs(Sum& s, const ScenarioTimeInputs& c, double run_s, const char* run_what) {
  const double runs = 2.0 * c.plan.ab_pairs;
  s.Add(runs * (c.warmup_dur_s + run_s + StartStop(c)),
        fmt::format("A/B {} runs x (WARMUP_DUR {} + {} {} + start 2 x HEALTH_TIMEOUT {})", FormatNumber(runs),
                    FormatNumber(c.warmup_dur_s), run_what, FormatNumber(run_s), FormatNumber(c.health_timeout_s)));
}

std::string Message(const char* kind, const ScenarioTimeBound& b, double timeout_s, const char* shorten) {
  const double need = std::ceil(b.seconds);
  return fmt::format("{} scenarios need up to {} s ({}), above their ctest TIMEOUT of {} s, after which ctest kills "
                     "them: shorten {}, or raise the TIMEOUT when configuring: cmake --preset default "
                     "-DFVBENCH_SCENARIO_TIMEOUT={} (docs/running.md \"Soak runs\")",
                     kind, FormatNumber(need), b.breakdown, FormatNumber(timeout_s), shorten, FormatNumber(need));
}

}  // namespace

// The profile phases (profile_dur_s > 0): a warmup and two phases more.
static void AddProfile(Sum& s, const ScenarioTimeInputs& c, double& phases) {
  if (c.profile_dur_s <= 0) return;
  s.Add(c.warmup_dur_s + 2 * c.profile_dur_s, fmt::format("profile WARMUP_DUR {} + 2 x FVBENCH_PROFILE_DUR {}",
                                                           FormatNumber(c.warmup_dur_s), FormatNumber(c.profile_dur_s)));
  phases += 2;
}

ScenarioTimeInputs ScenarioTimeInputsOf(const Config& c) {
  ScenarioTimeInputs in;
  in.plan = RunPlanOf(c);
  in.latency_dur_s = c.latency_dur_s;
  in.limits_dur_s = c.limits_dur_s;
  in.limits_keys_sweep = c.limits_keys_sweep;
  in.limits_keys_rps = c.limits_keys_rps;
  in.warmup_dur_s = c.warmup_dur_s;
  in.health_timeout_s = c.health_timeout_s;
  if (c.profile.on() && !c.ab) in.profile_dur_s = c.profile.duration_s;
  return in;
}

ScenarioTimeBound LatencyScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s) {
  Sum s;
  s.Add(c.warmup_dur_s, fmt::format("WARMUP_DUR {}", FormatNumber(c.warmup_dur_s)));
  double phases = c.plan.latency_runs;
  if (c.plan.ab_pairs > 0) {  // the edge scenarios' pairs; raw nginx (the control) runs REPEAT times, fewer
    AddAbPairs(s, c, c.plan.ab_latency_run_s, "LATENCY_DUR");
    phases = 2.0 * c.plan.ab_pairs;
  } else {
    s.Add(c.plan.latency_runs * c.latency_dur_s,
          fmt::format("REPEAT {} x LATENCY_DUR {}", c.plan.latency_runs, FormatNumber(c.latency_dur_s)));
  }
  AddProfile(s, c, phases);
  AddCommon(s, c, phases, quiet_timeout_s);
  return s.Bound();
}

ScenarioTimeBound ThroughputScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s) {
  const SearchPlan& p = c.plan.search;
  Sum s;
  s.Add(c.warmup_dur_s, fmt::format("WARMUP_DUR {}", FormatNumber(c.warmup_dur_s)));
  if (p.seed) {
    s.Add(p.max_load_s, fmt::format("{} x STEP_DUR {}", kSeedSteps, FormatNumber(p.lengths.step_s)));
  } else {
    s.Add(p.max_load_s, fmt::format("THROUGHPUT_BUDGET_S {} + {} x confirmation {}", FormatNumber(p.budget_s),
                                    p.confirm_runs - 1, FormatNumber(p.lengths.confirm_s)));
  }
  double phases = p.max_phases;
  if (c.plan.ab_pairs > 0) {
    AddAbPairs(s, c, c.plan.ab_throughput_run_s, "step");
    phases += 2.0 * c.plan.ab_pairs;
  }
  AddProfile(s, c, phases);
  AddCommon(s, c, phases, quiet_timeout_s);
  return s.Bound();
}

ScenarioTimeBound LimitsScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s) {
  Sum s;
  s.Add(kLimitsPhases * (c.warmup_dur_s + c.limits_dur_s),
        fmt::format("{} phases x (WARMUP_DUR {} + LIMITS_DUR {})", kLimitsPhases, FormatNumber(c.warmup_dur_s),
                    FormatNumber(c.limits_dur_s)));
  s.Add(StartStop(c), fmt::format("edge restarted: 2 x HEALTH_TIMEOUT {}", FormatNumber(c.health_timeout_s)));
  AddCommon(s, c, kLimitsPhases, quiet_timeout_s);
  return s.Bound();
}

ScenarioTimeBound RejectCostScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s) {
  Sum s;
  s.Add(kRejectCostPhases * (c.warmup_dur_s + c.limits_dur_s),
        fmt::format("{} phases x (WARMUP_DUR {} + LIMITS_DUR {})", kRejectCostPhases, FormatNumber(c.warmup_dur_s),
                    FormatNumber(c.limits_dur_s)));
  AddCommon(s, c, kRejectCostPhases, quiet_timeout_s);
  return s.Bound();
}

ScenarioTimeBound KeySweepScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s) {
  Sum s;
  const size_t points = c.limits_keys_sweep.size();
  s.Add(SweepLoadSeconds(c.limits_keys_sweep, c.limits_keys_rps, c.limits_dur_s, c.warmup_dur_s),
        fmt::format("{} sweep points' warmups and phases (LIMITS_KEYS_SWEEP at LIMITS_KEYS_RPS {})", points,
                    FormatNumber(c.limits_keys_rps)));
  AddCommon(s, c, static_cast<double>(points), quiet_timeout_s);
  return s.Bound();
}

Result<void> CheckScenarioTimeout(const ScenarioTimeInputs& c, double timeout_s, double quiet_timeout_s) {
  ScenarioTimeBound latency = LatencyScenarioBound(c, quiet_timeout_s);
  if (latency.seconds > timeout_s) {
    return Error{Message("latency", latency, timeout_s,
                         c.profile_dur_s > 0 ? "LATENCY_DUR, WARMUP_DUR, REPEAT or FVBENCH_PROFILE_DUR"
                                             : "LATENCY_DUR, WARMUP_DUR or REPEAT")};
  }
  ScenarioTimeBound throughput = ThroughputScenarioBound(c, quiet_timeout_s);
  if (throughput.seconds > timeout_s) {
    return Error{Message("throughput", throughput, timeout_s,
                         c.plan.search.seed
                             ? "STEP_DUR or WARMUP_DUR"
                         : c.profile_dur_s > 0
                             ? "THROUGHPUT_BUDGET_S, CONFIRM_DUR, STEP_DUR, WARMUP_DUR, REPEAT or FVBENCH_PROFILE_DUR"
                             : "THROUGHPUT_BUDGET_S, CONFIRM_DUR, STEP_DUR, WARMUP_DUR or REPEAT")};
  }
  ScenarioTimeBound limits = LimitsScenarioBound(c, quiet_timeout_s);
  if (limits.seconds > timeout_s) return Error{Message("limits", limits, timeout_s, "LIMITS_DUR or WARMUP_DUR")};
  ScenarioTimeBound reject_cost = RejectCostScenarioBound(c, quiet_timeout_s);
  if (reject_cost.seconds > timeout_s) {
    return Error{Message("limits", reject_cost, timeout_s, "LIMITS_DUR or WARMUP_DUR")};
  }
  if (c.limits_keys_rps > 0) {
    ScenarioTimeBound sweep = KeySweepScenarioBound(c, quiet_timeout_s);
    if (sweep.seconds > timeout_s) {
      return Error{Message("limits.keys", sweep, timeout_s, "LIMITS_KEYS_SWEEP, LIMITS_DUR or WARMUP_DUR")};
    }
  }
  return Ok();
}

}  // namespace fvbench
