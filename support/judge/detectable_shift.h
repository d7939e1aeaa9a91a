// The smallest shift of a metric's mean that the history gate could have
// detected in the newest runs, from the run-to-run noise of the runs before
// them. Pure: no I/O.
//
// Inputs: `reference`, the m runs the newest runs are compared with (the
// caller picks them: the history gate takes the runs before its recent
// window, from the last change point before it on); `recent_runs`, k, the
// number of newest runs a shift would have moved.
//
// Noise: s = 1.4826 x MAD of the reference (the median absolute deviation
// from the median, scaled to equal the standard deviation for Gaussian
// noise). Robust rather than the sample SD because one outlier run (a noisy
// neighbour, a slow first run after a reboot) would dominate the SD and
// claim the gate is blinder than it is for the bulk of the runs, and
// E-Divisive with alpha = 1 weighs an outlier by its distance, not its
// square, so its power follows the bulk too. When more than half the runs
// are equal (MAD = 0: an error rate that is mostly 0), s is the sample SD
// (n - 1), which is 0 only when every run is equal.
//
// Shift: the difference of means that a two-sample two-sided t-test at level
// p = max_p_value detects with probability `power`:
//   delta = (t_{1-p/2, df} + t_{power, df}) x s x sqrt(1/m + 1/k),  df = m + k - 2
// (Student's t quantiles from Boost.Math). Relative (`relative`): delta /
// |mean of the reference|; else delta in the metric's own units. The result
// is floored at min_effect, the smallest change the gate reports at all.
//
// An approximation: the gate's test is E-Divisive's permutation test
// (support/judge/change_points.h; Matteson & James, JASA 2014), not a t-test.
// For a single shift of the mean under Gaussian noise the t-test at a known
// split is the most powerful test, and the permutation test must also find
// where the split is, so the detector's real power at delta is lower; the
// detectable-shift test in tests/unit/detectable_shift_test.cc measures it
// on synthetic series: at delta the gate catches about a third of the shifts
// (nominal: 90 %), at 2 x delta about 90 %
// (docs/history.md "What check could have detected"). On measured runs the
// same holds for medians and CPU; tail percentiles with a few outlier runs
// (which the MAD ignores and E-Divisive on the values does not) need more:
// at 2 x delta the gate caught 25-81 % of p99 shifts, and at most 5 % where
// a few runs' p99 was many times the median
// (docs/history.md "The gate on measured noise").
//
// Status: kTooFewRuns when m < min_reference_runs or k < min_recent_runs
// (only the counts are set); kZeroMean when `relative` and the reference's
// mean is 0 (a relative change of it is undefined: the gate never reports
// one; noise and counts are set).
#pragma once

#include <cstddef>
#include <span>

namespace fvbench {

struct DetectableShiftOptions {
  double max_p_value = 0.01;      // in (0, 1): two-sided level, the detector's (ChangePointOptions::max_p_value)
  double power = 0.90;            // in (0, 1): probability of detecting a shift of the result's size
  double min_effect = 0.03;       // floor of the result: relative, or in the metric's units when !relative
  bool relative = true;           // result as a fraction of the reference's mean (else in the metric's units)
  size_t min_reference_runs = 6;  // fewer: kTooFewRuns (a MAD of fewer runs says little)
  size_t min_recent_runs = 3;     // fewer: kTooFewRuns (the detector's min_segment)
};

struct DetectableShift {
  enum class Status { kOk, kTooFewRuns, kZeroMean };
  Status status = Status::kTooFewRuns;
  size_t reference_runs = 0;  // m
  size_t recent_runs = 0;     // k
  double reference_mean = 0;
  double noise = 0;           // s, in the metric's units
  bool noise_is_sd = false;   // s is the sample SD (MAD was 0)
  double factor = 0;          // t_{1-p/2,df} + t_{power,df}
  double unfloored = 0;       // delta (relative or absolute, as the options say) before the floor
  double shift = 0;           // max(unfloored, min_effect): the smallest detectable shift
};

DetectableShift SmallestDetectableShift(std::span<const double> reference, size_t recent_runs,
                                        const DetectableShiftOptions& options = {});

// 1.4826 x the median absolute deviation from the median; 0 for no values.
double MadSd(std::span<const double> x);

}  // namespace fvbench
