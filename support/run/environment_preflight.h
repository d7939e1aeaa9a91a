// The preflight lint (judge/environment_lint.h) on a run's testbed: what the
// busiest phase of a scenario needs, from Config and the loadgen hosts.
//
// The busiest phase: a latency scenario runs at LATENCY_RPS; a throughput
// scenario's search never steps above THROUGHPUT_SEARCH_MAX (its warmup and
// A/B runs go slower). Each of the phase's engine processes (every loadgen
// host x LOADGEN_PROCS_PER_HOST) paces an equal share of the rate with
// LOADGEN_CONNECTIONS / processes (rounded up; 0 = derived) connections, as
// engine/multi_loadgen.h ProcessSpec gives them; a process holds at most
//   wrk  C = WrkConnectionsFor(share, T, connections) (wrk_engine.h), T the
//        threads of the first process's cpuset on the first loadgen host;
//        open files C + T + kWrkOwnFiles
//   k6   maxVUs of K6VusFor(share, connections) (k6_engine.h); open files
//        maxVUs + kK6OwnFiles
// and the SUT accepts every process's connections, a host those of its own.
#pragma once

#include <optional>
#include <vector>

#include "support/core/config.h"
#include "support/judge/environment_lint.h"
#include "support/run/loadgen_hosts.h"
#include "support/run/scenario_plan.h"
#include "support/run/testbed.h"

namespace fvbench {

// LATENCY_RPS or THROUGHPUT_SEARCH_MAX; none: the higher of the two (the run's busiest phase).
double BusiestPhaseRate(const Config& c, std::optional<ScenarioKind> kind);

// Pure. `loadgens` gives the host count (one when empty) and the first process's cpuset.
EnvironmentNeeds EnvironmentNeedsAt(const Config& c, const std::vector<LoadgenHost>& loadgens, double rate_rps);

// The findings on `tb`'s environments at the busiest phase of `kind` (none:
// of the run).
std::vector<EnvironmentFinding> PreflightFindings(const Testbed& tb, std::optional<ScenarioKind> kind);

}  // namespace fvbench
