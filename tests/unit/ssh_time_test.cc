// OpenSSH's time format (ssh_config(5) TIME FORMATS, misc.c convtime).
#include "support/host/ssh_time.h"

#include <gtest/gtest.h>

namespace fvbench::ssh_time_test {
namespace {

TEST(ParseSshTime, UnitsAndCombinations) {
  EXPECT_EQ(ParseSshTime("0"), 0);
  EXPECT_EQ(ParseSshTime("90"), 90);
  EXPECT_EQ(ParseSshTime("90s"), 90);
  EXPECT_EQ(ParseSshTime("1m"), 60);
  EXPECT_EQ(ParseSshTime("1M"), 60);
  EXPECT_EQ(ParseSshTime("1m30s"), 90);
  EXPECT_EQ(ParseSshTime("1h30m"), 5400);
  EXPECT_EQ(ParseSshTime("2h"), 7200);
  EXPECT_EQ(ParseSshTime("1d"), 86400);
  EXPECT_EQ(ParseSshTime("1w"), 604800);
  EXPECT_EQ(ParseSshTime("1w2d3h4m5s"), 604800 + 2 * 86400 + 3 * 3600 + 4 * 60 + 5);
  EXPECT_EQ(ParseSshTime("10m10"), 610);  // a bare number is seconds anywhere
  EXPECT_EQ(ParseSshTime("2147483647"), 2147483647);
}

TEST(ParseSshTime, WhatConvtimeRefuses) {
  for (const char* bad : {"", "m", "1x", "-1", "+1", " 1", "1 ", "1m 30s", "1.5m", "soon", "2147483648",
                          "3551w", "99999999999999999999", "1mm"}) {
    EXPECT_FALSE(ParseSshTime(bad).has_value()) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace fvbench::ssh_time_test
