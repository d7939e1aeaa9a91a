#include "support/core/text.h"

#include <gtest/gtest.h>

#include <vector>

#include <string>

namespace fvbench::text_test {
namespace {

using detail::AsciiLower;
using detail::ShortCommit;
using detail::TailBytes;
using detail::TailBytesFromLine;
using detail::TailLines;
using detail::Trim;
using detail::TrimLeft;
using detail::TrimRight;
using detail::TrimSpace;

TEST(Text, TrimSpaceTakesBlanksOffBothEnds) {
  EXPECT_EQ(TrimSpace(" \t\r\nab c\r\n \t"), "ab c");
  EXPECT_EQ(TrimSpace("abc"), "abc");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace(" \t\r\n"), "");
  EXPECT_EQ(TrimSpace("\va\f"), "\va\f");  // only space, tab, CR, LF
}

TEST(Text, TrimTakesTheGivenCharactersOnly) {
  EXPECT_EQ(Trim("..a.b..", "."), "a.b");
  EXPECT_EQ(Trim(" \ta\n", " \t"), "a\n");
  EXPECT_EQ(Trim("....", "."), "");
  EXPECT_EQ(TrimLeft("\n a \n", "\n "), "a \n");
  EXPECT_EQ(TrimRight("\n a \n", "\n "), "\n a");
  EXPECT_EQ(TrimLeft("  ", " "), "");
  EXPECT_EQ(TrimRight("  ", " "), "");
  // k6_engine.cc's version output: CR off the end only.
  EXPECT_EQ(TrimLeft(TrimRight("\r\n k6 v1\r\n", "\n\r "), "\n "), "\r\n k6 v1");
}

TEST(Text, AsciiLowerChangesOnlyAToZ) {
  EXPECT_EQ(AsciiLower("HostName AZaz09-_@["), "hostname azaz09-_@[");
  EXPECT_EQ(AsciiLower("\xC3\x84X"), "\xC3\x84x");  // UTF-8 bytes unchanged
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(Text, TailBytesKeepsTheEndAndMarksACut) {
  EXPECT_EQ(TailBytes("abc", 3), "abc");
  EXPECT_EQ(TailBytes("abcdef", 3), "...def");
  EXPECT_EQ(TailBytes("", 0), "");
}

TEST(Text, TailBytesFromLineStartsAfterTheFirstLineBreak) {
  EXPECT_EQ(TailBytesFromLine("abc", 3), "abc");
  EXPECT_EQ(TailBytesFromLine("line1\nline2\nline3", 8), "...line3");  // tail "e2\nline3"
  EXPECT_EQ(TailBytesFromLine("abcdefgh", 4), "...efgh");              // no break in the tail
  EXPECT_EQ(TailBytesFromLine("abcd\nefg\n", 4), "...efg\n");           // the break ends the tail
  EXPECT_EQ(TailBytesFromLine("ab\n\ncd", 3), "...cd");
}

TEST(Text, TailLinesKeepsTheLastLines) {
  EXPECT_EQ(TailLines("a\nb\nc\n", 2), "b\nc\n");
  EXPECT_EQ(TailLines("a\nb\nc", 5), "a\nb\nc\n");
  EXPECT_EQ(TailLines("", 3), "(empty)");
  EXPECT_EQ(TailLines("a\n", 0), "(empty)");
}

TEST(Text, ShortCommitIsTwelveCharactersOrADash) {
  EXPECT_EQ(ShortCommit("0123456789abcdef0123"), "0123456789ab");
  EXPECT_EQ(ShortCommit("abc"), "abc");
  EXPECT_EQ(ShortCommit(""), "-");
}

TEST(Text, SplitFieldsOnRunsOfSpacesTabsAndCarriageReturns) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(detail::SplitFields("  a\tbb  c\r"), (V{"a", "bb", "c"}));
  EXPECT_EQ(detail::SplitFields("k k1 3 2 0"), (V{"k", "k1", "3", "2", "0"}));
  EXPECT_TRUE(detail::SplitFields(" \t\r ").empty());
  EXPECT_TRUE(detail::SplitFields("").empty());
  EXPECT_EQ(detail::SplitFields("x\ny"), (V{"x\ny"}));  // one line: a newline is not a separator
}

}  // namespace
}  // namespace fvbench::text_test
