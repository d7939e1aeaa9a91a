// The machine facts under a history's runs (core/host_environment.h) and
// what changed where a series changes. Each recorded run keeps its
// results.json, whose meta "environment" is the run's environment; it is read
// back for the runs on either side of a change point only.
//
//   auto series = BuildSeries(h);
//   LoadRunEnvironments(db, ChangePointRuns(series), h);   // I/O
//   EnvironmentChangeNote(h, before_run, after_run);       // pure
//
// A run recorded before environments were (no "environment" in its meta)
// has an empty one, which changes nothing (judge/environment_drift.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/history/history_store.h"
#include "support/history/series.h"

namespace fvbench {

// SHA-256 (run_record.h Sha256Hex, as run_key) of the canonical text
// (environment_drift.h EnvironmentCanonicalText); "" for an empty environment.
// Two runs on unchanged machines have the same digest.
std::string EnvironmentDigest(const std::vector<HostEnvironment>& envs);

// The runs on either side of every change point of `series`, each once.
std::vector<int64_t> ChangePointRuns(const std::vector<MetricSeries>& series);

// Reads each run's environment from its stored results.json into
// history.environments. Error naming the history and the run when its
// results.json is not readable.
Result<void> LoadRunEnvironments(SqlConnection& db, const std::vector<int64_t>& run_ids, History& history);

// "environment changed between runs 41 and 42: sut local: kernel_release
// 6.1.0-18 -> 6.8.0-31; ..."; "" when nothing changed or either run's
// environment is unknown or empty.
std::string EnvironmentChangeNote(const History& history, int64_t before, int64_t after);

}  // namespace fvbench
