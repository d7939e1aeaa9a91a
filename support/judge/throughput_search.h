// Max-throughput search: bracket, bisect, confirm (THROUGHPUT_SEARCH=bisect,
// the default; the seed's fixed steps stay available as SeedStepSearch in
// step_search.h, THROUGHPUT_SEARCH=seed).
//
//  1. Bracket: from start_rps (default cap / 8) double the target rate until a
//     step fails or the cap passes. When the very first step fails, halve
//     instead until one passes (or the rate drops under min_rps).
//  2. Bisect between the highest passing and the lowest failing target until
//     (fail - pass) <= resolution x pass. Targets are whole RPS.
//  3. Confirm the highest passing target with confirm_runs runs of
//     confirm_dur_s each. The round passes when a majority of its runs pass.
//     A failing round steps the target down (by `resolution` of the rate,
//     doubling after each failed round: 2 %, 4 %, 8 % ...) and confirms
//     again, while the budget allows.
//
// Pass rule: JudgeStep (step_search.h) with `rule`: error_rate < 1 %, p99 <
// SLO, achieved >= 97 % of target and (rule.require_kept_up, on by default
// here) the engine kept up with its schedule.
//
// Non-monotonic SUTs (a transient blip): a failing bracket or bisect step is
// run once more at the same rate (`retries`, default 1) and counts as failed
// only if every attempt fails; both attempts are recorded. This biases a step
// towards passing, which the longer confirmation run checks. Confirmation
// rounds are not retried: a failing round steps down.
//
// Result: the confirmed round's MEASURED achieved rate (the median over its
// runs), never a target. A confirmed run at the cap sets ceiling_reached: the
// number is a lower bound ("at least N (ceiling reached)"), never a maximum.
//
// Budget: budget_s seconds of load (planned step durations; warmup not
// included) bound the search; REPEAT's extra confirmation runs, (confirm_runs
// - 1) x confirm_dur_s, come on top. A bracket or bisect step runs only if
// the time for one confirmation round stays available after it. When the
// next step would exceed the budget the search stops, confirms what it has,
// and says why in stop_reason; with no time for a confirmation the result is
// the highest passing step's measured rate below the lowest failing target,
// with confirmed = false.
//
// Every run is recorded in SearchOutcome::steps with its role ("bracket",
// "bisect", "confirm"); resolution is (lowest failing target - reported
// target) / reported target (none at a ceiling); load_s the load time used.
// A run_step Error is recorded as a failed step and stops the search
// (SearchOutcome::error); what was known before is still reported.
//
// Pure: all load is done by `run_step`.
#pragma once

#include <functional>
#include <string>

#include "support/core/config.h"
#include "support/core/load_result.h"
#include "support/core/result.h"
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
  double confirm_dur_s = 40;    // CONFIRM_DUR, seconds per confirmation run (default 2 x STEP_DUR)
  double budget_s = 120;        // THROUGHPUT_BUDGET_S, seconds of load per search
  int confirm_runs = 1;         // REPEAT: runs per confirmation round
  int retries = 1;              // extra attempts of a failing bracket / bisect step
  double min_rps = 1;           // downward bracketing gives up below this rate
};

// One run the search asks for.
struct StepRequest {
  double target_rps = 0;
  double duration_s = 0;
  int index = 0;       // 0-based position in SearchOutcome::steps
  std::string role;    // "bracket" | "bisect" | "confirm"
};
using SearchStepFunction = std::function<Result<LoadResult>(const StepRequest&)>;

SearchOutcome MaxThroughputSearch(const ThroughputSearchParams& params, const SearchStepFunction& run_step);

// The knobs of a run: THROUGHPUT_SEARCH_MAX, THROUGHPUT_START,
// THROUGHPUT_RESOLUTION, STEP_DUR, CONFIRM_DUR, THROUGHPUT_BUDGET_S, REPEAT,
// THROUGHPUT_SLO_P99_MS.
ThroughputSearchParams ThroughputSearchParamsFrom(const Config& c);

// The one entry point of the scenario runner: THROUGHPUT_SEARCH=bisect runs
// MaxThroughputSearch; =seed runs SeedStepSearch (step_search.h) with STEP_DUR
// steps (role "", no confirmation, no budget).
SearchOutcome SearchMaxThroughput(const Config& c, const SearchStepFunction& run_step);

}  // namespace fvbench
