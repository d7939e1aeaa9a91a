// REPEAT=n: a measured phase run n times, summarised as the per-metric median
// (which thresholds gate) with the min..max spread beside it. Pure.
//
// Metric names are the threshold metrics (thresholds.h): p50_us p90_us p99_us
// p999_us max_us error_rate achieved_rps. Each metric's median is taken on its
// own, so the median LoadResult need not equal any single run.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// Mean of the two middle values for an even count; NaN for an empty list.
double Median(std::vector<double> values);
Spread SpreadOf(const std::vector<double>& values);  // min, median, max; NaNs when empty

struct RepeatSummary {
  // Per-metric medians of latency_us, error_rate, achieved_rps, duration_s,
  // requests, failed, non_2xx and ratelimit_evidence (when every run counted
  // it); engine / version / target_rps from the first run; kept_up only when
  // every run kept up; dropped_iterations and max_send_lag_us the worst run's;
  // raw_path empty (each run keeps its own).
  LoadResult median;
  std::map<std::string, Spread> spread;  // by metric name, as above
};
// `runs` must not be empty.
RepeatSummary SummarizeRepeats(const std::vector<LoadResult>& runs);

}  // namespace fvbench
