// The configurations most users take, planned end to end in DRY_RUN: the
// README's main command with nothing else set (local mode, edge cloned from
// its default git URL into the default FV_DIR=/opt/fairvisor) and the seed's
// three-variable remote example. Testbed::Open and RunScenario run every one
// of the scenarios on dry-run hosts; each must plan without an error.
// (An edge cloned into the default FV_DIR was refused by every fairvisor
// scenario: its paths equal the Docker image's /opt/fairvisor.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/run/scenario_plan.h"
#include "support/run/scenario_runner.h"
#include "support/run/testbed.h"
#include "fvbench/source_dir.h"

namespace fvbench::default_plans_test {
namespace {

class DefaultPlans : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = std::filesystem::temp_directory_path() / ("fvbench-defaults-" + std::to_string(::getpid()));
    std::filesystem::remove_all(bench_);
  }
  void TearDown() override { std::filesystem::remove_all(bench_); }

  // `env` plus BENCH_DIR (so the plan file lands in a temporary directory).
  Result<Config> MakeConfig(EnvMap env) {
    ConfigInputs in;
    in.env = std::move(env);
    in.env["BENCH_DIR"] = bench_.string();
    in.source_dir = FVBENCH_SOURCE_DIR;
    in.cores = 2;
    in.file_exists = [](const std::string& p) { return std::filesystem::exists(p); };
    return LoadConfig(in);
  }

  // Every scenario planned on one testbed; the plan text of all of them.
  std::string PlanEveryScenario(const Config& c) {
    auto tb = Testbed::Open(c);
    if (!tb.ok()) {
      ADD_FAILURE() << "Testbed::Open: " << tb.error().message;
      return "";
    }
    std::string plan = (*tb)->TakePlan();
    for (const ScenarioPlan& s : AllScenarios()) {
      ScenarioResult r = RunScenario(**tb, s, [](const std::string&) {});
      EXPECT_EQ(r.error, "") << s.id << " (dry run) failed";
      plan += (*tb)->TakePlan();
    }
    EXPECT_EQ(AllScenarios().size(), 10u);  // the six, limits.accuracy, limits.llm, limits.reject_cost, limits.keys
    return plan;
  }

  std::filesystem::path bench_;
};

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

TEST_F(DefaultPlans, ReadmeMainCommandWithNothingElseSet) {
  auto c = MakeConfig({{"DRY_RUN", "1"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->fv_dir, "/opt/fairvisor");
  std::string plan = PlanEveryScenario(*c);
  EXPECT_TRUE(Has(plan, "clone")) << plan;
  EXPECT_TRUE(Has(plan, "/opt/fairvisor/docker/nginx.conf.template")) << plan;
}

TEST_F(DefaultPlans, FvDirEqualToTheDockerEdgeTreeSetExplicitly) {
  auto c = MakeConfig({{"DRY_RUN", "1"}, {"FV_DIR", "/opt/fairvisor"},
                       {"FAIRVISOR_EDGE_SRC", "file:///srv/git/edge.git"}, {"FAIRVISOR_EDGE_REF", "main"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::string plan = PlanEveryScenario(*c);
  EXPECT_TRUE(Has(plan, "file:///srv/git/edge.git")) << plan;
}

TEST_F(DefaultPlans, SeedThreeVariableRemoteExample) {
  auto c = MakeConfig({{"DRY_RUN", "1"},
                       {"FVBENCH_MODE", "remote"},  // what `ctest --preset remote` sets
                       {"FAIRVISOR_REMOTE", "ubuntu@fairvisor-host"},
                       {"LOADGEN_REMOTE", "ubuntu@loadgen-host"},
                       {"FAIRVISOR_TARGET_HOST", "10.0.0.42"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::string plan = PlanEveryScenario(*c);
  EXPECT_TRUE(Has(plan, "[ubuntu@fairvisor-host]")) << plan;
  EXPECT_TRUE(Has(plan, "[ubuntu@loadgen-host]")) << plan;
}

// limits.reject_cost plans both of its phases, each after a warmup over its
// own keys, at LATENCY_RPS: 1000 RPS against the 10 tokens/s of DRY_RUN's
// bucket is 200 keys (5 RPS each) admitted, 5 keys (200 RPS each) rejected.
TEST_F(DefaultPlans, RejectCostPlansBothPhasesWithTheirOwnKeys) {
  auto c = MakeConfig({{"DRY_RUN", "1"}, {"LATENCY_RPS", "1000"}});
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto tb = Testbed::Open(*c);
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  (void)(*tb)->TakePlan();
  std::vector<std::string> progress;
  ScenarioResult r = RunScenario(**tb, *FindScenario("limits.reject_cost"),
                                 [&](const std::string& line) { progress.push_back(line); });
  EXPECT_EQ(r.error, "");
  const std::string plan = (*tb)->TakePlan();
  // k6 (the default engine): each phase's warmup, then the phase, over the phase's keys.
  const size_t admitted_warmup = plan.find("-e KEYS=200 " + bench_.string() + "/scripts/warmup.js");
  const size_t admitted = plan.find("-e KEYS=200 -e SUMMARY_OUT=" + bench_.string() + "/results/limits_reject_cost_admitted.json");
  const size_t rejected_warmup = plan.find("-e KEYS=5 " + bench_.string() + "/scripts/warmup.js");
  const size_t rejected = plan.find("-e KEYS=5 -e SUMMARY_OUT=" + bench_.string() + "/results/limits_reject_cost_rejected.json");
  ASSERT_NE(rejected, std::string::npos) << plan;
  EXPECT_LT(admitted_warmup, admitted) << plan;
  EXPECT_LT(admitted, rejected_warmup) << plan;
  EXPECT_LT(rejected_warmup, rejected) << plan;
  std::string lines;
  for (const std::string& l : progress) lines += l + "\n";
  EXPECT_TRUE(Has(lines, "measuring the admitted phase: 1000 RPS over 200 keys")) << lines;
  EXPECT_TRUE(Has(lines, "measuring the rejected phase: 1000 RPS over 5 keys")) << lines;
}

}  // namespace
}  // namespace fvbench::default_plans_test
