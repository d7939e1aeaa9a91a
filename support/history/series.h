// A history's metric series and their change points. Pure.
//
// One series per (scenario, metric): the usable values in run order (run
// start time, then record id). Metrics of unusable scenarios (INVALID,
// interrupted, not measured; run_record.h) are left out: never evidence.
#pragma once

#include <string>
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
};

// Series in (scenario, metric) order, change points found with `options`.
std::vector<MetricSeries> BuildSeries(const History& history, const ChangePointOptions& options = {});

}  // namespace fvbench
