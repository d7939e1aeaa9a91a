// What a scenario test prints when its scenario is done (ctest's output and
// the JUnit <system-out>), as text: the measured line, every threshold check
// (passed or not, measured vs limit vs reference; a passed one with the change
// it catches, threshold_headroom.h), notes, validity checks, the
// SUT's usage, the A/B comparison and the result file's path. Pure: the
// GoogleTest glue prints it and records three parts as gtest XML properties.
#pragma once

#include <string>

#include "support/core/scenario_result.h"
#include "support/judge/reference.h"

namespace fvbench {

// The scenario's measured line: latency figures and, for a search, "max
// sustained [at least ]N RPS[ (ceiling reached | no step failed)] (how)" by
// the same lower-bound rule as the reports (MeasuredIsLowerBound).
std::string MeasuredLine(const ScenarioResult& r);

// A limits phase in one line: "limits 2 workers, 50 keys: admitted per key
// 103/103/104 of 120 allowed (floor 80.2), over-admission none, worst 1 s
// 13 of 30, 429 share 74.23% (a correct limiter's least 70.01%), 0 log lines
// before the phase".
std::string LimitLine(const LimitRun& run);

// A limits scenario's figures as a threshold profile gates them, the worst
// of its phases (thresholds.h MetricValue), each with the comparison's value
// when it has one (a baseline, baseline.h): "over_admission 50.00% (base
// 0.00%), under_admission 0.00%, window_excess 93.33% (base 0.00%)". A
// figure without a value (no phase) reads "—". `comparison` may be null.
std::string LimitWorstLine(const ScenarioResult& r, const Reference* comparison);
// limits.reject_cost's phase in one line: "reject_cost rejected: 2 keys at
// 250 RPS each, achieved 500 RPS, 2xx/429/other 80/1900/0 (429 share
// 95.96%), p50 310 µs p99 1.20 ms p99.9 2.10 ms (all statuses), edge CPU
// 75 µs per request"; and the ratios: "reject_cost rejected / admitted: p50
// 0.75 x, p99 1.25 x, CPU per request 0.50 x".
std::string RejectCostPhaseLine(const RejectCostPhase& p);
std::string RejectCostRatioLine(const RejectCostRun& run);
// A limits.keys point in one line: "keys 1000: achieved 999 RPS, p50 1.10 ms
// p99 3.20 ms, over-admission 0.00% (0 keys over), edge RSS 21.5 MiB (peak 22.0 MiB)".
std::string KeySweepLine(const KeySweepPoint& p, const LimitRun& run);

struct ConsoleOutcome {
  std::string measured;  // MeasuredLine; empty when nothing was measured
  std::string checks;    // one "pass <check>: catches ..." or "FAIL <check>" line per threshold check
  std::string ab;        // "A/B <method>", then one line per metric; empty outside A/B mode
  std::string limits;    // limits scenarios: one LimitLine per phase; empty for the others
  // limits.reject_cost: one RejectCostPhaseLine per phase, then the
  // RejectCostRatioLine; empty for the others.
  std::string reject_cost;
  std::string key_sweep; // limits.keys: one KeySweepLine per point, then "break: <KeySweepBreakLine>"
  std::string text;      // every line printed, each ending in '\n', the last "result: <path>"
};

// The outcome of `r`, saved (or meant to be saved) at `result_path`.
ConsoleOutcome DescribeOutcome(const ScenarioResult& r, const std::string& result_path);

}  // namespace fvbench
