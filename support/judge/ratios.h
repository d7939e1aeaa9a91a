// Same-run ratios: each scenario against its yardstick measured in the same
// run on the same hosts, which travels across machines where absolute numbers
// do not (DESIGN.md: "Same-run control").
//
//   latency.decision_service, latency.reverse_proxy  /  latency.raw_nginx
//       per percentile: p50_us, p90_us, p99_us, p999_us (ratio > 1: slower)
//   throughput.complex, throughput.llm  /  throughput.simple
//       rps, the reported (measured) max sustained rate (ratio < 1: fewer)
//
// A ratio is produced only when both scenarios were measured and the
// yardstick's value is finite and > 0. With REPEAT, the medians are divided.
// Computed at report time (the scenario tests each see only their own
// result). Pure.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

struct Ratio {
  std::string scenario;  // e.g. "latency.decision_service"
  std::string base;      // e.g. "latency.raw_nginx"
  std::string metric;    // "p50_us" | "p90_us" | "p99_us" | "p999_us" | "rps"
  double value = 0;       // the scenario's metric (µs or RPS)
  double base_value = 0;  // the yardstick's
  double ratio = 0;       // value / base_value
};

// A result measured before the run started at `run_started_unix` (Unix
// seconds; RunMeta::started_unix): an earlier ctest run's result the report
// merged in (controller-results/ keeps each scenario's last result). False
// when either time is unknown (0).
bool FromEarlierRun(const ScenarioResult& r, double run_started_unix);

// In kLatencyScenarios / kThroughputScenarios order, metrics in the order
// above. A result FromEarlierRun(run_started_unix) is never paired: a ratio
// is of one run.
std::vector<Ratio> SameRunRatios(const std::vector<ScenarioResult>& results, double run_started_unix = 0);

// The yardstick of a scenario: "latency.raw_nginx" for latency.*,
// "throughput.simple" for throughput.*; "" for the yardsticks themselves and
// unknown ids.
std::string RatioBaseOf(const std::string& scenario_id);

}  // namespace fvbench
