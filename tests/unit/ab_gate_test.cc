// AB_GATE=1 end to end: an A/B result whose side B is significantly worse
// (AbVerdict::kBWorse) reads FAIL alike in the scenario test's gtest failures
// (fixtures/fvbench_environment.h AddFailures, what ctest's JUnit shows), in
// report.md and results.json written by the report step from the saved
// results, and in `fvbench_baseline save`'s refusal; without the gate the
// same result passes everywhere. The gate reaches the reports only through
// what was saved: the scenario's AbResult::gate and the run meta's ab_gate.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/fvbench_environment.h"
#include "support/core/json_fields.h"
#include "support/judge/ab_compare.h"
#include "support/judge/verdict.h"
#include "support/report/baseline.h"
#include "support/report/report_step.h"
#include "support/report/results_io.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::ab_gate_test {
namespace {

namespace fs = std::filesystem;
using testing_samples::SampleMeta;
using testing_samples::SampleRunAllMeasured;

constexpr const char* kGated = "latency.decision_service";

LoadResult Run(double p50) {
  LoadResult r = testing_samples::SampleLoad(500, 499.5, p50, p50 * 2.2, 0);
  r.duration_s = 4;
  r.requests = 2000;
  return r;
}

// Side B's latencies are ~28 % above A's in every pair: significant, B worse
// in p50, p90, p99 and p99.9; with `cpu`, edge's CPU too (B 49..68 % above A
// in each pair: B worse in edge CPU and edge CPU/req), else no CPU sampled.
AbResult BSlower(bool cpu = false) {
  AbResult ab;
  ab.method = "latency: 500 RPS for 4 s per run, 3 pairs";
  ab.rate_rps = 500;
  ab.duration_s = 4;
  ab.a = AbSide{"/edge", "main", "abc1234", "/b/policies/simple.json", "", {}, {}, {}};
  ab.b = AbSide{"/edge", "pr", "def5678", "/b/policies/simple.json", "", {}, {}, {}};
  const double a_p50[] = {400, 410, 405}, b_p50[] = {520, 530, 515};
  const double a_cpu[] = {0.100, 0.104, 0.102}, b_cpu[] = {0.1492, 0.1647, 0.1716};
  for (int i = 0; i < 3; ++i) {
    ab.a.runs.push_back(Run(a_p50[i]));
    ab.b.runs.push_back(Run(b_p50[i]));
    if (!cpu) continue;
    ab.a.fv_cpu_cores.push_back(a_cpu[i]);
    ab.b.fv_cpu_cores.push_back(b_cpu[i]);
  }
  ab.metrics = CompareAbRuns(ab.a, ab.b);
  return ab;
}

class AbGate : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = fs::path(::testing::TempDir()) / ("fvb-ab-gate-" + std::to_string(::getpid()));
    fs::remove_all(bench_);
    fs::create_directories(bench_ / "controller-results");
    // A profile without rules: only the A/B gate decides the A/B scenario.
    const std::string profile = (bench_ / "no-rules.json").string();
    ASSERT_TRUE(detail::WriteTextFile(profile, R"({"schema_version": 1, "scenarios": {}})").ok());
    config_.bench_dir = bench_.string();
    config_.thresholds = profile;
    config_.reference = FVBENCH_SOURCE_DIR "/reference.json";
  }
  void TearDown() override { fs::remove_all(bench_); }

  // The run as the scenario tests leave it: each result with the run's
  // checks added (AddRunChecks) and saved, the meta as provisioning writes it.
  // Returns the gtest failures the A/B scenario's test adds.
  // `gate_metrics`: AB_GATE_METRICS ({} = every metric); `cpu`: B's edge
  // CPU is worse too (BSlower).
  std::vector<std::string> SaveRun(bool ab_gate, const std::vector<std::string>& gate_metrics = {},
                                   bool cpu = false) {
    std::vector<std::string> failures;
    RunMeta meta = SampleMeta();
    meta.ab = true;
    meta.ab_gate = ab_gate;
    meta.ab_gate_metrics = gate_metrics;
    EXPECT_TRUE(detail::WriteTextFile(Controller("run_meta.json"), RunMetaToJson(meta)).ok());
    for (ScenarioResult r : SampleRunAllMeasured()) {
      if (r.id == kGated) r.ab = BSlower(cpu);
      AddRunChecks(r, nullptr, nullptr, ab_gate, gate_metrics);
      EXPECT_TRUE(SaveScenarioResult(Controller(r.id + ".json"), r).ok());
      if (r.id != kGated) continue;
      ::testing::TestPartResultArray added;
      {
        ::testing::ScopedFakeTestPartResultReporter intercept(
            ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &added);
        ::testing::internal::CaptureStdout();
        AddFailures(r.id, r, config_);
        printed_ = ::testing::internal::GetCapturedStdout();
      }
      for (int i = 0; i < added.size(); ++i) failures.push_back(added.GetTestPartResult(i).message());
    }
    ::testing::internal::CaptureStdout();
    (void)WriteRunReport(config_);
    (void)::testing::internal::GetCapturedStdout();
    return failures;
  }

  std::string Controller(const std::string& name) const { return (bench_ / "controller-results" / name).string(); }
  std::string Report(const std::string& name) const {
    auto text = detail::ReadTextFile((bench_ / "report" / name).string());
    EXPECT_TRUE(text.ok()) << name;
    return text.ok() ? *text : "";
  }
  // The A/B scenario's row of report.md's verdict table.
  std::string VerdictRow() {
    const std::string md = Report("report.md");
    const size_t at = md.find(std::string("| ") + kGated + " |");
    return at == std::string::npos ? "(no row)\n" + md : md.substr(at, md.find('\n', at) - at);
  }
  const ScenarioResult* SavedGated(const RunResults& run) {
    for (const ScenarioResult& r : run.scenarios) {
      if (r.id == kGated) return &r;
    }
    return nullptr;
  }

  fs::path bench_;
  Config config_;
  std::string printed_;  // what the A/B scenario's test printed besides its failures
};

TEST_F(AbGate, BWorseWithTheGateReadsFailInTheTestReportResultsAndBaseline) {
  const std::vector<std::string> failures = SaveRun(/*ab_gate=*/true);
  EXPECT_EQ(failures.size(), 4u) << ::testing::PrintToString(failures);
  for (const std::string& f : failures) {
    EXPECT_NE(f.find(std::string(kGated) + ": A/B regression (AB_GATE=1): p"), std::string::npos) << f;
    EXPECT_NE(f.find("B slower by"), std::string::npos) << f;
  }

  const std::string why = "A/B gate failed (AB_GATE=1): B worse in p50, p90, p99, p99.9";
  EXPECT_EQ(VerdictRow(), std::string("| ") + kGated + " | FAIL | " + why + " |");
  EXPECT_NE(Report("report.md").find("AB_GATE=1: a metric where B is significantly worse fails its scenario."),
            std::string::npos);

  const std::string json = Report("results.json");
  const nlohmann::json doc = nlohmann::json::parse(json);
  EXPECT_EQ(doc["meta"]["ab"]["gate"], true);
  auto run = RunResultsFromJson(json, "results.json");
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_TRUE(run->meta.ab_gate);
  const ScenarioResult* gated = SavedGated(*run);
  ASSERT_NE(gated, nullptr);
  ASSERT_TRUE(gated->ab);
  EXPECT_TRUE(gated->ab->gate);
  EXPECT_EQ(JudgeScenario(*gated).verdict, Verdict::kFail);

  auto refused = SaveBaseline(bench_.string(), (bench_ / "baseline.json").string(), /*force=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(std::string(kGated) + ": FAIL (" + why + ")"), std::string::npos)
      << refused.error().message;
}

// The same result without AB_GATE: B's regression is reported, not gated.
TEST_F(AbGate, BWorseWithoutTheGatePassesEverywhere) {
  EXPECT_TRUE(SaveRun(/*ab_gate=*/false).empty());
  EXPECT_EQ(VerdictRow(), std::string("| ") + kGated + " | PASS | — |");
  const nlohmann::json doc = nlohmann::json::parse(Report("results.json"));
  EXPECT_FALSE(doc["meta"]["ab"].contains("gate"));
  auto saved = SaveBaseline(bench_.string(), (bench_ / "baseline.json").string(), /*force=*/false);
  EXPECT_TRUE(saved.ok()) << saved.error().message;
}

// AB_GATE_METRICS=fv_cpu_us_per_request, the recommended CI gate
// (docs/regression-check.md "The gate on it, in CI"): B worse only in
// latencies passes everywhere, each latency regression printed and reported
// as not gated.
TEST_F(AbGate, BWorseOnlyInLatencyPassesAGateOnCpuPerRequest) {
  EXPECT_TRUE(SaveRun(/*ab_gate=*/true, {"fv_cpu_us_per_request"}).empty());
  EXPECT_NE(printed_.find("A/B: B worse, not gated (AB_GATE_METRICS): p99: "), std::string::npos) << printed_;
  EXPECT_EQ(VerdictRow(), std::string("| ") + kGated + " | PASS | — |");
  const std::string md = Report("report.md");
  EXPECT_NE(md.find("AB_GATE=1 on edge CPU/req (`AB_GATE_METRICS=fv_cpu_us_per_request`): B significantly worse "
                    "there fails its scenario; other metrics are reported, not gated."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("** (not gated) |"), std::string::npos) << md;
  const nlohmann::json doc = nlohmann::json::parse(Report("results.json"));
  EXPECT_EQ(doc["meta"]["ab"]["gate_metrics"], nlohmann::json::parse(R"(["fv_cpu_us_per_request"])"));
  auto run = RunResultsFromJson(Report("results.json"), "results.json");
  ASSERT_TRUE(run.ok()) << run.error().message;
  const ScenarioResult* gated = SavedGated(*run);
  ASSERT_NE(gated, nullptr);
  ASSERT_TRUE(gated->ab);
  EXPECT_EQ(gated->ab->gate_metrics, std::vector<std::string>{"fv_cpu_us_per_request"});
  EXPECT_EQ(JudgeScenario(*gated).verdict, Verdict::kPass);
  auto saved = SaveBaseline(bench_.string(), (bench_ / "baseline.json").string(), /*force=*/false);
  EXPECT_TRUE(saved.ok()) << saved.error().message;
}

// The same gate with B's edge CPU per request worse too: it fails on that
// metric alone.
TEST_F(AbGate, BWorseInCpuPerRequestFailsAGateOnIt) {
  const std::vector<std::string> failures = SaveRun(/*ab_gate=*/true, {"fv_cpu_us_per_request"}, /*cpu=*/true);
  ASSERT_EQ(failures.size(), 1u) << ::testing::PrintToString(failures);
  EXPECT_NE(failures[0].find(std::string(kGated) + ": A/B regression (AB_GATE=1): edge CPU/req: "), std::string::npos)
      << failures[0];
  const std::string why = "A/B gate failed (AB_GATE=1): B worse in edge CPU/req";
  EXPECT_EQ(VerdictRow(), std::string("| ") + kGated + " | FAIL | " + why + " |");
  auto refused = SaveBaseline(bench_.string(), (bench_ / "baseline.json").string(), /*force=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(std::string(kGated) + ": FAIL (" + why + ")"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace fvbench::ab_gate_test
