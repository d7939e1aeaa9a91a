// IntervalChecks (judge/interval_checks.h): a stall, a drift, the p99
// drift, and the phases they do not judge; wrk's and k6's series; and that
// CheckPhase carries them.
#include "support/judge/interval_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "support/judge/p99_drift.h"
#include "support/judge/validity.h"
#include "tests/unit/k6_series.h"

namespace fvbench::interval_checks_test {
namespace {

using ::testing::HasSubstr;
using testing_samples::K6Phase;
using testing_samples::SetTails;

// A 200 RPS phase of `n` 1 s intervals, every slot answered in its interval.
LoadResult Steady(size_t n, double rate = 200) {
  LoadResult r;
  r.engine = "wrk";
  r.target_rps = rate;
  r.intervals.start_epoch_us = 1.7e15;
  r.intervals.width_us = 1e6;
  for (size_t i = 0; i < n; ++i) {
    const auto k = static_cast<uint64_t>(rate);
    r.intervals.scheduled.push_back(k);
    r.intervals.sent.push_back(k);
    r.intervals.completed.push_back(k);
    r.intervals.late_10ms.push_back(0);
  }
  return r;
}

const ValidityCheck* Find(const std::vector<ValidityCheck>& checks, const std::string& name) {
  for (const ValidityCheck& c : checks) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// A pointer into a temporary vector would dangle at the end of the statement.
const ValidityCheck* Find(std::vector<ValidityCheck>&& checks, const std::string& name) = delete;

TEST(IntervalChecks, SteadyPhasePasses) {
  const auto checks = IntervalChecks(Steady(10));
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].name, "interval_stalls");
  EXPECT_TRUE(checks[0].passed);
  EXPECT_EQ(checks[1].name, "rate_drift");
  EXPECT_TRUE(checks[1].passed);
  EXPECT_DOUBLE_EQ(checks[1].measured, 0);
}

// Slots due and nothing completed in interval 5: a stall, named by its
// seconds; the backlog answered in interval 6 keeps the halves level.
TEST(IntervalChecks, AnIntervalWithoutCompletionsIsAStall) {
  LoadResult r = Steady(10);
  r.intervals.completed[5] = 0;
  r.intervals.completed[6] = 400;
  const auto checks = IntervalChecks(r);
  const ValidityCheck* stall = Find(checks, "interval_stalls");
  ASSERT_NE(stall, nullptr);
  EXPECT_FALSE(stall->passed);
  EXPECT_FALSE(stall->informational);
  EXPECT_EQ(stall->measured, 1);
  EXPECT_THAT(stall->detail, HasSubstr("5-6 s: 0 of 200 scheduled completed"));
  EXPECT_TRUE(Find(checks, "rate_drift")->passed);
}

// The partial intervals at the window's ends (fewer than half a full
// interval's slots) are not judged, even without completions.
TEST(IntervalChecks, PartialEndsAreNotJudged) {
  LoadResult r = Steady(10);
  r.intervals.scheduled.insert(r.intervals.scheduled.begin(), 3);
  r.intervals.sent.insert(r.intervals.sent.begin(), 0);
  r.intervals.completed.insert(r.intervals.completed.begin(), 0);
  r.intervals.late_10ms.insert(r.intervals.late_10ms.begin(), 0);
  r.intervals.scheduled.push_back(99);
  r.intervals.sent.push_back(99);
  r.intervals.completed.push_back(0);
  r.intervals.late_10ms.push_back(0);
  const auto checks = IntervalChecks(r);
  EXPECT_TRUE(Find(checks, "interval_stalls")->passed) << Find(checks, "interval_stalls")->detail;
  EXPECT_THAT(Find(checks, "interval_stalls")->detail, HasSubstr("of 10 judged (>= 100 slots due)"));
}

// The second half completing 20 % less of its schedule than the first.
TEST(IntervalChecks, SecondHalfBelowTheFirstIsADrift) {
  LoadResult r = Steady(8);
  for (size_t i = 4; i < 8; ++i) r.intervals.completed[i] = 160;
  const std::vector<ValidityCheck> checks = IntervalChecks(r);
  const ValidityCheck* drift = Find(checks, "rate_drift");
  ASSERT_NE(drift, nullptr);
  EXPECT_FALSE(drift->passed);
  EXPECT_NEAR(drift->measured, 0.2, 1e-12);
  EXPECT_DOUBLE_EQ(drift->limit, kMaxRateDrift);
  // within the bound: 5 % less
  for (size_t i = 4; i < 8; ++i) r.intervals.completed[i] = 190;
  const std::vector<ValidityCheck> within = IntervalChecks(r);
  ASSERT_NE(Find(within, "rate_drift"), nullptr);
  EXPECT_TRUE(Find(within, "rate_drift")->passed);
}

TEST(IntervalChecks, NoSeriesNoCheckFewIntervalsNoDriftLowRateInformational) {
  LoadResult none = Steady(0);
  none.intervals = IntervalSeries{};
  EXPECT_TRUE(IntervalChecks(none).empty());
  const auto three = IntervalChecks(Steady(3));
  ASSERT_EQ(three.size(), 1u);
  EXPECT_EQ(three[0].name, "interval_stalls");
  const auto slow = IntervalChecks(Steady(10, 1));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].name, "intervals");
  EXPECT_TRUE(slow[0].informational);
  // k6's series: completions per interval but no slots counted: not judged, said so
  LoadResult k6 = Steady(10);
  k6.intervals.sends_counted = false;
  k6.intervals.scheduled = k6.intervals.sent = k6.intervals.late_10ms = std::vector<uint64_t>(10, 0);
  const auto unjudged = IntervalChecks(k6);
  ASSERT_EQ(unjudged.size(), 1u);
  EXPECT_EQ(unjudged[0].name, "intervals");
  EXPECT_TRUE(unjudged[0].informational);
  EXPECT_NE(unjudged[0].detail.find("no slot or send times"), std::string::npos) << unjudged[0].detail;
}

// k6: no slots counted, but target_rps x width due in each interval inside
// the phase. Interval 5 completed nothing: a stall, there only; the 11th
// interval (10-11 s) lies past the phase's 10.5 s and is not judged.
TEST(IntervalChecks, K6StallInTheIntervalInsideThePhase) {
  LoadResult r = K6Phase(11, 10.5);
  r.intervals.completed[5] = 0;
  r.intervals.completed[6] = 400;
  r.intervals.completed[10] = 0;
  const std::vector<ValidityCheck> checks = IntervalChecks(r);
  const ValidityCheck* stall = Find(checks, "interval_stalls");
  ASSERT_NE(stall, nullptr);
  EXPECT_FALSE(stall->passed);
  EXPECT_FALSE(stall->informational);
  EXPECT_EQ(stall->measured, 1);
  EXPECT_THAT(stall->detail, HasSubstr("of 10 judged (inside the phase's 10.5 s, 200 slots due each): 5-6 s: 0 of "
                                       "200 due completed"));
  EXPECT_EQ(StalledIntervals(r), std::vector<size_t>{5});
  EXPECT_EQ(Find(checks, "intervals"), nullptr);
  ASSERT_NE(Find(checks, "rate_drift"), nullptr);
  EXPECT_TRUE(Find(checks, "rate_drift")->passed);
  // no phase duration: where the phase ends is not known, nothing judged
  r.duration_s = 0;
  EXPECT_TRUE(StalledIntervals(r).empty());
  const std::vector<ValidityCheck> unknown = IntervalChecks(r);
  ASSERT_NE(Find(unknown, "intervals"), nullptr);
  EXPECT_THAT(Find(unknown, "intervals")->detail, HasSubstr("duration is not known"));
}

// k6: completed per interval against the known schedule, 20 % fewer in the
// second half; under 2 slots per interval nothing is judged.
TEST(IntervalChecks, K6RateDriftAgainstTheSchedule) {
  LoadResult r = K6Phase(8, 8);
  for (size_t i = 4; i < 8; ++i) r.intervals.completed[i] = 160;
  const std::vector<ValidityCheck> checks = IntervalChecks(r);
  const ValidityCheck* drift = Find(checks, "rate_drift");
  ASSERT_NE(drift, nullptr);
  EXPECT_FALSE(drift->passed);
  EXPECT_NEAR(drift->measured, 0.2, 1e-12);
  EXPECT_THAT(drift->detail, HasSubstr("per due slot, second half 0.8 vs first half 1"));
  const std::vector<ValidityCheck> slow = IntervalChecks(K6Phase(10, 10, 1.5));
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].name, "intervals");
  EXPECT_THAT(slow[0].detail, HasSubstr("fewer than 2 slots per interval"));
}

// p99 of the second half vs the first, from the merged histograms: 20 %
// within kMaxP99Drift, 100 % beyond it; reported either way, never failing
// the phase.
TEST(IntervalChecks, P99DriftWithinAndBeyondItsBound) {
  LoadResult r = K6Phase(10, 10);
  SetTails(r, 1000, 2000, 2400);
  std::vector<ValidityCheck> checks = IntervalChecks(r);
  const ValidityCheck* d = Find(checks, "p99_drift");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->informational);
  EXPECT_TRUE(d->passed);
  EXPECT_NEAR(d->measured, 0.2, 0.002);
  EXPECT_DOUBLE_EQ(d->limit, kMaxP99Drift);
  EXPECT_THAT(d->detail, HasSubstr(", within the informational bound <= 50%: p99 of the second half"));
  EXPECT_THAT(d->detail, HasSubstr("over 5 intervals of 1 s each (5000 and 5000 recorded samples)"));
  SetTails(r, 1000, 2000, 4000);
  checks = IntervalChecks(r);
  d = Find(checks, "p99_drift");
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(d->passed);
  EXPECT_NEAR(d->measured, 1.0, 0.002);
  EXPECT_THAT(d->detail, HasSubstr("BEYOND"));
  EXPECT_TRUE(ValidityPassed(checks));
  // a p99 that fell: the same size of drift
  SetTails(r, 1000, 2400, 2000);
  checks = IntervalChecks(r);
  EXPECT_NEAR(Find(checks, "p99_drift")->measured, 1 - 2000.0 / 2400, 0.002);
}

// Fewer than kMinP99DriftSamples per half (5 x 100): informational, not
// judged, saying why; the threshold metric is not measured.
TEST(IntervalChecks, P99DriftTooFewSamplesIsNotJudged) {
  LoadResult r = K6Phase(10, 10);
  SetTails(r, 100, 2000, 4000);
  const std::vector<ValidityCheck> checks = IntervalChecks(r);
  const ValidityCheck* d = Find(checks, "p99_drift");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->informational);
  EXPECT_TRUE(d->passed);
  EXPECT_TRUE(std::isnan(d->limit));
  EXPECT_THAT(d->detail, HasSubstr("not judged: the first half holds 500 recorded samples, fewer than 1000"));
  EXPECT_FALSE(MeasureP99Drift(r).judged);
  EXPECT_NEAR(MeasureP99Drift(r).drift, 1.0, 0.002);  // read anyway, in the detail
}

// wrk's series has no latency per interval: no p99_drift check; the same
// series with one gets it.
TEST(IntervalChecks, P99DriftOnlyWithLatencyPerInterval) {
  LoadResult r = Steady(10);
  const std::vector<ValidityCheck> wrk = IntervalChecks(r);
  EXPECT_EQ(Find(wrk, "p99_drift"), nullptr);
  EXPECT_FALSE(MeasureP99Drift(r).judged);
  EXPECT_THAT(MeasureP99Drift(r).why, HasSubstr("no latency per interval"));
  SetTails(r, 1000, 2000, 2000);
  const std::vector<ValidityCheck> checks = IntervalChecks(r);
  ASSERT_NE(Find(checks, "p99_drift"), nullptr);
  EXPECT_NEAR(Find(checks, "p99_drift")->measured, 0, 1e-12);
}

// CheckPhase carries them, and a stall fails the phase's validity.
TEST(IntervalChecks, CheckPhaseReportsAStall) {
  LoadResult r = Steady(10);
  r.requests = 2000;
  r.achieved_rps = 200;
  r.duration_s = 10;
  EXPECT_TRUE(ValidityPassed(CheckPhase(r, PhaseObservation{}, PhaseContext{}, ValidityParams{})) ||
              FailedValidity(CheckPhase(r, PhaseObservation{}, PhaseContext{}, ValidityParams{})).find("interval") ==
                  std::string::npos);
  r.intervals.completed[5] = 0;
  const auto checks = CheckPhase(r, PhaseObservation{}, PhaseContext{}, ValidityParams{});
  EXPECT_THAT(FailedValidity(checks), HasSubstr("interval_stalls: measured 1, limit <= 0"));
}

}  // namespace
}  // namespace fvbench::interval_checks_test
