// Defaults of the throughput search written once: Config
// (THROUGHPUT_SEARCH_MAX), the search parameters (judge/step_search.h,
// judge/throughput_search.h) and the result model's pass rule
// (scenario_result.h StepPassRule) take them from here.
#pragma once

#include <algorithm>
#include <cmath>

namespace fvbench {

// THROUGHPUT_SEARCH_MAX, RPS: the seed's default cap (fairvisor/benchmark
// run-all.sh); the seed search's steps are percentages of it.
inline constexpr double kDefaultSearchMaxRps = 150000;

// The seed search (THROUGHPUT_SEARCH=seed): kSeedSteps fixed steps
// (judge/step_search.h kSeedStepPercents) of STEP_DUR, kSeedStepS when unset.
inline constexpr int kSeedSteps = 6;
inline constexpr double kSeedStepS = 20;

// Step lengths chosen from the budget (seconds of load): step = budget / 12
// rounded, within 2..20 s (120 s -> 10 s), confirmation 2 x step, probe
// step / 3 rounded, at least 2 s (120 s -> 3 s). At 120 s: a few probes, two
// to four bisect steps and a confirmation reach 2 % with time to spare.
struct SearchDurations {
  double probe_s = 0;
  double step_s = 0;
  double confirm_s = 0;
};
inline SearchDurations SearchDurationsFromBudget(double budget_s) {
  SearchDurations d;
  d.step_s = std::clamp(std::round(budget_s / 12), 2.0, 20.0);
  d.confirm_s = 2 * d.step_s;
  d.probe_s = std::max(2.0, std::round(d.step_s / 3));
  return d;
}

// The least budget a bisect search can use: two first steps (a pass and a
// failure; probes, or bracket steps without them), one confirmation and
// kBudgetOverrunS for what the steps' wall time adds to their planned
// lengths (a 2 s step is charged ~2.03 s; throughput_search.h Budget).
inline constexpr double kBudgetOverrunS = 1;
inline double LeastSearchBudget(double first_step_s, double confirm_s) {
  return 2 * first_step_s + confirm_s + kBudgetOverrunS;
}

// THROUGHPUT_BUDGET_S's maximum, seconds: a day, the longest soak the docs
// describe (LATENCY_DUR=86400). A search converges within minutes; a larger
// budget is a slip (milliseconds, an extra digit) that would only show as a
// scenario time bound of years.
inline constexpr double kMaxSearchBudgetS = 86400;

}  // namespace fvbench
