// Reference results: the numbers a run is compared with (shown beside every
// measured value; thresholds may use them). The file is reference.json at the
// top of the source tree (FVBENCH_REFERENCE overrides), in the schema of the
// seed's published results/reference.json (fairvisor/benchmark):
//
//   {"schema_version": 1,                       optional; if present must be 1
//    "meta": {"source": "...", ...},            free-form; strings/numbers kept as text
//    "latency_us": {"decision_service"|"reverse_proxy"|"raw_nginx":
//                     {"p50": µs, "p90": µs, "p99": µs, "p999": µs}},
//    "throughput_rps": {"simple"|"complex"|"llm": RPS},
//    "throughput_ceiling_reached": {"simple": true, ...}}   optional: value is a lower bound
//
// Every scenario and every percentile is optional (a partial reference is
// fine); an unknown scenario or percentile key, or a value that is not a
// finite number, is an Error naming the file and the key path. So is a
// latency or rate that is not > 0, subnormal, above plausible.h's bounds
// (1e15 µs, 1e9 RPS), or percentiles of a path out of order (p50 <= p90 <=
// p99 <= p999). A results.json
// written by RunResultsToJson (results_io.h) is also a valid reference: its
// extra "scenarios" array is ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "support/core/host_environment.h"
#include "support/core/result.h"

namespace fvbench {

struct Reference {
  std::string source_name;                   // file it was read from
  std::map<std::string, std::string> meta;   // meta block; non-string values as their JSON text
  // Keyed by (scenario id, metric), e.g. ("latency.raw_nginx", "p99_us"),
  // ("throughput.simple", "rps").
  std::map<std::pair<std::string, std::string>, double> values;
  std::map<std::string, bool> ceiling;       // throughput scenario id -> value is a lower bound
  // True when read by LoadBaseline (baseline.h): an earlier run's results.json
  // given as FVBENCH_BASELINE. Reports then say "baseline" / "base" instead of
  // "reference" / "ref".
  bool baseline = false;
  // A baseline: its run's machine facts (RunMeta::environments); empty for a
  // reference and for a baseline recorded before they were.
  std::vector<HostEnvironment> environments;

  // metric: p50_us, p90_us, p99_us, p999_us (latency scenarios), rps
  // (throughput scenarios). nullopt when the reference has no such value.
  std::optional<double> value(const std::string& scenario_id, const std::string& metric) const;
  // True when the reference's throughput value for this scenario is a lower bound.
  bool lower_bound(const std::string& scenario_id) const;
  // meta["source"] when present, else source_name; a baseline: its file and
  // the run it holds, e.g. "b.json (run started 2026-03-04T04:53:20Z, edge 0123456789ab)".
  std::string describe() const;
  // The latency rate (RPS) the comparison's latency values were measured at:
  // meta "latency_rps" (a baseline: its RunMeta) or "rps_latency"
  // (reference.json's meta); nullopt when absent or not a positive number.
  std::optional<double> latency_rps() const;
  // How cells name the comparison value: "ref" or "base".
  const char* label() const { return baseline ? "base" : "ref"; }
};

// "" when `run_latency_rps` (this run's LATENCY_RPS) and the comparison's
// latency rate agree within 1 % or either is unknown; else a warning that the
// latency deltas compare different loads, naming both rates.
std::string LatencyLoadMismatch(const Reference& cmp, double run_latency_rps);

Result<Reference> ParseReference(std::string_view text, const std::string& source_name);

// Reads and parses a file (thin I/O wrapper).
Result<Reference> LoadReference(const std::string& path);

}  // namespace fvbench
