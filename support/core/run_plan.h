// RunPlan: what a run will do, resolved once from Config. Config holds the
// values as given (STEP_DUR and CONFIRM_DUR only as set or not); the plan
// holds the lengths, counts and budgets that run. Every reader of them (the
// throughput search's parameters, the progress lines' budget, the ctest
// TIMEOUT bound, the A/B pair lengths, the run meta) reads the plan, so they
// cannot disagree. Pure.
//
// The search:
//   bisect, STEP_DUR unset   probes, steps and confirmation from
//                            THROUGHPUT_BUDGET_S (SearchDurationsFromBudget:
//                            120 s -> 3 s, 10 s, 20 s); CONFIRM_DUR when set
//   bisect, STEP_DUR set     no probes, STEP_DUR steps, CONFIRM_DUR or 2 x STEP_DUR
//   seed                     kSeedSteps steps of STEP_DUR (default
//                            kSeedStepS), no confirmation, no budget
// REPEAT:
//   latency                  runs of each measured phase
//   throughput (bisect)      runs per confirmation round
//   A/B mode                 pairs per measured phase; the throughput search
//                            (on side A) then confirms with one run
#pragma once

#include "support/core/config.h"
#include "support/core/search_defaults.h"

namespace fvbench {

struct SearchPlan {
  bool seed = false;                 // THROUGHPUT_SEARCH=seed
  bool lengths_from_budget = false;  // bisect with STEP_DUR unset
  SearchDurations lengths;           // probe_s 0: no probes; confirm_s 0: no confirmation (seed)
  int confirm_runs = 0;              // runs per confirmation round; 0 for the seed search
  double budget_s = 0;               // THROUGHPUT_BUDGET_S; 0 for the seed search (no budget)
  // The load the search may use: budget_s + (confirm_runs - 1) x confirm_s,
  // REPEAT's extra confirmation runs on top of the budget; 0 for the seed
  // search. What the progress lines count against.
  double load_budget_s = 0;
  // The most load the search can run (the seed search: its steps).
  double max_load_s = 0;
  // A bound on the measured phases the search runs: each is charged at least
  // the shortest length against max_load_s, so max_load_s / that + 1
  // (3 s probes at 120 s: 41; the seed search: its steps).
  int max_phases = 0;
};

struct RunPlan {
  SearchPlan search;
  int latency_runs = 1;  // runs of a latency phase outside A/B (and raw nginx's, the control, in A/B)
  int ab_pairs = 0;      // A/B mode: pairs per measured phase (REPEAT); 0 when A/B is off
  double ab_latency_run_s = 0;     // one A/B latency run: LATENCY_DUR
  double ab_throughput_run_s = 0;  // one A/B throughput run: the search's step length
};

RunPlan RunPlanOf(const Config& c);

}  // namespace fvbench
