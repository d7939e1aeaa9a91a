// How long one scenario test can take at most, from the configured
// durations, against the ctest TIMEOUT it runs under. ctest kills a test at
// its TIMEOUT (fixed when CMake configures: the cache variable
// FVBENCH_SCENARIO_TIMEOUT, default 7200 s, handed to the scenarios and to
// fvbench.provision as FVBENCH_SCENARIO_TIMEOUT_S), so a run that cannot
// finish within it is refused before any host is touched, naming both
// numbers and how to raise the TIMEOUT (docs/running.md "Soak runs"). Pure.
//
// The bound, in seconds, is the sum of:
//   load        latency: REPEAT x LATENCY_DUR; throughput: THROUGHPUT_BUDGET_S
//               + (REPEAT - 1) x CONFIRM_DUR (bisect) or 6 x STEP_DUR (seed);
//               A/B mode adds REPEAT pairs of two runs (LATENCY_DUR or STEP_DUR)
//   warmup      WARMUP_DUR once, and before every A/B run
//   per phase   QUIET_TIMEOUT + 5 s (waiting for a quiet SUT, monitoring,
//               fetching the output) for every measured phase; a search
//               runs at most load / min(STEP_DUR, CONFIRM_DUR) + 1 of them
//   start/stop  2 x HEALTH_TIMEOUT for the SUT services, again for every A/B
//               run (a fresh edge each), + 60 s
//   hang        one phase timing out: the engine's slack, 60 s
#pragma once

#include <string>

#include "support/core/result.h"

namespace fvbench {

// The configured durations a scenario's time follows from (Config's fields of
// the same names; config.cc fills it, so this file does not depend on Config).
struct ScenarioTimeInputs {
  int repeat = 1;
  bool ab = false;
  bool seed_search = false;  // THROUGHPUT_SEARCH=seed
  double latency_dur_s = 0;
  double warmup_dur_s = 0;
  double step_dur_s = 0;
  double confirm_dur_s = 0;
  double throughput_budget_s = 0;
  double health_timeout_s = 0;
};

struct ScenarioTimeBound {
  double seconds = 0;
  std::string breakdown;  // e.g. "WARMUP_DUR 1 + 1 x LATENCY_DUR 86400 + 1 phase x 35 + start/stop 100 + hang 60"
};

ScenarioTimeBound LatencyScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);
ScenarioTimeBound ThroughputScenarioBound(const ScenarioTimeInputs& c, double quiet_timeout_s);

// Ok when both bounds are within `timeout_s`; else an Error such as
//   "latency scenarios need up to 86681 s (WARMUP_DUR 1 + ...), above their
//    ctest TIMEOUT of 7200 s: shorten LATENCY_DUR, or raise the TIMEOUT when
//    configuring: cmake --preset default -DFVBENCH_SCENARIO_TIMEOUT=86681
//    (docs/running.md "Soak runs")".
Result<void> CheckScenarioTimeout(const ScenarioTimeInputs& c, double timeout_s, double quiet_timeout_s);

}  // namespace fvbench
