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
#include "support/core/validity_params.h"

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
  // ... and, with VALIDITY=fail, no validity check of the step's phase
  // failed (MeasuredPhase::validity; VALIDITY=warn records them only).
  ValidityMode validity_mode = ValidityMode::kFail;
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
// With params.validity_mode kFail, the phase's failed validity checks are a
// failing condition too, "invalid: <check>: measured ..., limit ...; ..."
// (validity.h FailedValidity).
struct StepVerdict {
  bool passed = false;
  std::string text;
};
StepVerdict JudgeStep(const MeasuredPhase& phase, const SearchParams& params);

// The SUT's CPUs count as saturated from this share of them (0..1) on.
inline constexpr double kSutSaturatedCpuShare = 0.85;

// The share from which `load`'s SUT counts as saturated: kSutSaturatedCpuShare,
// or lower when the engine shared its CPUs (LoadResult::sut_cpus_shared;
// sut_saturation.h SharedCpusSaturatedFrom: less than one CPU idle).
double SutSaturatedFrom(const LoadResult& load);

// Little's law (L = λW) on the engine's pool. An open-model engine holds one
// slot of its pool per outstanding request: wrk a connection (at most one
// request outstanding per connection; wrk never pipelines), k6's
// constant-arrival-rate a VU (one iteration at a time per VU; k6 docs,
// "Arrival-rate VU allocation": with every VU busy an iteration is dropped).
// Carrying the offered rate λ (target_rps) at the mean latency W
// (latency_us.mean) keeps L = λW slots (LoadResult::connections) busy on
// average. The share L / pool tells whose fault a missed schedule was:
//  - L <= kPoolAmpleShare x pool: the pool was mostly free; the SUT's latency
//    did not hold it. At half occupancy a request rarely finds every slot
//    busy when it falls due (Erlang C, Poisson arrivals; paced ones wait
//    less: 3.6 % for a pool of 10, 0.4 % for 20, 7e-6 for 50), and
//    bursts of twice the mean latency still fit. An engine behind its
//    schedule there lacked CPU (or was descheduled), not connections.
//  - L >= kPoolStarvedShare x pool: the SUT's latency starved the pool. At
//    L = pool the pool carries at most pool / W = λ: no engine keeps the
//    schedule, whatever its CPU (measured: 938 wrk connections at an
//    18750 RPS probe with a 50 ms mean latency, L = 937). The 10 % margin:
//    the mean W understates how long a request holds its slot (the engine's
//    turn-around from a response to the next send; the slowest requests,
//    still in flight at the stop, are not in it), and pools of up to ~100
//    find every slot busy often at 90 % (Erlang C: 36 % for 50, 22 % for 100).
//  - in between: the figure alone cannot tell (bursts of slow responses may
//    have held every slot for a while, or the engine's CPU was short), and
//    the other conditions of EngineLimitedReason decide (the pool-exhausted
//    late sends above all).
inline constexpr double kPoolAmpleShare = 0.5;
inline constexpr double kPoolStarvedShare = 0.9;

// The mean hides stalls: a SUT that stops answering for 50 ms at 5000 RPS
// holds 250 connections at once, though its mean latency keeps L far below
// the pool. wrk's pacing script tells the two causes of a late send apart
// (pace.lua header, LoadResult::late_pool_exhausted_share): its slot found
// every connection waiting for a response (the SUT held the pool), or a
// connection was free and the event loop ran late (the engine). From this
// share of the late sends on, falling behind was the SUT's doing. Measured
// (ORESTY_CPUSET=0 K6_CPUSET=1, throughput.complex at 4941 RPS): 4.4 % of
// sends late with L at 14 % of 248 connections, the SUT's CPU 83 % busy and
// its p99 59 ms, and the engine's CPU 16 % busy: it had been called
// engine-limited.
inline constexpr double kLateSendsPoolExhaustedShare = 0.5;

// An engine that is the limit falls behind on a large share of its sends (or
// leaves slots unsent). Below this share of sends > 10 ms late, with every
// slot sent and none early, falling behind was a hiccup of the engine's host
// (a scheduler slice lost to another process on its CPU), not its limit:
// never "engine-limited", and the step counts as a marginal failure that is
// retried once. Measured (ORESTY_CPUSET=0 K6_CPUSET=1, throughput.complex at
// 3607 RPS): 0.17 % of sends late by at most 13 ms, wrk's CPU 22 % busy; the
// search had stopped there as engine-limited after 6 s of load.
inline constexpr double kEngineLimitedLateShare = 0.01;

// A failed step whose only fault on the engine's side is such a hiccup.
// Late sends of which kLateSendsPoolExhaustedShare or more found every
// connection waiting for the SUT are no hiccup of the engine: the SUT held
// the whole pool (200 ms of the schedule for wrk's derived pool), i.e. it
// queued — the saturation signature, which is failed, not retried.
// Measured (`ctest --preset local -R throughput`, unpinned, throughput.complex):
// four 10 s bisect steps at 4159-4286 RPS failed on 0.54-0.77 % of sends late
// by at most 20-28 ms, 88 % of them pool-exhausted, the SUT's CPUs 94-97 %
// busy and its p99 197-231 ms (28 ms at 4071 RPS); each was retried, and the
// search spent 60 of its 120 s there and ended "no rate held".
bool EngineHiccup(const LoadResult& load);

// Why a failed step was the ENGINE's limit, not the SUT's; nullopt when it
// was not (or cannot be told). All of:
//  - the engine did not keep to its schedule (kept_up false, or requests it
//    never sent), by more than an EngineHiccup;
//  - the SUT was not saturated: LoadResult::sut_cpu_share known and below
//    SutSaturatedFrom (no CPU figure: never engine-limited);
//  - the late sends did not find the pool exhausted: less than
//    kLateSendsPoolExhaustedShare of them found every connection waiting
//    for the SUT (LoadResult::late_pool_exhausted_share; unknown: not a
//    reason either way);
//  - the SUT did not starve the engine's pool (Little's law above): the
//    needed concurrency L = target_rps x latency_us.mean is below
//    kPoolStarvedShare x connections, and no request timed out (timeouts
//    are requests that held a connection for the whole engine timeout, and
//    are not in wrk's mean: with latency_us.censored_at_us set the pool
//    counts as starved);
//  - the SUT answered what it got: p99 below params.slo_p99_us, when read
//    stub_status's served rate at least 95 % of the engine's achieved rate,
//    and its own error rate (SutErrorRate) below params.max_error_rate.
// The SUT's error rate holds only the SUT's own failures: the requests in
// flight at wrk's stop are interrupted, not failed (outcomes.h
// InFlightAtStop), also when slots went unsent; a starved pool is told by
// Little's law and by the pool-exhausted late sends, not by them. A SUT that
// answers with errors (429, 5xx, resets) is never "engine-limited".
// E.g. "engine behind its schedule (500 requests never sent) while the SUT
// was not saturated: SUT CPU 30.00% of its CPUs, served 740 RPS of 740 sent
// (stub_status); pool ample: needed concurrency 20 (1000 RPS x 20.00 ms mean
// latency) is 20.0% of the engine's 100 connections (<= 50%, Little's law),
// SUT error rate 0.00% < 1%"; between
// the bands "...; needed concurrency 700 (...) is 70.0% of the engine's 1000
// connections (between 50% and 90%, Little's law), SUT error rate 0.40% <
// 1%"; without the figure "...; needed concurrency unknown (no connection
// count), SUT error rate 0.50% < 1%".
std::optional<std::string> EngineLimitedReason(const LoadResult& load, const SearchParams& params);

// A failed step worth one retry: it failed by a margin, not clearly. The
// engine kept up (or fell behind only by an EngineHiccup), the SUT's error rate is below 2 x max_error_rate, p99
// below 2 x slo_p99_us (and not censored), and achieved is at least
// (min_achieved_fraction - kMarginalRateShortfall) x target. A step that
// fell well short of its rate or failed by far (the SUT's saturation
// signature, or a large blip) is not retried: the confirmation run, not
// a retry, guards the result.
inline constexpr double kMarginalRateShortfall = 0.03;
bool MarginalFailure(const LoadResult& load, const SearchParams& params);

using StepFunction = std::function<Result<MeasuredPhase>(double target_rps, int step_index)>;

SearchOutcome SeedStepSearch(const SearchParams& params, const StepFunction& run_step);

}  // namespace fvbench
