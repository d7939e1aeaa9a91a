#include "support/judge/repeats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fvbench::repeats_test {
namespace {

LoadResult Phase(double p99, double achieved, double err, bool kept_up = true, uint64_t dropped = 0) {
  LoadResult l;
  l.engine = "wrk";
  l.target_rps = 1000;
  l.duration_s = 10;
  l.requests = static_cast<uint64_t>(achieved * 10);
  l.achieved_rps = achieved;
  l.error_rate = err;
  l.latency_us = {p99 / 3, p99 / 2, p99, p99 * 2, p99 * 4};
  l.kept_up = kept_up;
  l.dropped_iterations = dropped;
  l.ratelimit_evidence = l.requests;
  l.raw_path = "/x/" + std::to_string(p99);
  return l;
}

TEST(Repeats, MedianIsPerMetricAndSpreadIsMinMax) {
  RepeatSummary s = SummarizeRepeats({Phase(964, 990, 0.002), Phase(1100, 1000, 0), Phase(812, 995, 0.001)});
  EXPECT_EQ(s.median.latency_us.p99, 964);
  EXPECT_EQ(s.median.achieved_rps, 995);
  EXPECT_EQ(s.median.error_rate, 0.001);
  EXPECT_EQ(s.spread.at("p99_us").min, 812);
  EXPECT_EQ(s.spread.at("p99_us").median, 964);
  EXPECT_EQ(s.spread.at("p99_us").max, 1100);
  EXPECT_EQ(s.spread.at("achieved_rps").min, 990);
  EXPECT_EQ(s.spread.count("error_rate"), 1u);
  EXPECT_EQ(s.median.requests, 9950u);
  ASSERT_TRUE(s.median.ratelimit_evidence.has_value());
  EXPECT_EQ(*s.median.ratelimit_evidence, 9950u);
  EXPECT_TRUE(s.median.raw_path.empty());
  EXPECT_EQ(s.median.engine, "wrk");
  EXPECT_EQ(s.median.target_rps, 1000);
}

TEST(Repeats, WorstRunDecidesKeptUpAndEvenCountsAverageTheMiddle) {
  auto b = Phase(1000, 1000, 0, false, 7);
  b.ratelimit_evidence.reset();
  RepeatSummary s = SummarizeRepeats({Phase(900, 1000, 0), b});
  EXPECT_FALSE(s.median.kept_up);
  EXPECT_EQ(s.median.dropped_iterations, 7u);
  EXPECT_EQ(s.median.latency_us.p99, 950);
  EXPECT_FALSE(s.median.ratelimit_evidence.has_value());  // not every run counted it
  EXPECT_TRUE(std::isnan(Median({})));
  EXPECT_EQ(Median({3, 1, 2}), 2);
}

}  // namespace
}  // namespace fvbench::repeats_test
