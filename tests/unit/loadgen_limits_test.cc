// The load generator's limits (support/engine/loadgen_limits.h): the probe's
// output parsed, and a phase's needs checked against it, naming the host and
// both numbers. The real refusal (wrk, a lowered `ulimit -n`) is in
// wrk_engine_test.cc.
#include "support/engine/loadgen_limits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>

namespace fvbench::loadgen_limits_test {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(LoadgenLimits, ParsesTheProbe) {
  auto l = ParseLoadgenLimits("1024\n1048576\n32768\t60999\n2\n");
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(l->open_files_soft, 1024u);
  EXPECT_EQ(l->open_files_hard, 1048576u);
  EXPECT_EQ(l->port_low, 32768u);
  EXPECT_EQ(l->port_high, 60999u);
  EXPECT_EQ(l->ports(), 28232u);
  EXPECT_EQ(l->cpus, 2);
  auto u = ParseLoadgenLimits("unlimited\nunlimited\n1024 65535\n8\n");
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_EQ(u->open_files_soft, std::numeric_limits<uint64_t>::max());
}

TEST(LoadgenLimits, BadProbeOutputNamesTheLine) {
  EXPECT_THAT(ParseLoadgenLimits("1024\n").error().message, HasSubstr("expected 4 lines"));
  EXPECT_THAT(ParseLoadgenLimits("lots\n1\n1 2\n1\n").error().message, HasSubstr("ulimit -Sn is \"lots\""));
  EXPECT_THAT(ParseLoadgenLimits("1\n1\n60999 32768\n1\n").error().message, HasSubstr("ip_local_port_range"));
  EXPECT_THAT(ParseLoadgenLimits("1\n1\n1 70000\n1\n").error().message, HasSubstr("ip_local_port_range"));
  EXPECT_THAT(ParseLoadgenLimits("1\n1\n1 2\n0\n").error().message, HasSubstr("nproc"));
}

LoadgenLimits Limits(uint64_t soft, uint64_t hard, uint32_t lo, uint32_t hi, int cpus) {
  LoadgenLimits l;
  l.open_files_soft = soft;
  l.open_files_hard = hard;
  l.port_low = lo;
  l.port_high = hi;
  l.cpus = cpus;
  return l;
}

TEST(LoadgenLimits, WrkOpenFilesAgainstTheSoftLimit) {
  LoadgenNeeds n{"wrk", 118, 100, 0};
  auto r = CheckLoadgenLimits("root@lg", n, Limits(64, 1 << 20, 32768, 60999, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, AllOf(HasSubstr("root@lg"), HasSubstr("needs 118 open files"),
                                       HasSubstr("100 connections"), HasSubstr("allows 64 (ulimit -Sn)")));
  EXPECT_TRUE(CheckLoadgenLimits("root@lg", n, Limits(118, 118, 32768, 60999, 2)).ok());
}

TEST(LoadgenLimits, K6OpenFilesAgainstTheHardLimit) {
  // Go raises the soft limit to the hard one at start: a low soft limit is fine.
  LoadgenNeeds n{"k6", 314, 250, 0};
  EXPECT_TRUE(CheckLoadgenLimits("lg", n, Limits(64, 4096, 32768, 60999, 2)).ok());
  auto r = CheckLoadgenLimits("lg", n, Limits(64, 256, 32768, 60999, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, AllOf(HasSubstr("needs 314 open files"), HasSubstr("allows 256 (ulimit -Hn)")));
}

TEST(LoadgenLimits, PortsAgainstTheEphemeralRange) {
  LoadgenNeeds n{"wrk", 1016, 1000, 0};
  auto r = CheckLoadgenLimits("lg", n, Limits(4096, 4096, 40000, 40499, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message,
              AllOf(HasSubstr("1000 connections need 1000 local ports"), HasSubstr("40000-40499 has 500")));
  EXPECT_TRUE(CheckLoadgenLimits("lg", n, Limits(4096, 4096, 40000, 40999, 2)).ok());
}

TEST(LoadgenLimits, PinnedCpusAgainstTheHost) {
  LoadgenNeeds n{"wrk", 20, 4, 4};
  auto r = CheckLoadgenLimits("lg", n, Limits(1024, 1024, 32768, 60999, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, AllOf(HasSubstr("names 4 CPUs"), HasSubstr("may use 2")));
  n.pinned_cpus = 2;
  EXPECT_TRUE(CheckLoadgenLimits("lg", n, Limits(1024, 1024, 32768, 60999, 2)).ok());
}

}  // namespace
}  // namespace fvbench::loadgen_limits_test
