// environment_lint: each rule on both sides of its bound, values not exposed
// never judged, and the severity of each rule.
#include "support/judge/environment_lint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::environment_lint_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using Severity = EnvironmentFinding::Severity;

HostEnvironment Env(const std::string& role, const std::string& key, const std::string& value) {
  HostEnvironment e{role, role == "sut" ? "sut.example" : "lg.example", {}};
  e.Set(key, value);
  return e;
}

EnvironmentNeeds Needs() {
  EnvironmentNeeds n;
  n.engine = "wrk";
  n.sut_connections = 400;
  n.host_connections = 400;
  n.process_open_files = 418;
  return n;
}

std::vector<EnvironmentFinding> Lint(const std::string& role, const std::string& key, const std::string& value,
                                     const EnvironmentNeeds& n = Needs()) {
  return LintEnvironments({Env(role, key, value)}, n);
}

TEST(EnvironmentLint, SomaxconnBelowTheConnectionsWarnsNamingTheSysctl) {
  auto f = Lint("sut", "somaxconn", "399");
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].host, "sut.example");
  EXPECT_EQ(f[0].key, "somaxconn");
  EXPECT_EQ(f[0].value, "399");
  EXPECT_THAT(f[0].message, HasSubstr("sysctl -w net.core.somaxconn=400"));
  EXPECT_THAT(f[0].message, HasSubstr("399"));
  EXPECT_FALSE(AnyRefusal(f));
  EXPECT_THAT(Lint("sut", "somaxconn", "400"), IsEmpty());
}

TEST(EnvironmentLint, SomaxconnNeedStopsAtTheListenBacklog) {
  EnvironmentNeeds n = Needs();
  n.sut_connections = 7500;
  auto f = Lint("sut", "somaxconn", "510", n);
  ASSERT_THAT(f, SizeIs(2));
  EXPECT_EQ(f[0].key, "NGINX_LISTEN_BACKLOG");
  EXPECT_THAT(f[1].message, HasSubstr("sysctl -w net.core.somaxconn=511"));
  EXPECT_THAT(Lint("sut", "somaxconn", "511", n), SizeIs(1));
}

TEST(EnvironmentLint, ListenBacklogBelowTheConnectionsWarnsNamingTheVariable) {
  EnvironmentNeeds n = Needs();
  n.listen_backlog = 2;
  auto f = Lint("sut", "somaxconn", "4096", n);
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_EQ(f[0].value, "2");
  EXPECT_THAT(f[0].message, HasSubstr("set NGINX_LISTEN_BACKLOG=400"));
  n.listen_backlog = 400;
  EXPECT_THAT(Lint("sut", "somaxconn", "4096", n), IsEmpty());
  n.listen_backlog = 2;
  EXPECT_THAT(Lint("loadgen", "somaxconn", "4096", n), IsEmpty());
}

TEST(EnvironmentLint, SynBacklogBelowTheConnectionsWarns) {
  auto f = Lint("sut", "tcp_max_syn_backlog", "128");
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_THAT(f[0].message, HasSubstr("sysctl -w net.ipv4.tcp_max_syn_backlog=400"));
  EXPECT_THAT(Lint("sut", "tcp_max_syn_backlog", "4096"), IsEmpty());
}

TEST(EnvironmentLint, QueueSysctlsOfALoadgenHostAreNotJudged) {
  EXPECT_THAT(Lint("loadgen", "somaxconn", "16"), IsEmpty());
}

TEST(EnvironmentLint, PortRangeNarrowerThanTheHostsConnectionsRefuses) {
  auto f = Lint("loadgen", "ip_local_port_range", "60000\t60398");  // 399 ports
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kRefuse);
  EXPECT_EQ(f[0].host, "lg.example");
  EXPECT_THAT(f[0].message, HasSubstr("399 local ports"));
  EXPECT_THAT(f[0].message, HasSubstr("400 connections"));
  EXPECT_THAT(f[0].message, HasSubstr("net.ipv4.ip_local_port_range"));
  EXPECT_TRUE(AnyRefusal(f));
  EXPECT_THAT(Lint("loadgen", "ip_local_port_range", "60000\t60399"), IsEmpty());
  EXPECT_THAT(Lint("sut", "ip_local_port_range", "60000\t60001"), IsEmpty());
}

TEST(EnvironmentLint, NofileBelowTheEnginesFilesRefusesForWrkWarnsForK6) {
  auto wrk = Lint("loadgen", "nofile", "417");
  ASSERT_THAT(wrk, SizeIs(1));
  EXPECT_EQ(wrk[0].severity, Severity::kRefuse);
  EXPECT_THAT(wrk[0].message, HasSubstr("418 open files"));
  EXPECT_THAT(wrk[0].message, HasSubstr("ulimit -n"));
  EXPECT_THAT(Lint("loadgen", "nofile", "418"), IsEmpty());
  EXPECT_THAT(Lint("loadgen", "nofile", "unlimited"), IsEmpty());

  EnvironmentNeeds k6 = Needs();
  k6.engine = "k6";
  auto f = Lint("loadgen", "nofile", "417", k6);
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_THAT(f[0].message, HasSubstr("hard one"));
}

TEST(EnvironmentLint, ThpAlwaysWarns) {
  auto f = Lint("sut", "thp_enabled", "always");
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_THAT(f[0].message, HasSubstr("madvise"));
  EXPECT_THAT(Lint("sut", "thp_enabled", "madvise"), IsEmpty());
  EXPECT_THAT(Lint("loadgen", "thp_enabled", "never"), IsEmpty());
}

TEST(EnvironmentLint, GovernorOtherThanPerformanceWarns) {
  auto f = Lint("loadgen", "cpu_governor", "powersave");
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_EQ(f[0].severity, Severity::kWarn);
  EXPECT_THAT(f[0].message, HasSubstr("powersave"));
  EXPECT_THAT(f[0].message, HasSubstr("cpupower frequency-set -g performance"));
  EXPECT_THAT(Lint("sut", "cpu_governor", "performance"), IsEmpty());
}

TEST(EnvironmentLint, ValuesNotExposedAreNeverJudged) {
  HostEnvironment sut{"sut", "s", {}};
  HostEnvironment lg{"loadgen", "l", {}};
  for (const char* k : {"somaxconn", "tcp_max_syn_backlog", "ip_local_port_range", "nofile", "thp_enabled",
                        "cpu_governor"}) {
    sut.Set(k, "");
    lg.Set(k, "");
  }
  EXPECT_THAT(LintEnvironments({sut, lg}, Needs()), IsEmpty());
  EXPECT_THAT(LintEnvironments({}, Needs()), IsEmpty());
}

TEST(EnvironmentLint, DescribeFindingSaysTheSeverity) {
  auto f = Lint("loadgen", "ip_local_port_range", "1 2");
  ASSERT_THAT(f, SizeIs(1));
  EXPECT_THAT(DescribeFinding(f[0]), ::testing::StartsWith("refused: loadgen lg.example: ip_local_port_range"));
  auto w = Lint("sut", "thp_enabled", "always");
  EXPECT_THAT(DescribeFinding(w[0]), ::testing::StartsWith("warning: sut sut.example: thp_enabled"));
}

}  // namespace
}  // namespace fvbench::environment_lint_test
