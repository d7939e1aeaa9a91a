// The DRY_RUN plan of remote mode (testbed.h, dry_run_host.h): Testbed::Open
// and RunScenario on two dry-run hosts, checked line by line for the
// essential steps in their order. Nothing is connected to or started.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/engine/jwt.h"
#include "support/run/scenario_plan.h"
#include "support/run/scenario_runner.h"
#include "support/run/testbed.h"
#include "fvbench/source_dir.h"

namespace fvbench::remote_plan_test {
namespace {

class RemotePlan : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = std::filesystem::temp_directory_path() / ("fvbench-plan-" + std::to_string(::getpid()));
    std::filesystem::remove_all(bench_);
  }
  void TearDown() override { std::filesystem::remove_all(bench_); }

  Result<Config> MakeConfig(EnvMap extra) {
    ConfigInputs in;
    in.env = {{"FVBENCH_MODE", "remote"},
              {"FAIRVISOR_REMOTE", "root@10.213.1.2"},
              {"LOADGEN_REMOTE", "root@10.213.2.2"},
              {"FAIRVISOR_TARGET_HOST", "10.213.3.2"},
              {"FV_LISTEN_ADDR", "10.213.3.2"},
              {"DRY_RUN", "1"},
              {"FAIRVISOR_EDGE_SRC", "/srv/edge"},
              {"BENCH_DIR", bench_.string()},
              {"LATENCY_RPS", "1000"},
              {"LATENCY_DUR", "10"},
              {"WARMUP_DUR", "2"},
              {"THROUGHPUT_SEARCH_MAX", "3000"},
              {"STEP_DUR", "5"}};
    for (auto& [k, v] : extra) in.env[k] = v;
    in.source_dir = FVBENCH_SOURCE_DIR;
    in.cores = 16;  // the controller's; remote mode must not split with it
    in.file_exists = [](const std::string& p) { return std::filesystem::exists(p); };
    return LoadConfig(in);
  }

  // Runs one scenario; returns the provisioning part and the scenario part.
  void Plan(const Config& c, const std::string& scenario, std::vector<std::string>* open_lines,
            std::vector<std::string>* run_lines, ScenarioResult* result) {
    auto tb = Testbed::Open(c);
    ASSERT_TRUE(tb.ok()) << tb.error().message;
    *open_lines = Lines((*tb)->TakePlan());
    const ScenarioPlan* plan = FindScenario(scenario);
    ASSERT_NE(plan, nullptr);
    *result = RunScenario(**tb, *plan, [](const std::string&) {});
    *run_lines = Lines((*tb)->TakePlan());
  }

  static std::vector<std::string> Lines(const std::string& text) {
    std::vector<std::string> out;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t nl = text.find('\n', pos);
      out.push_back(text.substr(pos, nl - pos));
      pos = nl == std::string::npos ? text.size() : nl + 1;
    }
    return out;
  }

  // Each needle must match a line (as a substring) after the previous match.
  static void ExpectInOrder(const std::vector<std::string>& lines, const std::vector<std::string>& needles) {
    size_t at = 0;
    for (const std::string& n : needles) {
      size_t i = at;
      while (i < lines.size() && lines[i].find(n) == std::string::npos) ++i;
      if (i == lines.size()) {
        std::string all;
        for (const auto& l : lines) all += "  " + l + "\n";
        ADD_FAILURE() << "no line containing '" << n << "' after line " << at << " of the plan:\n" << all;
        return;
      }
      at = i + 1;
    }
  }

  static size_t Count(const std::vector<std::string>& lines, const std::string& needle) {
    size_t n = 0;
    for (const auto& l : lines) n += l.find(needle) != std::string::npos;
    return n;
  }

  std::filesystem::path bench_;
};

TEST_F(RemotePlan, ProvisionsEachRoleOnItsOwnHostAndShipsFiles) {
  auto c = MakeConfig({{"LOADGEN_ENGINE", "wrk"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::string> open, run;
  ScenarioResult r;
  Plan(*c, "latency.raw_nginx", &open, &run, &r);
  const std::string b = bench_.string();
  ExpectInOrder(open, {
      "[root@10.213.1.2] run: sh -c ",  // SUT probe
      "[root@10.213.1.2] run: sh -c 'cd -- \"$1\" ",  // edge checkout used in place, on the SUT host
      "[root@10.213.1.2] run: GIT_CEILING_DIRECTORIES=/srv GIT_TERMINAL_PROMPT=0 LC_ALL=C git -c "
      "core.fsmonitor=false -c core.hooksPath=/dev/null -c protocol.ext.allow=never --no-optional-locks -C /srv/edge "
      "rev-parse --verify HEAD",  // its commit, read there with the repository's programs off
      "[root@10.213.2.2] run: sh -c ",  // loadgen probe
      "[root@10.213.2.2] write: " + b + "/scripts/pace.lua",
      "[root@10.213.1.2] write: " + b + "/policies/simple.json",
      "[root@10.213.1.2] write: " + b + "/policies/complex.json",
      "[root@10.213.1.2] write: " + b + "/policies/llm.json",
  });
  // Role-based: no engine on the SUT host, no nginx/edge on the loadgen host.
  for (const auto& l : open) {
    if (l.rfind("[root@10.213.2.2]", 0) == 0) {
      EXPECT_EQ(l.find("nginx"), std::string::npos) << l;
      EXPECT_EQ(l.find("/srv/edge"), std::string::npos) << l;
    }
    if (l.rfind("[root@10.213.1.2]", 0) == 0) {
      EXPECT_EQ(l.find("pace.lua"), std::string::npos) << l;
    }
  }
}

TEST_F(RemotePlan, RawNginxPhaseCrossesToTheTargetAddress) {
  auto c = MakeConfig({{"LOADGEN_ENGINE", "wrk"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::string> open, run;
  ScenarioResult r;
  Plan(*c, "latency.raw_nginx", &open, &run, &r);
  const std::string b = bench_.string();
  ExpectInOrder(run, {
      "[root@10.213.1.2] run: mkdir -p -- " + b + "/run/baseline/conf",
      "[root@10.213.1.2] write: " + b + "/run/baseline/conf/nginx.conf",
      "[root@10.213.1.2] run: nginx -p " + b + "/run/baseline",  // nginx -t
      "[root@10.213.1.2] start: baseline: nginx -p " + b + "/run/baseline",
      "[root@10.213.2.2] read: " + b + "/scripts/pace.lua",
      "-d2s --timeout=10s --latency -s " + b + "/scripts/pace.lua http://10.213.3.2:8082/",  // warmup
      "[root@10.213.2.2] run: sh -c 'mkdir -p -- \"$1\" && rm -f -- \"$2\"' sh " + b + "/results",
      "-d10s --timeout=10s --latency -s " + b + "/scripts/pace.lua http://10.213.3.2:8082/",
      "[root@10.213.2.2] fetch: " + b + "/results/latency_raw_nginx.json -> " + b +
          "/controller-results/dry-run/raw/latency_raw_nginx.json",
      "[controller] parse: ",
      "[root@10.213.1.2] stop: baseline pid ",
  });
  EXPECT_EQ(Count(run, "start: "), 1u);
  EXPECT_EQ(Count(run, "stop: "), 1u);
  EXPECT_FALSE(r.measured);
  EXPECT_TRUE(r.error.empty()) << r.error;
  // The config written for the SUT binds only the SUT's load-link address.
  EXPECT_EQ(c->listen_addr, "10.213.3.2");
}

TEST_F(RemotePlan, EdgeSearchStepsAndSecretsRedacted) {
  auto c = MakeConfig({{"LOADGEN_ENGINE", "k6"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::string> open, run;
  ScenarioResult r;
  Plan(*c, "throughput.complex", &open, &run, &r);  // the JWT scenario
  const std::string b = bench_.string();
  ExpectInOrder(run, {
      "[root@10.213.1.2] start: backend: ",
      "[root@10.213.1.2] read: /srv/edge/docker/nginx.conf.template",
      "[root@10.213.1.2] write: " + b + "/run/fv/conf/nginx.conf",
      "[root@10.213.1.2] start: fv: ",
      "-e DURATION=2 -e KIND=get -e PRE_VUS=50 -e MAX_VUS=250 -e KEYS=0 " + b + "/scripts/warmup.js",
      "-e SUMMARY_OUT=" + b + "/results/throughput_complex_s00",  // first search step
      "[root@10.213.2.2] fetch: ",
      "[root@10.213.1.2] stop: fv pid ",
  });
  for (const auto& l : run) {
    if (l.find("start: fv: ") == std::string::npos) continue;
    EXPECT_NE(l.find("FAIRVISOR_CONFIG_FILE=" + b + "/policies/complex.json "), std::string::npos) << l;
    EXPECT_NE(l.find("FAIRVISOR_BACKEND_URL=http://10.213.3.2:8081 "), std::string::npos) << l;
  }
  // Every planned load command goes to the SUT's target address, from the loadgen.
  size_t k6_runs = 0;
  for (const auto& l : run) {
    if (l.find("k6 run ") == std::string::npos) continue;
    ++k6_runs;
    EXPECT_EQ(l.rfind("[root@10.213.2.2] run: ", 0), 0u) << l;
    EXPECT_NE(l.find("TARGET_URL=http://10.213.3.2:8080/"), std::string::npos) << l;
    EXPECT_NE(l.find("JWT=<redacted>"), std::string::npos) << l;
  }
  EXPECT_GE(k6_runs, 3u);  // warmup + at least two search steps
  EXPECT_GE(Count(run, "[controller] parse: "), 2u);
  const std::string jwt = BenchJwt();
  for (const auto& l : open) EXPECT_EQ(l.find(jwt), std::string::npos) << l;
  for (const auto& l : run) EXPECT_EQ(l.find(jwt), std::string::npos) << l;
  EXPECT_FALSE(r.measured);
  EXPECT_TRUE(r.steps.empty());
  EXPECT_TRUE(r.error.empty()) << r.error;
}

// Several loadgen hosts: each is provisioned and given the
// scripts, and every phase runs one process on each with its share and
// offset from one common start; k6 instances get the sample reducer.
TEST_F(RemotePlan, SeveralLoadgenHostsShareEachPhase) {
  auto c = MakeConfig({{"LOADGEN_REMOTE", "root@10.213.2.2,root@10.213.4.2"}, {"LOADGEN_ENGINE", "wrk"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::string> open, run;
  ScenarioResult r;
  Plan(*c, "latency.raw_nginx", &open, &run, &r);
  const std::string b = bench_.string();
  ExpectInOrder(open, {"[root@10.213.2.2] write: " + b + "/scripts/pace.lua",
                       "[root@10.213.4.2] write: " + b + "/scripts/pace.lua"});
  // Each measured run line: its offset (1 / 1000 RPS apart), its output, half the rate.
  ExpectInOrder(run, {"[root@10.213.2.2] run: ",
                      "FVBENCH_OFFSET_US=0.000 FVBENCH_OUT=" + b + "/results/latency_raw_nginx_lg1.json FVBENCH_RATE=500 ",
                      "[root@10.213.4.2] run: ",
                      "FVBENCH_OFFSET_US=1000.000 FVBENCH_OUT=" + b +
                          "/results/latency_raw_nginx_lg2.json FVBENCH_RATE=500 "});
  for (const auto& l : open) EXPECT_EQ(l.find("fvbench_k6_reduce"), std::string::npos) << l;  // wrk: no reducer

  auto k6 = MakeConfig({{"LOADGEN_REMOTE", "root@10.213.2.2,root@10.213.4.2"}, {"LOADGEN_ENGINE", "k6"}});
  ASSERT_TRUE(k6.ok()) << k6.error().message;
  Plan(*k6, "latency.raw_nginx", &open, &run, &r);
  ExpectInOrder(open, {"[root@10.213.2.2] write: " + b + "/scripts/fvbench_k6_reduce",
                       "[root@10.213.4.2] write: " + b + "/scripts/fvbench_k6_reduce"});
  ExpectInOrder(run, {"--execution-segment 0:1/2 --execution-segment-sequence 0,1/2,1",
                      "--execution-segment 1/2:1 --execution-segment-sequence 0,1/2,1"});
}

TEST_F(RemotePlan, WritesThePlanFile) {
  auto c = MakeConfig({{"LOADGEN_ENGINE", "wrk"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto tb = Testbed::Open(*c);
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  ASSERT_TRUE((*tb)->WritePlanSection("provisioning", (*tb)->TakePlan(), true).ok());
  ASSERT_TRUE((*tb)->WritePlanSection("second", "x\n", false).ok());
  std::string text;
  {
    FILE* f = std::fopen((*tb)->plan_path().c_str(), "r");
    ASSERT_NE(f, nullptr);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  EXPECT_EQ(text.rfind("# provisioning\n[root@10.213.1.2] run: ", 0), 0u) << text;
  EXPECT_NE(text.find("\n# second\nx\n"), std::string::npos);
  EXPECT_EQ((*tb)->TakePlan(), "");  // taken
}

TEST_F(RemotePlan, RefusesTheSshSettingsARealRunRefuses) {
  auto c = MakeConfig({{"LOADGEN_ENGINE", "wrk"}, {"SSH_OPTS", "-o ProxyCommand=true"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto tb = Testbed::Open(*c);
  ASSERT_FALSE(tb.ok());
  EXPECT_NE(tb.error().message.find("connecting (FAIRVISOR_REMOTE): SUT host root@10.213.1.2: ssh settings"),
            std::string::npos)
      << tb.error().message;
  EXPECT_NE(tb.error().message.find("ProxyCommand"), std::string::npos) << tb.error().message;

  auto port = MakeConfig({{"LOADGEN_ENGINE", "wrk"}, {"LOADGEN_REMOTE", "root@10.213.2.2,ssh://root@10.213.2.3:70000"}});
  ASSERT_TRUE(port.ok()) << port.error().message;
  auto tb2 = Testbed::Open(*port);
  ASSERT_FALSE(tb2.ok());
  EXPECT_NE(tb2.error().message.find("connecting (LOADGEN_REMOTE, target 2 of 2, ssh://root@10.213.2.3:70000): "),
            std::string::npos)
      << tb2.error().message;
}

TEST(RedactPlan, HidesTokens) {
  EXPECT_EQ(detail::RedactPlan("-e JWT=" + BenchJwt() + " x"), "-e JWT=<redacted> x");
  // Only the secret and tokens made from it change (jwt.h RedactSecrets).
  EXPECT_EQ(detail::RedactPlan("-H 'Authorization: Bearer abc.def-1'"), "-H 'Authorization: Bearer abc.def-1'");
  EXPECT_EQ(detail::RedactPlan("no secret"), "no secret");
}

TEST(AutoCpuset, PerHostSplit) {
  EXPECT_EQ(detail::AutoCpuset(8, true, true), "0-3");
  EXPECT_EQ(detail::AutoCpuset(8, true, false), "4-7");
  EXPECT_EQ(detail::AutoCpuset(16, true, false), "8-15");
  EXPECT_EQ(detail::AutoCpuset(7, true, true), "");
  EXPECT_EQ(detail::AutoCpuset(32, false, true), "");
}

}  // namespace
}  // namespace fvbench::remote_plan_test
