// The engine built for the loadgen hosts (run/loadgen_processes.h): one
// engine for one process, else a multi-loadgen engine with one connection
// per further process on each host, each pinned to its own part of its
// host's cpuset. The split itself: loadgen_hosts_test.cc.
#include "support/run/loadgen_processes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/dry_run_host.h"

namespace fvbench::loadgen_processes_test {
namespace {

using ::testing::HasSubstr;

Config WrkConfig(int procs) {
  Config c;
  c.engine = Engine::kWrk;
  c.procs_per_host = procs;
  c.dry_run = true;
  return c;
}

LoadgenHost Entry(Host& h, std::vector<std::string> process_cpusets) {
  LoadgenHost lg;
  lg.target = h.name();
  lg.host = &h;
  lg.process_cpusets = std::move(process_cpusets);
  lg.cpuset = lg.process_cpusets.size() == 1 ? lg.process_cpusets.front() : "";
  return lg;
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
  const LoadgenHost three = Entry(loadgen, {"", "", ""});
  auto e = MakeLoadgenEngine(WrkConfig(3), {{&three, connect}}, "/s", "", owned);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ((*e)->name(), "wrk");
  EXPECT_EQ(opened, 2);
  EXPECT_EQ(owned.size(), 2u);

  LoadgenConnector failing = []() -> Result<std::unique_ptr<Host>> { return Error{"connection refused"}; };
  owned.clear();
  auto bad = MakeLoadgenEngine(WrkConfig(3), {{&three, failing}}, "/s", "", owned);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message,
              HasSubstr("LOADGEN_PROCS_PER_HOST=3: opening connection 2 to the loadgen host lg-host: connection refused"));

  opened = 0;
  const LoadgenHost one = Entry(loadgen, {""});
  auto single = MakeLoadgenEngine(WrkConfig(1), {{&one, connect}}, "/s", "", owned);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(opened, 0);
  // Two hosts with one process each: no further connection, two processes.
  DryRunHost second("lg-two", plan);
  const LoadgenHost two = Entry(second, {""});
  auto pair = MakeLoadgenEngine(WrkConfig(1), {{&one, connect}, {&two, connect}}, "/s", "", owned);
  ASSERT_TRUE(pair.ok()) << pair.error().message;
  EXPECT_EQ(opened, 0);
}

// Each process runs pinned to ITS part of ITS host's cpuset, and each host's
// clock is read once (the dry run records what would run, in order).
TEST(MakeLoadgenEngine, EachProcessOnItsHostsPart) {
  auto plan = std::make_shared<DryRunPlan>();
  DryRunHost a("lg-a", plan), b("lg-b", plan);
  std::vector<std::unique_ptr<Host>> owned;
  LoadgenConnector connect_a = [&]() -> Result<std::unique_ptr<Host>> {
    return std::unique_ptr<Host>(std::make_unique<DryRunHost>("lg-a", plan));
  };
  LoadgenConnector connect_b = [&]() -> Result<std::unique_ptr<Host>> {
    return std::unique_ptr<Host>(std::make_unique<DryRunHost>("lg-b", plan));
  };
  const LoadgenHost ea = Entry(a, {"8-11", "12-15"}), eb = Entry(b, {"4-5", "6-7"});
  auto e = MakeLoadgenEngine(WrkConfig(2), {{&ea, connect_a}, {&eb, connect_b}}, "/s", "", owned);
  ASSERT_TRUE(e.ok()) << e.error().message;
  LoadSpec s;
  s.phase = "p";
  s.url = "http://10.0.0.1:8082/";
  s.rate_rps = 1000;
  s.duration_s = 2;
  (void)(*e)->Run(s, "/r", ::testing::TempDir() + "/loadgen_processes_test");  // no outputs in a dry run
  std::string all;
  for (const std::string& l : plan->lines()) all += l + "\n";
  for (const char* cpus : {"8-11", "12-15", "4-5", "6-7"}) {
    EXPECT_THAT(all, HasSubstr(std::string("taskset -c ") + cpus + " wrk ")) << all;
  }
  EXPECT_THAT(all, HasSubstr("[lg-a] clock: 8 readings"));
  EXPECT_THAT(all, HasSubstr("[lg-b] clock: 8 readings"));
}

}  // namespace
}  // namespace fvbench::loadgen_processes_test
