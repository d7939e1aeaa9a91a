// DescribeHop / CountSsSockets: connections per request and TIME_WAIT growth.
#include "support/judge/hop_connections.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fvbench::hop_connections_test {
namespace {

HopCounters At(uint64_t accepts, uint64_t requests, uint64_t time_wait) {
  HopCounters h;
  h.accepts = accepts;
  h.requests = requests;
  h.time_wait = time_wait;
  return h;
}

TEST(HopConnections, AConnectionPerRequestIsNamedWithItsCount) {
  ValidityCheck c = DescribeHop("loadgen -> fv", 8080, At(100, 200, 12), At(30112, 30210, 28011));
  EXPECT_EQ(c.name, "hop_connections");
  EXPECT_TRUE(c.informational);
  EXPECT_DOUBLE_EQ(c.measured, 30012.0 / 30010.0);
  EXPECT_EQ(c.detail,
            "loadgen -> fv :8080: 30012 new connections for 30010 requests (1.00 per request: a connection per "
            "request); TIME_WAIT on :8080 12 -> 28011 (+27999)");
}

TEST(HopConnections, KeepAliveShowsAFewConnections) {
  ValidityCheck c = DescribeHop("fv -> backend", 8081, At(5, 10, 3), At(69, 30010, 2));
  EXPECT_NEAR(c.measured, 64.0 / 30000.0, 1e-12);
  EXPECT_EQ(c.detail, "fv -> backend :8081: 64 new connections for 30000 requests (0.0021 per request); "
                      "TIME_WAIT on :8081 3 -> 2 (-1)");
}

TEST(HopConnections, UnknownOrRestartedCountersAreNotGuessed) {
  HopCounters none;
  ValidityCheck c = DescribeHop("loadgen -> fv", 8080, none, At(1, 2, 3));
  EXPECT_TRUE(std::isnan(c.measured));
  EXPECT_EQ(c.detail, "loadgen -> fv :8080: connections per request n/a (stub_status not read before and after); "
                      "TIME_WAIT on :8080 n/a (ss not read)");
  c = DescribeHop("loadgen -> fv", 8080, At(500, 900, 0), At(10, 20, 0));  // the nginx restarted
  EXPECT_TRUE(std::isnan(c.measured));
}

TEST(HopConnections, SsLinesAreSockets) {
  EXPECT_EQ(CountSsSockets(""), 0u);
  EXPECT_EQ(CountSsSockets("\n  \n"), 0u);
  EXPECT_EQ(CountSsSockets("TIME-WAIT 0 0 127.0.0.1:8080 127.0.0.1:51234\n"
                           "TIME-WAIT 0 0 127.0.0.1:8080 127.0.0.1:51236"),
            2u);
}

}  // namespace
}  // namespace fvbench::hop_connections_test
