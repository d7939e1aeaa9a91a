// TopFrames, TopGrowth and TopSelfGrowth (judge/flame_profile.h) on hand-built profiles.
#include "support/judge/flame_profile.h"

#include <gtest/gtest.h>

#include <string>

namespace fvbench::flame_profile_test {
namespace {

// 10 samples: main calls a (recursive) and b; b is the costliest leaf.
FoldedStacks Profile() {
  FoldedStacks f;
  f.counts = {{"edge;main;a;a;a", 3}, {"edge;main;a", 1}, {"edge;main;b", 4}, {"edge;main", 2}};
  return f;
}

TEST(FlameProfile, SelfAndTotalRecursionCountedOnce) {
  auto by_total = TopFrames(Profile(), 10, false);
  ASSERT_EQ(by_total.size(), 4u);
  EXPECT_EQ(by_total[0].frame, "edge");
  EXPECT_EQ(by_total[0].total, 10u);
  EXPECT_EQ(by_total[0].self, 0u);
  EXPECT_EQ(by_total[1].frame, "main");
  EXPECT_EQ(by_total[1].self, 2u);
  EXPECT_EQ(by_total[2].frame, "a");  // a (4) before b (4): ties by name
  EXPECT_EQ(by_total[2].total, 4u);   // not 3 * 3 + 1
  EXPECT_EQ(by_total[2].self, 4u);
  EXPECT_DOUBLE_EQ(by_total[2].total_share, 0.4);
  EXPECT_EQ(by_total[3].frame, "b");

  auto by_self = TopFrames(Profile(), 2, true);
  ASSERT_EQ(by_self.size(), 2u);
  EXPECT_EQ(by_self[0].frame, "a");
  EXPECT_EQ(by_self[1].frame, "b");
  EXPECT_DOUBLE_EQ(by_self[1].self_share, 0.4);
  EXPECT_TRUE(TopFrames(FoldedStacks{}, 5, true).empty());
}

// B served twice the requests with b's samples per request doubled, the
// rest unchanged per request: b tops the growth.
TEST(FlameProfile, TopGrowthFindsTheFrameThatDoubled) {
  FoldedStacks a = Profile();
  FoldedStacks b;
  b.counts = {{"edge;main;a;a;a", 6}, {"edge;main;a", 2}, {"edge;main;b", 16}, {"edge;main", 4}};
  // Powers of two: every per-request figure is exact, so equal deltas tie.
  auto g = TopGrowth(a, 1024, b, 2048, 3);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].frame, "b");
  EXPECT_EQ(g[0].a_per_request, 4.0 / 1024);
  EXPECT_EQ(g[0].b_per_request, 8.0 / 1024);
  EXPECT_EQ(g[0].delta_per_request, 4.0 / 1024);
  EXPECT_DOUBLE_EQ(g[0].delta_share_of_a, 0.4);  // 4 of A's 10 samples per 1024 requests
  EXPECT_DOUBLE_EQ(g[0].relative_change, 1.0);
  EXPECT_FALSE(g[0].new_in_b);
  EXPECT_EQ(g[1].frame, "edge");  // its callers grew by as much
  EXPECT_EQ(g[1].delta_per_request, 4.0 / 1024);
  EXPECT_EQ(g[2].frame, "main");
  auto stacks = TopStackGrowth(a, 1024, b, 2048, 10);
  ASSERT_EQ(stacks.size(), 4u);
  EXPECT_EQ(stacks[0].frame, "edge;main;b");
  EXPECT_EQ(stacks[0].delta_per_request, 4.0 / 1024);
  EXPECT_EQ(stacks[1].delta_per_request, 0.0);
  EXPECT_TRUE(TopStackGrowth(a, 0, b, 1, 10).empty());
  auto all = TopGrowth(a, 1024, b, 2048, 100);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[3].frame, "a");
  EXPECT_DOUBLE_EQ(all[3].delta_per_request, 0.0);
}

// By self samples the callers that carried the growth drop out: only the
// frames whose own code ran longer per request rank above zero.
TEST(FlameProfile, TopSelfGrowthRanksTheFrameWhoseOwnCodeGrew) {
  FoldedStacks a = Profile();
  FoldedStacks b;
  b.counts = {{"edge;main;a;a;a", 6}, {"edge;main;a", 2}, {"edge;main;b", 16}, {"edge;main", 4}, {"edge;main;c", 2}};
  auto g = TopSelfGrowth(a, 1024, b, 2048, 10);
  ASSERT_EQ(g.size(), 4u);  // a, b, main, c: edge is the leaf of no stack
  EXPECT_EQ(g[0].frame, "b");
  EXPECT_EQ(g[0].delta_per_request, 4.0 / 1024);
  EXPECT_EQ(g[1].frame, "c");
  EXPECT_TRUE(g[1].new_in_b);
  EXPECT_EQ(g[1].delta_per_request, 1.0 / 1024);
  EXPECT_EQ(g[2].delta_per_request, 0.0);
  EXPECT_EQ(g[3].delta_per_request, 0.0);
  EXPECT_TRUE(TopSelfGrowth(a, 1024, b, 0, 10).empty());
}

TEST(FlameProfile, TopGrowthNewAndShrinkingFramesAndNoRequests) {
  FoldedStacks a, b;
  a.counts = {{"x;old", 10}};
  b.counts = {{"x;new", 5}};
  auto g = TopGrowth(a, 10, b, 10, 10);
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g[0].frame, "new");
  EXPECT_TRUE(g[0].new_in_b);
  EXPECT_DOUBLE_EQ(g[0].relative_change, 0.0);
  EXPECT_EQ(g[2].frame, "old");
  EXPECT_DOUBLE_EQ(g[2].delta_per_request, -1.0);
  EXPECT_DOUBLE_EQ(g[2].relative_change, -1.0);
  EXPECT_TRUE(TopGrowth(a, 0, b, 10, 10).empty());
  EXPECT_TRUE(TopGrowth(a, 10, b, 0, 10).empty());
}

}  // namespace
}  // namespace fvbench::flame_profile_test
