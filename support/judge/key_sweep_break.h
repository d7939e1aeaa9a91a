// Where the limits.keys sweep breaks: the smallest key count whose limiter
// over-admits, or whose p99 grew too far over the first point's. Pure.
//
// Input: the sweep's LimitRuns in ascending key count (ScenarioResult::limits
// of limits.keys); a run's key count is its accuracy.keys_planned, its p99 its
// load's latency_us.p99 (all statuses).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/core/limit_figures.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// The p99 rule: the sweep breaks at the first point from which every point's
// p99 exceeds this many times the first point's (a single slow point
// followed by fast ones is noise, not a break).
inline constexpr double kSweepP99Factor = 2;

struct KeySweepBreak {
  std::optional<int> accuracy_keys;  // first K with over_admission > max_over_admission
  double over_admission = 0;         // that point's over_admission
  std::optional<int> p99_keys;       // first K from which every p99 > p99_factor x the first point's
  double p99_us = 0, first_p99_us = 0;
  int up_to_keys = 0;                // the largest K measured (0: no point)
};

// max_over_admission: the threshold profile's limit for limits.keys'
// over_admission, else judge/limit_accuracy.h kMaxOverAdmission (0.02).
// A first point without a p99 (0 or NaN) disables the p99 rule.
KeySweepBreak FindKeySweepBreak(const std::vector<LimitRun>& runs, double max_over_admission,
                                double p99_factor = kSweepP99Factor);

// Each point must offer each key at least min_ratio x what its bucket allows
// over the point's measured seconds (SweepPointDuration): (rps / K) x d
// against rate x d + burst. Err naming the first point that does not, what
// it offers and allows, and LIMITS_KEYS_RPS (raise it, or drop the point
// from LIMITS_KEYS_SWEEP); the phase's OverloadCheck would fail it anyway.
Result<void> CheckSweepOverload(const std::vector<int>& points, double rps, double limits_dur_s,
                                const TokenBucketLimit& limit, double min_ratio = 1.25);

// The over_admission limit the sweep is judged by: the scenario's threshold
// check of "over_admission" (its profile's), else kMaxOverAdmission.
double SweepOverAdmissionLimit(const ScenarioResult& r);
// FindKeySweepBreak of a limits.keys result at SweepOverAdmissionLimit,
// described (DescribeKeySweepBreak).
std::string KeySweepBreakLine(const ScenarioResult& r);

// "accuracy breaks at K=1000 (over-admission 67.00% > 2.00%)", "p99 breaks
// at K=10000 (3.20 ms > 2 x 1.10 ms at K=10)", both joined by "; ", or
// "no break up to K=10000"; "no point measured" without points.
std::string DescribeKeySweepBreak(const KeySweepBreak& b, double max_over_admission,
                                  double p99_factor = kSweepP99Factor);

}  // namespace fvbench
