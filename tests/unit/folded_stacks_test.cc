// ParseFolded, WriteFolded, MergeInto (core/folded_stacks.h): the folded
// stacks format read and written back, and every refusal with its line.
#include "support/core/folded_stacks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fvbench::folded_stacks_test {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(FoldedStacks, ParsesAddsDuplicatesAndWritesSorted) {
  auto r = ParseFolded(
      "nginx;main;ngx_process_events 3\n"
      "\n"
      "nginx: worker;C++ f(int, char) const;leaf x 2\r\n"
      "  \t \n"
      "nginx;main 0\n"
      "nginx;main;ngx_process_events\t4   \n"
      "a 1",
      "p.folded");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->counts, ElementsAre(Pair("a", 1u), Pair("nginx: worker;C++ f(int, char) const;leaf x", 2u),
                                     Pair("nginx;main;ngx_process_events", 7u)));
  EXPECT_EQ(r->total(), 10u);
  EXPECT_EQ(WriteFolded(*r),
            "a 1\n"
            "nginx: worker;C++ f(int, char) const;leaf x 2\n"
            "nginx;main;ngx_process_events 7\n");
}

TEST(FoldedStacks, RoundTrip) {
  FoldedStacks f;
  f.counts = {{"edge;access_by_lua;rate.lua:12;[JIT]", 1234},
              {"edge;x 1 2", 3},
              {"swapper;do_idle_[k]", 18446744073709551000ull - 2000}};
  std::string text = WriteFolded(f);
  auto back = ParseFolded(text, "w");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->counts, f.counts);
  EXPECT_EQ(WriteFolded(*back), text);
  EXPECT_EQ(WriteFolded(FoldedStacks{}), "");
  EXPECT_TRUE(ParseFolded("", "w")->counts.empty());
}

TEST(FoldedStacks, MergeAddsUp) {
  FoldedStacks a, b;
  a.counts = {{"x;y", 2}, {"x", 1}};
  b.counts = {{"x;y", 3}, {"z", 4}};
  MergeInto(a, b);
  EXPECT_THAT(a.counts, ElementsAre(Pair("x", 1u), Pair("x;y", 5u), Pair("z", 4u)));
  FoldedStacks big;
  big.counts = {{"x", UINT64_MAX - 1}};
  MergeInto(a, big);
  EXPECT_EQ(a.counts.at("x"), UINT64_MAX);
  EXPECT_EQ(a.total(), UINT64_MAX);
}

TEST(FoldedStacks, SplitFrames) {
  EXPECT_THAT(SplitFrames("a;b c;d"), ElementsAre("a", "b c", "d"));
  EXPECT_THAT(SplitFrames("a"), ElementsAre("a"));
}

TEST(FoldedStacks, RefusesNamingTheLine) {
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"a;b 1\nnocount\n", "f.folded: line 2: no count"},
           {"a;b 1\n\na;b x\n", "f.folded: line 3: count 'x' is not a decimal integer"},
           {"a;b -1\n", "f.folded: line 1: count '-1' is not a decimal integer"},
           {"a;b 1.5\n", "f.folded: line 1: count '1.5' is not a decimal integer"},
           {"a;b 18446744073709551616\n", "f.folded: line 1: count '18446744073709551616' does not fit 64 bits"},
           {"  7\n", "f.folded: line 1: no count"},
           {"a;;b 1\n", "f.folded: line 1: an empty frame"},
           {";a 1\n", "f.folded: line 1: the stack starts with ';'"},
           {"a; 1\n", "f.folded: line 1: the stack ends with ';'"},
           {"a 18446744073709551615\nb 1\n", "f.folded: line 2: the total of the counts does not fit 64 bits"}}) {
    auto r = ParseFolded(text, "f.folded");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.error().message, ::testing::HasSubstr(why)) << text;
  }
}

TEST(FoldedStacks, WithoutFramePrefixCutsTheTreeFromEachFrameAndMergesWhatBecomesEqual) {
  FoldedStacks f;
  f.counts = {{"/opt/edge/src/a.lua:f;/opt/edge/src/b.lua:g", 2},
              {"/opt/edge/src/a.lua:f;/usr/share/lua/x.lua:h", 1},
              {"src/a.lua:f;src/b.lua:g", 3},
              {"/opt/edge/;/opt/edge/x", 1}};
  FoldedStacks cut = WithoutFramePrefix(f, "/opt/edge/");
  EXPECT_EQ(cut.counts.at("src/a.lua:f;src/b.lua:g"), 5u);
  EXPECT_EQ(cut.counts.at("src/a.lua:f;/usr/share/lua/x.lua:h"), 1u);
  EXPECT_EQ(cut.counts.at("/opt/edge/;x"), 1u) << "a frame that is only the prefix stays";
  EXPECT_EQ(cut.total(), f.total());
  EXPECT_EQ(WithoutFramePrefix(f, "").counts, f.counts);
}

}  // namespace
}  // namespace fvbench::folded_stacks_test
