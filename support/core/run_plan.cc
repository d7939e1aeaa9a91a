#include "support/core/run_plan.h"

#include <algorithm>
#include <cmath>

namespace fvbench {

namespace {

SearchPlan SeedSearchPlan(const Config& c) {
  SearchPlan s;
  s.seed = true;
  s.lengths.step_s = c.step_dur_s.value_or(kSeedStepS);
  s.max_load_s = kSeedSteps * s.lengths.step_s;
  s.max_phases = kSeedSteps;
  return s;
}

SearchPlan BisectSearchPlan(const Config& c) {
  SearchPlan s;
  s.lengths_from_budget = !c.step_dur_s;
  if (c.step_dur_s) {
    s.lengths.step_s = *c.step_dur_s;
    s.lengths.confirm_s = 2 * *c.step_dur_s;
  } else {
    s.lengths = SearchDurationsFromBudget(c.throughput_budget_s);
  }
  if (c.confirm_dur_s) s.lengths.confirm_s = *c.confirm_dur_s;
  s.confirm_runs = c.ab ? 1 : c.repeat;  // A/B: REPEAT counts the pairs
  s.budget_s = c.throughput_budget_s;
  s.load_budget_s = s.budget_s + (s.confirm_runs - 1) * s.lengths.confirm_s;
  s.max_load_s = s.load_budget_s;
  const double shortest = std::min({s.lengths.probe_s > 0 ? s.lengths.probe_s : s.lengths.step_s,
                                    s.lengths.step_s, s.lengths.confirm_s});
  s.max_phases = static_cast<int>(std::floor(s.max_load_s / shortest)) + 1;
  return s;
}

}  // namespace

RunPlan RunPlanOf(const Config& c) {
  RunPlan p;
  p.search = c.throughput_search == ThroughputSearchKind::kSeed ? SeedSearchPlan(c) : BisectSearchPlan(c);
  p.latency_runs = c.repeat;
  if (c.ab) {
    p.ab_pairs = c.repeat;
    p.ab_latency_run_s = c.latency_dur_s;
    p.ab_throughput_run_s = p.search.lengths.step_s;
  }
  return p;
}

}  // namespace fvbench
