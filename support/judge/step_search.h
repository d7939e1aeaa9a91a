// Max-throughput search, behind one function so a better search (bracket,
// bisect, confirm) can replace it without touching callers.
//
// SeedStepSearch is the seed's search (fairvisor/benchmark run-all.sh,
// helper_run_throughput / controller_fetch_best_throughput), made honest:
//  - steps at 50, 70, 90, 100, 115, 130 % of search_max_rps, each target
//    floor(search_max_rps * pct / 100) as the seed's integer arithmetic;
//  - a step passes when it completed at least one request, error_rate <
//    max_error_rate (seed: 0.01), p99 < slo_p99_us (seed: 1000 ms) and —
//    not in the seed — achieved_rps >= min_achieved_fraction (0.97) x target,
//    so a saturated SUT that queues without erroring does not pass;
//  - the search stops at the first failing step;
//  - the reported rate is the best passing step's MEASURED achieved_rps (the
//    seed reported the step's target);
//  - when the last (130 %) step passes, ceiling_reached is set: the reported
//    rate is a lower bound ("at least N"), not a maximum;
//  - a step whose run_step returns an Error is recorded as a failed step
//    carrying that error, and the search stops.
// Pure: all load is done by `run_step`.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/core/search_defaults.h"

namespace fvbench {

struct SearchParams {
  double search_max_rps = kDefaultSearchMaxRps;  // THROUGHPUT_SEARCH_MAX
  // The rule's defaults are StepPassRule's (scenario_result.h).
  double max_error_rate = StepPassRule{}.max_error_rate;  // a step passes when error_rate < this (seed: 1 %)
  double slo_p99_us = StepPassRule{}.slo_p99_us;          // ... and p99 < this (seed: 1000 ms)
  // ... and achieved_rps >= this x target (not in the seed; 0 disables).
  double min_achieved_fraction = StepPassRule{}.min_achieved_fraction;
  // ... and the engine kept up with its schedule (LoadResult::kept_up: k6
  // dropped_iterations == 0, wrk send lag within bound). Not in the seed: off
  // for SeedStepSearch, on for MaxThroughputSearch (throughput_search.h).
  bool require_kept_up = false;
};

struct SearchOutcome {
  std::vector<StepResult> steps;  // every step run, in order
  double reported_rps = 0;        // best passing step's measured achieved_rps; 0 when none passed
  int reported_step = -1;         // index into steps; -1 when none passed
  bool ceiling_reached = false;   // the top step passed: reported_rps is a lower bound
  std::string error;              // the run_step error that stopped the search, if any
  // Filled by MaxThroughputSearch (throughput_search.h); for SeedStepSearch
  // confirmed stays false and resolution / load_s are derived from the steps.
  bool confirmed = false;          // reported_rps is a passing confirmation run's measured rate
  std::optional<double> resolution;  // (lowest failing target above the reported one - reported target) / reported target
  double load_s = 0;               // seconds of load run by the search
  std::string stop_reason;         // why the search stopped before finishing (budget), "" otherwise
  std::vector<int> repeats;        // indices into steps of the confirmation runs the result is the median of
  StepPassRule rule;               // the pass rule every step was judged by (PassRuleOf the search's params)
  // The load generator, not the SUT, was the limit (EngineLimitedReason):
  // reported_rps is a lower bound ("at least N RPS (engine-limited ...)").
  bool engine_limited = false;
};

// The parts of `params` that decide a step (JudgeStep), as the result model
// carries them.
StepPassRule PassRuleOf(const SearchParams& params);

// The seed's step percentages of search_max_rps.
inline constexpr int kSeedStepPercents[] = {50, 70, 90, 100, 115, 130};

// Verdict of one step against the pass rule, e.g.
//   "pass: error_rate 0.00% < 1%, p99 812 µs < 1000000 µs"
//   "fail: error_rate 3.20% >= 1%"
// (a fail verdict lists only the failing conditions). When the engine fell
// behind its schedule, "; engine fell behind (N dropped iterations)" is
// appended and, unless params.require_kept_up, does not change the verdict;
// with require_kept_up it is a failing condition ("engine fell behind ...").
struct StepVerdict {
  bool passed = false;
  std::string text;
};
StepVerdict JudgeStep(const LoadResult& load, const SearchParams& params);

// The SUT's CPUs count as saturated from this share of them (0..1) on.
inline constexpr double kSutSaturatedCpuShare = 0.85;

// Why a failed step was the ENGINE's limit, not the SUT's; nullopt when it
// was not (or cannot be told). All of:
//  - the engine did not keep to its schedule (kept_up false, or requests it
//    never sent);
//  - the SUT was not saturated: LoadResult::sut_cpu_share known and below
//    kSutSaturatedCpuShare (no CPU figure: never engine-limited);
//  - the SUT answered what it got: its own error rate (SutErrorRate) below
//    params.max_error_rate, p99 below params.slo_p99_us and, when read,
//    stub_status's served rate at least 95 % of the engine's achieved rate.
// E.g. "engine behind its schedule (12.0% of sends > 10 ms late) while the
// SUT was not saturated: SUT CPU 41% of its CPUs, served 2010 RPS of 2013".
std::optional<std::string> EngineLimitedReason(const LoadResult& load, const SearchParams& params);

// A failed step worth one retry: it failed by a margin, not clearly. The
// engine kept up, the SUT's error rate is below 2 x max_error_rate, p99
// below 2 x slo_p99_us (and not censored), and achieved is at least
// (min_achieved_fraction - kMarginalRateShortfall) x target. A step that
// fell well short of its rate or failed by far (the SUT's saturation
// signature, or a large blip) is not retried: the confirmation run, not
// a retry, guards the result.
inline constexpr double kMarginalRateShortfall = 0.03;
bool MarginalFailure(const LoadResult& load, const SearchParams& params);

using StepFunction = std::function<Result<LoadResult>(double target_rps, int step_index)>;

SearchOutcome SeedStepSearch(const SearchParams& params, const StepFunction& run_step);

}  // namespace fvbench
