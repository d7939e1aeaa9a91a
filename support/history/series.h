// A history's metric series and their change points. Pure.
//
// One series per (scenario, metric): the usable values in run order (run
// start time, then record id). Metrics of unusable scenarios (INVALID,
// interrupted, not measured; run_record.h) are left out: never evidence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/history/history_store.h"
#include "support/judge/change_points.h"

namespace fvbench {

struct SeriesPoint {
  int64_t run_id = 0;
  double started_unix = 0;
  std::string edge_commit;
  double value = 0;
};

struct MetricSeries {
  std::string scenario;
  std::string metric;
  std::vector<SeriesPoint> points;
  std::vector<ChangePoint> change_points;  // indexes into points
  size_t unordered = 0;                    // commit order: points left out, commit not in the sequence
};

// The order of a series' points (`fvbench_history --order time|commit`).
struct SeriesOrder {
  enum class By { kRunTime, kCommit };
  By by = By::kRunTime;
  // kCommit: the edge commit sequence, oldest first, as `git rev-list
  // --reverse --first-parent <branch>` prints it (full or abbreviated hashes,
  // >= 7 hex digits). Points follow their run's edge commit in it (a " (dirty)"
  // suffix is ignored); runs of one commit keep run-time order. Runs whose
  // commit is not in the sequence are left out (MetricSeries::unordered).
  std::vector<std::string> commits;
};

// One commit per line; blank lines and lines starting with '#' are skipped.
// Error naming `source` and the line when a line is not 7-40 hex digits, or
// names a commit an earlier line names (the same hash, or one a prefix of the
// other: an abbreviation of it). No lines: an empty sequence.
Result<std::vector<std::string>> ParseCommitSequence(std::string_view text, const std::string& source);

// Series in (scenario, metric) order, change points found with `options`.
std::vector<MetricSeries> BuildSeries(const History& history, const ChangePointOptions& options = {},
                                      const SeriesOrder& order = {});

// A change point's change as the history prints it: relative to the mean
// before, "+8.1%"; for the limits fractions (run_record.h ChangeIsAbsolute),
// in percentage points of the fraction, "+45.0 points".
std::string ChangeText(std::string_view metric, const ChangePoint& cp);

}  // namespace fvbench
