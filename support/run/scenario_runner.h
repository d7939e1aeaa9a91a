// Runs one scenario end to end on a Testbed and returns what it measured.
//
//   the preflight lint: the hosts' machine facts against the scenario's
//      busiest phase (environment_preflight.h): a refusal is the scenario's
//      error before anything starts (its warnings are the run meta's)
//   -> stop leftovers -> start the SUT services for the scenario (sut_services.h)
//   -> prove the policy live (fairvisor scenarios: no load error in edge's
//      log, RateLimit evidence naming the policy on a probe of the same
//      request shape the engine sends)
//   -> warmup (WARMUP_DUR s at the phase's rate, unmeasured)
//   -> latency: one measured phase at LATENCY_RPS for LATENCY_DUR s;
//      throughput: the step search (step_search.h) with STEP_DUR s per step
//   -> after the load: the services must still be alive, and edge's log must
//      still be free of policy-load errors
//   -> stop the services.
//
// A/B mode (Config::ab, ab_compare.h; policy scenarios only): latency runs
// REPEAT pairs A B A B ... (each on a freshly started edge of its side after
// a warmup); throughput searches once on A, then runs the pairs at
// AB_RATE_FRACTION x A's maximum. The result is side A's; `ab` holds both
// sides' runs and the comparison.
//
// Never returns an Error: a scenario that fails before or while measuring
// comes back with measured=false (or with the steps it did measure) and
// `error` set, so whatever was measured is saved. Thresholds are evaluated by
// the caller (the scenario test) so that the profile stays one decision.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "support/run/scenario_plan.h"
#include "support/core/scenario_result.h"
#include "support/judge/kernel_counters.h"
#include "support/run/testbed.h"

namespace fvbench {

// Receives one progress line per phase ("warmup 500 RPS for 2 s", ...).
using ProgressFn = std::function<void(const std::string&)>;

// A short dispatcher (scenario_runner.cc, class ScenarioRun) over named
// pieces: Start, Warmup, then LatencyFlow or ThroughputFlow (the search over
// MeasurePhase), LimitsFlow or RejectCostFlow (the limits scenarios), AbLatencyFlow / AbThroughputFlow (AbPairs, StartEdge per
// side) in A/B mode, AfterLoad, Finish. MeasurePhase is the one measured
// phase: a PhaseRequest (spec, progress label, the search's load so far,
// side) in; quiet SUT, phase monitor, engine run, validity checks; a
// MeasuredPhase (scenario_result.h: the load, its checks, the SUT's usage)
// out, which a search step carries on.
// kernel_limits: the threshold profile's maxima for kernel counters
// (thresholds.h "kernel_counters"), checked on every measured phase.
ScenarioResult RunScenario(Testbed& tb, const ScenarioPlan& plan, const ProgressFn& progress,
                           std::vector<KernelCounterLimit> kernel_limits = {});

// Validity notes for a measured phase, pure: the engine fell behind its
// schedule, the achieved rate is under 97 % of the target, the share of
// responses carrying RateLimit evidence (policy scenarios), pinning.
std::vector<std::string> PhaseNotes(const LoadResult& load, bool expect_evidence);

}  // namespace fvbench
