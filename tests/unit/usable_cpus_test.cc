// The CPUs a process may use, probed over the Host interface (usable_cpus.h):
// the same answer through a shell on the host as from this process, and it
// follows the affinity (taskset / sched_setaffinity), not the online count.
#include "support/host/usable_cpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include "support/core/cpu_list.h"
#include "support/host/local_host.h"

namespace fvbench::usable_cpus_test {
namespace {

using ::testing::ElementsAre;

TEST(UsableCpusProbe, ParsesTheScriptsLines) {
  EXPECT_THAT(ParseUsableCpusProbe("x=1\ncpus_affinity=0-3\ncpus_cgroup=2-5\ncpus_online=8\n"), ElementsAre(2, 3));
  EXPECT_THAT(ParseUsableCpusProbe("cpus_affinity=\ncpus_cgroup=\ncpus_online=2\n"), ElementsAre(0, 1));
  EXPECT_TRUE(ParseUsableCpusProbe("").empty());
}

// Pinned to one CPU (as `taskset -c 0` would), this process and a shell it
// starts on the host both see one CPU, although more are online.
TEST(UsableCpusProbe, FollowsTheAffinityNotTheOnlineCount) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  const std::vector<int> all = UsableCpusOfThisProcess();
  ASSERT_FALSE(all.empty());
  LocalHost host;
  auto probed = ProbeUsableCpus(host);
  ASSERT_TRUE(probed.ok()) << probed.error().message;
  EXPECT_EQ(*probed, all);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(all.back(), &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  const std::vector<int> pinned = UsableCpusOfThisProcess();
  auto probed_pinned = ProbeUsableCpus(host);
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_THAT(pinned, ElementsAre(all.back()));
  ASSERT_TRUE(probed_pinned.ok());
  EXPECT_THAT(*probed_pinned, ElementsAre(all.back()));
  EXPECT_GE(sysconf(_SC_NPROCESSORS_ONLN), static_cast<long>(all.size()));
}

}  // namespace
}  // namespace fvbench::usable_cpus_test
