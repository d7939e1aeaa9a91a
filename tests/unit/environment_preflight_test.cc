// environment_preflight: the connections and open files the busiest phase of
// a scenario needs, per engine process, per loadgen host and at the SUT.
#include "support/run/environment_preflight.h"

#include <gtest/gtest.h>

namespace fvbench::environment_preflight_test {
namespace {

Config Base(Engine engine) {
  Config c;
  c.engine = engine;
  c.latency_rps = 10000;
  c.throughput_search_max = 40000;
  return c;
}

TEST(EnvironmentPreflight, TheBusiestPhaseIsTheScenarioKindsRate) {
  const Config c = Base(Engine::kK6);
  EXPECT_EQ(BusiestPhaseRate(c, ScenarioKind::kLatency), 10000);
  EXPECT_EQ(BusiestPhaseRate(c, ScenarioKind::kThroughput), 40000);
  EXPECT_EQ(BusiestPhaseRate(c, std::nullopt), 40000);
}

TEST(EnvironmentPreflight, K6OneProcessHoldsItsMaxVus) {
  const EnvironmentNeeds n = EnvironmentNeedsAt(Base(Engine::kK6), {}, 10000);  // pre 100, max 500
  EXPECT_EQ(n.engine, "k6");
  EXPECT_EQ(n.host_connections, 500u);
  EXPECT_EQ(n.sut_connections, 500u);
  EXPECT_EQ(n.process_open_files, 500u + 64u);
  EXPECT_EQ(n.listen_backlog, 511u);
}

TEST(EnvironmentPreflight, TheListenBacklogIsNginxListenBacklogWhenSet) {
  Config c = Base(Engine::kK6);
  c.nginx_listen_backlog = 2;
  EXPECT_EQ(EnvironmentNeedsAt(c, {}, 10000).listen_backlog, 2u);
}

TEST(EnvironmentPreflight, WrkUnpinnedCapsAtItsMaximum) {
  const EnvironmentNeeds n = EnvironmentNeedsAt(Base(Engine::kWrk), {}, 10000);  // 2000 -> 1000, 2 threads
  EXPECT_EQ(n.engine, "wrk");
  EXPECT_EQ(n.host_connections, 1000u);
  EXPECT_EQ(n.process_open_files, 1000u + 2u + 16u);
}

TEST(EnvironmentPreflight, ProcessesShareTheRateAndTheConnections) {
  Config c = Base(Engine::kK6);
  c.procs_per_host = 2;
  std::vector<LoadgenHost> hosts(2);
  EnvironmentNeeds n = EnvironmentNeedsAt(c, hosts, 40000);  // 4 processes at 10000: 500 each
  EXPECT_EQ(n.host_connections, 1000u);
  EXPECT_EQ(n.sut_connections, 2000u);
  EXPECT_EQ(n.process_open_files, 564u);
  c.connections = 300;  // 75 pre-allocated VUs each, 375 at most
  n = EnvironmentNeedsAt(c, hosts, 40000);
  EXPECT_EQ(n.host_connections, 750u);
  EXPECT_EQ(n.sut_connections, 1500u);
}

}  // namespace
}  // namespace fvbench::environment_preflight_test
