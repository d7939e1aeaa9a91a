// ParseLimitsLog (judge/limits_log_parse.h): the reduced access log of a limits
// phase, read back into AccessLogCounts, and every refusal with the line it
// names.
#include "support/judge/limits_log_parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fvbench::limits_log_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Two keys over 0.25 s in 100 ms bins (ceil(2.5) + 1 = 4 bins), lines in
// the reducer's arbitrary order.
const char kTwoKeys[] =
    "fvbench-limits 1 100\n"
    "lines 12 first 1733251234.000 last 1733251234.250 nokey 1 malformed 1\n"
    "b k1 2 1\n"
    "k k1 3 2 0\n"
    "k k0 4 0 1\n"
    "b k0 0 3\n"
    "b k1 0 2\n"
    "b k0 1 1\n";

TEST(LimitsLog, ParsesKeysSortedWithTheirBins) {
  auto r = ParseLimitsLog(kTwoKeys, "sut:limits.txt");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->bin_s, 0.1);
  EXPECT_DOUBLE_EQ(r->first_unix, 1733251234.0);
  EXPECT_DOUBLE_EQ(r->last_unix, 1733251234.25);
  EXPECT_EQ(r->lines, 12u);
  EXPECT_EQ(r->without_key, 1u);
  EXPECT_EQ(r->malformed, 1u);
  ASSERT_EQ(r->keys.size(), 2u);
  EXPECT_EQ(r->keys[0].key, "k0");
  EXPECT_EQ(r->keys[0].admitted, 4u);
  EXPECT_EQ(r->keys[0].rejected, 0u);
  EXPECT_EQ(r->keys[0].other, 1u);
  EXPECT_THAT(r->keys[0].admitted_per_bin, ElementsAre(3u, 1u, 0u, 0u));
  EXPECT_EQ(r->keys[1].key, "k1");
  EXPECT_EQ(r->keys[1].rejected, 2u);
  EXPECT_THAT(r->keys[1].admitted_per_bin, ElementsAre(2u, 0u, 1u, 0u));
}

// The 's' line: lines before the phase's window, in no other count.
TEST(LimitsLog, LinesBeforeTheWindowAreCountedApart) {
  EXPECT_EQ(ParseLimitsLog(kTwoKeys)->before_window, 0u);
  auto r = ParseLimitsLog(std::string(kTwoKeys) + "s 1240\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->before_window, 1240u);
  EXPECT_EQ(r->lines, 12u);
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"s 1\ns 2\n", "line 10: a second 's' line"},
           {"s -1\n", "line 9: skipped '-1' is not a count"},
           {"s 1 2\n", "line 9: an 's' line has 3 fields, expected 2"}}) {
    auto bad = ParseLimitsLog(std::string(kTwoKeys) + text, "x");
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.error().message.find(why), std::string::npos) << bad.error().message;
  }
}

TEST(LimitsLog, BinCountIsTheCeilingOfTheWindowPlusOne) {
  // 1.000 s at 100 ms: bins 0..10 (the last line falls in bin 10).
  auto r = ParseLimitsLog(
      "fvbench-limits 1 100\nlines 1 first 100 last 101.000 nokey 0 malformed 0\nk a 1 0 0\nb a 10 1\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->keys[0].admitted_per_bin.size(), 11u);
  // 1.001 s: ceil(10.01) + 1 = 12.
  r = ParseLimitsLog(
      "fvbench-limits 1 100\nlines 1 first 100 last 101.001 nokey 0 malformed 0\nk a 1 0 0\nb a 11 1\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->keys[0].admitted_per_bin.size(), 12u);
}

TEST(LimitsLog, NoLinesIsAnEmptyLog) {
  auto r = ParseLimitsLog("fvbench-limits 1 100\nlines 0 first 0 last 0 nokey 0 malformed 0\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->lines, 0u);
  EXPECT_TRUE(r->keys.empty());
}

TEST(LimitsLog, FirstEqualToLastIsOneBin) {
  auto r = ParseLimitsLog(
      "fvbench-limits 1 100\nlines 3 first 5.5 last 5.500 nokey 0 malformed 0\nk a 2 1 0\nb a 0 2\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->keys[0].admitted_per_bin, ElementsAre(2u));
}

TEST(LimitsLog, KeyWithNothingAdmittedHasZeroBins) {
  auto r = ParseLimitsLog("fvbench-limits 1 500\nlines 4 first 10 last 11 nokey 0 malformed 0\nk a 0 4 0\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT(r->keys[0].admitted_per_bin, ElementsAre(0u, 0u, 0u));
}

TEST(LimitsLog, BlankLinesTabsAndCarriageReturnsAreAccepted) {
  auto r = ParseLimitsLog(
      "fvbench-limits 1 100\r\n\nlines 1 first 1 last 1 nokey 0 malformed 0\r\nk\ta 1 0 0\r\nb a 0 1");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->keys[0].admitted, 1u);
}

// Each refusal: the message opens with the source and the line number, and
// says what was wrong.
struct Refusal {
  const char* name;
  std::string text;
  const char* line;  // "line N" expected in the message
  const char* what;
};

const std::string kHead = "fvbench-limits 1 100\nlines 3 first 100 last 100.250 nokey 0 malformed 0\n";

std::vector<Refusal> Refusals() {
  return {
      {"Empty", "", "line 1", "no header"},
      {"OnlyBlank", "\n\n", "line 3", "no header"},
      {"NotTheHeader", "lines 0 first 0 last 0 nokey 0 malformed 0\n", "line 1", "is not the header"},
      {"Version2", "fvbench-limits 2 100\n", "line 1", "format version '2', expected 1"},
      {"HeaderFields", "fvbench-limits 1\n", "line 1", "has 2 fields, expected 3"},
      {"BinZero", "fvbench-limits 1 0\n", "line 1", "bin width '0'"},
      {"BinNotDividing", "fvbench-limits 1 300\n", "line 1", "divides 1000"},
      {"BinNegative", "fvbench-limits 1 -100\n", "line 1", "bin width"},
      {"NoTotals", "fvbench-limits 1 100\n", "line 2", "no totals line"},
      {"TotalsFields", "fvbench-limits 1 100\nlines 3 first 1 last 2\n", "line 2", "6 fields"},
      {"TotalsWord", "fvbench-limits 1 100\nlines 3 first 1 end 2 nokey 0 malformed 0\n", "line 2",
       "field 5 of the totals line is 'end'"},
      {"LinesNotCount", "fvbench-limits 1 100\nlines x first 1 last 2 nokey 0 malformed 0\n", "line 2",
       "lines 'x' is not a count"},
      {"LinesNegative", "fvbench-limits 1 100\nlines -1 first 1 last 2 nokey 0 malformed 0\n", "line 2",
       "not a count"},
      {"LinesHuge", "fvbench-limits 1 100\nlines 99999999999999999999 first 1 last 2 nokey 0 malformed 0\n", "line 2",
       "not a count"},
      {"MsecFourDecimals", "fvbench-limits 1 100\nlines 1 first 1.2345 last 2 nokey 0 malformed 0\n", "line 2",
       "first '1.2345' is not a $msec time"},
      {"MsecExponent", "fvbench-limits 1 100\nlines 1 first 1 last 1e9 nokey 0 malformed 0\n", "line 2",
       "last '1e9'"},
      {"MsecNan", "fvbench-limits 1 100\nlines 1 first nan last 2 nokey 0 malformed 0\n", "line 2", "first 'nan'"},
      {"LastBeforeFirst", "fvbench-limits 1 100\nlines 1 first 2 last 1.999 nokey 0 malformed 0\n", "line 2",
       "before first"},
      {"ZeroLinesWithTimes", "fvbench-limits 1 100\nlines 0 first 1 last 1 nokey 0 malformed 0\n", "line 2",
       "lines is 0 but first or last"},
      {"ZeroLinesWithKey", "fvbench-limits 1 100\nlines 0 first 0 last 0 nokey 0 malformed 0\nk a 0 0 0\n", "line 3",
       "in a log of 0 lines"},
      {"TooManyBins", "fvbench-limits 1 1\nlines 1 first 0 last 100.000 nokey 0 malformed 0\n", "line 2",
       "more than 100000"},
      {"UnknownTag", kHead + "x a 1\n", "line 3", "unknown line tag 'x'"},
      {"KeyFields", kHead + "k a 1 2\n", "line 3", "'k' line has 4 fields, expected 5"},
      {"BinFields", kHead + "k a 3 0 0\nb a 0\n", "line 4", "'b' line has 3 fields, expected 4"},
      {"KeyCountNotNumber", kHead + "k a 3 x 0\n", "line 3", "rejected 'x' of key 'a' is not a count"},
      {"KeyTooLong", kHead + "k " + std::string(129, 'a') + " 3 0 0\n", "line 3", "129 bytes long, more than 128"},
      {"KeyByteOutside", kHead + "k a\x7f" + "b 3 0 0\n", "line 3", "byte 0x7f, outside 0x21..0x7e"},
      {"KeyHighByte", kHead + "b \xc3\xa9 0 1\n", "line 3", "byte 0xc3"},
      {"DuplicateKey", kHead + "k a 1 0 0\nb a 0 1\nk a 2 0 0\n", "line 5", "key 'a' again (its 'k' line is line 3)"},
      {"DuplicateBin", kHead + "k a 3 0 0\nb a 1 1\nb a 1 2\n", "line 5", "bin 1 of key 'a' again (first on line 4)"},
      {"BinBeyondWindow", kHead + "k a 3 0 0\nb a 4 3\n", "line 4", "bin 4 of key 'a' is beyond the window's 4 bins"},
      {"BinNotCount", kHead + "k a 3 0 0\nb a -1 3\n", "line 4", "bin '-1' of key 'a' is not a count"},
      {"BinWithoutKeyLine", kHead + "k a 3 0 0\nb a 0 3\nb z 1 1\n", "line 5", "key 'z', which has no 'k' line"},
      {"BinsSumToLess", kHead + "k a 3 0 0\nb a 0 2\n", "line 3", "key 'a' admitted 3 but its 'b' lines sum to 2"},
      {"BinsSumToMore", kHead + "k a 3 0 0\nb a 0 2\nb a 2 2\n", "line 3", "sum to more"},
      {"BinsSumOverflow", kHead + "k a 3 0 0\nb a 0 18446744073709551615\nb a 1 18446744073709551615\n", "line 3",
       "sum to more"},
  };
}

TEST(LimitsLog, RefusesNamingSourceLineAndWhat) {
  for (const Refusal& c : Refusals()) {
    auto r = ParseLimitsLog(c.text, "sut:limits.txt");
    ASSERT_FALSE(r.ok()) << c.name;
    EXPECT_THAT(r.error().message, StartsWith(std::string("sut:limits.txt: ") + c.line + ": ")) << c.name;
    EXPECT_THAT(r.error().message, HasSubstr(c.what)) << c.name;
  }
}

TEST(LimitsLog, RefusesCountsThatDoNotAddUpToTheLines) {
  auto r = ParseLimitsLog(kHead + "k a 1 0 0\nb a 0 1\n", "l.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "l.txt: the 'k' counts + nokey + malformed are 1, not the lines 3");
  r = ParseLimitsLog(kHead + "k a 3 18446744073709551615 0\nb a 0 3\n", "l.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "l.txt: the 'k' counts + nokey + malformed are more than the lines 3");
}

TEST(LimitsLog, RefusesMoreBinsThanTheMemoryBound) {
  // 1000 bins a key at 1 ms; 20001 keys would be 20.001 M bins.
  std::string text = "fvbench-limits 1 1\nlines 30000 first 0 last 0.999 nokey 0 malformed 0\n";
  for (int i = 0; i < 20001; ++i) text += "k k" + std::to_string(i) + " 0 1 0\n";
  auto r = ParseLimitsLog(text, "l.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, StartsWith("l.txt: line 20003: 20001 keys of 1000 bins each are more than 20000000"));
}

TEST(LimitsLog, RefusesMoreKeysThanTheBound) {
  std::string text = "fvbench-limits 1 100\nlines 200000 first 7 last 7 nokey 0 malformed 0\n";
  for (uint64_t i = 0; i <= kMaxLimitsKeys; ++i) text += "k k" + std::to_string(i) + " 0 1 0\n";
  auto r = ParseLimitsLog(text, "l.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "l.txt: line 100003: more than 100000 keys");
}

TEST(LimitsLog, ShowsHostBytesEscaped) {
  auto r = ParseLimitsLog("fvbench-limits 1 100\nlines 1 first 1 last 1 nokey 0 malformed 0\n\x1b[2J 1\n", "l.txt");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("unknown line tag '\\x1b[2J'"));
}

TEST(LimitsLog, DefaultSourceIsNamed) {
  auto r = ParseLimitsLog("");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, StartsWith("limits log: line 1: "));
}

}  // namespace
}  // namespace fvbench::limits_log_test
