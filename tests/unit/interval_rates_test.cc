// The rate a timeline draws per interval (support/report/interval_rates.h):
// a partial interval at a phase's end by the seconds its load covered, one
// covered under half not drawn; wrk by its slots, k6 by the phase's duration.
#include "support/report/interval_rates.h"

#include <gtest/gtest.h>

namespace fvbench::interval_rates_test {
namespace {

// A 4 s wrk phase at 500 RPS in 1 s intervals whose engine ran ~56 ms past
// 4 s (28 slots in the fifth interval), and a third interval half covered
// (a phase that started late in it is not possible; this checks the rule).
LoadResult Wrk() {
  LoadResult l;
  l.engine = "wrk";
  l.target_rps = 500;
  l.duration_s = 4;
  IntervalSeries& s = l.intervals;
  s.start_epoch_us = 1.7e15;
  s.width_us = 1e6;
  s.scheduled = {500, 500, 250, 500, 28};
  s.sent = s.scheduled;
  s.completed = {499, 500, 250, 501, 33};
  s.late_10ms = {0, 0, 0, 0, 0};
  return l;
}

TEST(IntervalRates, WrkCoversAnIntervalByItsSlots) {
  const LoadResult l = Wrk();
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 0), 1.0);
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 2), 0.5);
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 4), 0.056);
  EXPECT_DOUBLE_EQ(*DrawnRate(l, l.intervals.completed, 0), 499.0);
  EXPECT_DOUBLE_EQ(*DrawnRate(l, l.intervals.completed, 2), 500.0);  // 250 over its half second
  EXPECT_FALSE(DrawnRate(l, l.intervals.completed, 4).has_value());  // 56 ms of it: not drawn
  EXPECT_FALSE(DrawnRate(l, l.intervals.completed, 5).has_value());  // out of range
  EXPECT_EQ(UndrawnIntervals(l), std::vector<size_t>{4});
}

TEST(IntervalRates, K6CoversAnIntervalByThePhasesDuration) {
  LoadResult l = Wrk();
  l.engine = "k6";
  l.duration_s = 3.4;
  l.intervals.sends_counted = false;
  l.intervals.scheduled.assign(5, 0);
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 0), 1.0);
  EXPECT_NEAR(CoveredSeconds(l, 3), 0.4, 1e-12);
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 4), 0.0);
  EXPECT_EQ(UndrawnIntervals(l), (std::vector<size_t>{3, 4}));
  l.duration_s = 3.6;
  EXPECT_NEAR(*DrawnRate(l, l.intervals.completed, 3), 501 / 0.6, 1e-9);
  // The duration not known: every interval by its whole width.
  l.duration_s = 0;
  EXPECT_TRUE(UndrawnIntervals(l).empty());
  EXPECT_DOUBLE_EQ(*DrawnRate(l, l.intervals.completed, 4), 33.0);
}

TEST(IntervalRates, NoRateWithoutATargetIsTakenOverTheWholeWidth) {
  LoadResult l = Wrk();
  l.target_rps = 0;  // not known: the whole width
  EXPECT_TRUE(UndrawnIntervals(l).empty());
  EXPECT_DOUBLE_EQ(*DrawnRate(l, l.intervals.completed, 4), 33.0);
  l.intervals = IntervalSeries{};  // no series
  EXPECT_DOUBLE_EQ(CoveredSeconds(l, 0), 0.0);
  EXPECT_TRUE(UndrawnIntervals(l).empty());
}

}  // namespace
}  // namespace fvbench::interval_rates_test
