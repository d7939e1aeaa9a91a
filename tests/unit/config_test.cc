#include "support/core/config.h"
#include "support/core/run_plan.h"

#include <gtest/gtest.h>

#include <ostream>
#include <tuple>

namespace fvbench::config_test {
namespace {

ConfigInputs Inputs(EnvMap env, int cores = 2) {
  ConfigInputs in;
  in.env = std::move(env);
  in.source_dir = "/src";
  in.cores = cores;
  in.file_exists = [](const std::string&) { return true; };
  return in;
}

TEST(Config, SeedDefaults) {
  auto c = LoadConfig(Inputs({}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->fv_port, 8080);
  EXPECT_EQ(c->backend_port, 8081);
  EXPECT_EQ(c->nginx_port, 8082);
  EXPECT_EQ(c->latency_rps, 10000);
  EXPECT_EQ(c->latency_dur_s, 60);
  EXPECT_EQ(c->warmup_dur_s, 10);
  EXPECT_EQ(c->throughput_search_max, 150000);
  EXPECT_EQ(c->bench_dir, "/tmp/fv-bench-0");  // one per user: the uid fvbench runs as
  EXPECT_EQ(c->fv_dir, "/opt/fairvisor");
  EXPECT_EQ(c->k6_version, "v0.54.0");
  EXPECT_EQ(c->engine, Engine::kK6);
  EXPECT_EQ(c->fairvisor_target_host, "127.0.0.1");
  EXPECT_EQ(c->policy_dir, "/src/fixtures/policies");
  EXPECT_TRUE(c->oresty_cpuset.empty());
  EXPECT_FALSE(c->remote());
}

// BENCH_DIR's default is the user's own (/tmp/fv-bench-<uid>), never one
// shared /tmp/fv-bench another user could make first.
TEST(Config, BenchDirDefaultIsPerUser) {
  ConfigInputs in = Inputs({});
  in.uid = 1000;
  auto c = LoadConfig(in);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->bench_dir, "/tmp/fv-bench-1000");
  auto empty = LoadConfig([&] {
    ConfigInputs e = Inputs({{"BENCH_DIR", ""}});
    e.uid = 1000;
    return e;
  }());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("unset it to use the default /tmp/fv-bench-1000"), std::string::npos)
      << empty.error().message;
}

// Validity bounds and progress lines are read once, here, not by the
// scenario runner: LoadConfig carries them and refuses bad values.
TEST(Config, ReadsValidityAndProgressSettings) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->validity.mode, ValidityMode::kFail);
  EXPECT_DOUBLE_EQ(d->validity.max_loadgen_busy, 0.80);
  EXPECT_FALSE(d->progress.period_s.has_value());
  auto c = LoadConfig(Inputs({{"VALIDITY", "warn"}, {"LOADGEN_MAX_BUSY", "0.9"}, {"FVBENCH_PROGRESS_S", "0"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->validity.mode, ValidityMode::kWarn);
  EXPECT_DOUBLE_EQ(c->validity.max_loadgen_busy, 0.9);
  ASSERT_TRUE(c->progress.period_s.has_value());
  EXPECT_EQ(*c->progress.period_s, 0);
  auto bad_validity = LoadConfig(Inputs({{"VALIDITY", "maybe"}}));
  ASSERT_FALSE(bad_validity.ok());
  EXPECT_NE(bad_validity.error().message.find("VALIDITY='maybe'"), std::string::npos);
  auto bad_progress = LoadConfig(Inputs({{"FVBENCH_PROGRESS_S", "-1"}}));
  ASSERT_FALSE(bad_progress.ok());
  EXPECT_NE(bad_progress.error().message.find("FVBENCH_PROGRESS_S='-1'"), std::string::npos);
}

TEST(Config, AutoSplitsCpusetsAtEightCores) {
  auto c = LoadConfig(Inputs({}, 8));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->oresty_cpuset, "0-3");
  EXPECT_EQ(c->loadgen_cpuset, "4-7");
  EXPECT_TRUE(c->cpusets_auto);
  auto seven = LoadConfig(Inputs({}, 7));
  EXPECT_TRUE(seven->oresty_cpuset.empty());
  auto explicit_set = LoadConfig(Inputs({{"ORESTY_CPUSET", "0"}, {"K6_CPUSET", "1"}}, 16));
  EXPECT_EQ(explicit_set->oresty_cpuset, "0");
  EXPECT_EQ(explicit_set->loadgen_cpuset, "1");
  EXPECT_FALSE(explicit_set->cpusets_auto);
}

TEST(Config, InfersTargetHostFromRemote) {
  auto c = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "ubuntu@10.9.8.7"}, {"LOADGEN_REMOTE", "lg"}}));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->fairvisor_target_host, "10.9.8.7");
  EXPECT_TRUE(c->remote());
}

// The target host taken from FAIRVISOR_REMOTE follows the ssh destination's
// grammar (host/ssh_target.h ParseDestination): an IPv6 SUT, bracketed or bare,
// is a bracketed URL host. Seen: root@[::1]:22 gave the target '[', root@fd00::2
// gave 'fd00', and the load would have gone there.
TEST(Config, InfersTargetHostFromAnIpv6Remote) {
  for (auto [remote, want] : {std::pair{"root@[::1]:22", "[::1]"}, std::pair{"root@[fd00::2]", "[fd00::2]"},
                              std::pair{"root@fd00::2", "[fd00::2]"}, std::pair{"fd00::2", "[fd00::2]"},
                              std::pair{"root@sut-host:2222", "sut-host"}, std::pair{"10.9.8.7", "10.9.8.7"}}) {
    auto c = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", remote}, {"LOADGEN_REMOTE", "lg"}}));
    ASSERT_TRUE(c.ok()) << remote << ": " << c.error().message;
    EXPECT_EQ(c->fairvisor_target_host, want) << remote;
  }
}

// A bad host in FAIRVISOR_REMOTE is named as the variable the user set, not
// as FAIRVISOR_TARGET_HOST, which they did not.
TEST(Config, BadTargetHostFromRemoteNamesTheRemote) {
  auto c = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@h;id"}, {"LOADGEN_REMOTE", "lg"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("FAIRVISOR_TARGET_HOST='h;id': expected a host name"),
            std::string::npos)
      << c.error().message;
  EXPECT_NE(c.error().message.find("(not set: the host of FAIRVISOR_REMOTE='root@h;id')"), std::string::npos)
      << c.error().message;
}

// A phase shared by several engine processes gives each enough requests to
// be judged on its own (core/loadgen_share.h), or the run is refused before
// any host is touched, naming the numbers. Seen: LOADGEN_PROCS_PER_HOST=7 at
// LATENCY_RPS=5 for 2 s ran and failed every phase on an internal check;
// 3 processes at 500 RPS each get 333 requests in 2 s and run.
TEST(Config, SharedLatencyPhaseGivesEachProcessEnoughRequests) {
  auto seven = LoadConfig(Inputs({{"LOADGEN_PROCS_PER_HOST", "7"}, {"LATENCY_RPS", "5"}, {"LATENCY_DUR", "2"}}));
  ASSERT_FALSE(seven.ok());
  EXPECT_NE(seven.error().message.find("LATENCY_RPS=5 x LATENCY_DUR=2 s (LOADGEN_PROCS_PER_HOST=7 x 1 loadgen host) "
                                       "split over 7 engine processes gives each 1.4 requests in its window; each "
                                       "needs at least 100"),
            std::string::npos)
      << seven.error().message;
  EXPECT_NE(seven.error().message.find("it is too small to share"), std::string::npos) << seven.error().message;
  auto hosts = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"},
                                  {"LOADGEN_REMOTE", "root@a,root@b"},
                                  {"LOADGEN_PROCS_PER_HOST", "3"},
                                  {"LATENCY_RPS", "500"},
                                  {"LATENCY_DUR", "1"}}));
  ASSERT_FALSE(hosts.ok());
  EXPECT_NE(hosts.error().message.find("(LOADGEN_PROCS_PER_HOST=3 x 2 loadgen hosts) split over 6 engine processes "
                                       "gives each 83 requests"),
            std::string::npos)
      << hosts.error().message;
  EXPECT_NE(hosts.error().message.find("at most 5 processes could share it"), std::string::npos);
  EXPECT_TRUE(LoadConfig(Inputs({{"LOADGEN_PROCS_PER_HOST", "3"}, {"LATENCY_RPS", "500"}, {"LATENCY_DUR", "2"}})).ok());
  // One process is never refused: nothing is split.
  EXPECT_TRUE(LoadConfig(Inputs({{"LATENCY_RPS", "5"}, {"LATENCY_DUR", "2"}})).ok());
}

// Several loadgen hosts: LOADGEN_REMOTE is a comma-separated list.
TEST(Config, LoadgenRemoteListsSeveralHosts) {
  auto c = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1, root@lg2,root@lg3"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->loadgen_remotes, (std::vector<std::string>{"root@lg1", "root@lg2", "root@lg3"}));
  EXPECT_EQ(c->LoadgenRemoteText(), "root@lg1,root@lg2,root@lg3");
  EXPECT_EQ(c->LoadgenProcesses(), 3u);
  auto one = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1"}}));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->loadgen_remotes, (std::vector<std::string>{"root@lg1"}));
  auto empty = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1,,root@lg2"}}));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("LOADGEN_REMOTE='root@lg1,,root@lg2': target 2 is empty"), std::string::npos)
      << empty.error().message;
  auto twice = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1,root@lg1"}}));
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("root@lg1 is given twice"), std::string::npos) << twice.error().message;
  EXPECT_FALSE(LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1,"}})).ok());
  // One host in two spellings (fresh-user trial): case, ssh's default port, another user.
  for (const char* list : {"a,A", "root@a:22,root@a", "root@lg1,ubuntu@LG1", "root@[::1]:22,root@[::1]"}) {
    auto same = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", list}}));
    ASSERT_FALSE(same.ok()) << list;
    EXPECT_NE(same.error().message.find("is given twice (as "), std::string::npos) << same.error().message;
  }
  EXPECT_TRUE(LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@a:2222,root@a"}})).ok());
}

// THROUGHPUT_SLO_P99_MS=5000 was accepted with wrk's 2 s
// timeout, a gate that could never fail. The SLO must lie below the engine's
// request timeout (wrk: fvbench sets 10 s; k6: 60 s).
TEST(Config, SloAtOrAboveTheEnginesRequestTimeoutIsRefused) {
  auto wrk = LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {"THROUGHPUT_SLO_P99_MS", "10000"}}));
  ASSERT_FALSE(wrk.ok());
  EXPECT_NE(wrk.error().message.find("THROUGHPUT_SLO_P99_MS=10000: at or above wrk's request timeout of 10000 ms"),
            std::string::npos)
      << wrk.error().message;
  EXPECT_TRUE(LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {"THROUGHPUT_SLO_P99_MS", "5000"}})).ok());
  EXPECT_FALSE(LoadConfig(Inputs({{"LOADGEN_ENGINE", "k6"}, {"THROUGHPUT_SLO_P99_MS", "60000"}})).ok());
  EXPECT_TRUE(LoadConfig(Inputs({{"LOADGEN_ENGINE", "k6"}, {"THROUGHPUT_SLO_P99_MS", "59000"}})).ok());
}

// wrk's -d takes whole seconds: LATENCY_DUR=1.5 ran 2 s while the report said
// 1.5 s and the extra second counted as fixed cost (fresh-user trial).
TEST(Config, FractionalDurationsAreRefusedForWrkOnly) {
  for (const char* name : {"LATENCY_DUR", "WARMUP_DUR", "STEP_DUR", "CONFIRM_DUR", "LIMITS_DUR"}) {
    // CONFIRM_DUR with 2 s steps: a confirmation no shorter than the steps
    // (CheckSearchLengths).
    const bool confirm = std::string(name) == "CONFIRM_DUR";
    const char* other = confirm ? "STEP_DUR" : "LATENCY_RPS";
    const std::string other_value = confirm ? "2" : "100";
    auto wrk = LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {other, other_value}, {name, "2.5"}}));
    ASSERT_FALSE(wrk.ok()) << name;
    EXPECT_NE(wrk.error().message.find(std::string(name) + "=2.5: wrk runs whole seconds (its -d), so it would run 3 s; "
                                                           "use 2 or 3"),
              std::string::npos)
        << wrk.error().message;
    EXPECT_TRUE(LoadConfig(Inputs({{"LOADGEN_ENGINE", "k6"}, {other, other_value}, {name, "2.5"}})).ok()) << name;
    // Below 1 s only 1 is suggested: 0 is refused for a phase (second trial).
    if (std::string(name) == "LATENCY_DUR") {
      auto half = LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {name, "0.5"}}));
      ASSERT_FALSE(half.ok());
      EXPECT_NE(half.error().message.find("LATENCY_DUR=0.5: wrk runs whole seconds (its -d), so it would run 1 s; "
                                          "use 1 (k6"),
                std::string::npos)
          << half.error().message;
    }
    EXPECT_TRUE(LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {other, other_value}, {name, "3"}})).ok()) << name;
  }
}

struct BadValue {
  const char* var;
  const char* value;
  const char* expect;  // substring of the error
};
// gtest prints a parameter with this (test lists, failures), not as raw bytes.
void PrintTo(const BadValue& b, std::ostream* os) { *os << b.var << "=" << b.value; }

class ConfigRejects : public ::testing::TestWithParam<BadValue> {};

// The bisect search's lengths as it will run them (CheckSearchLengths): a
// budget shorter than two first steps and a confirmation is refused, with
// the step lengths set (STEP_DUR / CONFIRM_DUR) and taken from the budget
// alike (the fresh-user trial: THROUGHPUT_BUDGET_S=5 ran the warmup and then
// no step); a confirmation shorter than a step is refused.
// A huge budget is refused by its own maximum, named, before anything is
// derived from it (THROUGHPUT_BUDGET_S=1e9 was refused by the scenario time
// bound: "0 x confirmation 40 + 142857143 phases ..."; without
// FVBENCH_SCENARIO_TIMEOUT_S it was accepted).
TEST(Config, ABudgetAboveTheMaximumIsRefusedNamingIt) {
  for (const char* v : {"1e9", "86401", "1e300"}) {
    auto c = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", v}, {"FVBENCH_SCENARIO_TIMEOUT_S", "7200"}}));
    ASSERT_FALSE(c.ok()) << v;
    EXPECT_EQ(c.error().message.find(std::string("THROUGHPUT_BUDGET_S='") + v + "': "), 0u) << c.error().message;
    EXPECT_NE(c.error().message.find("is above 86400 (expected seconds > 0, at most 86400 = 24 h"), std::string::npos)
        << c.error().message;
    auto no_timeout = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", v}, {"THROUGHPUT_SEARCH", "seed"}}));
    EXPECT_FALSE(no_timeout.ok()) << v;
  }
  EXPECT_TRUE(LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "86400"}})).ok());
}

TEST(Config, SearchLengthsThatCannotRunAreRefused) {
  auto set = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "30"}, {"STEP_DUR", "20"}}));
  ASSERT_FALSE(set.ok());
  EXPECT_NE(set.error().message.find("THROUGHPUT_BUDGET_S='30': shorter than two 20 s steps (STEP_DUR) and a 40 s "
                                     "confirmation, plus 1 s for their overrun: at least 81 s"),
            std::string::npos)
      << set.error().message;
  auto from_budget = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "30"}}));
  ASSERT_TRUE(from_budget.ok()) << from_budget.error().message;
  EXPECT_FALSE(from_budget->step_dur_s.has_value());  // lengths from the budget
  // From the budget: 2 s probes and a 4 s confirmation need 9 s.
  auto tiny = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "5"}}));
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message.find("THROUGHPUT_BUDGET_S='5': shorter than two 2 s probes and a 4 s confirmation, "
                                      "plus 1 s for their overrun: at least 9 s"),
            std::string::npos)
      << tiny.error().message;
  EXPECT_FALSE(LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "8"}})).ok());
  EXPECT_TRUE(LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "9"}})).ok());
  // Set lengths that leave no time for the confirmation.
  EXPECT_FALSE(LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "5"}, {"STEP_DUR", "2"}, {"CONFIRM_DUR", "3"}})).ok());
  EXPECT_TRUE(LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "8"}, {"STEP_DUR", "2"}, {"CONFIRM_DUR", "3"}})).ok());
  // A confirmation shorter than the steps, set or from the budget.
  auto short_confirm = LoadConfig(Inputs({{"STEP_DUR", "3"}, {"CONFIRM_DUR", "2"}}));
  ASSERT_FALSE(short_confirm.ok());
  EXPECT_NE(short_confirm.error().message.find("CONFIRM_DUR='2': shorter than STEP_DUR=3; the confirmation is the "
                                               "longer run that shows the rate holds"),
            std::string::npos)
      << short_confirm.error().message;
  auto short_auto = LoadConfig(Inputs({{"CONFIRM_DUR", "4"}}));
  ASSERT_FALSE(short_auto.ok());
  EXPECT_NE(short_auto.error().message.find("CONFIRM_DUR='4': shorter than the 10 s steps taken from "
                                            "THROUGHPUT_BUDGET_S=120"),
            std::string::npos)
      << short_auto.error().message;
  // The seed search has no confirmation and no budget: not checked.
  EXPECT_TRUE(LoadConfig(Inputs({{"THROUGHPUT_SEARCH", "seed"}, {"THROUGHPUT_BUDGET_S", "5"}})).ok());
}

// CONFIRM_DUR alone keeps the probes and steps from the budget (it switched
// to the seed's 20 s steps: the fresh-user trial's CONFIRM_DUR=4
// THROUGHPUT_BUDGET_S=30 ran one 20 s step and stopped).
TEST(Config, ConfirmDurAloneKeepsStepsFromTheBudget) {
  auto c = LoadConfig(Inputs({{"CONFIRM_DUR", "4"}, {"THROUGHPUT_BUDGET_S", "30"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->step_dur_s.has_value());
  EXPECT_EQ(c->confirm_dur_s, 4);
  EXPECT_TRUE(RunPlanOf(*c).search.lengths_from_budget);
}

TEST_P(ConfigRejects, NamesVariableAndValue) {
  const BadValue& b = GetParam();
  auto c = LoadConfig(Inputs({{b.var, b.value}}));
  ASSERT_FALSE(c.ok()) << b.var << "=" << b.value << " was accepted";
  EXPECT_NE(c.error().message.find(b.var), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find(std::string("'") + b.value + "'"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find(b.expect), std::string::npos) << c.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    BadValues, ConfigRejects,
    ::testing::Values(BadValue{"LATENCY_RPS", "10k", "not a number"},
                      BadValue{"LATENCY_RPS", "-5", "must be > 0"},
                      BadValue{"LATENCY_DUR", "nan", "not a number"},
                      BadValue{"FV_PORT", "70000", "out of range"},
                      BadValue{"NGINX_PORT", "80x", "not an integer"},
                      BadValue{"LOADGEN_ENGINE", "jmeter", "unknown engine"},
                      BadValue{"BENCH_DIR", "/", "root"},
                      BadValue{"BENCH_DIR", "relative/dir", "absolute"},
                      BadValue{"BENCH_DIR", "/tmp/..", "root"},
                      BadValue{"BENCH_DIR", "/.", "root"},
                      BadValue{"BENCH_DIR", "/tmp/my bench", "whitespace"},
                      BadValue{"BENCH_DIR", "", "set but empty; unset it to use the default /tmp/fv-bench-0"},
                      BadValue{"FV_DIR", "", "set but empty; unset it to use the default /opt/fairvisor"},
                      BadValue{"LATENCY_RPS", "", "set but empty; unset it to use the default 10000"},
                      BadValue{"REPEAT", "", "set but empty; unset it to use the default 1"},
                      BadValue{"THROUGHPUT_BUDGET_S", "", "set but empty; unset it to use the default 120"},
                      BadValue{"ORESTY_CPUSET", "7", "does not exist"},
                      BadValue{"K6_CPUSET", "0-2", "does not exist"},
                      BadValue{"FVBENCH_THRESHOLDS", "thresholds/ci-small.json", "absolute"},
                      BadValue{"FVBENCH_POLICY_DIR", "fixtures/policies", "absolute"},
                      BadValue{"FVBENCH_HISTORY", "history.db", "must be an absolute path (tests run in the build tree"},
                      BadValue{"ORESTY_CPUSET", "0-", "cpu list"},
                      BadValue{"DRY_RUN", "yes", "0 or 1"},
                      BadValue{"NGINX_RUNTIME", "apache", "expected auto"},
                      BadValue{"K6_SOURCE", "github", "expected repo"},
                      BadValue{"K6_VER", "0.54.0", "a k6 release tag v<major>.<minor>.<patch>"},
                      BadValue{"K6_VER", "v0.54.0; rm -rf /", "a k6 release tag"},
                      BadValue{"FAIRVISOR_LOG_LEVEL", "verbose", "error_log level"},
                      BadValue{"NGINX_LISTEN_BACKLOG", "0", "out of range 1..65535"},
                      BadValue{"NGINX_LISTEN_BACKLOG", "65536", "out of range 1..65535"},
                      BadValue{"NGINX_LISTEN_BACKLOG", "2k", "not an integer"},
                      BadValue{"FAIRVISOR_EDGE_SRC", "edge", "git URL or an absolute path"},
                      BadValue{"THROUGHPUT_SEARCH", "binary", "expected bisect or seed"},
                      BadValue{"THROUGHPUT_START", "0", "must be > 0"},
                      BadValue{"THROUGHPUT_START", "200000", "above THROUGHPUT_SEARCH_MAX"},
                      BadValue{"THROUGHPUT_RESOLUTION", "2%", "not a number"},
                      BadValue{"THROUGHPUT_RESOLUTION", "2", "must be <= 0.5"},
                      BadValue{"CONFIRM_DUR", "-1", "must be > 0"},
                      BadValue{"REPEAT", "0", "out of range"},
                      BadValue{"REPEAT", "3x", "not an integer"},
                      BadValue{"LOADGEN_PROCS_PER_HOST", "0", "out of range"},
                      BadValue{"LOADGEN_PROCS_PER_HOST", "65", "out of range"},
                      BadValue{"LOADGEN_PROCS_PER_HOST", "2.5", "not an integer"},
                      // Long durations: 1e16 planned a timeout of
                      // -8446744073709521616 ms, 1e300 ran `wrk -d-9223372036854775808s`.
                      BadValue{"LATENCY_DUR", "1e16", "1e+16 is above 1000000000 (expected seconds > 0"},
                      BadValue{"LATENCY_DUR", "1e300", "1e+300 is above 1000000000"},
                      BadValue{"LATENCY_DUR", "5e-324", "is subnormal"},
                      BadValue{"WARMUP_DUR", "1e16", "is above 1000000000"},
                      BadValue{"STEP_DUR", "1e300", "is above 1000000000"},
                      BadValue{"CONFIRM_DUR", "1e16", "is above 1000000000"},
                      BadValue{"THROUGHPUT_BUDGET_S", "1e300", "is above 86400"},
                      BadValue{"HEALTH_TIMEOUT", "1e16", "is above 1000000000"},
                      BadValue{"LATENCY_RPS", "1e300", "is above 1000000000 (expected requests per second"},
                      BadValue{"THROUGHPUT_SEARCH_MAX", "1e16", "is above 1000000000"},
                      BadValue{"THROUGHPUT_SLO_P99_MS", "1e300", "is above 1000000000000"}));

// LATENCY_DUR=86400 was accepted although
// the scenario's ctest TIMEOUT is 7200 s (ctest would kill it after 2 h).
// Under ctest (FVBENCH_SCENARIO_TIMEOUT_S) durations that cannot finish within
// the TIMEOUT are refused, naming both numbers and how to raise it.
TEST(Config, DurationsThatCannotFinishWithinTheCtestTimeoutAreRefused) {
  auto day = LoadConfig(Inputs({{"LATENCY_DUR", "86400"}, {"WARMUP_DUR", "1"}, {"LATENCY_RPS", "300"},
                                {"FVBENCH_SCENARIO_TIMEOUT_S", "7200"}}));
  ASSERT_FALSE(day.ok()) << "LATENCY_DUR=86400 under a 7200 s TIMEOUT was accepted";
  const std::string& m = day.error().message;
  EXPECT_NE(m.find("latency scenarios need up to 86596 s (WARMUP_DUR 1 + REPEAT 1 x LATENCY_DUR 86400 + "), std::string::npos) << m;
  EXPECT_NE(m.find("above their ctest TIMEOUT of 7200 s"), std::string::npos) << m;
  EXPECT_NE(m.find("cmake --preset default -DFVBENCH_SCENARIO_TIMEOUT=86596"), std::string::npos) << m;
  // A soak run configured for it: accepted.
  auto soak = LoadConfig(Inputs({{"LATENCY_DUR", "86400"}, {"WARMUP_DUR", "1"}, {"FVBENCH_SCENARIO_TIMEOUT_S", "90000"}}));
  EXPECT_TRUE(soak.ok()) << soak.error().message;
  // Throughput: the budget counts, REPEAT's extra confirmations on top.
  auto search = LoadConfig(Inputs({{"THROUGHPUT_BUDGET_S", "7200"}, {"FVBENCH_SCENARIO_TIMEOUT_S", "7200"}}));
  ASSERT_FALSE(search.ok());
  EXPECT_NE(search.error().message.find("throughput scenarios need up to"), std::string::npos) << search.error().message;
  EXPECT_NE(search.error().message.find("THROUGHPUT_BUDGET_S 7200"), std::string::npos) << search.error().message;
  // A/B mode: every pair's runs count.
  auto ab = LoadConfig(Inputs({{"FVBENCH_AB", "1"}, {"REPEAT", "100"}, {"LATENCY_DUR", "60"},
                               {"FVBENCH_SCENARIO_TIMEOUT_S", "7200"}}));
  ASSERT_FALSE(ab.ok());
  EXPECT_NE(ab.error().message.find("A/B 200 runs x"), std::string::npos) << ab.error().message;
  // The shipped presets and the defaults fit the default TIMEOUT.
  for (EnvMap env : {EnvMap{}, EnvMap{{"LATENCY_RPS", "500"}, {"LATENCY_DUR", "4"}, {"WARMUP_DUR", "1"},
                                      {"THROUGHPUT_SEARCH_MAX", "800"}, {"STEP_DUR", "3"}},
                     EnvMap{{"FVBENCH_AB", "1"}, {"REPEAT", "3"}, {"LATENCY_DUR", "3"}, {"STEP_DUR", "3"}}}) {
    env["FVBENCH_SCENARIO_TIMEOUT_S"] = "7200";
    auto c = LoadConfig(Inputs(env));
    EXPECT_TRUE(c.ok()) << c.error().message;
  }
  // Not under ctest: only the types' bounds apply; beyond a double is not finite.
  EXPECT_TRUE(LoadConfig(Inputs({{"LATENCY_DUR", "86400"}})).ok());
  auto inf = LoadConfig(Inputs({{"LATENCY_DUR", "1e999"}}));
  ASSERT_FALSE(inf.ok());
  EXPECT_NE(inf.error().message.find("LATENCY_DUR='1e999': not a finite number"), std::string::npos) << inf.error().message;
}

TEST(Config, RejectsPortClash) {
  auto c = LoadConfig(Inputs({{"FV_PORT", "8082"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("must differ"), std::string::npos);
}

TEST(Config, RejectsMissingFiles) {
  ConfigInputs in = Inputs({{"FVBENCH_THRESHOLDS", "/nope/profile.json"}});
  in.file_exists = [](const std::string& p) { return p.find("/nope/") == std::string::npos; };
  auto c = LoadConfig(in);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("FVBENCH_THRESHOLDS='/nope/profile.json'"), std::string::npos)
      << c.error().message;

  in = Inputs({{"FAIRVISOR_EDGE_SRC", "/not/edge"}});
  in.file_exists = [](const std::string& p) { return p.find("/not/edge") == std::string::npos; };
  c = LoadConfig(in);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("FAIRVISOR_EDGE_SRC='/not/edge': no such file or directory on this machine"),
            std::string::npos)
      << c.error().message;

  in.file_exists = [](const std::string& p) { return p.find("/not/edge/") == std::string::npos; };
  c = LoadConfig(in);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("FAIRVISOR_EDGE_SRC='/not/edge': not a fairvisor edge checkout"), std::string::npos)
      << c.error().message;
}

TEST(Config, EmptyEdgeSourceIsNotTheDefault) {
  auto c = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC", ""}}));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("FAIRVISOR_EDGE_SRC='': set but empty; unset it to use the default "),
            std::string::npos)
      << c.error().message;
}

TEST(Config, WarmupMayBeZero) {
  auto c = LoadConfig(Inputs({{"WARMUP_DUR", "0"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->warmup_dur_s, 0);
  auto zero_point_zero = LoadConfig(Inputs({{"WARMUP_DUR", "0.0"}}));
  ASSERT_TRUE(zero_point_zero.ok()) << zero_point_zero.error().message;
  EXPECT_EQ(zero_point_zero->warmup_dur_s, 0);
  EXPECT_EQ(LoadConfig(Inputs({{"BENCH_DIR", "/tmp/fv/../fv-bench/"}}))->bench_dir, "/tmp/fv-bench");
}

// FVBENCH_INTERVAL_S: seconds per counting interval, whole milliseconds from
// 0.001 to 3600; the default is 1 s; a bad value is named with its text.
TEST(Config, CountingIntervalIsWholeMilliseconds) {
  auto unset = LoadConfig(Inputs({}));
  ASSERT_TRUE(unset.ok()) << unset.error().message;
  EXPECT_EQ(unset->interval_s, 1);
  auto tenth = LoadConfig(Inputs({{"FVBENCH_INTERVAL_S", "0.1"}}));
  ASSERT_TRUE(tenth.ok()) << tenth.error().message;
  EXPECT_EQ(tenth->interval_s, 0.1);
  for (const char* bad : {"0", "-1", "0.0005", "0.0015", "3601", "1e300", "nan", "1s", ""}) {
    auto c = LoadConfig(Inputs({{"FVBENCH_INTERVAL_S", bad}}));
    if (std::string(bad).empty() && c.ok()) continue;  // set but empty: the default, as for other numbers
    ASSERT_FALSE(c.ok()) << "FVBENCH_INTERVAL_S=" << bad << " was accepted";
    EXPECT_NE(c.error().message.find("FVBENCH_INTERVAL_S"), std::string::npos) << c.error().message;
    EXPECT_NE(c.error().message.find(bad), std::string::npos) << c.error().message;
  }
}

TEST(Config, ListenBacklogUnsetIsNginxsOwn) {
  auto unset = LoadConfig(Inputs({}));
  ASSERT_TRUE(unset.ok()) << unset.error().message;
  EXPECT_EQ(unset->nginx_listen_backlog, 0);
  auto two = LoadConfig(Inputs({{"NGINX_LISTEN_BACKLOG", "2"}}));
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_EQ(two->nginx_listen_backlog, 2);
}

}  // namespace
}  // namespace fvbench::config_test

namespace fvbench::config_test {
namespace {

TEST(Config, EdgeOptionalOnlyWithoutSource) {
  auto skipped = LoadConfig(Inputs({{"FVBENCH_EDGE_OPTIONAL", "1"}}));
  ASSERT_TRUE(skipped.ok());
  EXPECT_TRUE(skipped->edge_skipped);
  auto given = LoadConfig(Inputs({{"FVBENCH_EDGE_OPTIONAL", "1"}, {"FAIRVISOR_EDGE_SRC", "/e"}}));
  ASSERT_TRUE(given.ok());
  EXPECT_FALSE(given->edge_skipped);
  EXPECT_FALSE(LoadConfig(Inputs({}))->edge_skipped);
}

}  // namespace
}  // namespace fvbench::config_test

namespace fvbench::config_test {
namespace {

TEST(ConfigRemote, PresetModeNeedsBothHosts) {
  auto none = LoadConfig(Inputs({{"FVBENCH_MODE", "remote"}}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("FAIRVISOR_REMOTE and LOADGEN_REMOTE are not set"), std::string::npos)
      << none.error().message;
  auto sut_only = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "u@sut"}}));
  ASSERT_FALSE(sut_only.ok());
  EXPECT_EQ(sut_only.error().message.rfind("LOADGEN_REMOTE is not set", 0), 0u) << sut_only.error().message;
  auto lg_only = LoadConfig(Inputs({{"FVBENCH_MODE", "remote"}, {"LOADGEN_REMOTE", "u@lg"}}));
  ASSERT_FALSE(lg_only.ok());
  EXPECT_EQ(lg_only.error().message.rfind("FAIRVISOR_REMOTE is not set", 0), 0u) << lg_only.error().message;
  auto local = LoadConfig(Inputs({{"FVBENCH_MODE", "local"}, {"FAIRVISOR_REMOTE", "a"}, {"LOADGEN_REMOTE", "b"}}));
  EXPECT_FALSE(local.ok());
  EXPECT_FALSE(LoadConfig(Inputs({{"FVBENCH_MODE", "cloud"}})).ok());
}

TEST(ConfigRemote, ListenAddressPerMode) {
  EXPECT_EQ(LoadConfig(Inputs({}))->listen_addr, "127.0.0.1");
  auto remote = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "u@10.0.0.2"}, {"LOADGEN_REMOTE", "u@10.0.0.3"}}));
  ASSERT_TRUE(remote.ok()) << remote.error().message;
  EXPECT_EQ(remote->listen_addr, "0.0.0.0");
  auto pinned = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "u@10.0.0.2"}, {"LOADGEN_REMOTE", "u@10.0.0.3"},
                                   {"FV_LISTEN_ADDR", "10.0.0.2"}}));
  EXPECT_EQ(pinned->listen_addr, "10.0.0.2");
  EXPECT_FALSE(LoadConfig(Inputs({{"FV_LISTEN_ADDR", "1.2.3.4; evil"}})).ok());
}

TEST(ConfigRemote, NoControllerCoreSplitAndEdgePathOnSut) {
  ConfigInputs in = Inputs({{"FAIRVISOR_REMOTE", "u@sut"}, {"LOADGEN_REMOTE", "u@lg"},
                            {"FAIRVISOR_EDGE_SRC", "/srv/edge"}}, 16);
  in.file_exists = [](const std::string& p) { return p.find("/srv/edge") == std::string::npos; };
  auto c = LoadConfig(in);
  ASSERT_TRUE(c.ok()) << c.error().message;  // the path is checked on the SUT host, not here
  EXPECT_TRUE(c->oresty_cpuset.empty());     // decided per host by Testbed
  EXPECT_TRUE(c->loadgen_cpuset.empty());
  EXPECT_FALSE(c->cpusets_auto);
}

}  // namespace
}  // namespace fvbench::config_test

namespace fvbench::config_test {
namespace {

TEST(Config, SearchDefaultsAndOverrides) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->throughput_search, ThroughputSearchKind::kBisect);
  EXPECT_EQ(d->throughput_start, 0);
  EXPECT_DOUBLE_EQ(d->throughput_resolution, 0.02);
  EXPECT_FALSE(d->step_dur_s.has_value());  // not set: the plan's lengths come from the budget
  EXPECT_FALSE(d->confirm_dur_s.has_value());
  EXPECT_EQ(d->throughput_budget_s, 120);
  EXPECT_EQ(d->repeat, 1);
  EXPECT_TRUE(RunPlanOf(*d).search.lengths_from_budget);
  auto c = LoadConfig(Inputs({{"THROUGHPUT_SEARCH", "seed"}, {"STEP_DUR", "5"}, {"THROUGHPUT_START", "900"},
                              {"THROUGHPUT_RESOLUTION", "0.05"}, {"THROUGHPUT_BUDGET_S", "60"}, {"REPEAT", "3"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->throughput_search, ThroughputSearchKind::kSeed);
  EXPECT_EQ(c->step_dur_s, 5);
  EXPECT_FALSE(c->confirm_dur_s.has_value());  // the seed search has none
  EXPECT_EQ(c->throughput_start, 900);
  EXPECT_DOUBLE_EQ(c->throughput_resolution, 0.05);
  EXPECT_EQ(c->throughput_budget_s, 60);
  EXPECT_EQ(c->repeat, 3);
  auto e = LoadConfig(Inputs({{"CONFIRM_DUR", "30"}}));
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->confirm_dur_s, 30);
  EXPECT_TRUE(RunPlanOf(*e).search.lengths_from_budget);  // the steps still from the budget
  auto seed_steps = LoadConfig(Inputs({{"STEP_DUR", "20"}}));  // the seed's 20 s steps, as an option
  ASSERT_TRUE(seed_steps.ok());
  EXPECT_FALSE(RunPlanOf(*seed_steps).search.lengths_from_budget);
  EXPECT_EQ(seed_steps->step_dur_s, 20);
  // The seed search has no confirmation: a short budget is not an error there.
  EXPECT_TRUE(LoadConfig(Inputs({{"THROUGHPUT_SEARCH", "seed"}, {"THROUGHPUT_BUDGET_S", "30"}})).ok());
}

TEST(Config, SharedDictSizeIsAnNginxSizeNginxAccepts) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->fv_shared_dict_size, "256m");
  for (const char* ok : {"32k", "32K", "1m", "65536", "65536m"}) {
    auto c = LoadConfig(Inputs({{"FAIRVISOR_SHARED_DICT_SIZE", ok}}));
    ASSERT_TRUE(c.ok()) << ok << ": " << c.error().message;
    EXPECT_EQ(c->fv_shared_dict_size, ok);
  }
  for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
           {"31k", "below 32k"}, {"65537m", "above 65536m"}, {"1g", "not an nginx size"}, {"10m;", "not an nginx size"},
           {"m", "not an nginx size"}, {"-1m", "not an nginx size"}, {"256 m", "not an nginx size"},
           {"999999999999k", "not an nginx size"}}) {
    auto c = LoadConfig(Inputs({{"FAIRVISOR_SHARED_DICT_SIZE", bad}}));
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.error().message.find("FAIRVISOR_SHARED_DICT_SIZE='" + bad + "': " + why), std::string::npos)
        << c.error().message;
  }
}

// A policy directory of the six's three bundles still serves a run that
// leaves the limits scenarios out; a run with them names the missing file.
TEST(Config, LimitsPolicyIsRequiredOnlyWhenTheLimitsScenariosRun) {
  auto without = [](EnvMap env) {
    ConfigInputs in = Inputs(std::move(env));
    in.file_exists = [](const std::string& p) { return p != "/pol/limits.json"; };
    return LoadConfig(in);
  };
  auto off = without({{"FVBENCH_POLICY_DIR", "/pol"}, {"LIMITS", "0"}});
  EXPECT_TRUE(off.ok()) << off.error().message;
  auto on = without({{"FVBENCH_POLICY_DIR", "/pol"}});
  ASSERT_FALSE(on.ok());
  EXPECT_NE(on.error().message.find("FVBENCH_POLICY_DIR='/pol': missing policy file /pol/limits.json (the limits "
                                    "scenarios' token bucket; LIMITS=0 leaves them out)"),
            std::string::npos)
      << on.error().message;
  // limits.llm's bundle likewise.
  ConfigInputs in = Inputs({{"FVBENCH_POLICY_DIR", "/pol"}});
  in.file_exists = [](const std::string& p) { return p != "/pol/limits_llm.json"; };
  auto llm = LoadConfig(in);
  ASSERT_FALSE(llm.ok());
  EXPECT_NE(llm.error().message.find("missing policy file /pol/limits_llm.json"), std::string::npos)
      << llm.error().message;
}

TEST(Config, ReadsTheLimitsScenariosSettings) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_TRUE(d->limits);
  EXPECT_EQ(d->limits_keys, 50);
  EXPECT_DOUBLE_EQ(d->limits_overload, 4);
  EXPECT_DOUBLE_EQ(d->limits_dur_s, 10);
  auto c = LoadConfig(Inputs({{"LIMITS", "0"}, {"LIMITS_KEYS", "200"}, {"LIMITS_OVERLOAD", "1.5"}, {"LIMITS_DUR", "4"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_FALSE(c->limits);
  EXPECT_EQ(c->limits_keys, 200);
  EXPECT_DOUBLE_EQ(c->limits_overload, 1.5);
  EXPECT_DOUBLE_EQ(c->limits_dur_s, 4);
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"LIMITS_KEYS", "0"}, {"LIMITS_KEYS", "100001"}, {"LIMITS_KEYS", "-k1"}, {"LIMITS_OVERLOAD", "1"},
           {"LIMITS_OVERLOAD", "101"}, {"LIMITS_DUR", "0"}, {"LIMITS", "maybe"}}) {
    auto bad = LoadConfig(Inputs({{name, value}}));
    ASSERT_FALSE(bad.ok()) << name << "=" << value;
    EXPECT_NE(bad.error().message.find(name + "='" + value + "'"), std::string::npos) << bad.error().message;
  }
}

// limits.keys: LIMITS_KEYS_SWEEP's points and LIMITS_KEYS_RPS, a bad element
// named, a sweep longer than the bound refused (unless LIMITS=0), and one that
// cannot finish within the ctest TIMEOUT refused naming it.
TEST(Config, ReadsTheKeySweepSettings) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->limits_keys_sweep, (std::vector<int>{10, 100, 1000, 10000}));
  EXPECT_DOUBLE_EQ(d->limits_keys_rps, 1000);
  auto c = LoadConfig(Inputs({{"LIMITS_KEYS_SWEEP", "5,50"}, {"LIMITS_KEYS_RPS", "200"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->limits_keys_sweep, (std::vector<int>{5, 50}));
  EXPECT_DOUBLE_EQ(c->limits_keys_rps, 200);
  for (const char* bad : {"10,x", "", "100,10", "0"}) {
    auto r = LoadConfig(Inputs({{"LIMITS_KEYS_SWEEP", bad}}));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("LIMITS_KEYS_SWEEP"), std::string::npos) << r.error().message;
  }
  auto rate = LoadConfig(Inputs({{"LIMITS_KEYS_RPS", "0"}}));
  ASSERT_FALSE(rate.ok());
  EXPECT_NE(rate.error().message.find("LIMITS_KEYS_RPS"), std::string::npos) << rate.error().message;
  auto big = LoadConfig(Inputs({{"LIMITS_KEYS_SWEEP", "10,100000"}, {"LIMITS_KEYS_RPS", "100"}}));
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("above the bound of 3600 s"), std::string::npos) << big.error().message;
  EXPECT_TRUE(LoadConfig(Inputs({{"LIMITS", "0"}, {"LIMITS_KEYS_SWEEP", "10,100000"}, {"LIMITS_KEYS_RPS", "100"}})).ok());
  // 2050 s under a 1800 s TIMEOUT that the other scenarios fit in.
  auto slow = LoadConfig(Inputs({{"LIMITS_KEYS_SWEEP", "10,60000"}, {"LIMITS_KEYS_RPS", "200"},
                                 {"FVBENCH_SCENARIO_TIMEOUT_S", "1800"}}));
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.error().message.find("limits.keys scenarios need up to"), std::string::npos) << slow.error().message;
}

}  // namespace
}  // namespace fvbench::config_test

namespace fvbench::config_test {

// FVBENCH_PROFILE*: off by default (and for empty or 0), the three kinds,
// the lengths, fraction and rate; every bad value refused naming the
// variable and the value.
TEST(Config, ReadsTheProfileSettings) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_FALSE(d->profile.on());
  EXPECT_EQ(d->profile.Text(), "0");
  EXPECT_DOUBLE_EQ(d->profile.duration_s, 10);
  EXPECT_DOUBLE_EQ(d->profile.fraction, 0.8);
  EXPECT_EQ(d->profile.hz, 99);
  for (const char* off : {"", "0"}) {
    auto c = LoadConfig(Inputs({{"FVBENCH_PROFILE", off}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_FALSE(c->profile.on()) << "'" << off << "'";
  }
  for (const auto& [v, cpu, lua] : std::vector<std::tuple<std::string, bool, bool>>{
           {"cpu", true, false}, {"lua", false, true}, {"both", true, true}}) {
    auto c = LoadConfig(Inputs({{"FVBENCH_PROFILE", v}}));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->profile.cpu, cpu) << v;
    EXPECT_EQ(c->profile.lua, lua) << v;
    EXPECT_EQ(c->profile.Text(), v);
  }
  auto c = LoadConfig(Inputs({{"FVBENCH_PROFILE", "cpu"},
                              {"FVBENCH_PROFILE_DUR", "5"},
                              {"FVBENCH_PROFILE_FRACTION", "0.5"},
                              {"FVBENCH_PROFILE_HZ", "1000"}}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_DOUBLE_EQ(c->profile.duration_s, 5);
  EXPECT_DOUBLE_EQ(c->profile.fraction, 0.5);
  EXPECT_EQ(c->profile.hz, 1000);
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"FVBENCH_PROFILE", "1"},         {"FVBENCH_PROFILE", "CPU"},        {"FVBENCH_PROFILE", "perf"},
           {"FVBENCH_PROFILE_DUR", "0"},     {"FVBENCH_PROFILE_DUR", "-3"},     {"FVBENCH_PROFILE_DUR", "10s"},
           {"FVBENCH_PROFILE_FRACTION", "0"}, {"FVBENCH_PROFILE_FRACTION", "1.5"},
           {"FVBENCH_PROFILE_HZ", "0"},      {"FVBENCH_PROFILE_HZ", "1001"},    {"FVBENCH_PROFILE_HZ", "99.5"}}) {
    auto bad = LoadConfig(Inputs({{name, value}}));
    ASSERT_FALSE(bad.ok()) << name << "=" << value;
    EXPECT_NE(bad.error().message.find(name + "='" + value + "'"), std::string::npos) << bad.error().message;
  }
  // wrk runs whole seconds, as LATENCY_DUR.
  auto wrk = LoadConfig(Inputs({{"LOADGEN_ENGINE", "wrk"}, {"FVBENCH_PROFILE_DUR", "2.5"}}));
  ASSERT_FALSE(wrk.ok());
  EXPECT_NE(wrk.error().message.find("FVBENCH_PROFILE_DUR=2.5: wrk runs whole seconds"), std::string::npos)
      << wrk.error().message;
}

}  // namespace fvbench::config_test

namespace fvbench::config_test {

// The profile phases count in the ctest TIMEOUT check: a warmup and two
// FVBENCH_PROFILE_DUR phases more per latency / throughput scenario; off,
// they count nothing.
TEST(Config, ProfilePhasesCountInTheScenarioTimeout) {
  const EnvMap base = {{"FVBENCH_SCENARIO_TIMEOUT_S", "7200"}, {"FVBENCH_PROFILE_DUR", "3000"}};
  EXPECT_TRUE(LoadConfig(Inputs(base)).ok());  // FVBENCH_PROFILE off
  EnvMap on = base;
  on["FVBENCH_PROFILE"] = "cpu";
  auto c = LoadConfig(Inputs(on));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("profile WARMUP_DUR 10 + 2 x FVBENCH_PROFILE_DUR 3000"), std::string::npos)
      << c.error().message;
  EXPECT_NE(c.error().message.find("or FVBENCH_PROFILE_DUR"), std::string::npos) << c.error().message;
  on["FVBENCH_PROFILE_DUR"] = "10";
  EXPECT_TRUE(LoadConfig(Inputs(on)).ok());
}

}  // namespace fvbench::config_test
