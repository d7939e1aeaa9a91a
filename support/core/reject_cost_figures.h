// What limits.reject_cost measures: what a rejection costs edge. Two phases
// at the same rate, policy, request shape and duration, differing only in
// how many keys the load rotates over: an "admitted" phase whose keys are
// each offered at most half their bucket's rate (every request admitted),
// and a "rejected" phase whose few keys are each offered at least 20 x their
// rate (about 95 % answered 429). Shapes only; judge/reject_cost.h computes
// the figures and checks.
//
// wrk fills its latency histogram in C before the script sees the status, so
// a phase's latency is over all its responses: the rejected phase's is that
// of a mix, its 429 share beside it. Both engines use the same two phases so
// their figures compare.
//
// Units: latencies in µs (LoadResult::latency_us), rates in requests per
// second, CPU in cores (1.0 = one core busy) and in CPU µs per request,
// shares as fractions 0..1. NaN: not known (a figure whose inputs were not
// measured).
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "support/core/limit_figures.h"
#include "support/core/load_result.h"

namespace fvbench {

// One of the two phases.
struct RejectCostPhase {
  std::string name;   // "admitted" | "rejected"
  std::string phase;  // the phase's file-safe name (its raw output's stem)
  int keys = 0;       // keys the load rotated over
  double offered_per_key_rps = 0;  // target rate / keys
  LoadResult load;    // what the engine measured, all statuses together
  // Responses by status class, from LoadResult::status_counts (wrk's
  // pace.lua counts them). by_status false: the engine did not count per
  // status (k6), and `rejected` holds every non-2xx response, `other` 0.
  bool by_status = true;
  uint64_t ok = 0;        // 2xx
  uint64_t rejected = 0;  // 429
  uint64_t other = 0;     // any other status
  double reject_share = std::numeric_limits<double>::quiet_NaN();  // rejected / all responses
  // Edge's CPU over the phase (ServiceUsage "fv", phase_monitor.h), and per
  // request: fv_cpu_cores x 1e6 / achieved_rps.
  double fv_cpu_cores = std::numeric_limits<double>::quiet_NaN();
  double cpu_us_per_request = std::numeric_limits<double>::quiet_NaN();
};

// The scenario's figures: the rejected phase against the admitted one.
struct RejectCostRun {
  TokenBucketLimit limit;  // the policy's bucket the key counts follow from
  double rate_rps = 0;     // both phases' target rate
  RejectCostPhase admitted;
  RejectCostPhase rejected;
  // rejected / admitted: p50, p99, CPU µs per request.
  double p50_ratio = std::numeric_limits<double>::quiet_NaN();
  double p99_ratio = std::numeric_limits<double>::quiet_NaN();
  double cpu_ratio = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace fvbench
