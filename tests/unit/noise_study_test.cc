// A/A noise study (support/judge/noise_study.h) on hand-computed values.
#include "support/judge/noise_study.h"

#include <gtest/gtest.h>

#include <cmath>

#include "support/judge/ab_compare.h"

namespace fvbench::noise_study_test {
namespace {

TEST(NoiseStudy, CvSpreadAndDriftByHand) {
  // Mean 11.5, SD sqrt(5/3), median 11.5; halves {10, 12} and {11, 13}.
  AaMetricNoise n = NoiseOf("p99_us", {10, 12, 11, 13});
  EXPECT_EQ(n.metric, "p99_us");
  EXPECT_EQ(n.runs, 4);
  EXPECT_NEAR(*n.cv, std::sqrt(5.0 / 3) / 11.5, 1e-12);
  EXPECT_NEAR(*n.spread, 3 / 11.5, 1e-12);
  EXPECT_NEAR(*n.drift, (12.0 - 11) / 11, 1e-12);
  // An odd count: the middle run is in neither half; NaN runs are skipped.
  AaMetricNoise odd = NoiseOf("p99_us", {10, 20, std::nan(""), 11, 13, 30});
  EXPECT_EQ(odd.runs, 5);
  EXPECT_NEAR(*odd.drift, (21.5 - 15) / 15, 1e-12);
  EXPECT_NEAR(*odd.spread, 20.0 / 13, 1e-12);
  // A falling series drifts negative.
  EXPECT_LT(*NoiseOf("p50_us", {12, 11, 10, 9}).drift, 0);
}

TEST(NoiseStudy, EmptyWhereNotComputable) {
  AaMetricNoise zeros = NoiseOf("error_rate", {0, 0, 0, 0});
  EXPECT_EQ(zeros.runs, 4);
  EXPECT_FALSE(zeros.cv.has_value());
  EXPECT_FALSE(zeros.spread.has_value());
  EXPECT_FALSE(zeros.drift.has_value());
  AaMetricNoise one = NoiseOf("p99_us", {100, std::nan("")});
  EXPECT_EQ(one.runs, 1);
  EXPECT_FALSE(one.cv.has_value());
}

AbSide Side(const char* policy, std::vector<double> p50) {
  AbSide s{"/edge", "", "abc123", policy, "/src/policies/simple.json", {}, {}, {}};
  for (double v : p50) {
    LoadResult r;
    r.latency_us = {v, v, v, v, v};
    r.achieved_rps = 500;
    s.runs.push_back(r);
    s.fv_cpu_cores.push_back(0.1);
  }
  return s;
}

TEST(NoiseStudy, RunsInTheOrderTheyRan) {
  // A1 B1 A2 B2 = 100 101 102 103: drift (102.5 - 100.5) / 100.5; side by
  // side (100 102 101 103) it would be (102 - 101) / 101.
  std::vector<AaMetricNoise> aa = NoiseStudy(Side("/b/policies/simple.json", {100, 102}),
                                             Side("/b/policies-b/simple.json", {101, 103}));
  ASSERT_EQ(aa.size(), AbMetrics().size());
  EXPECT_EQ(aa[0].metric, "p50_us");
  EXPECT_EQ(aa[0].runs, 4);
  EXPECT_NEAR(*aa[0].drift, 2.0 / 100.5, 1e-12);
  EXPECT_EQ(aa.back().metric, "fv_cpu_us_per_request");
  EXPECT_NEAR(*aa.back().cv, 0, 1e-12);  // 200 µs per request in every run
}

TEST(NoiseStudy, AaOnlyWhenBothSidesAreTheSame) {
  const AbSide a = Side("/b/policies/simple.json", {100});
  AbSide b = Side("/b/policies-b/simple.json", {100});
  EXPECT_TRUE(IsAaStudy(a, b));  // the copies on the SUT host differ by design
  AbSide other = b;
  other.edge_commit = "def456";
  EXPECT_FALSE(IsAaStudy(a, other));
  other = b;
  other.edge_ref = "main";
  EXPECT_FALSE(IsAaStudy(a, other));
  other = b;
  other.edge_source = "/edge2";
  EXPECT_FALSE(IsAaStudy(a, other));
  other = b;
  other.policy_source = "/src/policies-b/simple.json";
  EXPECT_FALSE(IsAaStudy(a, other));
  // Not recorded is not the same.
  AbSide unknown_a = a, unknown_b = b;
  unknown_a.policy_source = unknown_b.policy_source = "";
  EXPECT_FALSE(IsAaStudy(unknown_a, unknown_b));
  unknown_a = a, unknown_b = b;
  unknown_a.edge_commit = unknown_b.edge_commit = "";
  EXPECT_FALSE(IsAaStudy(unknown_a, unknown_b));
}

}  // namespace
}  // namespace fvbench::noise_study_test
