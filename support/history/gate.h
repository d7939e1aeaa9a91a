// `fvbench_history check`: does the newest part of the history hold a
// regression? Pure.
//
// A series regresses when its last change point lies among its newest
// `recent_runs` points, is significant (p <= the detector's max_p_value, as
// FindChangePoints keeps only those), goes in the bad direction (up for
// latency, error rate, edge CPU and the limits excesses; down for max_rps and
// reject_share; run_record.h
// HigherIsWorse) and its relative change of segment means is at least
// `min_effect` (the limits fractions, run_record.h ChangeIsAbsolute: their
// change in fraction points, mean after - mean before).
#pragma once

#include <string>
#include <vector>

#include "support/history/series.h"

namespace fvbench {

struct GateOptions {
  double min_effect = 0.03;  // fraction of the mean before (limits fractions: fraction points)
  size_t recent_runs = 10;   // the change point must lie among the newest this many points
};

struct Regression {
  std::string scenario;
  std::string metric;
  ChangePoint change;
  SeriesPoint before;  // the last run before the change point
  SeriesPoint after;   // the first run from it on
};

std::vector<Regression> FindRegressions(const std::vector<MetricSeries>& series, const GateOptions& options = {});

// "latency.decision_service p99_us: +8.1% (1370 -> 1481, mean of 60 runs ->
// mean of 5 runs), p = 0.005, from run 60 (edge commit f3116f9...) to run 61 (edge commit 1a2b...)";
// `history` given, followed by "; environment changed between runs 60 and
// 61: ..." when the two runs' environments differ (environment_history.h).
std::string DescribeRegression(const Regression& r, const MetricSeries& s, const History* history = nullptr);

}  // namespace fvbench
