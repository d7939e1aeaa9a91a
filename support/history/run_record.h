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
//   over_admission, under_admission, window_excess
//                             limits scenarios: the worst of the scenario's phases, as a
//                             threshold profile gates them (thresholds.h MetricValue), fractions
//   reject_share              limits scenarios: the lowest 429 share of the phases (the
//                             phase that let the most through), fraction 0..1
// A metric is evidence only when its scenario is usable: measured, not
// interrupted, its verdict is not INVALID (verdict.h), and it is this run's
// (not an earlier ctest run's result merged into the report, ratios.h). A FAIL verdict from
// a threshold is still evidence (a slow run is what the history is for).
// Unusable scenarios are stored with the reason and never used by `check`.
//
// What is recorded is checked for its kind; anything else is refused, naming
// the file and the field:
//   meta.edge_commit     "" (unknown) or a commit: 7 to 64 hex digits, " (dirty)" after it allowed
//   meta.engine, .mode   "" or a word: letters, digits, '_', '-', '.'; at most 32 bytes
//   meta.sut_host, .loadgen_host, .thresholds_profile, .ab.edge_ref_a
//                        text without control characters, at most 4096 bytes
//   meta.started_unix    a time from 1970 to 9999; meta.finished_unix: 0 or such a time
//   scenarios[i].id      a scenario id (IsScenarioId), each once: export-csv and
//                        plot name files after it
//   metric values        0 or more, finite, below what a run can measure
//                        (plausible.h; error_rate at most 1). A value that is
//                        missing (null in results.json) is stored not usable,
//                        with the reason "no value".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/core/host_environment.h"
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
  std::vector<HostEnvironment> environments;  // meta "environment" (empty when the run recorded none)
  std::string results_json;  // the document as read
};

// Lower-case hex SHA-256 of `text` (run_key; the environment digest).
std::string Sha256Hex(std::string_view text);

// Errors name `source` and the key path (results_io.h), or say the run has
// no started time or no scenario.
Result<RunRecord> RunRecordFromResultsJson(std::string_view text, const std::string& source);

// "f3116f903634684f773a489858457656979c5a4b", "f3116f9 (dirty)", "".
bool IsEdgeCommitText(std::string_view s);
// "latency.decision_service": [A-Za-z0-9] then [A-Za-z0-9_.-], at most 128
// bytes, no "..": usable as (part of) a file name as it is.
bool IsScenarioId(std::string_view s);

// Lower is better for every metric except max_rps and reject_share.
bool HigherIsWorse(std::string_view metric);

// The limits fractions (over_admission, under_admission, window_excess,
// reject_share): a correct limiter holds them near 0 (reject_share near its
// expected share), where a relative change means nothing, so `check` judges
// their change in fraction points (mean after - mean before), not relative
// to the mean before.
bool ChangeIsAbsolute(std::string_view metric);

}  // namespace fvbench
