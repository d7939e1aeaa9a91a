// A/B statistics (support/judge/ab_compare.h) on synthetic samples.
#include "support/judge/ab_compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "support/core/metric_names.h"

namespace fvbench::ab_compare_test {
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

TEST(AbStudentT, OneSidedNinetyPercentQuantiles) {
  // Tables of Student's t, one-sided 90 % (t_{0.90, dof}).
  EXPECT_NEAR(StudentTQuantile(1, 0.90), 3.077683537, 1e-6);
  EXPECT_NEAR(StudentTQuantile(2, 0.90), 1.885618083, 1e-6);
  EXPECT_NEAR(StudentTQuantile(4, 0.90), 1.533206274, 1e-6);
  EXPECT_NEAR(StudentTQuantile(9, 0.90), 1.383028738, 1e-6);
  EXPECT_NEAR(StudentTQuantile(4, 0.975), StudentT975(4), 1e-12);
  EXPECT_TRUE(std::isnan(StudentTQuantile(0, 0.90)));
  EXPECT_TRUE(std::isnan(StudentTQuantile(3, 1.0)));
}

// The paired t test's detectable change, from the table values by hand:
// (t_{0.995,n-1} + t_{0.90,n-1}) * s / sqrt n (a 99 % two-sided test, 90 %
// power), back on the ratio scale, then at least the resolution floor.
TEST(AbDetectable, PowerTermAndFloor) {
  const double t995_4 = 4.604094871, t90_4 = 1.533206274;
  const double power = std::exp((t995_4 + t90_4) * 0.05 / std::sqrt(5.0)) - 1;
  EXPECT_NEAR(power, 0.147097, 1e-5);
  EXPECT_NEAR(DetectableChange(AbScale::kRatio, 0.05, 5, 0.01), power, 1e-6);
  EXPECT_DOUBLE_EQ(DetectableChange(AbScale::kRatio, 0.05, 5, 0.25), 0.25);  // the resolution binds
  // Absolute scale: no exp, in the metric's unit.
  const double t995_2 = 9.924843201, t90_2 = 1.885618083;
  EXPECT_NEAR(DetectableChange(AbScale::kAbsolute, 0.001, 3, 0), (t995_2 + t90_2) * 0.001 / std::sqrt(3.0), 1e-9);
  EXPECT_TRUE(std::isnan(DetectableChange(AbScale::kRatio, 0.05, 1, 0)));
}

TEST(AbDetectable, OfAComparison) {
  // d = ln 1.18, ln 1.20, ln 1.22: s by hand, n = 3: the power term.
  AbComparison t = CompareAb(kP99, {100, 100, 100}, {118, 120, 122});
  double d1 = std::log(1.18), d2 = std::log(1.20), d3 = std::log(1.22);
  double m = (d1 + d2 + d3) / 3;
  double s = std::sqrt(((d1 - m) * (d1 - m) + (d2 - m) * (d2 - m) + (d3 - m) * (d3 - m)) / 2);
  ASSERT_TRUE(t.detectable.has_value());
  EXPECT_NEAR(*t.detectable, std::exp((9.924843201 + 1.885618083) * s / std::sqrt(3.0)) - 1, 1e-7);
  EXPECT_EQ(AbDetectableText(t), "12.0 %");
  // Wide sides, steady pairs: the sides' spread (noise 113 %) is no floor.
  AbComparison wide = CompareAb(kP99, {100, 200, 300}, {200, 380, 630});
  EXPECT_LT(*wide.detectable, *wide.noise);
  // Errors (absolute): pp.
  AbComparison e = CompareAb(kErrors, {0, 0, 0, 0}, {0.010, 0.012, 0.011, 0.009});
  ASSERT_TRUE(e.detectable.has_value());
  EXPECT_GT(*e.detectable, 0);
  EXPECT_EQ(AbDetectableText(e).substr(AbDetectableText(e).size() - 3), " pp");
  // No interval, no detectable change: one pair, n/a, not estimable.
  EXPECT_FALSE(CompareAb(kP99, {1000}, {2000}).detectable.has_value());
  EXPECT_FALSE(CompareAb(kErrors, {0, 0}, {0, 0}).detectable.has_value());
  AbComparison same = CompareAb(kP99, {800, 900, 1000}, {800, 900, 1000});
  EXPECT_EQ(same.verdict, AbVerdict::kNotEstimable);
  EXPECT_FALSE(same.detectable.has_value());
  EXPECT_EQ(AbDetectableText(same), "\u2014");
}

TEST(AbCompare, IdenticalDistributionsAreNotSignificant) {
  // Many seeds: A and B drawn from the same distribution are called
  // different about as often as the 99 % CI allows (1 %: 2 of 200 expected;
  // P(more than 6) < 0.5 %).
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
  EXPECT_LE(significant, 6) << "false positives out of 200";
}

TEST(AbCompare, SameValuesAreNoDifference) {
  // Identical in every pair: no spread, so no interval; never significant.
  AbComparison c = CompareAb(kP99, {800, 900, 1000}, {800, 900, 1000});
  EXPECT_EQ(c.verdict, AbVerdict::kNotEstimable);
  EXPECT_DOUBLE_EQ(*c.delta, 0);
  EXPECT_EQ(AbVerdictText(c), "not estimable (A and B are identical in every pair: no spread to estimate an interval from)");
  // The same with run-to-run scatter in the pairs: the CI includes 0.
  AbComparison s = CompareAb(kP99, {800, 900, 1000}, {810, 890, 1005});
  EXPECT_EQ(s.verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(AbVerdictText(s), "no significant difference");
  EXPECT_EQ(s.reason, "the 99 % CI includes 0");
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
  // The sides' own spread is no criterion: each spans 200 around a median
  // 200 (side A) / 430 around 380 (B), noise 113 %, yet every pair doubles
  // (d = ln 2, ln 1.9, ln 2.1): the pairs say B is worse.
  AbComparison c = CompareAb(kP99, {100, 200, 300}, {200, 380, 630});
  EXPECT_NEAR(*c.delta, std::exp((std::log(2.0) + std::log(1.9) + std::log(2.1)) / 3) - 1, 1e-12);
  EXPECT_NEAR(*c.noise, 430.0 / 380, 1e-12);
  EXPECT_GT(*c.noise, *c.delta);
  EXPECT_EQ(c.verdict, AbVerdict::kBWorse);
  // d = ln 2 in every pair: s = 0, an interval of zero width is no evidence:
  // not estimable, never significant (ab-zero-variance.cc).
  AbComparison same_d = CompareAb(kP99, {100, 200, 300}, {200, 400, 600});
  EXPECT_NEAR(*same_d.delta, 1.0, 1e-12);
  EXPECT_FALSE(same_d.ci_low.has_value());
  EXPECT_EQ(same_d.verdict, AbVerdict::kNotEstimable);

  // A hand-computed t interval: d = ln(1.18), ln(1.20), ln(1.22).
  AbComparison t = CompareAb(kP99, {100, 100, 100}, {118, 120, 122});
  double d1 = std::log(1.18), d2 = std::log(1.20), d3 = std::log(1.22);
  double m = (d1 + d2 + d3) / 3;
  double s = std::sqrt(((d1 - m) * (d1 - m) + (d2 - m) * (d2 - m) + (d3 - m) * (d3 - m)) / 2);
  double half = 9.924843200918 * s / std::sqrt(3.0);  // t_{0.995,2}
  EXPECT_NEAR(*t.delta, std::exp(m) - 1, 1e-12);
  EXPECT_NEAR(*t.ci_low, std::exp(m - half) - 1, 1e-9);
  EXPECT_NEAR(*t.ci_high, std::exp(m + half) - 1, 1e-9);
  EXPECT_NEAR(*t.noise, 4.0 / 120, 1e-12);  // B: (122 - 118) / 120; A: 0
  EXPECT_EQ(t.verdict, AbVerdict::kBWorse);
  EXPECT_EQ(AbDeltaText(t), "+20.0 %");

  // The same mean with 10x the scatter: three pairs cannot tell (t(2) = 9.9).
  AbComparison wide = CompareAb(kP99, {100, 100, 100}, {110, 120, 130});
  EXPECT_LT(*wide.ci_low, 0.0);
  EXPECT_EQ(wide.verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(wide.reason, "the 99 % CI includes 0");
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

// The names AB_GATE_METRICS takes (core/metric_names.h) are the metrics
// compared, in the same order.
TEST(AbCompare, MetricNamesAreTheComparedMetrics) {
  std::vector<std::string> compared, listed;
  for (const AbMetricSpec& m : AbMetrics()) compared.push_back(m.name);
  for (const char* m : kAbMetricNames) listed.push_back(m);
  EXPECT_EQ(compared, listed);
  EXPECT_TRUE(IsAbMetricName("fv_cpu_us_per_request"));
  EXPECT_FALSE(IsAbMetricName("max_us"));
  EXPECT_FALSE(IsAbMetricName("p99"));
}

TEST(AbCompare, RunsOfTwoSides) {
  AbSide a, b;
  for (int i = 0; i < 3; ++i) {
    LoadResult r;
    r.latency_us = {100.0 + 3 * i, 200, 300, 400, 500};
    r.achieved_rps = 1000;
    a.runs.push_back(r);
    a.fv_cpu_cores.push_back(0.50 + 0.01 * i);
    r.latency_us = {150.0 - 2 * i, 300, 450, 600, 700};
    r.error_rate = i == 1 ? 0.003 : 0;  // one run with errors: within B's own spread
    b.runs.push_back(r);
    b.fv_cpu_cores.push_back(0.80 + 0.01 * i);
  }
  std::vector<AbComparison> cs = CompareAbRuns(a, b);
  ASSERT_EQ(cs.size(), AbMetrics().size());
  EXPECT_EQ(cs[0].metric, "p50_us");
  EXPECT_EQ(cs[0].verdict, AbVerdict::kBWorse);
  EXPECT_NEAR(*cs[0].delta, std::cbrt(150.0 / 100 * 148 / 103 * 146 / 106) - 1, 1e-12);
  // p90: exactly +100 µs (+50 %) in every pair, far beyond the 1 µs
  // resolution: significant, with the rounding bounds as its interval.
  EXPECT_EQ(cs[1].verdict, AbVerdict::kBWorse);
  EXPECT_NEAR(*cs[1].ci_low, 99.0 / 201, 1e-12);
  EXPECT_NEAR(*cs[1].ci_high, 101.0 / 199, 1e-12);
  EXPECT_EQ(cs[4].metric, "error_rate");
  EXPECT_EQ(cs[4].verdict, AbVerdict::kNoDifference);
  EXPECT_EQ(cs[5].metric, "achieved_rps");
  EXPECT_EQ(cs[5].verdict, AbVerdict::kNotEstimable);  // 1000 RPS on both sides in every pair
  EXPECT_EQ(cs[6].metric, "fv_cpu_cores");
  EXPECT_EQ(cs[6].verdict, AbVerdict::kBWorse);
  EXPECT_NE(AbVerdictText(cs[6]).find("B uses more CPU by "), std::string::npos);
  // CPU per request: cores * 1e6 / achieved RPS of each run.
  ASSERT_EQ(cs[7].metric, "fv_cpu_us_per_request");
  EXPECT_EQ(AbMetricLabel(cs[7].metric), "edge CPU/req");
  EXPECT_NEAR(cs[7].a_median, 510, 1e-9);
  EXPECT_NEAR(cs[7].b_median, 810, 1e-9);
  EXPECT_EQ(cs[7].verdict, AbVerdict::kBWorse);
  EXPECT_NE(AbVerdictText(cs[7]).find("B uses more CPU per request by "), std::string::npos) << AbVerdictText(cs[7]);
  EXPECT_EQ(AbValueText(cs[7].metric, cs[7].a_median), "510.0 µs/req");
  // CPU not sampled: n/a, never NaN in the text.
  a.fv_cpu_cores.clear();
  EXPECT_EQ(CompareAbRuns(a, b)[6].verdict, AbVerdict::kNotApplicable);
  EXPECT_EQ(CompareAbRuns(a, b)[7].verdict, AbVerdict::kNotApplicable);
}

// CPU per request is resolved to one 10 ms clock tick over the run's
// requests: 1e4 µs / 900 = 11 µs per request.
TEST(AbCompare, CpuPerRequestResolutionIsOneTickOverTheRequests) {
  AbSide a, b;
  const double b_cores[] = {0.101, 0.103, 0.102};
  for (int i = 0; i < 3; ++i) {
    LoadResult r;
    r.requests = 900;
    r.duration_s = 3;
    r.achieved_rps = 300;
    r.latency_us = {100.0 + i, 200, 300, 400, 500};
    a.runs.push_back(r);
    b.runs.push_back(r);
    a.fv_cpu_cores.push_back(0.1);
    b.fv_cpu_cores.push_back(b_cores[i]);
  }
  const AbComparison c = CompareAbRuns(a, b)[7];
  ASSERT_EQ(c.metric, "fv_cpu_us_per_request");
  EXPECT_NE(c.reason.find("the difference, +6.7 µs/req, is within the measurement's resolution (11 µs/req)"),
            std::string::npos)
      << c.reason;
  EXPECT_NE(c.verdict, AbVerdict::kBWorse);
}

// The same regression in every pair: edge CPU/req 312.5 -> 624.6 µs/req in
// all 3 pairs (res 2.5 µs/req: one 10 ms tick over 4000 requests). Every
// pair differs by far more than the resolution, one way: the sign is certain
// whatever the rounding, so B is worse, with the pairs' rounding bounds as
// the interval (ab_compare.h "Beyond the resolution"); B better the other
// way round. Within the resolution, or pairs of both signs: not estimable.
TEST(AbCompare, SameRegressionInEveryPairBeyondTheResolutionIsSignificant) {
  AbSide a, b;
  for (int i = 0; i < 3; ++i) {
    LoadResult r;
    r.requests = 4000;
    r.duration_s = 4;
    r.achieved_rps = 1000;
    r.latency_us = {400.0 + i, 500, 600, 700, 800};
    a.runs.push_back(r);
    b.runs.push_back(r);
    a.fv_cpu_cores.push_back(0.3125);
    b.fv_cpu_cores.push_back(0.6246);
  }
  const AbComparison c = CompareAbRuns(a, b)[7];
  ASSERT_EQ(c.metric, "fv_cpu_us_per_request");
  EXPECT_EQ(c.verdict, AbVerdict::kBWorse) << AbVerdictText(c);
  EXPECT_NEAR(*c.delta, 624.6 / 312.5 - 1, 1e-9);
  ASSERT_TRUE(c.ci_low && c.ci_high);
  EXPECT_NEAR(*c.ci_low, (312.1 - 2.5) / (312.5 + 2.5), 1e-9);
  EXPECT_NEAR(*c.ci_high, (312.1 + 2.5) / (312.5 - 2.5), 1e-9);
  EXPECT_EQ(AbVerdictText(c), "B uses more CPU per request by 99.9 % (CI 98.3..101.5 %)");
  EXPECT_EQ(AbCiText(c), "+98.3..+101.5 %");
  ASSERT_TRUE(c.detectable.has_value());
  EXPECT_NEAR(*c.detectable, 2.5 / 312.5, 1e-9);

  const AbMetricSpec p50{"p50_us", AbScale::kRatio, AbBetter::kLower, 1};
  const AbMetricSpec err{"error_rate", AbScale::kAbsolute, AbBetter::kLower, 0.001};
  // B faster by 100 µs in every pair.
  AbComparison f = CompareAb(p50, {500, 500, 500}, {400, 400, 400});
  EXPECT_EQ(f.verdict, AbVerdict::kBBetter) << AbVerdictText(f);
  EXPECT_NEAR(*f.ci_low, -101.0 / 499, 1e-12);
  EXPECT_NEAR(*f.ci_high, -99.0 / 501, 1e-12);
  // Absolute: the smallest and largest difference widened by the resolution.
  AbComparison e = CompareAb(err, {0, 0.001, 0}, {0.010, 0.011, 0.0105});
  EXPECT_EQ(e.verdict, AbVerdict::kBWorse) << AbVerdictText(e);
  EXPECT_NEAR(*e.ci_low, 0.009, 1e-12);
  EXPECT_NEAR(*e.ci_high, 0.0115, 1e-12);
  // 2 µs in one pair, 1 µs (the resolution) in another: not estimable.
  EXPECT_EQ(CompareAb(p50, {500, 500, 500}, {502, 501, 502}).verdict, AbVerdict::kNotEstimable);
  // No resolution known: identical differences stay not estimable.
  EXPECT_EQ(CompareAb(kP99, {100, 200, 300}, {200, 400, 600}).verdict, AbVerdict::kNotEstimable);
}

// Zero variance: CompareAb on p50 A = {129,129,129},
// B = {130,130,130} said "B slower by 0.8 % (CI 0.8..0.8 %)", significant,
// which AB_GATE=1 turns into a failed scenario on a 1 µs rounding step; an
// error rate of 0 vs 1/900 in every pair, the same zero-width interval. Each
// of its inputs: the verdict (by its JSON name), the CI text, never
// significant.
TEST(AbCompare, ZeroVarianceInputsAreNeverSignificant) {
  const AbMetricSpec p50{"p50_us", AbScale::kRatio, AbBetter::kLower};
  const AbMetricSpec err{"error_rate", AbScale::kAbsolute, AbBetter::kLower};
  const AbMetricSpec cpu{"fv_cpu_cores", AbScale::kRatio, AbBetter::kLower};
  struct Case {
    const char* label;
    const AbMetricSpec& spec;
    std::vector<double> a, b;
    const char* verdict;
    const char* ci;
  };
  const Case cases[] = {
      {"p50 constant 129 vs 130 (n=3)", p50, {129, 129, 129}, {130, 130, 130}, "not_estimable", "not estimable"},
      {"p50 constant 129 vs 130 (n=5)", p50, {129, 129, 129, 129, 129}, {130, 130, 130, 130, 130}, "not_estimable",
       "not estimable"},
      {"p50 identical", p50, {129, 129, 129}, {129, 129, 129}, "not_estimable", "not estimable"},
      {"err 0 vs 1 request in 900 each", err, {0, 0, 0}, {1.0 / 900, 1.0 / 900, 1.0 / 900}, "not_estimable",
       "not estimable"},
      {"cpu 0 on A", cpu, {0, 0, 0}, {0.02, 0.02, 0.02}, "n/a", "\u2014"},
      {"p50 outlier in one pair", p50, {100, 100, 100, 100, 100}, {100, 100, 100, 100, 1000}, "no_difference", nullptr},
      {"p50 n=3 paired d constant but sides noisy", p50, {100, 200, 300}, {101, 202, 303}, "not_estimable",
       "not estimable"},
  };
  for (const Case& k : cases) {
    AbComparison c = CompareAb(k.spec, k.a, k.b);
    EXPECT_STREQ(AbVerdictName(c.verdict), k.verdict) << k.label << ": " << AbVerdictText(c);
    EXPECT_NE(c.verdict, AbVerdict::kBWorse) << k.label;
    EXPECT_NE(c.verdict, AbVerdict::kBBetter) << k.label;
    if (k.ci != nullptr) {
      EXPECT_EQ(AbCiText(c), k.ci) << k.label;
    }
    if (std::string(k.verdict) == "not_estimable") {
      EXPECT_EQ(AbVerdictText(c).rfind("not estimable (", 0), 0u) << k.label << ": " << AbVerdictText(c);
    }
  }
}

// The same through CompareAbRuns, which knows each metric's resolution: the
// reasons name it (1 µs; one request in 900 = 0.11 pp).
TEST(AbCompare, ZeroVarianceRunsNameTheResolution) {
  AbSide a, b;
  for (int i = 0; i < 3; ++i) {
    LoadResult r;
    r.requests = 900;
    r.duration_s = 3;
    r.achieved_rps = 300;
    r.latency_us = {129, 200, 300, 400, 500};
    a.runs.push_back(r);
    r.failed = 1;
    r.error_rate = 1.0 / 900;
    r.latency_us = {130, 200, 300, 400, 500};
    b.runs.push_back(r);
  }
  std::vector<AbComparison> cs = CompareAbRuns(a, b);
  ASSERT_EQ(cs[0].metric, "p50_us");
  EXPECT_STREQ(AbVerdictName(cs[0].verdict), "not_estimable") << AbVerdictText(cs[0]);
  EXPECT_NE(cs[0].reason.find("the difference, +1 µs, is within the measurement's resolution (1 µs)"),
            std::string::npos)
      << cs[0].reason;
  ASSERT_EQ(cs[4].metric, "error_rate");
  EXPECT_STREQ(AbVerdictName(cs[4].verdict), "not_estimable") << AbVerdictText(cs[4]);
  EXPECT_NE(cs[4].reason.find("the difference, +0.11 pp, is within the measurement's resolution (0.11 pp)"),
            std::string::npos)
      << cs[4].reason;
  for (const AbComparison& c : cs) {
    EXPECT_NE(c.verdict, AbVerdict::kBWorse) << c.metric << ": " << AbVerdictText(c);
    EXPECT_NE(c.verdict, AbVerdict::kBBetter) << c.metric << ": " << AbVerdictText(c);
  }
}

// Pairs that do vary, but whose mean difference is within the resolution:
// never significant, and the reason says why.
TEST(AbCompare, DifferenceWithinTheResolutionIsNeverSignificant) {
  AbMetricSpec p50{"p50_us", AbScale::kRatio, AbBetter::kLower, 1};
  AbComparison c = CompareAb(p50, {100, 200, 300, 400}, {103, 198, 302, 398});
  EXPECT_EQ(c.verdict, AbVerdict::kNoDifference) << AbVerdictText(c);
  EXPECT_EQ(c.reason, "the difference, +0.25 µs, is within the measurement's resolution (1 µs)");
  ASSERT_TRUE(c.ci_low.has_value());
}

TEST(AbCompare, NamesRoundTrip) {
  for (AbVerdict v : {AbVerdict::kNotApplicable, AbVerdict::kInsufficient, AbVerdict::kNoDifference,
                      AbVerdict::kBWorse, AbVerdict::kBBetter, AbVerdict::kNotEstimable}) {
    EXPECT_EQ(AbVerdictFromName(AbVerdictName(v)), v);
  }
  EXPECT_EQ(AbScaleFromName("absolute"), AbScale::kAbsolute);
  EXPECT_EQ(AbBetterFromName("higher"), AbBetter::kHigher);
  EXPECT_FALSE(AbVerdictFromName("maybe").has_value());
}

}  // namespace
}  // namespace fvbench::ab_compare_test
