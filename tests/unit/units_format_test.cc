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
    ASSERT_EQ(FormatRps(v), fmt::format("{:.0f}", v)) << fmt::format("{:.17g}", v);
    if (std::fabs(v) >= 100) {
      ASSERT_EQ(FormatNumber(v), fmt::format("{:.0f}", v)) << fmt::format("{:.17g}", v);
    }
    if (std::fabs(v) < 1000 && v >= 0) {
      ASSERT_EQ(FormatUs(v), fmt::format("{:.0f} µs", v)) << v;
    }
  }
}

TEST(UnitsFormat, NonFiniteAndMilliseconds) {
  EXPECT_EQ(FormatRps(std::numeric_limits<double>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatRps(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(FormatUs(812.4), "812 µs");
  EXPECT_EQ(FormatUs(1500), "1.50 ms");
  EXPECT_EQ(FormatNumber(2.345), "2.35");
  EXPECT_EQ(FormatNumber(7), "7");
}

}  // namespace
}  // namespace fvbench::detail
