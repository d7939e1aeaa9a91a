// A host's clock against the controller's (core/clock_offset.h): NTP's
// on-wire estimate from the exchange with the least delay, the bound a
// loadgen host's offset must keep, and the readings hosts answer.
#include "support/core/clock_offset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::clock_offset_test {
namespace {

using ::testing::HasSubstr;

constexpr double kT = 1.7e15;  // µs since the epoch, around 2023

// The least delay wins: a slow exchange (its answer waited 30 ms on the way
// back) would put the host 15 ms off; the fast one says 1.5 s ahead within 50 µs.
TEST(ClockOffset, LeastDelayWins) {
  std::vector<ClockExchange> x = {
      {kT, kT + 1.5e6 + 500, kT + 30000 + 1000},  // back leg held up: midpoint is wrong by ~15 ms
      {kT + 40000, kT + 40000 + 1.5e6 + 50, kT + 40000 + 100},
      {kT + 80000, kT + 80000 + 1.5e6 + 5000, kT + 80000 + 10000},
  };
  auto o = EstimateClockOffset(x);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_DOUBLE_EQ(o->offset_us, 1.5e6);
  EXPECT_DOUBLE_EQ(o->delay_us, 100);
  EXPECT_DOUBLE_EQ(o->uncertainty_us(), 50);
  EXPECT_EQ(o->exchanges, 3);
}

TEST(ClockOffset, BehindIsNegative) {
  auto o = EstimateClockOffset({{kT, kT - 2000 + 100, kT + 200}});
  ASSERT_TRUE(o.ok());
  EXPECT_DOUBLE_EQ(o->offset_us, -2000);
}

// No reading, or only inconsistent ones (the controller's clock stepped
// back during the exchange): no estimate.
TEST(ClockOffset, NothingToEstimateFrom) {
  EXPECT_FALSE(EstimateClockOffset({}).ok());
  auto stepped = EstimateClockOffset({{kT, kT, kT - 10}});
  ASSERT_FALSE(stepped.ok());
  EXPECT_THAT(stepped.error().message, HasSubstr("controller's clock stepped"));
}

// Beyond the bound a host is refused, naming it, its offset and how well it
// is known; within it the offset is used (engine/multi_loadgen.h).
TEST(ClockOffset, BoundNamesHostAndOffset) {
  ClockOffset o;
  o.offset_us = 1.502e6;
  o.delay_us = 400;
  o.exchanges = 8;
  auto r = CheckClockOffset("root@10.216.4.2", o);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("loadgen host root@10.216.4.2: its clock is 1.502 s ahead of the "
                                           "controller's (+- 200 µs, the best of 8 round trips): beyond the 1.000 s "
                                           "fvbench corrects for"));
  o.offset_us = -0.9e6;
  EXPECT_TRUE(CheckClockOffset("h", o).ok());
  o.offset_us = -1.1e6;
  auto behind = CheckClockOffset("h", o);
  ASSERT_FALSE(behind.ok());
  EXPECT_THAT(behind.error().message, HasSubstr("1.100 s behind the controller's"));
  EXPECT_EQ(FormatClockOffset(1234), "+1.2 ms");
  EXPECT_EQ(FormatClockOffset(-12), "-12 µs");
}

// What hosts answer is data: nanoseconds (date +%s%N) or seconds with a
// fraction; anything else is refused (a date without %N).
TEST(ClockOffset, ReadingsHostsAnswer) {
  EXPECT_DOUBLE_EQ(*ParseClockReading("1700000000123456789"), 1700000000123456.789);
  EXPECT_DOUBLE_EQ(*ParseClockReading("1700000000.250000\r"), 1700000000250000.0);
  EXPECT_DOUBLE_EQ(*ParseClockReading("1700000000,5"), 1700000000500000.0);
  for (const char* bad : {"", "1700000000N", "1700000000%N", "abc", "-1", "1.2.3", "17000000001234567890123"}) {
    EXPECT_FALSE(ParseClockReading(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace fvbench::clock_offset_test
