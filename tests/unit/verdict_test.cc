// The one verdict (support/judge/verdict.h JudgeScenario): each state, its
// one-line summary for the reports, and the lines the scenario test fails
// with, under both VALIDITY modes and with the A/B gate on and off.
#include "support/judge/verdict.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/judge/ab_compare.h"
#include "support/judge/thresholds.h"
#include "support/judge/validity.h"
#include "tests/unit/report_samples.h"

namespace fvbench::verdict_test {
namespace {

using testing_samples::SampleRunAllMeasured;

ValidityCheck FailedValidity() { return {"engine_kept_up", false, false, ">=", 0.5, 0.95, ""}; }

// An A/B result whose p99 is significantly worse on side B (and whose p50
// shows no significant difference).
AbResult BWorseInP99() {
  AbResult ab;
  AbComparison p50;
  p50.metric = "p50_us";
  p50.pairs = 3;
  p50.a_median = 400;
  p50.b_median = 401;
  p50.verdict = AbVerdict::kNoDifference;
  AbComparison p99 = p50;
  p99.metric = "p99_us";
  p99.a_median = 800;
  p99.b_median = 1000;
  p99.delta = 0.25;
  p99.ci_low = 0.20;
  p99.ci_high = 0.30;
  p99.noise = 0.05;
  p99.verdict = AbVerdict::kBWorse;
  ab.metrics = {p50, p99};
  return ab;
}

TEST(Verdict, PassHasNoReasons) {
  const Judgement j = JudgeScenario(SampleRunAllMeasured()[0]);
  EXPECT_EQ(j.verdict, Verdict::kPass);
  EXPECT_EQ(j.summary, "");
  EXPECT_TRUE(j.failures.empty());
  EXPECT_TRUE(j.warnings.empty());
}

TEST(Verdict, FailedValidityIsInvalidAndFailsTheTestOnlyUnderValidityFail) {
  ScenarioResult r = SampleRunAllMeasured()[0];
  r.validity = {FailedValidity(), {"unpinned", false, true, "", 0, 0, ""}};  // informational never invalidates
  const Judgement fail = JudgeScenario(r, GatePolicy{ValidityMode::kFail});
  EXPECT_EQ(fail.verdict, Verdict::kInvalid);
  EXPECT_EQ(fail.summary, "validity failed: engine_kept_up");
  EXPECT_EQ(fail.failures, std::vector<std::string>{"validity check failed: " + DescribeValidity(r.validity[0])});
  EXPECT_TRUE(fail.warnings.empty());
  const Judgement warn = JudgeScenario(r, GatePolicy{ValidityMode::kWarn});
  EXPECT_EQ(warn.verdict, Verdict::kInvalid);
  EXPECT_EQ(warn.summary, fail.summary);
  EXPECT_TRUE(warn.failures.empty());
  EXPECT_EQ(warn.warnings,
            std::vector<std::string>{"INVALID (VALIDITY=warn, not failed): " + DescribeValidity(r.validity[0])});
}

TEST(Verdict, FailedChecksFailWithTheirSentences) {
  ScenarioResult r = SampleRunAllMeasured()[1];
  r.checks = {{"p99_us", "<=", 2000, 639, 426, false}, {"error_rate", "<", 0, 0.01, std::nullopt, true}};
  r.ratio_checks = {{"p99_us", "<=", 10, "latency.raw_nginx", 2, 1, 2, false}};
  r.validity = {FailedValidity()};  // FAIL wins over INVALID
  const Judgement j = JudgeScenario(r);
  EXPECT_EQ(j.verdict, Verdict::kFail);
  EXPECT_EQ(j.summary, "2 checks failed (p99_us, p99_us / latency.raw_nginx); validity failed: engine_kept_up");
  EXPECT_EQ(j.failures, (std::vector<std::string>{DescribeCheck(r.checks[0]),
                                                  "ratio check failed: " + DescribeRatioCheck(r.ratio_checks[0]),
                                                  "validity check failed: " + DescribeValidity(r.validity[0])}));
}

TEST(Verdict, ErrorsAndMissingNumbersFail) {
  ScenarioResult after = SampleRunAllMeasured()[0];
  after.error = "SUT error log grew\nsecond line";
  Judgement j = JudgeScenario(after);
  EXPECT_EQ(j.verdict, Verdict::kFail);
  EXPECT_EQ(j.summary, "error after measuring: SUT error log grew");
  EXPECT_EQ(j.failures, std::vector<std::string>{after.error});  // the whole message

  ScenarioResult never;
  never.id = "latency.raw_nginx";
  never.error = "edge did not start\nstderr tail";
  j = JudgeScenario(never);
  EXPECT_EQ(j.verdict, Verdict::kFail);
  EXPECT_EQ(j.summary, "not measured: edge did not start");
  EXPECT_EQ(j.failures, std::vector<std::string>{never.error});

  // No number and no message still fails the test, as the reports say FAIL.
  never.error.clear();
  j = JudgeScenario(never);
  EXPECT_EQ(j.verdict, Verdict::kFail);
  EXPECT_EQ(j.failures, std::vector<std::string>{"not measured: (no error message recorded)"});
}

// The typed field decides, not the message: a message that happens to start
// with "interrupted" is not an interrupted run.
TEST(Verdict, InterruptedIsTheTypedField) {
  ScenarioResult cut;
  cut.id = "throughput.llm";
  cut.interrupted = true;
  cut.error = "interrupted by signal 2 during the run; raw outputs pulled so far are in raw/";
  EXPECT_EQ(JudgeScenario(cut).summary, "interrupted: " + cut.error);
  ScenarioResult failed;
  failed.id = "throughput.llm";
  failed.error = "interrupted connection to the SUT host";
  EXPECT_EQ(JudgeScenario(failed).summary, "not measured: " + failed.error);
}

TEST(Verdict, BWorseFailsOnlyWithTheGateRecorded) {
  ScenarioResult r = SampleRunAllMeasured()[1];
  r.ab = BWorseInP99();
  Judgement off = JudgeScenario(r);
  EXPECT_EQ(off.verdict, Verdict::kPass);
  EXPECT_TRUE(off.failures.empty());

  r.ab->gate = true;
  const Judgement on = JudgeScenario(r);
  EXPECT_EQ(on.verdict, Verdict::kFail);
  EXPECT_EQ(on.summary, "A/B gate failed (AB_GATE=1): B worse in p99");
  EXPECT_EQ(on.failures,
            std::vector<std::string>{"A/B regression (AB_GATE=1): " + DescribeAbMetric(r.ab->metrics[1])});
}

// AB_GATE_METRICS=fv_cpu_us_per_request: B worse only in p99 passes, the
// p99 regression printed as not gated; B worse in edge CPU per request fails.
TEST(Verdict, GateMetricsDecideWhichWorseMetricFails) {
  ScenarioResult r = SampleRunAllMeasured()[1];
  r.ab = BWorseInP99();
  AddRunChecks(r, nullptr, nullptr, /*ab_gate=*/true, {"fv_cpu_us_per_request"});
  EXPECT_EQ(r.ab->gate_metrics, std::vector<std::string>{"fv_cpu_us_per_request"});
  const Judgement p99_only = JudgeScenario(r);
  EXPECT_EQ(p99_only.verdict, Verdict::kPass);
  EXPECT_EQ(p99_only.summary, "");
  EXPECT_TRUE(p99_only.failures.empty()) << ::testing::PrintToString(p99_only.failures);
  EXPECT_EQ(p99_only.warnings, std::vector<std::string>{"A/B: B worse, not gated (AB_GATE_METRICS): " +
                                                        DescribeAbMetric(r.ab->metrics[1])});

  AbComparison cpu = r.ab->metrics[1];
  cpu.metric = "fv_cpu_us_per_request";
  cpu.a_median = 180;
  cpu.b_median = 200;
  r.ab->metrics.push_back(cpu);
  const Judgement both = JudgeScenario(r);
  EXPECT_EQ(both.verdict, Verdict::kFail);
  EXPECT_EQ(both.summary, "A/B gate failed (AB_GATE=1): B worse in edge CPU/req");
  EXPECT_EQ(both.failures, std::vector<std::string>{"A/B regression (AB_GATE=1): " + DescribeAbMetric(cpu)});
  EXPECT_EQ(both.warnings.size(), 1u);

  // The same result gated on every metric (AB_GATE_METRICS unset) fails on both.
  AddRunChecks(r, nullptr, nullptr, /*ab_gate=*/true, {});
  const Judgement all = JudgeScenario(r);
  EXPECT_EQ(all.verdict, Verdict::kFail);
  EXPECT_EQ(all.summary, "A/B gate failed (AB_GATE=1): B worse in p99, edge CPU/req");
  EXPECT_EQ(all.failures.size(), 2u);
  EXPECT_TRUE(all.warnings.empty());

  // Without the gate, gate metrics are neither recorded nor judged.
  AddRunChecks(r, nullptr, nullptr, /*ab_gate=*/false, {"fv_cpu_us_per_request"});
  EXPECT_TRUE(r.ab->gate_metrics.empty());
  const Judgement off = JudgeScenario(r);
  EXPECT_EQ(off.verdict, Verdict::kPass);
  EXPECT_TRUE(off.warnings.empty());
}

// A regression that is the same in every pair, far beyond the resolution
// (edge CPU 0.3125 -> 0.6246 cores, 312.5 -> 624.6 µs/req, in all 3 pairs):
// B worse, so the gate fails on it like on any significant worse metric.
TEST(Verdict, GateFailsOnTheSameRegressionInEveryPair) {
  ScenarioResult r = SampleRunAllMeasured()[1];
  AbResult ab;
  for (int i = 0; i < 3; ++i) {
    LoadResult run = r.load;
    run.requests = 4000;
    run.duration_s = 4;
    run.achieved_rps = 1000;
    ab.a.runs.push_back(run);
    ab.b.runs.push_back(run);
    ab.a.fv_cpu_cores.push_back(0.3125);
    ab.b.fv_cpu_cores.push_back(0.6246);
  }
  ab.metrics = CompareAbRuns(ab.a, ab.b);
  ab.gate = true;
  r.ab = ab;
  const Judgement j = JudgeScenario(r);
  EXPECT_EQ(j.verdict, Verdict::kFail);
  EXPECT_EQ(j.summary, "A/B gate failed (AB_GATE=1): B worse in edge CPU, edge CPU/req");
}

TEST(Verdict, CountsEachVerdict) {
  auto run = SampleRunAllMeasured();
  run[1].validity = {FailedValidity()};
  run[2].error = "SUT error log grew";
  run[3].ab = BWorseInP99();
  run[3].ab->gate = true;
  VerdictCounts n = CountVerdicts(run);
  EXPECT_EQ(n.pass, static_cast<int>(run.size()) - 3);
  EXPECT_EQ(n.fail, 2);
  EXPECT_EQ(n.invalid, 1);
}

}  // namespace
}  // namespace fvbench::verdict_test
