#include "support/judge/threshold_headroom.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "support/judge/thresholds.h"
#include "tests/unit/report_samples.h"

namespace fvbench::threshold_headroom_test {
namespace {

using testing_samples::SampleLatency;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ThresholdHeadroom, UpperLimitIsARiseRelativeToTheMeasuredValue) {
  Headroom h = ComputeHeadroom("p99_us", "<=", 512, 100000, true);
  EXPECT_EQ(h.kind, HeadroomKind::kRise);
  EXPECT_FALSE(h.points);
  EXPECT_DOUBLE_EQ(h.size, 100000.0 / 512 - 1);
  EXPECT_EQ(DescribeHeadroom(h), "catches a rise of +19431.2 % or more");
  EXPECT_EQ(HeadroomCell(h), "rise of +19431.2 %");
  EXPECT_EQ(ComputeHeadroom("p50_us", "<", 200, 250, true).size, 0.25);
}

TEST(ThresholdHeadroom, LowerLimitIsAFallRelativeToTheMeasuredValue) {
  Headroom h = ComputeHeadroom("rps", ">=", 1000, 850, true);
  EXPECT_EQ(h.kind, HeadroomKind::kFall);
  EXPECT_DOUBLE_EQ(h.size, 0.15);
  EXPECT_EQ(DescribeHeadroom(h), "catches a fall of \u221215.0 % or more");
  EXPECT_EQ(HeadroomCell(h), "fall of \u221215.0 %");
  EXPECT_DOUBLE_EQ(ComputeHeadroom("rps", ">", 1000, 500, true).size, 0.5);
}

TEST(ThresholdHeadroom, AtTheLimitAnyChangeTowardsItFails) {
  Headroom h = ComputeHeadroom("p99_us", "<=", 640, 640, true);
  EXPECT_EQ(h.kind, HeadroomKind::kRise);
  EXPECT_EQ(h.size, 0);
  EXPECT_EQ(DescribeHeadroom(h), "catches any rise");
  EXPECT_EQ(HeadroomCell(h), "any rise");
  Headroom zero_errors = ComputeHeadroom("error_rate", "<=", 0, 0, true);
  EXPECT_EQ(zero_errors.kind, HeadroomKind::kRise);
  EXPECT_EQ(DescribeHeadroom(zero_errors), "catches any rise");
}

TEST(ThresholdHeadroom, GreaterThanZeroOnARateCatchesOnlyATotalLoss) {
  for (const char* metric : {"achieved_rps", "rps"}) {
    Headroom h = ComputeHeadroom(metric, ">", 1979.2, 0, true);
    EXPECT_EQ(h.kind, HeadroomKind::kFall) << metric;
    EXPECT_EQ(h.size, 1) << metric;
    EXPECT_TRUE(h.total_loss_only()) << metric;
    EXPECT_EQ(DescribeHeadroom(h), "catches only a total loss (a fall of \u2212100 %)");
    EXPECT_EQ(HeadroomCell(h), "total loss only");
  }
  EXPECT_FALSE(ComputeHeadroom("rps", ">=", 1000, 1, true).total_loss_only());
}

TEST(ThresholdHeadroom, ALowerLimitNoRateCanBreakCatchesNothing) {
  for (Headroom h : {ComputeHeadroom("rps", ">=", 500, 0, true), ComputeHeadroom("rps", ">", 500, -1, true),
                     ComputeHeadroom("achieved_rps", ">=", 0, 0, true),
                     ComputeHeadroom("error_rate", ">=", 0, 0, true), ComputeHeadroom("error_rate", ">=", 0.2, 0, true),
                     ComputeHeadroom("over_admission", ">", 0.1, -0.5, true)}) {
    EXPECT_EQ(h.kind, HeadroomKind::kNever);
    EXPECT_TRUE(std::isnan(h.size));
    EXPECT_EQ(DescribeHeadroom(h), "catches no change");
    EXPECT_EQ(HeadroomCell(h), "no change");
  }
}

TEST(ThresholdHeadroom, AFailingCheckFailsNowWhateverItsNumbers) {
  for (Headroom h : {ComputeHeadroom("p99_us", "<=", 2000, 639, false), ComputeHeadroom("rps", ">", 0, 0, false),
                     ComputeHeadroom("p99_us", "<=", kNaN, 100000, false),
                     ComputeHeadroom("p99_us", "<=", 500, kNaN, false),
                     ComputeHeadroom("error_rate", "<", 0.02, 0.01, false)}) {
    EXPECT_EQ(h.kind, HeadroomKind::kFailsNow);
    EXPECT_EQ(h.size, 0);
    EXPECT_EQ(DescribeHeadroom(h), "fails now");
    EXPECT_EQ(HeadroomCell(h), "fails now");
  }
}

TEST(ThresholdHeadroom, ARelativeMetricMeasuredAsZeroHasNoRelativeHeadroom) {
  Headroom h = ComputeHeadroom("p99_us", "<=", 0, 100000, true);
  EXPECT_EQ(h.kind, HeadroomKind::kUndefined);
  EXPECT_TRUE(std::isnan(h.size));
  EXPECT_EQ(DescribeHeadroom(h), "headroom not defined");
  EXPECT_EQ(HeadroomCell(h), "\u2014");
  EXPECT_EQ(ComputeHeadroom("reject_p99_ratio", "<=", 0, 2, true).kind, HeadroomKind::kUndefined);
}

TEST(ThresholdHeadroom, OddInputsOnAPassingCheckAreUndefined) {
  EXPECT_EQ(ComputeHeadroom("p99_us", "<=", kNaN, 100, true).kind, HeadroomKind::kUndefined);
  EXPECT_EQ(ComputeHeadroom("p99_us", "<=", 50, kInf, true).kind, HeadroomKind::kUndefined);
  EXPECT_EQ(ComputeHeadroom("p99_us", "==", 50, 100, true).kind, HeadroomKind::kUndefined);
  EXPECT_EQ(ComputeHeadroom("p99_us", "<=", -5, 100, true).kind, HeadroomKind::kUndefined);
  // Flagged passed, yet over the limit: no negative headroom is shown.
  EXPECT_EQ(ComputeHeadroom("rps", ">=", 1296, 24815, true).kind, HeadroomKind::kUndefined);
  EXPECT_EQ(ComputeHeadroom("p99_us", "<=", 2000, 639, true).kind, HeadroomKind::kUndefined);
  EXPECT_EQ(ComputeHeadroom("error_rate", "<", 0.02, 0.01, true).kind, HeadroomKind::kUndefined);
}

TEST(ThresholdHeadroom, FractionMetricsAreInPointsEvenAtZero) {
  for (const char* metric : {"error_rate", "over_admission", "under_admission", "window_excess"}) {
    EXPECT_TRUE(HeadroomInPoints(metric)) << metric;
  }
  EXPECT_FALSE(HeadroomInPoints("p99_us"));
  EXPECT_FALSE(HeadroomInPoints("reject_p99_ratio"));

  Headroom zero = ComputeHeadroom("error_rate", "<", 0, 0.01, true);
  EXPECT_EQ(zero.kind, HeadroomKind::kRise);
  EXPECT_TRUE(zero.points);
  EXPECT_DOUBLE_EQ(zero.size, 0.01);
  EXPECT_EQ(DescribeHeadroom(zero), "catches a rise of +1 percentage point or more");
  EXPECT_EQ(HeadroomCell(zero), "rise of +1 point");

  Headroom some = ComputeHeadroom("error_rate", "<=", 0.0004, 0.05, true);
  EXPECT_DOUBLE_EQ(some.size, 0.0496);
  EXPECT_EQ(DescribeHeadroom(some), "catches a rise of +4.96 percentage points or more");

  Headroom over = ComputeHeadroom("over_admission", "<=", -0.01, 0.02, true);  // every key under its bucket
  EXPECT_EQ(over.kind, HeadroomKind::kRise);
  EXPECT_DOUBLE_EQ(over.size, 0.03);

  Headroom fall = ComputeHeadroom("window_excess", ">=", 0.1, 0.05, true);
  EXPECT_EQ(fall.kind, HeadroomKind::kFall);
  EXPECT_DOUBLE_EQ(fall.size, 0.05);
  EXPECT_EQ(HeadroomCell(fall), "fall of \u22125 points");
}

TEST(ThresholdHeadroom, AnErrorRateCannotExceedOne) {
  EXPECT_EQ(ComputeHeadroom("error_rate", "<=", 0.2, 1, true).kind, HeadroomKind::kNever);
  EXPECT_EQ(ComputeHeadroom("error_rate", "<", 0.2, 1.5, true).kind, HeadroomKind::kNever);
  Headroom all = ComputeHeadroom("error_rate", "<", 0.2, 1, true);  // fails only when every request fails
  EXPECT_EQ(all.kind, HeadroomKind::kRise);
  EXPECT_DOUBLE_EQ(all.size, 0.8);
  // over_admission has no such cap: a key may be admitted twice its bucket.
  EXPECT_EQ(ComputeHeadroom("over_admission", "<=", 0.2, 1, true).kind, HeadroomKind::kRise);
}

TEST(ThresholdHeadroom, KindNamesForResultsJson) {
  EXPECT_STREQ(HeadroomKindName(HeadroomKind::kRise), "rise");
  EXPECT_STREQ(HeadroomKindName(HeadroomKind::kFall), "fall");
  EXPECT_STREQ(HeadroomKindName(HeadroomKind::kFailsNow), "fails_now");
  EXPECT_STREQ(HeadroomKindName(HeadroomKind::kNever), "never");
  EXPECT_STREQ(HeadroomKindName(HeadroomKind::kUndefined), "undefined");
}

TEST(ThresholdHeadroom, RatioCheckUsesItsLimitWithTheYardstickHeld) {
  RatioCheck c;
  c.metric = "p99_us";
  c.op = "<=";
  c.measured = 600;
  c.ratio_to = "latency.raw_nginx";
  c.factor = 10;
  c.base = 150;
  c.limit = 1500;
  c.passed = true;
  Headroom h = RatioCheckHeadroom(c);
  EXPECT_EQ(h.kind, HeadroomKind::kRise);
  EXPECT_DOUBLE_EQ(h.size, 1.5);
  c.passed = false;
  EXPECT_EQ(RatioCheckHeadroom(c).kind, HeadroomKind::kFailsNow);
}

// The headroom is the boundary Evaluate itself draws: the measured value moved
// by just under it passes, by just over it fails.
void ExpectBoundary(const std::string& profile_text, const std::string& metric, double measured) {
  auto p = ParseThresholdProfile(profile_text, "t.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto at = [&](double v) {
    ScenarioResult r = SampleLatency("latency.decision_service", 100, 500);
    if (metric == "p99_us") r.load.latency_us.p99 = v;
    if (metric == "achieved_rps") r.load.achieved_rps = v;
    if (metric == "error_rate") r.load.error_rate = v;
    auto checks = Evaluate(*p, r, nullptr);
    EXPECT_EQ(checks.size(), 1u);
    return checks.at(0);
  };
  const ThresholdCheck now = at(measured);
  ASSERT_TRUE(now.passed) << DescribeCheck(now);
  const Headroom h = CheckHeadroom(now);
  ASSERT_TRUE(h.kind == HeadroomKind::kRise || h.kind == HeadroomKind::kFall) << DescribeHeadroom(h);
  const double sign = h.kind == HeadroomKind::kRise ? 1 : -1;
  auto moved = [&](double change) { return h.points ? measured + sign * change : measured * (1 + sign * change); };
  EXPECT_TRUE(at(moved(h.size * 0.999)).passed) << metric << " " << DescribeHeadroom(h);
  EXPECT_FALSE(at(moved(h.size * 1.001 + 1e-12)).passed) << metric << " " << DescribeHeadroom(h);
}

TEST(ThresholdHeadroom, IsTheSmallestChangeEvaluateFails) {
  const std::string head = R"({"schema_version": 1, "scenarios": {"latency.decision_service": )";
  ExpectBoundary(head + R"({"p99_us": {"<=": 100000}}}})", "p99_us", 538);
  ExpectBoundary(head + R"({"p99_us": {"<": 639}}}})", "p99_us", 538);
  ExpectBoundary(head + R"({"achieved_rps": {">=": 1800}}}})", "achieved_rps", 1979);
  ExpectBoundary(head + R"({"achieved_rps": {">": 0}}}})", "achieved_rps", 1979);
  ExpectBoundary(head + R"({"error_rate": {"<": 0.01}}}})", "error_rate", 0);
  ExpectBoundary(head + R"({"error_rate": {"<=": 0.05}}}})", "error_rate", 0.001);
}

}  // namespace
}  // namespace fvbench::threshold_headroom_test
