// How long one scenario test can take at most, from the configured
// durations, against the ctest TIMEOUT it runs under. ctest kills a test at
// its TIMEOUT (fixed when CMake configures: the cache variable
// FVBENCH_SCENARIO_TIMEOUT, default 7200 s, handed to the scenarios and to
// fvbench.provision as FVBENCH_SCENARIO_TIMEOUT_S), so a run that cannot
// finish within it is refused before any host is touched, naming both
// numbers and how to raise the TIMEOUT (docs/running.md "Soak runs"). Pure.
//
// The bound, in seconds, is the sum of (the lengths and counts are the
// plan's, run_plan.h: what runs, not the raw variables):
//   load        latency: REPEAT x LATENCY_DUR; throughput: the search's
//               max_load_s (THROUGHPUT_BUDGET_S + (REPEAT - 1) confirmations
//               for bisect, 6 steps for seed); A/B mode adds REPEAT pairs of
//               two runs (LATENCY_DUR, or the search's step length)
//   warmup      WARMUP_DUR once, and before every A/B run
//   per phase   QUIET_TIMEOUT + 5 s (waiting for a quiet SUT, monitoring,
//               fetching the output) for every measured phase; a search
//               runs at most the plan's max_phases of them
//   start/stop  2 x HEALTH_TIMEOUT for the SUT services, again for every A/B
//               run (a fresh edge each), + 60 s
//   hang        one phase timing out: the engine's slack, 60 s
#pragma once

#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/result.h"
#include "support/core/run_plan.h"

namespace fvbench {

// What a scenario's time follows from: the plan and the durations outside it.
struct ScenarioTimeInputs {
  RunPlan plan;
  double latency_dur_s = 0;
  double limits_dur_s = 0;
  std::vector<int> limits_keys_sweep;  // limits.keys' points
  double limits_keys_rps = 0;
  double warmup_dur_s = 0;
  double health_timeout_s = 0;
  // FVBENCH_PROFILE on: each profile phase's length (FVBENCH_PROFILE_DUR);
  // latency and throughput scenarios then run a warmup and two more phases
  // outside A/B mode (run/profile_phase.h). 0 when off.
  double profile_dur_s = 0;
};
ScenarioTimeInputs ScenarioTimeInputsOf(const Config& c);

struct ScenarioTimeBound {
  double seconds = 0;
  std::string breakdown;  // e.g. "WARMUP_DUR 1 + 1 x LATENCY_DUR 86400 + 1 phase x 35 + start/stop 100 + hang 60"
};

ScenarioTimeBound LatencyScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);
ScenarioTimeBound ThroughputScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);
// A limits scenario's phases: one per edge worker setting, each after its warmup.
inline constexpr int kLimitsPhases = 2;
ScenarioTimeBound LimitsScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);
// limits.reject_cost: its two phases (admitted, rejected), each after its
// warmup, on one edge.
inline constexpr int kRejectCostPhases = 2;
ScenarioTimeBound RejectCostScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);
// limits.keys: every point's warmup and measured phase (key_sweep.h
// SweepLoadSeconds), one phase each, one start and stop of edge.
ScenarioTimeBound KeySweepScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);

// Ok when the four bounds are within `timeout_s`; else an Error such as
//   "latency scenarios need up to 86681 s (WARMUP_DUR 1 + ...), above their
//    ctest TIMEOUT of 7200 s: shorten LATENCY_DUR, or raise the TIMEOUT when
//    configuring: cmake --preset default -DFVBENCH_SCENARIO_TIMEOUT=86681
//    (docs/running.md "Soak runs")".
Result<void> CheckScenarioTimeout(const ScenarioTimeInputs& c, double timeout_s, double quiet_timeout_s);

}  // namespace fvbench
