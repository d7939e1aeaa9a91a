// environment_drift: the lines naming what changed between two runs'
// environments, and the canonical text under the history's digest.
#include "support/judge/environment_drift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::environment_drift_test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

HostEnvironment Host(const std::string& role, const std::string& host,
                     std::vector<std::pair<std::string, std::string>> values) {
  HostEnvironment e{role, host, {}};
  for (auto& [k, v] : values) e.Set(k, v);
  return e;
}

TEST(EnvironmentDrift, NamesEachChangedValueByHost) {
  std::vector<HostEnvironment> a = {Host("sut", "local", {{"kernel_release", "6.1.0-18"}, {"somaxconn", "4096"}}),
                                    Host("loadgen", "local", {{"cpu_governor", ""}})};
  std::vector<HostEnvironment> b = {Host("sut", "local", {{"kernel_release", "6.8.0-31"}, {"somaxconn", "4096"}}),
                                    Host("loadgen", "local", {{"cpu_governor", "powersave"}})};
  EXPECT_THAT(EnvironmentChanges(a, b), ElementsAre("sut local: kernel_release 6.1.0-18 -> 6.8.0-31",
                                                    "loadgen local: cpu_governor not exposed -> powersave"));
  EXPECT_THAT(EnvironmentChanges(a, a), IsEmpty());
}

// Local mode records one machine as sut and as loadgen: a change of the
// machine is one line naming both roles; a change of one role's own value
// (nginx_build is read on the SUT's entry only) stays its own.
TEST(EnvironmentDrift, OneMachineUnderTwoRolesIsOneLine) {
  std::vector<HostEnvironment> a = {Host("sut", "local", {{"kernel_release", "6.1"}, {"nginx_build", "1.22"}}),
                                    Host("loadgen", "local", {{"kernel_release", "6.1"}})};
  std::vector<HostEnvironment> b = {Host("sut", "local", {{"kernel_release", "6.8"}, {"nginx_build", "1.24"}}),
                                    Host("loadgen", "local", {{"kernel_release", "6.8"}})};
  EXPECT_THAT(EnvironmentChanges(a, b),
              ElementsAre("sut+loadgen local: kernel_release 6.1 -> 6.8", "sut local: nginx_build 1.22 -> 1.24"));
  b[1].host = "lg1";  // another machine: its own line
  EXPECT_THAT(EnvironmentChanges(a, b), ElementsAre("sut local: kernel_release 6.1 -> 6.8",
                                                    "sut local: nginx_build 1.22 -> 1.24",
                                                    "loadgen lg1: in the later run only",
                                                    "loadgen local: in the earlier run only"));
}

TEST(EnvironmentDrift, KeysAndHostsOnOneSideOnly) {
  std::vector<HostEnvironment> a = {Host("sut", "s", {{"thp_enabled", "always"}}), Host("loadgen", "l1", {})};
  std::vector<HostEnvironment> b = {Host("sut", "s", {{"clocksource", "tsc"}}), Host("loadgen", "l2", {})};
  EXPECT_THAT(EnvironmentChanges(a, b),
              ElementsAre("sut s: clocksource not exposed -> tsc", "sut s: thp_enabled always -> not exposed",
                          "loadgen l2: in the later run only", "loadgen l1: in the earlier run only"));
}

TEST(EnvironmentDrift, ARunWithoutARecordedEnvironmentChangesNothing) {
  std::vector<HostEnvironment> a = {Host("sut", "s", {{"kernel_release", "6.1"}})};
  EXPECT_THAT(EnvironmentChanges({}, a), IsEmpty());
  EXPECT_THAT(EnvironmentChanges(a, {}), IsEmpty());
}

TEST(EnvironmentDrift, CanonicalTextIsOneLinePerValueWithNewlinesEscaped) {
  std::vector<HostEnvironment> a = {Host("sut", "s", {{"nginx_build", "nginx/1.25\nconfigure: --x"}, {"smt", ""}})};
  EXPECT_EQ(EnvironmentCanonicalText(a), "sut s\n  nginx_build=nginx/1.25\\nconfigure: --x\n  smt=\n");
  std::vector<HostEnvironment> b = {Host("sut", "s", {{"nginx_build", "nginx/1.25"}, {"configure: --x", ""}})};
  EXPECT_NE(EnvironmentCanonicalText(a), EnvironmentCanonicalText(b));
}

}  // namespace
}  // namespace fvbench::environment_drift_test
