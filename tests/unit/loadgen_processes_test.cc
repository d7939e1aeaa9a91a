// LOADGEN_PROCS_PER_HOST: how many engine processes share a phase and which
// CPUs each gets (run/loadgen_processes.h), and the engine built for them.
#include "support/run/loadgen_processes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/dry_run_host.h"

namespace fvbench::loadgen_processes_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Config WrkConfig(int procs, const std::string& cpuset) {
  Config c;
  c.engine = Engine::kWrk;
  c.procs_per_host = procs;
  c.k6_cpuset = cpuset;
  return c;
}

TEST(ProcessCpusets, EachProcessGetsItsPartOfTheEngineCpuset) {
  EXPECT_THAT(*ProcessCpusets(WrkConfig(1, "0-3")), ElementsAre("0-3"));
  EXPECT_THAT(*ProcessCpusets(WrkConfig(2, "0-3")), ElementsAre("0-1", "2-3"));
  EXPECT_THAT(*ProcessCpusets(WrkConfig(3, "4-8")), ElementsAre("4-5", "6-7", "8"));
  EXPECT_THAT(*ProcessCpusets(WrkConfig(2, "")), ElementsAre("", ""));  // unpinned
}

TEST(ProcessCpusets, RefusesMoreProcessesThanCpus) {
  auto few = ProcessCpusets(WrkConfig(3, "0-1"));
  ASSERT_FALSE(few.ok());
  EXPECT_THAT(few.error().message, HasSubstr("LOADGEN_PROCS_PER_HOST=3 but K6_CPUSET=0-1 has 2 CPU(s)"));
}

// Several k6 instances (execution segments, paused start) share a phase
// like wrk processes: the same CPU split, on one host or several.
TEST(ProcessCpusets, SeveralK6InstancesAsForWrk) {
  Config k6 = WrkConfig(2, "0-3");
  k6.engine = Engine::kK6;
  EXPECT_THAT(*ProcessCpusets(k6), ElementsAre("0-1", "2-3"));
  k6.loadgen_remotes = {"root@a", "root@b"};
  EXPECT_THAT(*ProcessCpusets(k6), ElementsAre("0-1", "2-3"));
  k6.k6_cpuset = "0";
  EXPECT_FALSE(ProcessCpusets(k6).ok());
}

// Two processes: one on the given host, one on a connection from the
// connector; a connector that fails names the connection and the host.
TEST(MakeLoadgenEngine, OpensOneConnectionPerFurtherProcess) {
  auto plan = std::make_shared<DryRunPlan>();
  DryRunHost loadgen("lg-host", plan);
  std::vector<std::unique_ptr<Host>> owned;
  int opened = 0;
  LoadgenConnector connect = [&]() -> Result<std::unique_ptr<Host>> {
    ++opened;
    return std::unique_ptr<Host>(std::make_unique<DryRunHost>("lg-host", plan));
  };
  Config c = WrkConfig(3, "");
  c.dry_run = true;
  auto e = MakeLoadgenEngine(c, {{&loadgen, connect}}, "/s", owned);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ((*e)->name(), "wrk");
  EXPECT_EQ(opened, 2);
  EXPECT_EQ(owned.size(), 2u);

  LoadgenConnector failing = []() -> Result<std::unique_ptr<Host>> { return Error{"connection refused"}; };
  owned.clear();
  auto bad = MakeLoadgenEngine(c, {{&loadgen, failing}}, "/s", owned);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message,
              HasSubstr("LOADGEN_PROCS_PER_HOST=3: opening connection 2 to the loadgen host lg-host: connection refused"));

  c.procs_per_host = 1;
  opened = 0;
  auto one = MakeLoadgenEngine(c, {{&loadgen, connect}}, "/s", owned);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(opened, 0);
  // Two hosts with one process each: no further connection, two processes.
  DryRunHost second("lg-two", plan);
  auto two = MakeLoadgenEngine(c, {{&loadgen, connect}, {&second, connect}}, "/s", owned);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(opened, 0);
}

}  // namespace
}  // namespace fvbench::loadgen_processes_test
