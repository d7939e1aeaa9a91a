#include "support/core/units_format.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace fvbench::detail {
namespace {

// FormatRps / FormatNumber / FormatUs print whole numbers without fmt's
// precision path; they must print exactly what fmt::format("{:.0f}") prints.
TEST(UnitsFormat, WholeNumbersMatchFmtExactly) {
  std::vector<double> values = {0.0, -0.0, 0.4, -0.4, 0.5, 1.5, 2.5, -2.5, 3.5, 99.5, 100.5, 2155.5,
                                2156.4999999999995, 2156.5000000000005, 4503599627370495.5,
                                9007199254740991.0, 9007199254740992.0, 1e17, -1e17, 1e300};
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> wide(-1e7, 1e7);
  for (int i = 0; i < 20000; ++i) {
    values.push_back(wide(rng));
    values.push_back(std::floor(wide(rng)) + 0.5);  // exact ties
  }
  for (double v : values) {
    if (std::fabs(v) >= kCompactFrom) continue;  // CompactAboveOneQuadrillion
    ASSERT_EQ(FormatRps(v), fmt::format("{:.0f}", v)) << fmt::format("{:.17g}", v);
    if (std::fabs(v) >= 100) {
      ASSERT_EQ(FormatNumber(v), fmt::format("{:.0f}", v)) << fmt::format("{:.17g}", v);
    }
    if (std::fabs(v) < 1000 && v >= 0) {
      ASSERT_EQ(FormatUs(v), fmt::format("{:.0f} µs", v)) << v;
    }
  }
}

// fixtures/odd_inputs/baseline-denormal-huge.json: the table showed a
// 300-digit base and "+inf %". No format prints hundreds of digits, "inf" or
// "nan".
TEST(UnitsFormat, CompactAboveOneQuadrillion) {
  EXPECT_EQ(FormatNumber(1e308), "1e+308");
  EXPECT_EQ(FormatRps(1e308), "1e+308");
  EXPECT_EQ(FormatUs(1e308), "1e+308 µs");
  EXPECT_EQ(FormatUsBare(1e308, 1e308), "1e+308");
  EXPECT_EQ(FormatPercent(1e300), "1e+302%");
  EXPECT_EQ(FormatNumber(-1.23456e20), "-1.235e+20");
  EXPECT_EQ(FormatNumber(999999999999999.0), "999999999999999");  // below kCompactFrom: every digit
  EXPECT_EQ(FormatNumber(5e-324), "4.94e-324");
  EXPECT_EQ(FormatFixed(3.1, 2), "3.10");
  EXPECT_EQ(FormatFixed(1e300, 1), "1e+300");  // "{:.1f}" printed 301 digits (resources, ratios, resolution)
  // A delta (run_report.h: a fraction) that overflows x 100 is no delta, not
  // "+inf %" (a delta against a subnormal reference: RunReport gives none).
  EXPECT_EQ(FormatDeltaFraction((129 - 5e-324) / 5e-324), "");
  EXPECT_EQ(FormatDeltaFraction(1e307), "");  // x 100 overflows
  EXPECT_EQ(FormatDeltaFraction(1e20 - 1), "+1e+22 %");
  EXPECT_EQ(FormatDeltaFraction(-0.04), "\u2212" "4.0 %");
  EXPECT_EQ(FormatDeltaFraction(0.0004), "+0.0 %");
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double v : {nan, inf, -inf, 1e308, -1e308, 5e-324}) {
    for (const std::string& s : {FormatNumber(v), FormatFixed(v, 2), FormatUs(v), FormatUsBare(v, 1000), FormatPercent(v),
                                 FormatPercentLimit(v), FormatRps(v), FormatDeltaFraction(v)}) {
      EXPECT_EQ(s.find("inf"), std::string::npos) << s;
      EXPECT_EQ(s.find("nan"), std::string::npos) << s;
      EXPECT_LE(s.size(), 16u) << s;
    }
  }
}

TEST(UnitsFormat, NonFiniteAndMilliseconds) {
  EXPECT_EQ(FormatRps(std::numeric_limits<double>::quiet_NaN()), "n/a");
  EXPECT_EQ(FormatRps(std::numeric_limits<double>::infinity()), "out of range");
  EXPECT_EQ(FormatUs(812.4), "812 µs");
  EXPECT_EQ(FormatUs(1500), "1.50 ms");
  EXPECT_EQ(FormatNumber(2.345), "2.35");
  EXPECT_EQ(FormatNumber(7), "7");
}

}  // namespace
}  // namespace fvbench::detail

namespace fvbench::units_format_test {
namespace {

// A censored latency (requests that timed out) prints as a lower bound.
TEST(UnitsFormat, CensoredLatencyPrintsAsALowerBound) {
  LatencyUs l;
  l.p99 = 1900;
  l.p999 = 2e6;
  l.censored_at_us = 2e6;
  EXPECT_EQ(detail::FormatLatency(l, l.p999), ">= 2000.00 ms");
  EXPECT_EQ(detail::FormatLatency(l, l.p99), detail::FormatUs(1900));
  LatencyUs plain;
  plain.p999 = 2e6;
  EXPECT_EQ(detail::FormatLatency(plain, plain.p999), detail::FormatUs(2e6));
}

}  // namespace
}  // namespace fvbench::units_format_test
