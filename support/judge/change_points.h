// Change points in one metric's series over runs: E-Divisive means with a
// permutation significance test. Pure: no I/O, no clock, no global state;
// the same series, options and seed give the same change points everywhere
// (own splitmix64 generator and Fisher-Yates shuffle, not <random>'s
// implementation-defined distributions).
//
// Sources followed:
// - D. S. Matteson, N. A. James, "A Nonparametric Approach for Multiple Change
//   Point Analysis of Multivariate Data", JASA 109(505), 2014: the divergence
//   e(X,Y) = 2/(mk) sum|x-y| - C(m,2)^-1 sum_{i<j}|x_i-x_j| - C(k,2)^-1 sum_{i<j}|y_i-y_j|
//   (alpha = 1), Q = mk/(m+k) e, the best split maximises Q, hierarchical
//   splitting of the segment with the largest Q, and the permutation test
//   (shuffle the segment, p = (1 + #{Q_perm >= Q}) / (1 + permutations)).
// - D. Daly et al., "The Use of Change Point Detection to Identify Software
//   Performance Regressions in a Continuous Integration System", ICPE 2020
//   (MongoDB): the same test on performance series in CI.
// - Apache Otava (formerly Hunter), otava/analysis.py compute_change_points:
//   E-Divisive over overlapping windows of `window` runs (step window/2), then
//   every candidate re-tested against its neighbours' segments and the weakest
//   removed until all are significant. Otava re-tests with Student's t; here
//   the re-test is the same permutation test, the observed Q at the candidate
//   against the permutations' best Q anywhere in that segment (conservative).
//
// Cost: the within-segment distance sums of every prefix and suffix come from
// a Fenwick tree over ranks, so one scan (all splits of n runs) is O(n log n);
// a permutation test stops as soon as its p-value cannot fall to max_p_value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace fvbench {

struct ChangePointOptions {
  double max_p_value = 0.01;  // significance level of the permutation test
  int permutations = 199;     // per test; p-values are multiples of 1/(permutations+1)
  int min_segment = 3;        // runs on each side of a change point, >= 2
  int window = 64;            // runs per window (Otava's window_len); the whole series when shorter
  uint64_t seed = 1;
  // What the divergence is computed on, within each tested segment (any
  // function of the segment's multiset of values keeps the permutation test
  // exact):
  //   kValues      the values (Matteson & James as published; default)
  //   kRanks       the runs' mid-ranks (a rank E-statistic)
  //   kWinsorized  the values clipped to median +- winsor_k x 1.4826 x MAD
  //                (a heavy-tailed outlier weighs like a run at that bound)
  // The detection study (tests/unit/detection_study.h) compares them: neither
  // robust variant beats the values overall (docs/history.md "History and change points").
  enum class Scale { kValues, kRanks, kWinsorized };
  Scale scale = Scale::kValues;
  double winsor_k = 4;
};

struct ChangePoint {
  size_t index = 0;            // first run of the new segment (0-based position in the series)
  double p_value = 1;          // of the final re-test
  double mean_before = 0;      // mean of the segment from the previous change point (or run 0) to index
  double mean_after = 0;       // mean of the segment from index to the next change point (or the end)
  double relative_change = 0;  // (mean_after - mean_before) / |mean_before|; 0 when mean_before is 0
};

// The change points of `series` in order of index. Series shorter than
// 2 x min_segment have none. Options out of range are clamped (min_segment to
// >= 2, window to >= 4 x min_segment, permutations to >= 19).
std::vector<ChangePoint> FindChangePoints(std::span<const double> series, const ChangePointOptions& options = {});

// The building blocks, exposed for tests.
struct Split {
  size_t tau = 0;  // first index of the right part; 0 when no split of >= min_segment each side exists
  double q = 0;    // Matteson & James's Q at tau (alpha = 1)
};
// The split of `x` that maximises Q over tau in [min_segment, n - min_segment].
Split BestSplit(std::span<const double> x, int min_segment,
                ChangePointOptions::Scale scale = ChangePointOptions::Scale::kValues, double winsor_k = 4);
// Q at every tau in [0, n] (0 where a side has fewer than 2 runs).
std::vector<double> SplitStatistics(std::span<const double> x,
                                    ChangePointOptions::Scale scale = ChangePointOptions::Scale::kValues,
                                    double winsor_k = 4);

}  // namespace fvbench
