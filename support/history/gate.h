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
//
// What check could have detected (GateSensitivity): per series, the smallest
// shift of the mean of its newest runs the gate would catch, from the noise
// of the runs before them (support/judge/detectable_shift.h: 1.4826 x MAD,
// the t-test equivalent of the detector's permutation test at its
// max_p_value, two-sided, with 90 % power, floored at min_effect). The newest
// k = min(recent_runs, n - 6) runs are compared with the m runs before them,
// from the last change point at or before them on (an earlier, accepted shift
// is not noise) and at most the detector's window - k runs back (the windows
// in which E-Divisive proposes a change point hold no more).
#pragma once

#include <string>
#include <vector>

#include "support/history/series.h"
#include "support/judge/detectable_shift.h"

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

struct SeriesSensitivity {
  std::string scenario;
  std::string metric;
  size_t runs = 0;              // n: the series' points
  size_t reference_from = 0;    // index of the first reference run
  bool since_change = false;    // the reference starts at a change point
  int64_t change_run_id = 0;    // since_change: the run it starts at
  DetectableShift shift;        // relative, or in fraction points for ChangeIsAbsolute metrics
};

std::vector<SeriesSensitivity> GateSensitivity(const std::vector<MetricSeries>& series,
                                               const GateOptions& options = {},
                                               const ChangePointOptions& detector = {});

// One series: "latency.decision_service p99_us: could detect a shift of 14.2%
// or more in the newest 10 runs (noise CV 6.2% over 40 runs)"; "... 3.0% or
// more (the --min-effect floor; the noise alone: 1.2%) ..."; limits fractions
// "a change of 3.0 points or more ... (noise SD 0.4 points ...)"; "not enough
// runs to tell (n=7)" or "(n=4 since the change at run 36)"; "cannot detect
// a relative change: mean 0 over 40 runs".
std::string DescribeSensitivity(const SeriesSensitivity& s);

// One line per scenario, in the order given: "latency.decision_service (newest
// 10 runs): p50_us 3.0%, p99_us 14.2%, error_rate n/a (mean 0), ..."; a
// metric with too few runs reads "p99_us ? (n=4)".
std::string SummarizeSensitivity(const std::vector<SeriesSensitivity>& all);

}  // namespace fvbench
