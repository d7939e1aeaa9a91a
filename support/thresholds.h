// Threshold profiles: which measured numbers a scenario must meet. A profile
// is a small JSON file (thresholds/*.json; thresholds/README.md documents it):
//
//   {"schema_version": 1,
//    "description": "what this profile is for",
//    "scenarios": {
//      "latency.raw_nginx": {"p99_us": {"<=": 20000}, "error_rate": {"<=": 0.01}},
//      "throughput.simple": {"rps": {">=": 500}, "error_rate": {"<": 0.01}}}}
//
// Scenario ids: latency.raw_nginx, latency.decision_service,
// latency.reverse_proxy, throughput.simple, throughput.complex, throughput.llm.
// Metrics (units as in LoadResult: µs, fraction 0..1, RPS):
//   latency scenarios:    p50_us p90_us p99_us p999_us max_us error_rate achieved_rps
//   throughput scenarios: rps (the reported max sustained rate, measured)
//                         error_rate p50_us p90_us p99_us p999_us max_us (of the reported step)
// Operators: "<=", "<", ">=", ">"; one metric may carry several ("> 0" and
// "<= 20000"). Limits are absolute numbers.
//
// Not yet implemented (the format leaves room for it): relative limits, e.g.
//   "p99_us": {"<=": {"ratio_to": "same_run_raw_nginx", "factor": 3}}
//   "rps":    {">=": {"ratio_to": "reference", "factor": 0.85}}
// Today an object in a limit's place is rejected with a message saying so.
//
// Errors name the file, the key path and the allowed values, e.g.
//   "thresholds/x.json: scenarios.latency.raw_nginx.p99: unknown metric
//    (allowed for latency scenarios: p50_us, ...)".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/reference.h"
#include "support/result.h"
#include "support/scenario_result.h"

namespace fvbench {

struct ThresholdRule {
  std::string metric;  // e.g. "p99_us"
  std::string op;      // "<=", "<", ">=", ">"
  double limit = 0;    // absolute, in the metric's unit
};

struct ScenarioThresholds {
  std::string scenario_id;
  std::vector<ThresholdRule> rules;  // in file order
};

struct ThresholdProfile {
  std::string source_name;
  std::string description;
  std::vector<ScenarioThresholds> scenarios;  // in file order
  // Rules for one scenario; nullptr when the profile has none.
  const std::vector<ThresholdRule>* rules_for(const std::string& scenario_id) const;
};

Result<ThresholdProfile> ParseThresholdProfile(std::string_view text, const std::string& source_name);
Result<ThresholdProfile> LoadThresholdProfile(const std::string& path);  // thin file wrapper

// One ThresholdCheck per rule of r.id, in profile order: measured (the
// metric's value in r), limit, reference (reference->value(r.id, metric) when
// `reference` is given and has one), passed. A scenario that was not measured
// (r.measured == false) yields every rule as failed with measured = NaN: a
// missing number never passes. Nor does a NaN measured value.
std::vector<ThresholdCheck> Evaluate(const ThresholdProfile& profile, const ScenarioResult& r,
                                     const Reference* reference);

// For gtest messages, e.g.
//   "p99_us = 1234 µs (limit <= 20000 µs; reference 446 µs)"
//   "error_rate = 3.20% (limit < 1%)"
//   "rps = not measured (limit >= 500 RPS; reference 110500 RPS)"
std::string DescribeCheck(const ThresholdCheck& c);

// The metric's value in a result (as Evaluate reads it); NaN for an unknown
// metric. Exposed for reporters and tests.
double MetricValue(const ScenarioResult& r, const std::string& metric);

}  // namespace fvbench
