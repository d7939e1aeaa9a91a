// Baselines: an earlier run's results.json (results_io.h) that a run's
// numbers are compared with instead of reference.json.
//
//   FVBENCH_BASELINE=<results.json>   every number cell of the console table
//       and of report.md shows its delta to the baseline ("(base 112, +12.3 %)");
//       unset: to the reference (FVBENCH_REFERENCE). Thresholds keep gating on
//       the reference either way (point FVBENCH_REFERENCE at a results.json to
//       gate on an earlier run).
//   fvbench_baseline save <BENCH_DIR> <dest.json> [--force]   writes a run's
//       results as a new baseline (SaveBaseline below).
//
// A baseline is stricter than a reference: it must be a results.json the suite
// wrote, i.e. "schema_version": 1 (required), a "meta" object and a
// "scenarios" array of known scenario ids, every field of the expected type
// (the summary blocks "latency_us" / "throughput_rps" as for a reference).
// Any other file is an Error naming the file and the key path, reported by the
// provision fixture before any host is touched.
//
// The Reference it yields has baseline = true; its values are the summary
// blocks' (p50_us..p999_us, rps, ceiling flags) plus "max_us" of each measured
// latency scenario and over_admission, under_admission and window_excess of
// each measured limits scenario (the worst phase, thresholds.h MetricValue),
// which report.md's and summary.txt's limits sections show beside this run's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/judge/reference.h"
#include "support/core/result.h"

namespace fvbench {

Result<Reference> ParseBaseline(std::string_view text, const std::string& source_name);
// Thin file wrapper; a directory is refused as one (naming BENCH_DIR/report/results.json
// when `path` is a BENCH_DIR that has it).
Result<Reference> LoadBaseline(const std::string& path);

struct BaselineSaved {
  std::string source;                   // BENCH_DIR/report/results.json
  std::string dest;                     // absolute and lexically normal (a relative `dest` is taken from the cwd)
  int scenarios = 0;                    // scenarios in the saved file
  std::vector<std::string> not_passed;  // "<id>: FAIL (<reason>)", "<id>: from an earlier ctest run (...)"; non-empty only with force
};

// Validates <bench_dir>/report/results.json as a baseline (ParseBaseline) and
// copies it, byte for byte, to `dest` through a temporary file and rename.
// Refused (Error naming the source and each scenario) when a scenario's
// verdict (verdict.h) is FAIL or INVALID — including interrupted runs and
// scenarios that never measured — or when a scenario was measured before the
// run's start (an earlier ctest run's result merged into this report), unless
// `force`; always refused when no
// scenario measured anything. A write that fails names `dest` as given (and
// the temporary file beside it). An empty `bench_dir` or `dest` is an Error
// saying so.
Result<BaselineSaved> SaveBaseline(const std::string& bench_dir, const std::string& dest, bool force);

}  // namespace fvbench
