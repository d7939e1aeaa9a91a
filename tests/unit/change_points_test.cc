#include "support/judge/change_points.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "tests/unit/detection_study.h"

namespace fvbench::change_points_test {
namespace {

using namespace detection_study;

// Q by the definition (Matteson & James 2014, alpha = 1), O(n^2).
double NaiveQ(const std::vector<double>& x, size_t tau) {
  const size_t n = x.size();
  double cross = 0, wl = 0, wr = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      double d = std::fabs(x[i] - x[j]);
      if (j < tau) wl += d;
      else if (i >= tau) wr += d;
      else cross += d;
    }
  }
  double m = static_cast<double>(tau), k = static_cast<double>(n - tau);
  double e = 2 * cross / (m * k) - wl / (m * (m - 1) / 2) - wr / (k * (k - 1) / 2);
  return m * k / (m + k) * e;
}

TEST(ChangePoints, SplitStatisticsEqualTheDefinition) {
  Rng rng(3);
  std::vector<double> x;
  for (int i = 0; i < 40; ++i) x.push_back(i < 25 ? rng.Normal() : 2 + rng.Normal());
  x[7] = x[8];  // ties
  auto q = SplitStatistics(x);
  ASSERT_EQ(q.size(), x.size() + 1);
  for (size_t t = 2; t + 2 <= x.size(); ++t) EXPECT_NEAR(q[t], NaiveQ(x, t), 1e-9 * (1 + std::fabs(q[t]))) << t;
  EXPECT_EQ(q[1], 0);
  EXPECT_EQ(BestSplit(x, 3).tau, 25u);
}

TEST(ChangePoints, FindsAStepAndReportsMeansAndPValue) {
  Rng rng(5);
  std::vector<double> x;
  for (int i = 0; i < 120; ++i) x.push_back((i < 80 ? 1000 : 1100) * (1 + 0.02 * rng.Normal()));
  auto cps = FindChangePoints(x);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_NEAR(static_cast<double>(cps[0].index), 80, 1);
  EXPECT_NEAR(cps[0].mean_before, 1000, 10);
  EXPECT_NEAR(cps[0].mean_after, 1100, 12);
  EXPECT_NEAR(cps[0].relative_change, 0.10, 0.02);
  EXPECT_LE(cps[0].p_value, 0.01);
}

TEST(ChangePoints, DeterministicForAFixedSeedAndShortSeriesHaveNone) {
  Rng rng(9);
  std::vector<double> x;
  for (int i = 0; i < 300; ++i) x.push_back((i % 100 < 50 ? 10 : 10.6) + 0.2 * rng.HeavyTailed());
  auto a = FindChangePoints(x), b = FindChangePoints(x);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].index, b[i].index);
    EXPECT_EQ(a[i].p_value, b[i].p_value);
  }
  EXPECT_EQ(a.size(), 5u);
  EXPECT_TRUE(FindChangePoints(std::vector<double>{1, 2, 3, 4, 5}).empty());
  EXPECT_TRUE(FindChangePoints(std::vector<double>{}).empty());
  EXPECT_TRUE(FindChangePoints(std::vector<double>(100, 7.0)).empty());
}

// A constant series whose value is not a binary fraction: the split
// statistics are 0 up to rounding, in the order observed and in every
// permutation alike, so there is no change point and no p below 1.
TEST(ChangePoints, ConstantSeriesOfAnyValueHaveNone) {
  using Scale = ChangePointOptions::Scale;
  for (double v : {0.37, 0.4123456789, 1370.1, 1e-7, 2.9e6}) {
    for (size_t n : {15u, 25u, 30u, 64u, 200u}) {
      for (Scale s : {Scale::kValues, Scale::kRanks, Scale::kWinsorized}) {
        ChangePointOptions o;
        o.scale = s;
        auto cps = FindChangePoints(std::vector<double>(n, v), o);
        EXPECT_TRUE(cps.empty()) << "value " << v << ", " << n << " runs, scale " << static_cast<int>(s)
                                 << ": change point at " << cps[0].index << ", p " << cps[0].p_value;
      }
    }
  }
}

// The robust scales: Q is the definition's on the transformed segment
// (mid-ranks; values clipped to median +- k x 1.4826 x MAD), ties and a
// constant series give no change point, a clear step is found on every scale.
TEST(ChangePoints, RankAndWinsorizedScalesTransformTheSegment) {
  using Scale = ChangePointOptions::Scale;
  std::vector<double> x = {5, 1, 5, 3, 9, 2, 5, 100, 4, 6};
  std::vector<double> mid = {5, 0, 5, 2, 8, 1, 5, 9, 3, 7};  // ranks 0..9; the three 5s (4, 5, 6) share 5
  // median 5, |x - 5| = {0,4,0,2,4,3,0,95,1,1} -> MAD 1.5; k = 2: 5 +- 4.4478, only 100 clipped
  std::vector<double> clipped = {5, 1, 5, 3, 9, 2, 5, 9.4478, 4, 6};
  auto ranks = SplitStatistics(x, Scale::kRanks);
  auto winsor = SplitStatistics(x, Scale::kWinsorized, 2.0);
  for (size_t t = 2; t + 2 <= x.size(); ++t) {
    EXPECT_NEAR(ranks[t], NaiveQ(mid, t), 1e-9) << t;
    EXPECT_NEAR(winsor[t], NaiveQ(clipped, t), 1e-3) << t;
  }
  for (Scale s : {Scale::kValues, Scale::kRanks, Scale::kWinsorized}) {
    ChangePointOptions o;
    o.scale = s;
    EXPECT_TRUE(FindChangePoints(std::vector<double>(100, 7.0), o).empty());
    std::vector<double> step;
    Rng rng(4);
    for (int i = 0; i < 100; ++i) step.push_back((i < 50 ? 1000 : 1100) * (1 + 0.02 * rng.Normal()));
    auto cps = FindChangePoints(step, o);
    ASSERT_EQ(cps.size(), 1u) << static_cast<int>(s);
    EXPECT_NEAR(static_cast<double>(cps[0].index), 50, 1);
    EXPECT_NEAR(cps[0].relative_change, 0.10, 0.02);  // means are of the values on every scale
  }
}

// The newest runs of a history: 5 runs 8 % higher after 60 quiet ones.
TEST(ChangePoints, FindsAShiftInTheNewestFiveRuns) {
  Rng rng(11);
  std::vector<double> x;
  for (int i = 0; i < 65; ++i) x.push_back((i < 60 ? 1370 : 1370 * 1.08) * (1 + 0.015 * rng.Normal()));
  auto cps = FindChangePoints(x);
  ASSERT_FALSE(cps.empty());
  EXPECT_EQ(cps.back().index, 60u);
  EXPECT_GT(cps.back().relative_change, 0.06);
}

// Where the newest-five-runs shift (8 %, 2 % noise, 40 quiet runs before) is
// placed, over 200 seeds: 186 exactly, 13 one run off, 1 elsewhere.
TEST(ChangePoints, NewestFiveRunsLocalisation) {
  int exact = 0, off_by_one = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Rng rng(seed);
    std::vector<double> x;
    for (int i = 0; i < 45; ++i) x.push_back(1370 * (1 + 0.02 * rng.Normal()) * (i >= 40 ? 1.08 : 1));
    auto cps = FindChangePoints(x);
    if (cps.empty()) continue;
    long d = static_cast<long>(cps.back().index) - 40;
    exact += d == 0;
    off_by_one += std::labs(d) == 1;
  }
  EXPECT_GE(exact, 180);
  EXPECT_GE(exact + off_by_one, 195);
}

// The detection goals on the study's synthetic series (detection_study.h); the
// table is printed for the record.
TEST(ChangePoints, DetectionStudyMeetsTheGoals) {
  auto rows = RunStudy();
  std::printf("%s", FormatTable(rows).c_str());
  for (const Row& r : rows) {
    if (r.method != Method::kEDivisive) continue;
    SCOPED_TRACE(fmt::format("{} shift {}", NoiseName(r.noise), r.shift));
    if (r.shift >= 0.05) {
      // Goal: every one. Met with Gaussian noise; with t3 noise 2 of the 100
      // 5 % shifts are placed 4+ runs away (an outlier next to the shift).
      EXPECT_LE(r.score.missed, r.noise == Noise::kGaussian ? 0 : 2);
    } else if (r.shift == 0.03) {
      EXPECT_GE(r.score.detected, 0.8 * r.score.series);
    } else {
      EXPECT_LE(FalseAlarmsPer1000(r.score), 1.0);
    }
  }
}

}  // namespace
}  // namespace fvbench::change_points_test
