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
//                         p99_drift (a fraction, judge/p99_drift.h: NaN, so failing
//                         as not measured, without latency per interval or with
//                         too few samples per half; absolute limits only)
//   throughput scenarios: rps (the reported max sustained rate, measured)
//                         error_rate p50_us p90_us p99_us p999_us max_us (of the reported step)
//   limits.accuracy:      over_admission under_admission window_excess (the worst phase's)
//                         and the latency metrics (of its first phase)
//   limits.reject_cost:   reject_p50_ratio reject_p99_ratio reject_cpu_ratio (rejected
//                         phase / admitted phase) and the latency metrics (of the admitted phase)
// Operators: "<=", "<", ">=", ">"; one metric may carry several ("> 0" and
// "<= 20000"). A limit is an absolute number, or a same-run ratio limit:
//   "p99_us": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 3}}
//   "rps":    {">=": {"ratio_to": "throughput.simple", "factor": 0.4}}
// meaning: this scenario's metric <op> factor x the SAME metric of scenario
// `ratio_to` measured in the same run. ratio_to is another scenario of the
// same kind (latency.* / throughput.*); factor a finite number > 0; no other
// keys. Ratio limits need the whole run, so Evaluate skips them and the report
// step (fvbench.report) evaluates them with EvaluateRatios.
// A limit relative to the reference file (reference.json / FVBENCH_REFERENCE):
//   "rps":    {">=": {"x_reference": 0.85}}     rps >= 0.85 x the reference's rps
//   "p99_us": {"<=": {"x_reference": 1.5}}
// x_reference is a finite number > 0, on a metric a reference carries (p50_us,
// p90_us, p99_us, p999_us for latency scenarios; rps for throughput). A
// reference without that value is rejected before any load
// (CheckReferenceCovers); Evaluate without one fails the check.
//
// Maxima for the kernel's network counters that distort a measurement
// without failing it (kernel_counters.h kDistortingCounters), over every
// measured phase of every scenario, on every host read (validity.h
// kernel_<counter>; VALIDITY decides whether a phase fails):
//   "kernel_counters": {"Tcp.RetransSegs": {"<=": 100}, "TcpExt.TCPTimeouts": {"<": 1}}
// Operators "<=" and "<"; a limit is a whole number 0..2^53.
//
// Every limit is a number the metric can have (plausible.h): latencies
// 0..1e15 µs, error_rate 0..1, rates 0..1e9 RPS, never subnormal (5e-324);
// a factor (x_reference, ratio factor) is > 0, normal and at most 1e6. A
// profile with another is refused when read, naming scenario, metric,
// operator and value; an x_reference limit whose product with the reference
// is not such a number is refused by CheckReferenceCovers. A check never
// passes against a limit that is not finite.
//
// Errors name the file, the key path and the allowed values, e.g.
//   "thresholds/x.json: scenarios.latency.raw_nginx.p99: unknown metric
//    (allowed for latency scenarios: p50_us, ...)".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/judge/kernel_counters.h"
#include "support/judge/reference.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"

namespace fvbench {

struct ThresholdRule {
  std::string metric;    // e.g. "p99_us"
  std::string op;        // "<=", "<", ">=", ">"
  double limit = 0;      // absolute, in the metric's unit (unused for a ratio limit)
  std::string ratio_to;  // ratio limit: the yardstick scenario id; "" = absolute limit
  double factor = 0;     // ratio limit: limit = factor x ratio_to's value of `metric`
  double x_reference = 0;  // > 0: limit = x_reference x the reference's value of `metric` for this scenario
};

struct ScenarioThresholds {
  std::string scenario_id;
  std::vector<ThresholdRule> rules;  // in file order
};

struct ThresholdProfile {
  std::string source_name;
  std::string description;
  std::vector<ScenarioThresholds> scenarios;  // in file order
  std::vector<KernelCounterLimit> kernel_limits;  // "kernel_counters", in file order
  // Rules for one scenario; nullptr when the profile has none.
  const std::vector<ThresholdRule>* rules_for(const std::string& scenario_id) const;
};

Result<ThresholdProfile> ParseThresholdProfile(std::string_view text, const std::string& source_name);
Result<ThresholdProfile> LoadThresholdProfile(const std::string& path);  // thin file wrapper

// Before any load: every x_reference rule of `profile` has its value in
// `reference`, and factor x value is a limit its metric can have; else an
// Error naming the profile, the key path and the reference file (or the
// product).
Result<void> CheckReferenceCovers(const ThresholdProfile& profile, const Reference& reference);

// One ThresholdCheck per absolute or x_reference rule of r.id (ratio rules
// are skipped), in profile order: measured (the
// metric's value in r), limit (x_reference: factor x the reference value; NaN
// without one, and the check fails), reference (reference->value(r.id, metric)
// when `reference` is given and has one), passed. A scenario that was not measured
// (r.measured == false) yields every rule as failed with measured = NaN: a
// missing number never passes. Nor does a NaN measured value.
std::vector<ThresholdCheck> Evaluate(const ThresholdProfile& profile, const ScenarioResult& r,
                                     const Reference* reference);

// The ratio rules of r.id against `run` (the whole run's results, r among
// them), in profile order. A rule whose ratio_to scenario is absent from `run`
// (not run, e.g. `ctest -R`) yields no check; `skipped` (when given) gets
// "p99_us <= 3 x latency.raw_nginx not evaluated: latency.raw_nginx was not
// run". A scenario that ran but was not measured, on either side, fails the
// check (NaN measured / base): a missing number never passes.
std::vector<RatioCheck> EvaluateRatios(const ThresholdProfile& profile, const ScenarioResult& r,
                                       const std::vector<ScenarioResult>& run, std::vector<std::string>* skipped);

// e.g. "p99_us = 1.34 ms = 3.00 x latency.raw_nginx (limit <= 2.5 x
// latency.raw_nginx's 446 µs = 1115 µs)".
std::string DescribeRatioCheck(const RatioCheck& c);

// For gtest messages, e.g.
//   "p99_us = 1234 µs (limit <= 20000 µs; reference 446 µs)"
//   "error_rate = 3.20% (limit < 1%)"
//   "rps = not measured (limit >= 500 RPS; reference 110500 RPS)"
std::string DescribeCheck(const ThresholdCheck& c);

// The metric's value in a result (as Evaluate reads it); NaN for an unknown
// metric. Exposed for reporters and tests.
double MetricValue(const ScenarioResult& r, const std::string& metric);

}  // namespace fvbench
