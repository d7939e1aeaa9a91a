// Max-throughput search: probe, bisect, confirm (THROUGHPUT_SEARCH=bisect,
// the default; the seed's fixed steps stay available as SeedStepSearch in
// step_search.h, THROUGHPUT_SEARCH=seed).
//
// Step lengths: without STEP_DUR they come from the budget
// (SearchDurationsFromBudget: 120 s -> 3 s probes, 10 s steps, a 20 s
// confirmation, or CONFIRM_DUR when set) so that a 2 % resolution fits in it;
// STEP_DUR=20 gives the seed's 20 s steps (no probes, confirmation CONFIRM_DUR
// or 2 x STEP_DUR).
//
//  1. Probe (probe_dur_s short steps, role "probe"; without probes the same
//     walk runs with step_dur_s steps, role "bracket"): from start_rps
//     (default cap / 8) double the target until a step fails or the cap
//     passes. A step that fails short of its target (achieved < 97 %) gives
//     a knee estimate: the rate the SUT did serve (achieved, or stub_status's
//     served rate when lower). When the first step fails the next target is
//     90 % of that estimate (half the rate without one) until one passes.
//  2. Bisect (step_dur_s steps) between the highest pass and the lowest fail
//     until (fail - pass) <= resolution x pass, guided by the estimate: the
//     first target sits just under the knee (estimate x (1 - resolution/2));
//     from a pass at or above the estimate the next climbs one resolution
//     (doubling while climbing steps pass), which usually closes the
//     interval in two steps; otherwise the midpoint.
//  3. Confirm the highest passing target with confirm_runs runs of
//     confirm_dur_s each. The round passes when a majority of its runs pass.
//     A failing round steps the target down (to target / (1 + resolution),
//     the step doubling after each failed round: 2 %, 4 %, 8 % ...) and
//     confirms again, while the budget allows; a round that passes one step
//     down ends at exactly the resolution.
//  4. Refine: while a held round is more than the resolution below the lowest
//     failing target and another round fits the budget, confirm the midpoint
//     between them; a held round there becomes the result, a failed one the
//     lowest failing target. When no round fits, stop_reason says so. A
//     refining round the engine could not offer (engine-limited) leaves the
//     held result as it was, and stop_reason names it; an engine error there
//     stops the search with the error, as anywhere (the held result is
//     still reported).
//
// Pass rule: JudgeStep (step_search.h) with `rule`: error_rate < 1 %, p99 <
// SLO, achieved >= 97 % of target, (rule.require_kept_up, on by default
// here) the engine kept up with its schedule, and (VALIDITY=fail) no
// validity check of the step's phase failed.
//
// Retries: only a MARGINAL failure (MarginalFailure, step_search.h: the SUT
// served its offered rate and the engine kept up, or fell behind by no more
// than a hiccup, but errors, p99 or lateness crossed the limit — a transient
// blip) of a probe, bracket or bisect step is run once more at the same rate
// (`retries`, default 1); it counts as failed only if every attempt fails,
// and both attempts are recorded. A step that fell short of its rate (the
// SUT's saturation signature) is never retried, nor are confirmation rounds.
// Probes are retried too: measured (unpinned, 2 CPUs), a 3 s probe at 3428
// RPS failed on 0.18 % of sends late by 16 ms, became the lowest failing
// rate, and the search "confirmed" 3374 RPS at 1.6 % where 6856 RPS was
// served in the probe before.
//
// Engine-limited (EngineLimitedReason, step_search.h): a step the engine
// could not keep to while the SUT was not saturated ends the search at once:
// no retry, no higher target (the engine cannot offer it). When no step has
// passed yet, one step at 90 % of what the engine managed is run for a clean
// pass. engine_limited is set, the result is a lower bound ("at least N RPS
// (engine-limited ...)"): the highest rate the SUT served within the rule's
// SUT error and p99 limits (as EngineLimitedReason counts the SUT's errors),
// unconfirmed, no resolution.
//
// Result: the confirmed round's MEASURED achieved rate (the median over its
// runs), never a target. A confirmed run at the cap sets ceiling_reached: the
// number is a lower bound ("at least N (ceiling reached)"), never a maximum.
//
// Budget: budget_s seconds of load (planned step durations; warmup not
// included) bound the search; REPEAT's extra confirmation runs, (confirm_runs
// - 1) x confirm_dur_s, come on top. A probe, bracket or bisect step runs only
// if the time for one confirmation round stays available after it. When the
// next step would exceed the budget the search stops, confirms what it has,
// and says why in stop_reason; with no time for a confirmation the result is
// the highest passing step's measured rate below the lowest failing target,
// with confirmed = false.
//
// Every run is recorded in SearchOutcome::steps with its role ("probe",
// "bracket", "bisect", "confirm"); resolution is (lowest failing target -
// reported target) / reported target (none at a ceiling); load_s the load
// time used. A run_step Error is recorded as a failed step and stops the
// search (SearchOutcome::error); what was known before is still reported.
//
// Pure: all load is done by `run_step`.
#pragma once

#include <functional>
#include <string>

#include "support/core/config.h"
#include "support/core/load_result.h"
#include "support/core/result.h"
#include "support/core/run_plan.h"
#include "support/core/search_defaults.h"
#include "support/judge/step_search.h"

namespace fvbench {

struct ThroughputSearchParams {
  SearchParams rule = [] {
    SearchParams p;
    p.require_kept_up = true;
    return p;
  }();                          // pass rule of a step (rule.search_max_rps is not used)
  double cap_rps = kDefaultSearchMaxRps;  // THROUGHPUT_SEARCH_MAX: the highest target tried
  double start_rps = 0;         // THROUGHPUT_START; 0 = cap_rps / 8
  double resolution = 0.02;     // THROUGHPUT_RESOLUTION, fraction of the rate
  double step_dur_s = 20;       // STEP_DUR, seconds per bracket / bisect step
  double probe_dur_s = 0;       // seconds per probe step; 0 = bracket with step_dur_s steps (no probes)
  double confirm_dur_s = 40;    // CONFIRM_DUR, seconds per confirmation run (default 2 x STEP_DUR)
  double budget_s = 120;        // THROUGHPUT_BUDGET_S, seconds of load per search
  int confirm_runs = 1;         // REPEAT: runs per confirmation round
  int retries = 1;              // extra attempts of a marginally failing bracket / bisect step
  double min_rps = 1;           // downward bracketing gives up below this rate
};

// One run the search asks for.
struct StepRequest {
  double target_rps = 0;
  double duration_s = 0;
  int index = 0;       // 0-based position in SearchOutcome::steps
  std::string role;    // "probe" | "bracket" | "bisect" | "confirm"
};
// Runs the step and returns its measured phase: the load, its validity checks
// and the SUT's usage, which the step carries from then on (StepResult).
using SearchStepFunction = std::function<Result<MeasuredPhase>(const StepRequest&)>;

SearchOutcome MaxThroughputSearch(const ThroughputSearchParams& params, const SearchStepFunction& run_step);

// Step lengths from the budget: SearchDurationsFromBudget (core/search_defaults.h).

// The load the search may use: budget_s + (confirm_runs - 1) x confirm_dur_s.
double SearchLoadBudget(const ThroughputSearchParams& p);

// The knobs of a run: THROUGHPUT_SEARCH_MAX, THROUGHPUT_START,
// THROUGHPUT_RESOLUTION, THROUGHPUT_SLO_P99_MS from `c`; the lengths, the
// budget and the runs per confirmation round from the run's search plan
// (run_plan.h RunPlanOf(c).search: one run per round in A/B mode, where
// REPEAT counts the pairs).
ThroughputSearchParams ThroughputSearchParamsFrom(const Config& c, const SearchPlan& plan);

// Why a search that ran steps has no number (reported_step < 0), e.g.
//   "no step passed (first step 18750 RPS: fail: ...)"  (one step, or none lower)
//   "no step passed in 9 steps (first 5000 RPS: fail: ...; lowest 20 RPS: fail: ...)"
//   "no rate held: 1 step passed (highest 8238 RPS, probe), but a later run
//    at or below it failed (lowest failing 7750 RPS, confirm: fail: ...);
//    budget: ..."
// (a passing short step above a failed longer one is no result: the rate
// did not hold). The stop reason, when there is one, is appended.
std::string NoResultReason(const SearchOutcome& so);

// The one entry point of the scenario runner: THROUGHPUT_SEARCH=bisect runs
// MaxThroughputSearch; =seed runs SeedStepSearch (step_search.h) with the
// plan's steps (STEP_DUR, default 20 s; role "", no confirmation, no budget).
SearchOutcome SearchMaxThroughput(const Config& c, const SearchPlan& plan, const SearchStepFunction& run_step);

}  // namespace fvbench
