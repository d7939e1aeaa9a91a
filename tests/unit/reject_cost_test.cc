// limits.reject_cost's arithmetic (judge/reject_cost.h): the keys of each
// phase from the rate and the bucket, the status split, CPU per request, the
// ratios, and the phases' validity by their 429 share, including phases that
// must be refused.
#include "support/judge/reject_cost.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace fvbench::reject_cost_test {
namespace {

using ::testing::HasSubstr;

LoadResult Load(double rate, std::map<int, uint64_t> statuses, double p50, double p99) {
  LoadResult l;
  l.target_rps = rate;
  l.achieved_rps = rate;
  l.status_counts = std::move(statuses);
  for (const auto& [s, n] : l.status_counts) {
    l.requests += n;
    if (s < 200 || s > 299) l.non_2xx += n;
  }
  l.latency_us.p50 = p50;
  l.latency_us.p99 = p99;
  return l;
}

TEST(RejectCost, KeysFollowTheRateAndTheBucket) {
  // 10 tokens/s: the admitted phase offers each key at most 5/s, the rejected one at least 200/s.
  EXPECT_EQ(AdmittedPhaseKeys(10000, 10), 2000);
  EXPECT_EQ(AdmittedPhaseKeys(501, 10), 101);  // rounds up: 501 / 101 < 5 per key
  EXPECT_EQ(RejectedPhaseKeys(10000, 10), 50);
  EXPECT_EQ(RejectedPhaseKeys(500, 10), 2);    // rounds down: 250 per key >= 200
  EXPECT_EQ(RejectedPhaseKeys(100, 10), 1);    // never under one key
  EXPECT_EQ(AdmittedPhaseKeys(1, 10), 1);
  EXPECT_EQ(AdmittedPhaseKeys(1e9, 10), kMaxRejectCostKeys);
  for (double rate : {1.0, 199.0, 200.0, 777.0, 10000.0, 123456.0}) {
    const int a = AdmittedPhaseKeys(rate, 10);
    const int r = RejectedPhaseKeys(rate, 10);
    EXPECT_LE(rate / a, kAdmittedKeyLoad * 10) << rate;
    if (rate >= kRejectedKeyLoad * 10) {
      EXPECT_GE(rate / r, kRejectedKeyLoad * 10) << rate;
    }
  }
}

TEST(RejectCost, KeysOfNoRateAreZero) {
  EXPECT_EQ(AdmittedPhaseKeys(0, 10), 0);
  EXPECT_EQ(AdmittedPhaseKeys(1000, 0), 0);
  EXPECT_EQ(RejectedPhaseKeys(1000, -1), 0);
  EXPECT_EQ(RejectedPhaseKeys(std::nan(""), 10), 0);
}

TEST(RejectCost, PhaseSplitsStatusesAndCpuPerRequest) {
  RejectCostPhase p = MakeRejectCostPhase("rejected", "limits_reject_cost_rejected", 2,
                                          Load(500, {{200, 40}, {429, 950}, {502, 10}}, 300, 900), 0.25);
  EXPECT_TRUE(p.by_status);
  EXPECT_EQ(p.ok, 40u);
  EXPECT_EQ(p.rejected, 950u);
  EXPECT_EQ(p.other, 10u);
  EXPECT_DOUBLE_EQ(p.reject_share, 0.95);
  EXPECT_DOUBLE_EQ(p.offered_per_key_rps, 250);
  EXPECT_DOUBLE_EQ(p.cpu_us_per_request, 0.25 * 1e6 / 500);  // 500 µs of CPU per request
}

TEST(RejectCost, PhaseWithoutStatusCountsTakesNon2xxAsRejected) {
  LoadResult l;
  l.target_rps = l.achieved_rps = 100;
  l.requests = 100;
  l.non_2xx = 97;
  RejectCostPhase p = MakeRejectCostPhase("rejected", "x", 1, l, std::nan(""));
  EXPECT_FALSE(p.by_status);
  EXPECT_EQ(p.ok, 3u);
  EXPECT_EQ(p.rejected, 97u);
  EXPECT_TRUE(std::isnan(p.cpu_us_per_request));
  EXPECT_THAT(RejectedPhaseCheck(p).detail, HasSubstr("non-2xx"));
}

TEST(RejectCost, RatiosAreRejectedOverAdmitted) {
  RejectCostRun run;
  run.admitted = MakeRejectCostPhase("admitted", "a", 100, Load(500, {{200, 1000}}, 400, 1000), 0.5);
  run.rejected = MakeRejectCostPhase("rejected", "r", 2, Load(500, {{200, 50}, {429, 950}}, 200, 1500), 0.25);
  SetRejectCostRatios(run);
  EXPECT_DOUBLE_EQ(run.p50_ratio, 0.5);
  EXPECT_DOUBLE_EQ(run.p99_ratio, 1.5);
  EXPECT_DOUBLE_EQ(run.cpu_ratio, 0.5);
}

TEST(RejectCost, RatiosOfWhatWasNotMeasuredAreNaN) {
  RejectCostRun run;
  run.admitted = MakeRejectCostPhase("admitted", "a", 100, Load(500, {{200, 1000}}, 0, 0), std::nan(""));
  run.rejected = MakeRejectCostPhase("rejected", "r", 2, Load(500, {{429, 1000}}, 200, 1500), 0.25);
  SetRejectCostRatios(run);
  EXPECT_TRUE(std::isnan(run.p50_ratio));
  EXPECT_TRUE(std::isnan(run.p99_ratio));
  EXPECT_TRUE(std::isnan(run.cpu_ratio));
}

TEST(RejectCost, AdmittedPhaseMustBeAllAdmitted) {
  const auto ok = AdmittedPhaseCheck(MakeRejectCostPhase("admitted", "a", 100, Load(500, {{200, 995}, {429, 5}}, 1, 1), 1));
  EXPECT_TRUE(ok.passed) << ok.detail;
  EXPECT_EQ(ok.name, "reject_cost_admitted");
  const auto bad = AdmittedPhaseCheck(MakeRejectCostPhase("admitted", "a", 100, Load(500, {{200, 980}, {429, 20}}, 1, 1), 1));
  EXPECT_FALSE(bad.passed);
  EXPECT_DOUBLE_EQ(bad.measured, 0.02);
  EXPECT_THAT(bad.detail, HasSubstr("429 share 2.00%"));
  EXPECT_THAT(bad.detail, HasSubstr("INVALID"));
}

TEST(RejectCost, RejectedPhaseMustBeMostlyRejected) {
  const auto ok = RejectedPhaseCheck(MakeRejectCostPhase("rejected", "r", 2, Load(500, {{200, 50}, {429, 950}}, 1, 1), 1));
  EXPECT_TRUE(ok.passed) << ok.detail;
  const auto bad = RejectedPhaseCheck(MakeRejectCostPhase("rejected", "r", 2, Load(500, {{200, 200}, {429, 800}}, 1, 1), 1));
  EXPECT_FALSE(bad.passed);
  EXPECT_THAT(bad.detail, HasSubstr("429 share 80.00%"));
  EXPECT_THAT(bad.detail, HasSubstr("INVALID"));
}

TEST(RejectCost, PhaseWithoutResponsesFails) {
  const RejectCostPhase empty = MakeRejectCostPhase("rejected", "r", 2, LoadResult{}, 1);
  EXPECT_FALSE(RejectedPhaseCheck(empty).passed);
  EXPECT_FALSE(AdmittedPhaseCheck(empty).passed);
  EXPECT_TRUE(std::isnan(RejectedPhaseCheck(empty).measured));
  EXPECT_THAT(RejectedPhaseCheck(empty).detail, HasSubstr("not known"));
}

}  // namespace
}  // namespace fvbench::reject_cost_test
