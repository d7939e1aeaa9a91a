// A/B statistics (support/judge/ab_compare.h) on synthetic samples.
#include "support/judge/ab_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace fvbench {
namespace {

const AbMetricSpec kP99{"p99_us", AbScale::kRatio, AbBetter::kLower};
const AbMetricSpec kErrors{"error_rate", AbScale::kAbsolute, AbBetter::kLower};
const AbMetricSpec kAchieved{"achieved_rps", AbScale::kRatio, AbBetter::kHigher};

// n values around `center`, each multiplied by (1 + u), u uniform in +-noise.
std::vector<double> Noisy(std::mt19937& rng, int n, double center, double noise) {
  std::uniform_real_distribution<double> u(-noise, noise);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1 + u(rng)));
  return v;
}

TEST(AbStudentT, KnownQuantiles) {
  // Tables of Student's t, two-sided 95 %.
  EXPECT_NEAR(StudentT975(1), 12.706, 1e-3);
  EXPECT_NEAR(StudentT975(2), 4.303, 1e-3);
  EXPECT_NEAR(StudentT975(4), 2.776, 1e-3);
  EXPECT_NEAR(StudentT975(30), 2.042, 1e-3);
  EXPECT_TRUE(std::isnan(StudentT975(0)));
}

TEST(AbCompare, IdenticalDistributionsAreNotSignificant) {
  // Many seeds: A and B drawn from the same distribution must (almost) never
  // be called different; with both criteria a false call needs the CI to
  // exclude 0 (5 %) AND the mean shift to exceed either side's whole spread.
  int significant = 0;
  for (unsigned seed = 1; seed <= 200; ++seed) {
    std::mt19937 rng(seed);
    auto a = Noisy(rng, 5, 1000, 0.05);
    auto b = Noisy(rng, 5, 1000, 0.05);
    AbComparison c = CompareAb(kP99, a, b);
    ASSERT_TRUE(c.delta.has_value());
    ASSERT_TRUE(c.ci_low && c.ci_high && c.noise);
    if (c.verdict != AbVerdict::kNoDifference) ++significant;
  }
  EXPECT_LE(significant, 2) << "false positives out of 200";
}

TEST(AbCompare, SameValuesAreNoDifference) {
  AbComparison c = CompareAb(kP99, {800, 900, 1000}, {800, 900, 1000});
  EXPECT_EQ(c.verdict, AbVerdict::kNoDifference);
  EXPECT_DOUBLE_EQ(*c.delta, 0);
  EXPECT_EQ(AbVerdictText(c), "no significant difference");
  EXPECT_EQ(c.reason, "the 95 % CI includes 0");
}

TEST(AbCompare, TwentyPercentShiftWithTwoPercentNoiseIsSignificant) {
  std::mt19937 rng(7);
  auto a = Noisy(rng, 5, 1000, 0.02);
  auto b = Noisy(rng, 5, 1200, 0.02);
  AbComparison c = CompareAb(kP99, a, b);
  EXPECT_EQ(c.verdict, AbVerdict::kBWorse);
  EXPECT_NEAR(*c.delta, 0.20, 0.04);
  EXPECT_GT(*c.ci_low, 0.1);
  EXPECT_LT(*c.ci_high, 0.3);
  EXPECT_LT(*c.noise, 0.05);
  EXPECT_NE(AbVerdictText(c).find("B slower by "), std::string::npos) << AbVerdictText(c);

  // The other way round: B faster.
  AbComparison r = CompareAb(kP99, b, a);
  EXPECT_EQ(r.verdict, AbVerdict::kBBetter);
  EXPECT_NEAR(*r.delta, -1.0 / 6, 0.04);
  EXPECT_NE(AbVerdictText(r).find("B faster by "), std::string::npos) << AbVerdictText(r);

  // Higher is better: B achieving 20 % more is better, not worse.
  AbComparison h = CompareAb(kAchieved, a, b);
  EXPECT_EQ(h.verdict, AbVerdict::kBBetter);
  EXPECT_NE(AbVerdictText(h).find("B achieved more by "), std::string::npos);
}

TEST(AbCompare, ExactDeltaAndInterval) {
  // d = ln 2 in every pair: delta exactly +100 %, s = 0, CI collapses onto it.
  AbComparison c = CompareAb(kP99, {100, 200, 300}, {200, 400, 600});
  EXPECT_NEAR(*c.delta, 1.0, 1e-12);
  EXPECT_NEAR(*c.ci_low, 1.0, 1e-12);
  EXPECT_NEAR(*c.ci_high, 1.0, 1e-12);
  // Each side spans 200 around a median 200 (side A) / 400 around 400 (B): noise 100 %.
  EXPECT_NEAR(*c.noise, 1.0, 1e-12);
  // |delta| must EXCEED the noise: equal is not enough.
  EXPECT_EQ(c.verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(c.reason, "within the run-to-run noise");

  // A hand-computed t interval: d = ln(1.18), ln(1.20), ln(1.22).
  AbComparison t = CompareAb(kP99, {100, 100, 100}, {118, 120, 122});
  double d1 = std::log(1.18), d2 = std::log(1.20), d3 = std::log(1.22);
  double m = (d1 + d2 + d3) / 3;
  double s = std::sqrt(((d1 - m) * (d1 - m) + (d2 - m) * (d2 - m) + (d3 - m) * (d3 - m)) / 2);
  double half = 4.302652729911275 * s / std::sqrt(3.0);
  EXPECT_NEAR(*t.delta, std::exp(m) - 1, 1e-12);
  EXPECT_NEAR(*t.ci_low, std::exp(m - half) - 1, 1e-9);
  EXPECT_NEAR(*t.ci_high, std::exp(m + half) - 1, 1e-9);
  EXPECT_NEAR(*t.noise, 4.0 / 120, 1e-12);  // B: (122 - 118) / 120; A: 0
  EXPECT_EQ(t.verdict, AbVerdict::kBWorse);
  EXPECT_EQ(AbDeltaText(t), "+20.0 %");

  // The same mean with 10x the scatter: three pairs cannot tell (t(2) = 4.3).
  AbComparison wide = CompareAb(kP99, {100, 100, 100}, {110, 120, 130});
  EXPECT_LT(*wide.ci_low, 0.0);
  EXPECT_EQ(wide.verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(wide.reason, "the 95 % CI includes 0");
}

TEST(AbCompare, OnePairIsInsufficient) {
  AbComparison c = CompareAb(kP99, {1000}, {2000});
  EXPECT_EQ(c.verdict, AbVerdict::kInsufficient);
  EXPECT_NEAR(*c.delta, 1.0, 1e-12);
  EXPECT_FALSE(c.ci_low.has_value());
  EXPECT_FALSE(c.noise.has_value());
  EXPECT_EQ(AbVerdictText(c), "not enough pairs (n=1)");
  EXPECT_EQ(AbCiText(c), "\u2014");
}

TEST(AbCompare, TwoPairsGetAWideInterval) {
  AbComparison c = CompareAb(kP99, {1000, 1000}, {1100, 1300});
  ASSERT_TRUE(c.ci_low && c.ci_high);
  // t(1) = 12.7: the interval spans far beyond the two observed ratios.
  EXPECT_LT(*c.ci_low, 0.0);
  EXPECT_GT(*c.ci_high, 0.5);
  EXPECT_EQ(c.verdict, AbVerdict::kNoDifference);
}

TEST(AbCompare, NoPairs) {
  AbComparison c = CompareAb(kP99, {}, {1, 2});
  EXPECT_EQ(c.verdict, AbVerdict::kNotApplicable);
  EXPECT_EQ(c.pairs, 0);
  EXPECT_FALSE(c.delta.has_value());
}

TEST(AbCompare, UnequalLengthsUseTheCompletePairs) {
  AbComparison c = CompareAb(kP99, {100, 100, 100}, {200, 200});
  EXPECT_EQ(c.pairs, 2);
  EXPECT_NEAR(*c.delta, 1.0, 1e-12);
}

TEST(AbCompare, ZeroErrorsOnBothSidesIsNotApplicableNotNaN) {
  AbComparison c = CompareAb(kErrors, {0, 0, 0}, {0, 0, 0});
  EXPECT_EQ(c.verdict, AbVerdict::kNotApplicable);
  EXPECT_FALSE(c.delta.has_value());
  EXPECT_EQ(AbDeltaText(c), "n/a");
  EXPECT_EQ(AbVerdictText(c), "n/a (no errors on either side)");
}

TEST(AbCompare, ErrorsOnlyOnBIsAnAbsoluteDifference) {
  AbComparison c = CompareAb(kErrors, {0, 0, 0, 0}, {0.010, 0.012, 0.011, 0.009});
  EXPECT_EQ(c.verdict, AbVerdict::kBWorse);
  EXPECT_NEAR(*c.delta, 0.0105, 1e-12);
  EXPECT_EQ(AbDeltaText(c), "+1.05 pp");
  EXPECT_NE(AbVerdictText(c).find("B has more errors by 1.05 pp (CI "), std::string::npos) << AbVerdictText(c);
}

TEST(AbCompare, ZeroLatencyIsNotApplicable) {
  AbComparison c = CompareAb(kP99, {100, 0, 100}, {100, 100, 100});
  EXPECT_EQ(c.verdict, AbVerdict::kNotApplicable);
  EXPECT_NE(c.reason.find("pair 2"), std::string::npos) << c.reason;
  AbComparison nan = CompareAb(kP99, {100, 100}, {100, std::nan("")});
  EXPECT_EQ(nan.verdict, AbVerdict::kNotApplicable);
}

TEST(AbCompare, RunsOfTwoSides) {
  AbSide a, b;
  for (int i = 0; i < 3; ++i) {
    LoadResult r;
    r.latency_us = {100, 200, 300, 400, 500};
    r.achieved_rps = 1000;
    a.runs.push_back(r);
    a.fv_cpu_cores.push_back(0.50 + 0.01 * i);
    r.latency_us = {150, 300, 450, 600, 700};
    r.error_rate = i == 1 ? 0.003 : 0;  // one run with errors: within B's own spread
    b.runs.push_back(r);
    b.fv_cpu_cores.push_back(0.80 + 0.01 * i);
  }
  std::vector<AbComparison> cs = CompareAbRuns(a, b);
  ASSERT_EQ(cs.size(), AbMetrics().size());
  EXPECT_EQ(cs[0].metric, "p50_us");
  EXPECT_EQ(cs[0].verdict, AbVerdict::kBWorse);
  EXPECT_NEAR(*cs[0].delta, 0.5, 1e-12);
  EXPECT_EQ(cs[4].metric, "error_rate");
  EXPECT_EQ(cs[4].verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(cs[5].metric, "achieved_rps");
  EXPECT_EQ(cs[5].verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(cs[6].metric, "fv_cpu_cores");
  EXPECT_EQ(cs[6].verdict, AbVerdict::kBWorse);
  EXPECT_NE(AbVerdictText(cs[6]).find("B uses more CPU by "), std::string::npos);
  // CPU not sampled: n/a, never NaN in the text.
  a.fv_cpu_cores.clear();
  EXPECT_EQ(CompareAbRuns(a, b)[6].verdict, AbVerdict::kNotApplicable);
}

TEST(AbCompare, NamesRoundTrip) {
  for (AbVerdict v : {AbVerdict::kNotApplicable, AbVerdict::kInsufficient, AbVerdict::kNoDifference,
                      AbVerdict::kBWorse, AbVerdict::kBBetter}) {
    EXPECT_EQ(AbVerdictFromName(AbVerdictName(v)), v);
  }
  EXPECT_EQ(AbScaleFromName("absolute"), AbScale::kAbsolute);
  EXPECT_EQ(AbBetterFromName("higher"), AbBetter::kHigher);
  EXPECT_FALSE(AbVerdictFromName("maybe").has_value());
}

}  // namespace
}  // namespace fvbench
