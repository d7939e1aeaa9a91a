// Text forms of a history. Pure: they format, they compute nothing.
//
// ShowSeries: `fvbench_history show`: per series a header (points, change
// points), one line per change point (index, run, commits, means, change,
// p-value; what changed in the environment between its two runs, when
// anything did) and the newest `last_points` values with the change points
// marked.
//
// Otava CSV (`fvbench_history export-csv`): one file per scenario in the
// layout Apache Otava's CSV importer reads (otava docs "Importing results
// from CSV": a time column, attribute columns, one column per metric):
//   time,commit,run_id,<metric>,...
//   2026-11-30 10:11:41 +0000,f3116f9...,12,1370,...
// usable metrics only (an empty cell where a run lacks one), and an
// otava.yaml naming each file with time_column, attributes and metrics.
// Recorded text is quoted where it must be (quoting.h): CSV per RFC 4180,
// YAML scalars double-quoted; OtavaConfig refuses a directory name that is
// not UTF-8.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/history/history_store.h"
#include "support/history/series.h"

namespace fvbench {

// `history` given: a change point whose two runs' environments differ
// (environment_history.h EnvironmentChangeNote) is followed by that line.
std::string ShowSeries(const std::vector<MetricSeries>& series, size_t last_points = 20,
                       const History* history = nullptr);

// scenario -> CSV text.
std::map<std::string, std::string> OtavaCsvFiles(const History& history);
// The tests: section of an otava.yaml for those files, each at <dir>/<scenario>.csv.
Result<std::string> OtavaConfig(const History& history, const std::string& dir);

}  // namespace fvbench
