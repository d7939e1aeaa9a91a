// The RunReport (support/report/run_report.h): what is computed once for a
// run's report, and that the reporters format it instead of computing again.
#include "support/report/run_report.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <limits>
#include <string>

#include "support/report/markdown_report.h"
#include "support/report/results_io.h"
#include "support/report/summary_table.h"
#include "tests/unit/report_samples.h"

namespace fvbench::run_report_test {
namespace {

using testing_samples::SampleMeta;
using testing_samples::SampleRunAllMeasured;

Reference Ref(const std::string& text) {
  auto ref = ParseReference(text, "ref.json");
  EXPECT_TRUE(ref.ok()) << ref.error().message;
  return ref.ok() ? *ref : Reference{};
}

TEST(RunReport, FindsAResultByScenarioId) {
  std::vector<ScenarioResult> results(2);
  results[0].id = "latency.raw_nginx";
  results[1].id = "throughput.simple";
  EXPECT_EQ(FindResult(results, "throughput.simple"), &results[1]);
  EXPECT_EQ(FindResult(results, "throughput.llm"), nullptr);
  EXPECT_EQ(FindResult({}, "latency.raw_nginx"), nullptr);
  RunReport report;
  report.results = results;
  EXPECT_EQ(report.Find("latency.raw_nginx"), &report.results[0]);
}

TEST(RunReport, RatiosAreTheSameRunRatiosOfTheRun) {
  auto run = SampleRunAllMeasured();
  RunReport report = BuildRunReport(run, SampleMeta(), nullptr);
  auto expected = SameRunRatios(run, SampleMeta().started_unix);
  ASSERT_EQ(report.ratios.size(), expected.size());
  ASSERT_FALSE(expected.empty());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(report.ratios[i].scenario, expected[i].scenario);
    EXPECT_EQ(report.ratios[i].metric, expected[i].metric);
    EXPECT_EQ(report.ratios[i].ratio, expected[i].ratio);
  }
}

// The table, report.md and results.json show the report's ratios: a ratio
// changed in the report is what all three print (none computes its own).
TEST(RunReport, ReportersFormatTheReportsRatios) {
  RunReport report = BuildRunReport(SampleRunAllMeasured(), SampleMeta(), nullptr);
  ASSERT_FALSE(report.ratios.empty());
  report.ratios.resize(1);
  report.ratios[0].ratio = 9.87;
  std::string table = RenderSummaryTable(report);
  EXPECT_NE(table.find("9.87x"), std::string::npos) << table;
  std::string md = RenderMarkdownReport(report);
  EXPECT_NE(md.find("| 9.87x |"), std::string::npos) << md;
  auto doc = nlohmann::json::parse(RunResultsToJson(report));
  ASSERT_EQ(doc["same_run_ratios"].size(), 1u);
  EXPECT_EQ(doc["same_run_ratios"][0]["ratio"], 9.87);
}

TEST(RunReport, DeltasAgainstTheComparison) {
  auto run = SampleRunAllMeasured();  // decision_service p99 2000 µs; throughput.complex at its ceiling
  Reference ref = Ref(R"({"latency_us": {"decision_service": {"p99": 1000}},
                          "throughput_rps": {"simple": 800, "complex": 1000}})");
  ref.values[{"latency.decision_service", "p50_us"}] = 0;  // no file holds it; a baseline built in memory could
  RunReport report = BuildRunReport(run, SampleMeta(), &ref);
  const ComparedMetric* p99 = report.Compared("latency.decision_service", "p99_us");
  ASSERT_NE(p99, nullptr);
  EXPECT_EQ(p99->comparison, 1000);
  ASSERT_TRUE(p99->delta.has_value());
  EXPECT_DOUBLE_EQ(*p99->delta, 1.0);  // (2000 - 1000) / 1000
  const ComparedMetric* p50 = report.Compared("latency.decision_service", "p50_us");
  ASSERT_NE(p50, nullptr);
  EXPECT_FALSE(p50->delta.has_value());  // against 0: no percentage
  EXPECT_EQ(report.Compared("latency.decision_service", "p90_us"), nullptr);  // the comparison has none
  EXPECT_EQ(report.Compared("latency.raw_nginx", "p99_us"), nullptr);
  const ComparedMetric* simple = report.Compared("throughput.simple", "rps");
  ASSERT_NE(simple, nullptr);
  ASSERT_TRUE(simple->delta.has_value());
  EXPECT_DOUBLE_EQ(*simple->delta, (run[3].throughput_rps - 800) / 800);
  const ComparedMetric* complex = report.Compared("throughput.complex", "rps");
  ASSERT_NE(complex, nullptr);
  EXPECT_FALSE(complex->delta.has_value()) << "a lower bound (ceiling) has no delta";
  EXPECT_EQ(report.load_mismatch, "");

  // Against a subnormal comparison the quotient overflows: no delta, not "+inf %".
  ref.values[{"latency.decision_service", "p99_us"}] = 5e-324;
  report = BuildRunReport(run, SampleMeta(), &ref);
  ASSERT_NE(report.Compared("latency.decision_service", "p99_us"), nullptr);
  EXPECT_FALSE(report.Compared("latency.decision_service", "p99_us")->delta.has_value());
}

TEST(RunReport, CensoredLatencyHasNoComparison) {
  auto run = SampleRunAllMeasured();
  run[1].load.latency_us.censored_at_us = 2000;  // decision_service's p99 of 2000 µs is a lower bound
  Reference ref = Ref(R"({"latency_us": {"decision_service": {"p99": 1000, "p50": 300}}})");
  RunReport report = BuildRunReport(run, SampleMeta(), &ref);
  EXPECT_EQ(report.Compared("latency.decision_service", "p99_us"), nullptr);
  EXPECT_NE(report.Compared("latency.decision_service", "p50_us"), nullptr);
}

TEST(RunReport, VerdictsCountsAndLoadMismatch) {
  auto run = SampleRunAllMeasured();
  run[2].measured = false;
  run[2].error = "edge did not start";
  Reference ref;
  ref.meta["rps_latency"] = "10000";
  RunMeta meta = SampleMeta();
  meta.latency_rps = 1000;
  RunReport report = BuildRunReport(run, meta, &ref);
  ASSERT_EQ(report.verdicts.size(), run.size());
  EXPECT_EQ(report.verdicts[2].id, run[2].id);
  EXPECT_EQ(report.verdicts[2].verdict, Verdict::kFail);
  EXPECT_EQ(report.verdicts[2].reason, JudgeScenario(run[2]).summary);
  EXPECT_EQ(report.counts.fail, CountVerdicts(run).fail);
  EXPECT_EQ(report.counts.pass, CountVerdicts(run).pass);
  EXPECT_NE(report.load_mismatch.find("this run at 1000 RPS, the reference at 10000 RPS"), std::string::npos);
  EXPECT_NE(RenderSummaryTable(report).find("WARNING     " + report.load_mismatch), std::string::npos);
}

// A baseline recorded on another kernel: the report warns naming the value
// on both sides; the same environment, or a reference, warns of nothing.
TEST(RunReport, ABaselineOnOtherMachineFactsIsAWarning) {
  auto run = SampleRunAllMeasured();
  RunMeta meta = SampleMeta();
  HostEnvironment sut{"sut", "local", {}};
  sut.Set("kernel_release", "6.8.0-31");
  meta.environments = {sut};
  Reference base;
  base.baseline = true;
  base.environments = {sut};
  base.environments[0].Set("kernel_release", "6.1.0-18");
  RunReport report = BuildRunReport(run, meta, &base);
  EXPECT_EQ(report.environment_mismatch,
            "the baseline ran on other machine facts: sut local: kernel_release 6.1.0-18 -> 6.8.0-31");
  EXPECT_NE(RenderSummaryTable(report).find("WARNING     " + report.environment_mismatch), std::string::npos);
  EXPECT_NE(RenderMarkdownReport(report).find("**Warning:** the baseline ran on other machine facts: sut local: "
                                              "kernel_release 6.1.0-18 -> 6.8.0-31."),
            std::string::npos)
      << RenderMarkdownReport(report);

  base.environments = {sut};
  EXPECT_EQ(BuildRunReport(run, meta, &base).environment_mismatch, "");
  Reference ref;  // a reference has no environment
  EXPECT_EQ(BuildRunReport(run, meta, &ref).environment_mismatch, "");
}

// The run meta's preflight findings are shown once in each report.
TEST(RunReport, PreflightFindingsAreShown) {
  RunMeta meta = SampleMeta();
  meta.preflight = {"warning: sut local: thp_enabled is \"always\""};
  RunReport report = BuildRunReport(SampleRunAllMeasured(), meta, nullptr);
  EXPECT_NE(RenderSummaryTable(report).find("Preflight   warning: sut local: thp_enabled"), std::string::npos)
      << RenderSummaryTable(report);
  EXPECT_NE(RenderMarkdownReport(report).find("**Preflight:** warning: sut local: thp_enabled"), std::string::npos);
}

// With a profile the report evaluates the same-run ratio checks once: results
// of this run are checked against each other, an earlier ctest run's result
// is not, and the failures are listed for the report step's exit status.
TEST(RunReport, EvaluatesRatioChecksOfThisRunOnly) {
  auto profile = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {
      "latency.decision_service": {"p99_us": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 2}}},
      "latency.reverse_proxy": {"p99_us": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 10}}}}})",
                                       "p.json");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  auto run = SampleRunAllMeasured();  // raw 446.2, decision 2000 (> 2x), reverse 1790 (< 10x)
  RunReport report = BuildRunReport(run, SampleMeta(), nullptr, &*profile);
  ASSERT_EQ(report.results[1].ratio_checks.size(), 1u);
  EXPECT_FALSE(report.results[1].ratio_checks[0].passed);
  ASSERT_EQ(report.results[2].ratio_checks.size(), 1u);
  EXPECT_TRUE(report.results[2].ratio_checks[0].passed);
  ASSERT_EQ(report.failed_ratio_checks.size(), 1u);
  EXPECT_EQ(report.failed_ratio_checks[0].rfind("latency.decision_service: p99_us", 0), 0u)
      << report.failed_ratio_checks[0];
  EXPECT_EQ(report.verdicts[1].verdict, Verdict::kFail);  // verdicts see the checks

  run[1].started_unix = SampleMeta().started_unix - 600;  // an earlier ctest run's
  report = BuildRunReport(run, SampleMeta(), nullptr, &*profile);
  EXPECT_TRUE(report.results[1].ratio_checks.empty());
  EXPECT_TRUE(report.failed_ratio_checks.empty());
  EXPECT_NE(report.results[1].notes.back().find("ratio checks not evaluated: from an earlier ctest run"),
            std::string::npos);
}

}  // namespace
}  // namespace fvbench::run_report_test
