#include "support/judge/step_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/core/outcomes.h"
#include "support/core/units_format.h"
#include "support/judge/sut_saturation.h"
#include "support/judge/validity.h"

namespace fvbench {

namespace {

// "; 93.00% of them found every connection waiting for the SUT (its 1000
// connections hold 143.47 ms of the 6970 RPS schedule)": how long a stall the
// pool covered (Little's law: connections / rate), when both are known.
std::string PoolExhaustedText(const LoadResult& load) {
  std::string text = fmt::format("; {} of them found every connection waiting for the SUT",
                                 detail::FormatPercent(*load.late_pool_exhausted_share));
  if (load.connections > 0 && load.target_rps > 0) {
    text += fmt::format(" (its {} connections hold {} of the {} RPS schedule)", load.connections,
                        detail::FormatUs(1e6 * static_cast<double>(load.connections) / load.target_rps),
                        detail::FormatNumber(load.target_rps));
  }
  return text;
}

}  // namespace

StepVerdict JudgeStep(const MeasuredPhase& phase, const SearchParams& params) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  using detail::FormatPercentLimit;
  const LoadResult& load = phase.load;
  std::vector<std::string> ok, bad;
  if (load.requests == 0) bad.push_back("no requests completed");
  // The SUT's errors are judged here; requests the engine never sent are the
  // engine's (kept_up below), never the SUT's.
  const double sut_errors = SutErrorRate(load);
  std::string err = load.failed_engine > 0
                        ? fmt::format("SUT error_rate {} (+{} never sent by the engine)", FormatPercent(sut_errors),
                                      load.failed_engine)
                        : fmt::format("error_rate {}", FormatPercent(sut_errors));
  if (sut_errors < params.max_error_rate) {  // false for NaN
    ok.push_back(fmt::format("{} < {}", err, FormatPercentLimit(params.max_error_rate)));
  } else {
    bad.push_back(fmt::format("{} >= {}", err, FormatPercentLimit(params.max_error_rate)));
  }
  std::string p99 = fmt::format("p99 {} µs", FormatNumber(load.latency_us.p99));
  if (load.latency_us.p99 < params.slo_p99_us) {
    ok.push_back(fmt::format("{} < {} µs", p99, FormatNumber(params.slo_p99_us)));
  } else {
    bad.push_back(fmt::format("{} >= {} µs", p99, FormatNumber(params.slo_p99_us)));
  }
  // A step "sustains" its target only if the target was actually offered and
  // served: achieved >= min_achieved_fraction x target. Without this rule a
  // saturated SUT whose queue never errors passes every step (seen here:
  // target 6500, achieved 4992, p99 24 ms, a "pass" under the seed's rule).
  if (params.min_achieved_fraction > 0 && load.target_rps > 0) {
    std::string ach = fmt::format("achieved {} of {} RPS", FormatNumber(load.achieved_rps),
                                  FormatNumber(load.target_rps));
    if (load.achieved_rps >= params.min_achieved_fraction * load.target_rps) {
      ok.push_back(fmt::format("{} >= {}", ach, FormatPercentLimit(params.min_achieved_fraction)));
    } else {
      bad.push_back(fmt::format("{} < {}", ach, FormatPercentLimit(params.min_achieved_fraction)));
    }
  }
  // The phase's validity checks (validity.h) failed, and VALIDITY=fail.
  if (params.validity_mode == ValidityMode::kFail && !ValidityPassed(phase.validity)) {
    bad.push_back("invalid: " + FailedValidity(phase.validity));
  }
  std::string behind;
  if (!load.kept_up) {
    if (load.dropped_iterations > 0) {
      behind = fmt::format("engine fell behind ({} dropped iterations)", load.dropped_iterations);
    } else if (load.max_early_send_us > kDefaultMaxSendLagUs) {
      behind = fmt::format("engine ran ahead of its schedule (sends up to {} µs before their slot)",
                           FormatNumber(load.max_early_send_us));
    } else {
      behind = fmt::format("engine fell behind ({} of sends > 10 ms late, max send lag {} µs{})",
                           FormatPercent(load.late_send_share), FormatNumber(load.max_send_lag_us),
                           load.late_pool_exhausted_share ? PoolExhaustedText(load) : "");
    }
    if (params.require_kept_up) bad.push_back(behind);
  }
  StepVerdict v;
  v.passed = bad.empty();
  v.text = fmt::format("{}: {}", v.passed ? "pass" : "fail", fmt::join(v.passed ? ok : bad, ", "));
  if (!behind.empty() && !params.require_kept_up) v.text += "; " + behind;
  return v;
}

StepPassRule PassRuleOf(const SearchParams& params) {
  return StepPassRule{params.slo_p99_us, params.max_error_rate, params.min_achieved_fraction, params.require_kept_up};
}

namespace {

// How much of the engine's pool carrying the offered rate needed (Little's
// law, step_search.h kPoolAmpleShare / kPoolStarvedShare).
struct PoolUse {
  enum Band { kUnknown, kAmple, kBetween, kStarved } band = kUnknown;
  double needed = 0;  // target_rps x mean latency (s)
  std::string text;   // the figures, for the reason
};

PoolUse PoolUseOf(const LoadResult& l) {
  using detail::FormatFixed;
  using detail::FormatNumber;
  using detail::FormatPercentLimit;
  using detail::FormatUs;
  PoolUse u;
  // Timeouts held their connection for the whole engine timeout and are not
  // in wrk's mean: starved, whatever the figures.
  if (l.latency_us.censored_at_us > 0) {
    u.band = PoolUse::kStarved;
    return u;
  }
  if (l.connections == 0 || !(l.latency_us.mean > 0) || !(l.target_rps > 0)) {
    u.text = fmt::format("needed concurrency unknown (no {})", l.connections == 0 ? "connection count"
                                                              : l.target_rps > 0 ? "mean latency"
                                                                                 : "target rate");
    return u;
  }
  u.needed = l.target_rps * l.latency_us.mean / 1e6;
  const double pool = static_cast<double>(l.connections);
  const double share = u.needed / pool;
  u.band = share <= kPoolAmpleShare     ? PoolUse::kAmple
           : share >= kPoolStarvedShare ? PoolUse::kStarved
                                        : PoolUse::kBetween;
  if (u.band == PoolUse::kStarved) return u;  // never shown: the step is the SUT's
  const bool ample = u.band == PoolUse::kAmple;
  const std::string limit = ample ? "<= " + FormatPercentLimit(kPoolAmpleShare)
                                  : fmt::format("between {} and {}", FormatPercentLimit(kPoolAmpleShare),
                                                FormatPercentLimit(kPoolStarvedShare));
  u.text = fmt::format("{}needed concurrency {} ({} RPS x {} mean latency) is {}% of the engine's {} {} ({}, "
                       "Little's law)",
                       ample ? "pool ample: " : "", FormatNumber(u.needed), FormatNumber(l.target_rps),
                       FormatUs(l.latency_us.mean), FormatFixed(100 * share, 1), l.connections,
                       l.engine == "k6" ? "VUs" : "connections", limit);
  return u;
}

// Half or more of the late sends found every connection waiting for the
// SUT (kLateSendsPoolExhaustedShare): the SUT held the pool.
bool SutHeldThePool(const LoadResult& load) {
  return load.late_pool_exhausted_share && *load.late_pool_exhausted_share >= kLateSendsPoolExhaustedShare;
}

// How the engine missed its schedule, for EngineLimitedReason.
std::string BehindText(const LoadResult& load) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  if (load.failed_engine > 0) return fmt::format("{} requests never sent", load.failed_engine);
  if (load.max_early_send_us > kDefaultMaxSendLagUs) {
    return fmt::format("sends up to {} µs early", FormatNumber(load.max_early_send_us));
  }
  if (load.dropped_iterations > 0) return fmt::format("{} dropped iterations", load.dropped_iterations);
  std::string text = fmt::format("{} of sends > 10 ms late", FormatPercent(load.late_send_share));
  if (load.late_pool_exhausted_share) {
    text += fmt::format(", {} of them with a connection free", FormatPercent(1 - *load.late_pool_exhausted_share));
  }
  return text;
}

}  // namespace

double SutSaturatedFrom(const LoadResult& load) {
  if (load.sut_cpus_shared <= 0) return kSutSaturatedCpuShare;
  return std::min(kSutSaturatedCpuShare, SharedCpusSaturatedFrom(load.sut_cpus_shared));
}

std::optional<std::string> EngineLimitedReason(const LoadResult& load, const SearchParams& params) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  using detail::FormatPercentLimit;
  if (load.kept_up && load.failed_engine == 0) return std::nullopt;
  if (EngineHiccup(load)) return std::nullopt;
  const double saturated = SutSaturatedFrom(load);
  if (!load.sut_cpu_share || !(*load.sut_cpu_share < saturated)) return std::nullopt;
  // The SUT's latency held every connection: falling behind was its doing.
  const PoolUse pool = PoolUseOf(load);
  if (pool.band == PoolUse::kStarved) return std::nullopt;
  // ... or held it for a moment: the late sends found every connection busy.
  if (SutHeldThePool(load)) return std::nullopt;
  if (!(load.latency_us.p99 < params.slo_p99_us)) return std::nullopt;
  if (load.sut_served_rps && *load.sut_served_rps < 0.95 * load.achieved_rps) return std::nullopt;
  // The SUT's own errors (requests in flight at wrk's stop are none of
  // them: outcomes.h InFlightAtStop; k6 lets them finish).
  const double rate = SutErrorRate(load);
  if (!(rate < params.max_error_rate)) return std::nullopt;
  const std::string errors =
      fmt::format("SUT error rate {} < {}", FormatPercent(rate), FormatPercentLimit(params.max_error_rate));
  const std::string behind = BehindText(load);
  std::string served = load.sut_served_rps ? fmt::format(", served {} RPS of {} sent (stub_status)",
                                                         FormatNumber(std::round(*load.sut_served_rps)),
                                                         FormatNumber(std::round(load.achieved_rps)))
                                           : "";
  return fmt::format(
      "engine behind its schedule ({}) while the SUT was not saturated: SUT CPU {} of its CPUs{}{}; {}, {}", behind,
      FormatPercent(*load.sut_cpu_share),
      load.sut_cpus_shared > 0 ? fmt::format(" (shared with the engine: saturated from {})", FormatPercent(saturated))
                               : "",
      served, pool.text, errors);
}

bool EngineHiccup(const LoadResult& load) {
  return !load.kept_up && load.failed_engine == 0 && load.dropped_iterations == 0 &&
         load.max_early_send_us <= kDefaultMaxSendLagUs && load.late_send_share < kEngineLimitedLateShare &&
         !SutHeldThePool(load);
}

bool MarginalFailure(const LoadResult& load, const SearchParams& params) {
  if ((!load.kept_up && !EngineHiccup(load)) || load.failed_engine > 0 || load.target_rps <= 0) return false;
  if (!(SutErrorRate(load) < 2 * params.max_error_rate)) return false;
  if (!(load.latency_us.p99 < 2 * params.slo_p99_us) || load.latency_us.IsCensored(load.latency_us.p99)) return false;
  return load.achieved_rps >= (params.min_achieved_fraction - kMarginalRateShortfall) * load.target_rps;
}

SearchOutcome SeedStepSearch(const SearchParams& params, const StepFunction& run_step) {
  SearchOutcome out;
  out.rule = PassRuleOf(params);
  int index = 0;
  for (int pct : kSeedStepPercents) {
    StepResult step;
    step.target_rps = std::floor(params.search_max_rps * pct / 100.0);
    auto phase = run_step(step.target_rps, index);
    if (!phase.ok()) {
      step.passed = false;
      step.verdict = fmt::format("fail: engine error: {}", phase.error().message);
      step.load.target_rps = step.target_rps;
      out.error = phase.error().message;
      out.steps.push_back(std::move(step));
      break;
    }
    StepVerdict v = JudgeStep(*phase, params);
    step.passed = v.passed;
    step.verdict = std::move(v.text);
    step.load = std::move(phase->load);
    step.validity = std::move(phase->validity);
    step.sut_usage = std::move(phase->sut_usage);
    step.sut_timeline = std::move(phase->sut_timeline);
    out.steps.push_back(std::move(step));
    const StepResult& s = out.steps.back();
    if (!s.passed) break;
    if (out.reported_step < 0 || s.load.achieved_rps >= out.reported_rps) {
      out.reported_rps = s.load.achieved_rps;
      out.reported_step = index;
    }
    ++index;
  }
  constexpr int kSteps = static_cast<int>(std::size(kSeedStepPercents));
  out.ceiling_reached = static_cast<int>(out.steps.size()) == kSteps && out.steps.back().passed;
  for (const StepResult& s : out.steps) out.load_s += s.load.duration_s > 0 ? s.load.duration_s : 0;
  if (out.reported_step >= 0 && !out.ceiling_reached && !out.steps.back().passed) {
    double pass = out.steps[out.reported_step].target_rps;
    if (pass > 0) out.resolution = (out.steps.back().target_rps - pass) / pass;
  }
  return out;
}

}  // namespace fvbench
