// What the results history keeps of one finished run: the run's identity
// (edge commit and ref, engine, hosts, profile, times), one row per metric
// per scenario, and the results.json text itself. Pure: built from the text
// of a results.json (results_io.h), no I/O.
//
// Metrics per measured scenario (units as in results.json):
//   p50_us, p99_us, p999_us   latency of the reported phase, microseconds
//   error_rate                fraction 0..1
//   max_rps                   throughput scenarios: reported max sustained rate, RPS
//   edge_cpu_cores            the edge's nginx processes ("fv" service), cores; when sampled
// A metric is evidence only when its scenario is usable: measured, not
// interrupted, its verdict is not INVALID (verdict.h), and it is this run's
// (not an earlier ctest run's result merged into the report, ratios.h). A FAIL verdict from
// a threshold is still evidence (a slow run is what the history is for).
// Unusable scenarios are stored with the reason and never used by `check`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

struct MetricRow {
  std::string scenario;  // "latency.decision_service"
  std::string metric;    // "p99_us"
  double value = 0;
  bool usable = true;
  std::string reason;    // why not usable, "" when usable
};

struct RunRecord {
  std::string run_key;       // SHA-256 of the results.json text: the same file is recorded once
  double started_unix = 0;
  double finished_unix = 0;
  std::string edge_commit;
  std::string edge_ref;
  std::string engine;
  std::string mode;
  std::string sut_host;
  std::string loadgen_host;
  std::string profile;       // thresholds profile file
  bool usable = true;        // false when any scenario is not (reason in `note`)
  std::string note;
  std::vector<MetricRow> metrics;
  std::string results_json;  // the document as read
};

// Errors name `source` and the key path (results_io.h), or say the run has
// no started time or no scenario.
Result<RunRecord> RunRecordFromResultsJson(std::string_view text, const std::string& source);

// Lower is better for every metric except max_rps.
bool HigherIsWorse(std::string_view metric);

}  // namespace fvbench
