// Whether a phase's p99 moved within it: the p99 of the second half of its
// judged intervals (judge/judged_intervals.h) against the first half's, from
// the per-interval latency histograms (core/interval_series.h `latency`; k6
// series: wrk's pace.lua has no per-request timing). Pure.
//
// Each half's histograms are merged bucket for bucket (core/interval_latency.h
// MergeIntervalLatency: exact, no averaging of percentiles), the middle
// interval left out when their number is odd; each half's p99 is read from
// its merge (IntervalLatencyUs), and the drift is |second / first - 1| (a
// fraction: 0.5 = the second half's p99 is 1.5x, or 0.5x, the first's).
//
// Judged only when each half holds at least kMinP99DriftSamples recorded
// samples: a half of N samples has its p99 at rank N/100 from the top, and
// a p99 read from a 1 s interval (a few hundred samples at modest rates) is
// its few slowest requests. Nor when either half's p99 fell among its
// timed-out requests (censored: a lower bound, LatencyUs::censored_at_us).
//
// Who reads it: interval_checks.h (the informational validity check
// p99_drift: always reported, never fails the phase, since a p99 that climbs
// within a phase is a property of the SUT as much as of the measurement) and
// thresholds.h (the threshold metric p99_drift, which fails where a profile
// says so; NaN, "not measured", when not judged).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/core/load_result.h"

namespace fvbench {

// 1000 recorded samples per half: its p99 at rank >= 10 from the top, whose
// rank is uncertain by about sqrt(10) ~ 3 (~30 % of the tail beyond it); for
// an exponential tail that moves the p99 by under 8 % (p98.7 .. p99.3).
inline constexpr uint64_t kMinP99DriftSamples = 1000;

// 0.5: the bound the informational check compares with (and reports as
// within or beyond). Two p99s at rank >= 10 differ by sampling alone by up
// to ~15 % (8 % each, above); 50 % is a climb of the SUT's tail, not noise.
// Not a gate: a threshold on p99_drift is (thresholds/README.md).
inline constexpr double kMaxP99Drift = 0.5;

struct P99Drift {
  // The drift is judged: enough samples per half, neither p99 censored.
  // false: `why` says why, and `drift` is the number read anyway (NaN when a
  // half has no recorded sample, or the phase no per-interval latency).
  bool judged = false;
  std::string why;
  double drift = 0;          // |second_p99 / first_p99 - 1|; +inf when the first is 0 and the second not
  double first_p99_us = 0;   // the first half's merged p99
  double second_p99_us = 0;
  uint64_t first_samples = 0;  // recorded samples (timeouts not counted)
  uint64_t second_samples = 0;
  size_t half_intervals = 0;   // judged intervals in each half
};

// Whether the phase has latency per interval at all (one histogram per
// interval of its series): without, p99_drift is not measured and the
// validity check absent.
bool HasIntervalLatency(const LoadResult& load);

P99Drift MeasureP99Drift(const LoadResult& load);

}  // namespace fvbench
