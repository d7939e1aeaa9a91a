#include "support/judge/key_sweep_break.h"

#include <gtest/gtest.h>

namespace fvbench {
namespace {

LimitRun Point(int keys, double over, double p99_us) {
  LimitRun r;
  r.accuracy.keys_planned = keys;
  r.accuracy.over_admission = over;
  r.load.latency_us.p99 = p99_us;
  return r;
}

TEST(KeySweepBreak, NoBreakNamesTheLargestPoint) {
  auto b = FindKeySweepBreak({Point(10, 0, 1000), Point(100, 0.02, 1900), Point(1000, 0.01, 2000)}, 0.02);
  EXPECT_FALSE(b.accuracy_keys);
  EXPECT_FALSE(b.p99_keys);
  EXPECT_EQ(DescribeKeySweepBreak(b, 0.02), "no break up to K=1000");
}

TEST(KeySweepBreak, AccuracyBreaksAtTheFirstPointOver) {
  auto b = FindKeySweepBreak({Point(10, 0, 1000), Point(100, 0.03, 1000), Point(1000, 0.67, 1000)}, 0.02);
  ASSERT_TRUE(b.accuracy_keys);
  EXPECT_EQ(*b.accuracy_keys, 100);
  EXPECT_FALSE(b.p99_keys);
  const std::string s = DescribeKeySweepBreak(b, 0.02);
  EXPECT_EQ(s.rfind("accuracy breaks at K=100 (over-admission 3", 0), 0u) << s;
}

TEST(KeySweepBreak, P99BreaksOverTwiceTheFirst) {
  auto b = FindKeySweepBreak({Point(10, 0, 1000), Point(100, 0, 2000), Point(1000, 0.5, 2001)}, 0.02);
  ASSERT_TRUE(b.p99_keys);
  EXPECT_EQ(*b.p99_keys, 1000);  // exactly 2 x is not over
  ASSERT_TRUE(b.accuracy_keys);
  EXPECT_EQ(*b.accuracy_keys, 1000);
  const std::string s = DescribeKeySweepBreak(b, 0.02);
  EXPECT_NE(s.find("accuracy breaks at K=1000"), std::string::npos) << s;
  EXPECT_NE(s.find("; p99 breaks at K=1000"), std::string::npos) << s;
}

// One slow point among fast ones is noise (seen on a real 2 s sweep: 903 us,
// 3.04 ms, 968 us, 859 us); a break is where p99 stays over.
TEST(KeySweepBreak, P99BreakMustLastToTheLastPoint) {
  auto b = FindKeySweepBreak({Point(10, 0, 903), Point(11, 0, 3040), Point(12, 0, 968), Point(13, 0, 859)}, 0.02);
  EXPECT_FALSE(b.p99_keys);
  b = FindKeySweepBreak({Point(10, 0, 1000), Point(100, 0, 3000), Point(1000, 0, 900), Point(10000, 0, 2500),
                         Point(100000, 0, 4000)},
                        0.02);
  ASSERT_TRUE(b.p99_keys);
  EXPECT_EQ(*b.p99_keys, 10000);
  EXPECT_DOUBLE_EQ(b.p99_us, 2500);
}

TEST(KeySweepBreak, NoFirstP99DisablesTheP99Rule) {
  auto b = FindKeySweepBreak({Point(10, 0, 0), Point(100, 0, 5000)}, 0.02);
  EXPECT_FALSE(b.p99_keys);
  EXPECT_EQ(DescribeKeySweepBreak(FindKeySweepBreak({}, 0.02), 0.02), "no point measured");
}

TEST(KeySweepBreak, RefusesAPointThatCannotShowOverAdmission) {
  const TokenBucketLimit bucket{0.01, 1};
  EXPECT_TRUE(CheckSweepOverload({10, 100, 1000, 10000}, 1000, 10, bucket).ok());
  // 100000 keys at 1000 RPS: 5 requests per key in 500 s, the bucket allows 6.
  auto r = CheckSweepOverload({10, 100000}, 1000, 10, bucket);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("at 100000 keys LIMITS_KEYS_RPS=1000"), std::string::npos) << r.error().message;
  EXPECT_FALSE(CheckSweepOverload({10}, 1000, 10, TokenBucketLimit{100, 200}).ok());  // 1000 offered, 1200 allowed
}

}  // namespace
}  // namespace fvbench
