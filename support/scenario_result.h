// The one result model every reporter formats (console table, results.json,
// JUnit messages). Written per scenario to
//   BENCH_DIR/controller-results/<scenario id>.json
// by the scenario test, read back by the report step at the end of the run.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/load_result.h"

namespace fvbench {

// Scenario ids. The first part is the kind (and the CTest label), the second
// the key used in reference.json.
inline constexpr const char* kLatencyScenarios[] = {"latency.raw_nginx", "latency.decision_service",
                                                    "latency.reverse_proxy"};
inline constexpr const char* kThroughputScenarios[] = {"throughput.simple", "throughput.complex",
                                                       "throughput.llm"};

struct StepResult {
  double target_rps = 0;
  bool passed = false;
  std::string verdict;  // why it passed / failed, e.g. "error_rate 2.1% >= 1%"
  LoadResult load;
};

struct ThresholdCheck {
  std::string metric;   // "p99_us", "error_rate", "rps"
  std::string op;       // "<=", ">=", "<"
  double measured = 0;
  double limit = 0;
  std::optional<double> reference;  // reference.json value for the same metric, when it has one
  bool passed = false;
};

struct ScenarioResult {
  std::string id;                 // e.g. "latency.decision_service"
  bool measured = false;          // false: the scenario failed before it produced a number
  std::string error;              // why it failed before measuring (edge's own message, engine stderr...)
  LoadResult load;                // latency: the measured phase; throughput: the reported step
  double throughput_rps = 0;      // throughput: reported max sustained rate (measured, not target)
  bool ceiling_reached = false;   // throughput: the highest step passed; the value is a lower bound
  std::vector<StepResult> steps;  // throughput: every step, in the order run
  std::vector<ThresholdCheck> checks;
  std::vector<std::string> notes; // validity notes: pinning, policy evidence, engine lag...
  std::string policy;             // policy file used (fairvisor scenarios)
  double started_unix = 0;
  double finished_unix = 0;
};

}  // namespace fvbench
