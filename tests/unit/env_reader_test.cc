// The one checked parser of variables (env_reader.h) and CPU lists
// (cpu_list.h), and the odd inputs that reach LoadConfig:
// fixtures/odd_inputs/01_short_jwt_secret.env, 03_cpuset_overflow.env,
// 08_nginx_workers_vs_cpuset.env.
#include "support/core/env_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/core/config.h"
#include "support/core/cpu_list.h"
#include "fvbench/source_dir.h"

namespace fvbench::env_reader_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// A case file: NAME=VALUE lines; "# NAME=VALUE" lines after a "# variant" comment are variants.
struct CaseFile {
  EnvMap env;
  std::vector<std::pair<std::string, std::string>> variants;
};

CaseFile ReadCase(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::ifstream in(std::string(dir != nullptr ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/odd_inputs/" + name);
  CaseFile c;
  for (std::string line; std::getline(in, line);) {
    const bool commented = line.rfind("# ", 0) == 0;
    std::string kv = commented ? line.substr(2) : line;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos || kv.find(' ') < eq) continue;
    if (commented) c.variants.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    else c.env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return c;
}

ConfigInputs Inputs(EnvMap env, std::vector<int> cpus = {0, 1}) {
  ConfigInputs in;
  in.env = std::move(env);
  in.source_dir = "/src";
  in.cpus = std::move(cpus);
  in.cores = static_cast<int>(in.cpus.size());
  in.file_exists = [](const std::string&) { return true; };
  return in;
}

TEST(CpuList, ParsesRangesStridesAndDuplicates) {
  EXPECT_THAT(*ParseCpuList("0-3,6"), ElementsAre(0, 1, 2, 3, 6));
  EXPECT_THAT(*ParseCpuList("5,1,1"), ElementsAre(1, 5));
  EXPECT_THAT(*ParseCpuList("0-8:4"), ElementsAre(0, 4, 8));
  EXPECT_THAT(*ParseCpuList("8191"), ElementsAre(8191));
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
  EXPECT_EQ(FormatCpuList({}), "");
}

// LOADGEN_PROCS_PER_HOST's processes each get a contiguous part of K6_CPUSET.
TEST(CpuList, SplitIntoNearlyEqualContiguousParts) {
  using Parts = std::vector<std::vector<int>>;
  EXPECT_EQ(SplitCpuList({0, 1, 2, 3}, 2), (Parts{{0, 1}, {2, 3}}));
  EXPECT_EQ(SplitCpuList({2, 3, 4, 6, 7}, 2), (Parts{{2, 3, 4}, {6, 7}}));
  EXPECT_EQ(SplitCpuList({0, 1, 2}, 3), (Parts{{0}, {1}, {2}}));
  EXPECT_EQ(SplitCpuList({5}, 1), (Parts{{5}}));
  EXPECT_TRUE(SplitCpuList({0, 1}, 3).empty());  // a process without a CPU of its own
  EXPECT_TRUE(SplitCpuList({0, 1}, 0).empty());
}

TEST(CpuList, RefusesOverflowReversedAndGarbageSayingWhy) {
  struct Bad {
    const char* list;
    const char* why;
  };
  for (const Bad& b : {Bad{"99999999999", "99999999999 is above the highest CPU id 8191"},
                       Bad{"8192", "above the highest CPU id"},
                       Bad{"1-0", "1-0 is a reversed range (1 > 0)"},
                       Bad{"0-99999999999999999999", "above the highest CPU id"},
                       Bad{"", "empty"}, Bad{"a", "'a' is not a CPU id"}, Bad{"0,", "an empty part"},
                       Bad{",0", "an empty part"}, Bad{"-1", "is not a CPU id"}, Bad{"1-", "is not a CPU id"},
                       Bad{"0 1", "is not a CPU id"}, Bad{"+1", "is not a CPU id"}, Bad{"0-4:0", "stride"},
                       Bad{"3:1", "a stride needs a range"}, Bad{"0x1", "is not a CPU id"}}) {
    auto r = ParseCpuList(b.list);
    ASSERT_FALSE(r.ok()) << b.list;
    EXPECT_THAT(r.error().message, HasSubstr(b.why)) << b.list;
  }
}

// The CPUs a process may use: its affinity within its cgroup's cpuset.
TEST(UsableCpus, AffinityWithinTheCgroupCpuset) {
  EXPECT_THAT(UsableCpus("0-3\n", " 2-7 ", 8), ElementsAre(2, 3));
  EXPECT_THAT(UsableCpus("0", "", 2), ElementsAre(0));          // taskset -c 0, no cpuset controller
  EXPECT_THAT(UsableCpus("", "1", 2), ElementsAre(1));          // a container limited to cpu 1
  EXPECT_THAT(UsableCpus("garbage", "", 3), ElementsAre(0, 1, 2));  // neither readable: the online count
  EXPECT_TRUE(UsableCpus("", "", 0).empty());
}

TEST(EnvReader, NumbersAreDecimalFiniteAndInRange) {
  EnvMap env = {{"A", "1.5"}, {"HEX", "0x10"}, {"BLANK", " 5"}, {"PLUS", "+5"}, {"INF", "inf"},
                {"BIG", "1e999"}, {"TINY", "5e-324"}, {"NEG", "-1"}, {"I", "99999999999999999999"}, {"E", ""}};
  EnvReader r(env);
  EXPECT_DOUBLE_EQ(*r.Number("A", 0, {0, 2}, "x"), 1.5);
  EXPECT_DOUBLE_EQ(*r.Number("UNSET", 7, {0, 2}, "x"), 7);  // the default
  // Set but empty: refused naming the variable and the default it would have
  // hidden (it took the default, so LATENCY_RPS= ran at 10000 RPS silently).
  auto error_of = [](const auto& v) { return v.ok() ? std::string("(accepted)") : v.error().message; };
  EXPECT_EQ(error_of(r.Number("E", 7, {0, 2}, "x")), "E='': set but empty; unset it to use the default 7");
  EXPECT_EQ(error_of(r.Seconds("E", 60)), "E='': set but empty; unset it to use the default 60");
  EXPECT_EQ(error_of(r.Rate("E", 10000)), "E='': set but empty; unset it to use the default 10000");
  EXPECT_EQ(error_of(r.Integer("E", 3, 1, 100, "runs")), "E='': set but empty; unset it to use the default 3");
  for (const char* bad : {"HEX", "BLANK", "PLUS"}) {
    auto v = r.Number(bad, 0, {0, 1e9}, "seconds");
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_THAT(v.error().message, HasSubstr(std::string(bad) + "='" + env[bad] + "': not a number")) << bad;
  }
  // Numbers, but not finite ones: said as such (the fresh-user trial read
  // "1e400: not a number" as wrong).
  EXPECT_THAT(r.Number("INF", 0, {0, 1e9}, "seconds").error().message,
              HasSubstr("INF='inf': not a finite number (expected seconds)"));
  EXPECT_THAT(r.Number("BIG", 0, {0, 1e9}, "seconds").error().message,
              HasSubstr("BIG='1e999': not a finite number (beyond 1.8e308, the largest double)"));
  EXPECT_THAT(r.Number("TINY", 0, {0, 1e9, true}, "s").error().message, HasSubstr("subnormal"));
  // Too small is not followed by an upper bound (the fresh-user trial read
  // "5e-324 ... (expected 0 < x <= 0.5, at most 1000000000)").
  EXPECT_THAT(r.Number("TINY", 0, {0, 1e9, true}, "s").error().message, Not(HasSubstr("at most")));
  EXPECT_THAT(r.Number("NEG", 0, {0, 1e9, true}, "s").error().message, HasSubstr("NEG='-1': must be > 0"));
  EXPECT_THAT(r.Number("A", 0, {0, 1}, "a fraction").error().message, HasSubstr("A='1.5': 1.5 is above 1"));
  EXPECT_THAT(r.Integer("I", 0, 0, 10, "n").error().message, HasSubstr("I='99999999999999999999': out of range 0..10"));
  EXPECT_THAT(r.Integer("A", 0, 0, 10, "n").error().message, HasSubstr("A='1.5': not an integer"));
  EXPECT_THAT(r.Flag("A", false).error().message, HasSubstr("A='1.5': expected 0 or 1"));
}

// 03_cpuset_overflow.env: ORESTY_CPUSET=99999999999 aborted the run (std::stoi's
// out_of_range escaped LoadConfig, exit 134); 1-0 passed validation and
// failed later inside taskset. Both are refused by LoadConfig, naming the
// variable and the value.
TEST(IssueCases, Case03CpusetOverflowAndReversedRangeAreRefusedNamingTheVariable) {
  CaseFile c = ReadCase("03_cpuset_overflow.env");
  ASSERT_EQ(c.env.at("ORESTY_CPUSET"), "99999999999");
  auto r = LoadConfig(Inputs(c.env));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("ORESTY_CPUSET='99999999999': 99999999999 is above the highest CPU id"));
  ASSERT_EQ(c.variants.size(), 1u);
  EXPECT_EQ(c.variants[0], (std::pair<std::string, std::string>{"ORESTY_CPUSET", "1-0"}));
  auto reversed = LoadConfig(Inputs({c.variants[0]}));
  ASSERT_FALSE(reversed.ok());
  EXPECT_THAT(reversed.error().message, HasSubstr("ORESTY_CPUSET='1-0': 1-0 is a reversed range (1 > 0)"));
  // The same kind elsewhere: K6_CPUSET, and remote mode (no local CPU check) still parses the list.
  EXPECT_FALSE(LoadConfig(Inputs({{"K6_CPUSET", "99999999999"}})).ok());
  auto remote = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "u@a"}, {"LOADGEN_REMOTE", "u@b"}, {"K6_CPUSET", "3-2"}}));
  ASSERT_FALSE(remote.ok());
  EXPECT_THAT(remote.error().message, HasSubstr("K6_CPUSET='3-2'"));
}

// 01_short_jwt_secret.env: a one-character secret was accepted. RFC 7518 section
// 3.2: an HS256 key is at least 256 bits. Refused naming the variable; the
// value (a secret) is not printed.
TEST(IssueCases, Case01ShortJwtSecretIsRefusedNamingTheVariable) {
  CaseFile c = ReadCase("01_short_jwt_secret.env");
  ASSERT_EQ(c.env.at("FVBENCH_JWT_SECRET"), "0");
  auto r = LoadConfig(Inputs(c.env));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("FVBENCH_JWT_SECRET"));
  EXPECT_THAT(r.error().message, HasSubstr("shorter than 32 bytes"));
  EXPECT_THAT(r.error().message, HasSubstr("RFC 7518"));
  EXPECT_FALSE(LoadConfig(Inputs({{"FVBENCH_JWT_SECRET", std::string(31, 'k')}})).ok());
  EXPECT_FALSE(LoadConfig(Inputs({{"FVBENCH_JWT_SECRET", ""}})).ok());  // set but empty
  auto ok = LoadConfig(Inputs({{"FVBENCH_JWT_SECRET", std::string(32, 'k')}}));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->jwt_secret, std::string(32, 'k'));
  EXPECT_EQ(LoadConfig(Inputs({}))->jwt_secret, kBenchJwtSecret);  // the default, written once
}

// 08_nginx_workers_vs_cpuset.env (Config's part; the nginx workers are in nginx_conf_test
// and the live SutServices test): on 2 CPUs, ORESTY_CPUSET=0 K6_CPUSET=1 is
// valid; a CPU this process may not use is refused even when online.
TEST(IssueCases, Case08CpusetsAreCheckedAgainstTheCpusThisProcessMayUse) {
  CaseFile c = ReadCase("08_nginx_workers_vs_cpuset.env");
  auto r = LoadConfig(Inputs(c.env, {0, 1}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->oresty_cpuset, "0");
  EXPECT_EQ(r->loadgen_cpuset, "1");
  auto confined = LoadConfig(Inputs(c.env, {1}));  // e.g. a container's cpuset 1 on a 2-core host
  ASSERT_FALSE(confined.ok());
  EXPECT_THAT(confined.error().message, HasSubstr("ORESTY_CPUSET='0': CPU 0 does not exist or may not be used"));
  EXPECT_THAT(confined.error().message, HasSubstr("it may use CPUs 1"));
}

// The >= 8-CPU auto split counts the usable CPUs, not the online ones.
TEST(Config, AutoSplitUsesTheUsableCpus) {
  auto c = LoadConfig(Inputs({}, {2, 3, 4, 5, 6, 7, 8, 9}));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->oresty_cpuset, "2-5");
  EXPECT_EQ(c->loadgen_cpuset, "6-9");
  auto few = LoadConfig(Inputs({}, {0, 1, 2, 3}));  // 4 usable of (say) 16 online: no split
  ASSERT_TRUE(few.ok());
  EXPECT_TRUE(few->oresty_cpuset.empty());
}

}  // namespace
}  // namespace fvbench::env_reader_test

#include "tests/fuzz/config_contract.h"

namespace fvbench::env_reader_test {
namespace {

// The config fuzz target's seed corpus (fixtures/fuzz/config/, including the
// case files) through the same contract the fuzzer checks.
TEST(ConfigFuzzSeeds, KeepTheContract) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  const std::string seeds = std::string(dir != nullptr ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/fuzz/config";
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(seeds)) {
    std::ifstream in(f.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    fuzz::CheckConfigContract(text.str());
    ++n;
  }
  EXPECT_GE(n, 7);
  fuzz::CheckConfigContract("ORESTY_CPUSET=0-99999999999999999999999\nK6_CPUSET=,\n");
  fuzz::CheckConfigContract("REPEAT=99999999999999999999\n");
}

}  // namespace
}  // namespace fvbench::env_reader_test

#include "support/core/run_meta.h"

namespace fvbench::env_reader_test {
namespace {

// 08_nginx_workers_vs_cpuset.env: the report shows nginx workers per CPU; results.json
// carries the counts (absent for runs recorded before, so they stay byte-identical).
TEST(IssueCases, Case08WorkersPerCpuAreRecordedAndDescribed) {
  RunMeta m;
  EXPECT_EQ(DescribeNginxWorkers(m), "");
  EXPECT_EQ(RunMetaToJson(m).find("sut_nginx_workers"), std::string::npos);
  m.sut_cpuset = "0";
  m.sut_nginx_workers = 1;
  m.sut_edge_workers = 1;
  m.sut_nginx_cpus = 1;
  EXPECT_EQ(DescribeNginxWorkers(m),
            "1 worker per CPU (raw nginx and backend 1, edge 1 worker_processes on 1 CPU of cpuset 0; in "
            "reverse_proxy the edge and its backend share those CPUs)");
  auto back = RunMetaFromJson(RunMetaToJson(m), "meta.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->sut_nginx_workers, 1);
  EXPECT_EQ(back->sut_nginx_cpus, 1);
  m.sut_cpuset = "";
  m.sut_nginx_workers = m.sut_nginx_cpus = 2;
  m.sut_edge_workers = 4;  // FAIRVISOR_WORKER_PROCESSES=4
  EXPECT_THAT(DescribeNginxWorkers(m), HasSubstr("raw nginx and backend 1, edge 2 workers per CPU"));
  EXPECT_THAT(DescribeNginxWorkers(m), HasSubstr("on 2 usable CPUs of the SUT host"));
}

}  // namespace
}  // namespace fvbench::env_reader_test

namespace fvbench::env_reader_test {
namespace {

// config_fuzz: LATENCY_DUR=5e-304 (a normal double) was accepted as a phase.
TEST(EnvReader, DurationsAndRatesHaveALowestValue) {
  const EnvMap env = {{"D", "5e-304"}, {"R", "1e-9"}, {"Z", "0"}, {"MS", "0.001"}};
  EnvReader r(env);  // holds a reference: the map outlives it
  EXPECT_THAT(r.Seconds("D", 1).error().message, HasSubstr("D='5e-304': below 0.001 s"));
  EXPECT_THAT(r.Rate("R", 1).error().message, HasSubstr("R='1e-9': below 0.001 RPS"));
  EXPECT_EQ(*r.Seconds("Z", 1, /*zero_ok=*/true), 0);
  EXPECT_FALSE(r.Seconds("Z", 1).ok());
  EXPECT_DOUBLE_EQ(*r.Seconds("MS", 1), 0.001);
}

}  // namespace
}  // namespace fvbench::env_reader_test
