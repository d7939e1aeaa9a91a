#include "support/core/key_sweep.h"

#include <gtest/gtest.h>

namespace fvbench {
namespace {

TEST(KeySweep, ParsesAscendingList) {
  auto p = ParseKeySweep("10, 100,1000,100000");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(*p, (std::vector<int>{10, 100, 1000, 100000}));
  auto one = ParseKeySweep("1");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<int>{1});
}

TEST(KeySweep, RefusesBadElementNamingIt) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {Case{"", "element 1 ''"}, Case{"10,,100", "element 2 ''"}, Case{"10,abc", "element 2 'abc'"},
                        Case{"10,0", "element 2 '0'"}, Case{"100001", "outside 1..100000"},
                        Case{"100,10", "element 2 '10' is not above"}, Case{"10,10", "not above"},
                        Case{"10,1.5", "'1.5' is not an integer"}, Case{"-5", "'-5'"}, Case{"10,", "element 2 ''"}}) {
    auto p = ParseKeySweep(c.text);
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_NE(p.error().message.find("LIMITS_KEYS_SWEEP"), std::string::npos) << p.error().message;
    EXPECT_NE(p.error().message.find(c.says), std::string::npos) << p.error().message;
  }
}

TEST(KeySweep, DurationsGiveEveryKeyItsRequests) {
  EXPECT_DOUBLE_EQ(SweepPointDuration(10, 1000, 10), 10);            // LIMITS_DUR dominates
  EXPECT_DOUBLE_EQ(SweepPointDuration(10000, 1000, 10), 50);         // 5 requests x 10000 keys / 1000 RPS
  EXPECT_DOUBLE_EQ(SweepPointWarmup(10000, 1000, 2), 10);            // every key once
  EXPECT_DOUBLE_EQ(SweepPointWarmup(10, 1000, 2), 2);
  EXPECT_DOUBLE_EQ(SweepPointWarmup(10000, 1000, 0), 0);             // WARMUP_DUR=0: none
  EXPECT_DOUBLE_EQ(SweepPointDuration(100, 150, 2), 4);              // 3.33 s: whole seconds, as wrk runs them
  EXPECT_DOUBLE_EQ(SweepPointWarmup(500, 150, 1), 4);
  EXPECT_DOUBLE_EQ(SweepLoadSeconds({10, 100, 1000, 10000}, 1000, 10, 10), 10 + 10 + 10 + 50 + 4 * 10);
}

TEST(KeySweep, RefusesSweepOverTheBound) {
  EXPECT_TRUE(CheckSweepLoad({10, 100, 1000, 10000}, 1000, 10, 10).ok());
  auto r = CheckSweepLoad({10, 100000}, 100, 10, 10);  // 5000 s + 1000 s warmup
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("LIMITS_KEYS_SWEEP"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("LIMITS_KEYS_RPS"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace fvbench
