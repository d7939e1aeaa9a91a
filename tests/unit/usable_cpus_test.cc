// The CPUs a process may use, probed over the Host interface (usable_cpus.h):
// the same answer through a shell on the host as from this process, and it
// follows the affinity (taskset / sched_setaffinity), not the online count.
#include "support/host/usable_cpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <thread>

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

// The controller's own pinning (Testbed::KeepControllerOffSutCpus): the
// thread and a shell it starts afterwards run on the CPUs given, and a CPU
// the kernel cannot take is refused naming the list.
TEST(RunThisThreadOn, TheThreadAndWhatItStartsKeepTheSet) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  const std::vector<int> all = UsableCpusOfThisProcess();
  ASSERT_FALSE(all.empty());
  // The CPUs outside a SUT cpuset of the first usable CPU (all of them when only one is usable).
  std::vector<int> off = CpusOutside(all, {all.front()});
  if (off.empty()) off = all;
  ASSERT_TRUE(RunThisThreadOn(off).ok());
  const std::vector<int> now = UsableCpusOfThisProcess();
  LocalHost host;
  auto child = ProbeUsableCpus(host);
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(now, off);
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(*child, off);
  auto bad = RunThisThreadOn({CPU_SETSIZE});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, testing::HasSubstr("outside cpu_set_t"));
  // Every thread of the process, one started before included.
  std::vector<int> seen;
  std::thread before([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // moved meanwhile
    seen = UsableCpusOfThisProcess();
  });
  ASSERT_TRUE(RunThisProcessOn(off).ok());
  before.join();
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  EXPECT_EQ(seen, off);
  auto offline = RunThisThreadOn({CPU_SETSIZE - 1});  // no such CPU on this machine
  ASSERT_FALSE(offline.ok());
  EXPECT_THAT(offline.error().message, testing::HasSubstr("sched_setaffinity to CPUs 1023"));
  EXPECT_EQ(UsableCpusOfThisProcess(), all);
}

TEST(CpusOutside, SetDifference) {
  EXPECT_THAT(CpusOutside({0, 1, 2, 3}, {1, 3}), ElementsAre(0, 2));
  EXPECT_TRUE(CpusOutside({0, 1}, {0, 1, 2}).empty());
  EXPECT_THAT(CpusOutside({4, 5}, {}), ElementsAre(4, 5));
}

}  // namespace
}  // namespace fvbench::usable_cpus_test
