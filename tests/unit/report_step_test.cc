// The report step (support/report/report_step.h) on the recorded full local
// run (fixtures/report/recorded_local_run.json, split into the per-scenario
// result files a run leaves in BENCH_DIR/controller-results): which files it
// writes, what it does with an unreadable result and a stale plot.
#include "support/report/report_step.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "support/core/json_fields.h"
#include "support/report/results_io.h"
#include "tests/unit/golden.h"
#include "fvbench/source_dir.h"

namespace fvbench::report_step_test {
namespace {

namespace fs = std::filesystem;

class ReportStep : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = fs::path(::testing::TempDir()) / ("fvb-report-step-" + std::to_string(::getpid()));
    fs::remove_all(bench_);
    fs::create_directories(bench_ / "controller-results");
    const std::string recorded = testing_golden::FixturesDir() + "/report/recorded_local_run.json";
    auto text = detail::ReadTextFile(recorded);
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto run = RunResultsFromJson(*text, recorded);
    ASSERT_TRUE(run.ok()) << run.error().message;
    run_ = *run;
    ASSERT_TRUE(detail::WriteTextFile(Controller("run_meta.json"), RunMetaToJson(run_.meta)).ok());
    for (const ScenarioResult& r : run_.scenarios) {
      ASSERT_TRUE(SaveScenarioResult(Controller(r.id + ".json"), r).ok());
    }
    config_.bench_dir = bench_.string();
    config_.reference = FVBENCH_SOURCE_DIR "/reference.json";
    config_.thresholds = FVBENCH_SOURCE_DIR "/thresholds/portable.json";
  }
  void TearDown() override { fs::remove_all(bench_); }

  std::string Controller(const std::string& name) const { return (bench_ / "controller-results" / name).string(); }
  std::string Report(const std::string& name) const { return (bench_ / "report" / name).string(); }

  fs::path bench_;
  RunResults run_;
  Config config_;
};

TEST_F(ReportStep, LoadsEveryScenarioOfTheRunInOrder) {
  RunResultFiles files = LoadRunResults(config_);
  EXPECT_EQ(files.unreadable, 0);
  ASSERT_EQ(files.results.size(), run_.scenarios.size());
  for (size_t i = 0; i < files.results.size(); ++i) EXPECT_EQ(files.results[i].id, run_.scenarios[i].id);
  EXPECT_EQ(files.meta.started_unix, run_.meta.started_unix);
  // The run ended when its last scenario finished, also when the report is
  // rendered again long after (the recorded run is from 2026).
  double last = 0;
  for (const ScenarioResult& r : run_.scenarios) last = std::max(last, r.finished_unix);
  ASSERT_GT(last, files.meta.started_unix);
  EXPECT_EQ(files.meta.finished_unix, last);
}

// A run whose scenarios all predate it (provision rewrote the start; nothing
// ran since): the step's own time, as before.
TEST_F(ReportStep, RunWithNothingMeasuredSinceItsStartEndsWhenTheStepRuns) {
  RunMeta later = run_.meta;
  later.started_unix = NowUnix();
  ASSERT_TRUE(detail::WriteTextFile(Controller("run_meta.json"), RunMetaToJson(later)).ok());
  RunResultFiles files = LoadRunResults(config_);
  EXPECT_GE(files.meta.finished_unix, later.started_unix);
}

TEST_F(ReportStep, WritesTableResultsReportAndThePlotsOfTheScenariosRun) {
  ::testing::internal::CaptureStdout();
  const int status = WriteRunReport(config_);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("report: "), std::string::npos) << out;
  for (const char* f :
       {"summary.txt", "results.json", "report.md", "report.html", "latency.svg", "throughput_simple.svg"}) {
    EXPECT_TRUE(fs::exists(Report(f))) << f;
  }
  // report.html holds the plots themselves (html_report.h).
  auto html = detail::ReadTextFile(Report("report.html"));
  ASSERT_TRUE(html.ok());
  EXPECT_NE(html->find("<figure id=\"figure-latency-svg\"><svg"), std::string::npos);
  auto written = detail::ReadTextFile(Report("results.json"));
  ASSERT_TRUE(written.ok());
  auto back = RunResultsFromJson(*written, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->scenarios.size(), run_.scenarios.size());
  // The exit status is the same-run ratio gates' (and file problems'): the
  // recorded run is whatever it was; only 0 or 1.
  EXPECT_TRUE(status == 0 || status == 1);
}

TEST_F(ReportStep, UnreadableResultIsShownAsFailedAndFailsTheStep) {
  ASSERT_TRUE(detail::WriteTextFile(Controller("latency.raw_nginx.json"), "{not json").ok());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = WriteRunReport(config_);
  (void)::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, 1);
  EXPECT_NE(err.find("latency.raw_nginx.json"), std::string::npos) << err;
  auto table = detail::ReadTextFile(Report("summary.txt"));
  ASSERT_TRUE(table.ok());
  EXPECT_NE(table->find("result file unreadable"), std::string::npos);
}

// report.html that cannot be written (a directory in its place): a named
// problem and a failed step; report.md and results.json are written.
TEST_F(ReportStep, HtmlReportNotWrittenFailsTheStepAndKeepsTheOtherFiles) {
  ::testing::internal::CaptureStdout();
  const int written = WriteRunReport(config_);
  (void)::testing::internal::GetCapturedStdout();
  ASSERT_EQ(written, 0) << "the recorded run's report step fails on its own";
  fs::remove_all(bench_ / "report");
  fs::create_directories(bench_ / "report" / "report.html");
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = WriteRunReport(config_);
  (void)::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(status, 1);
  EXPECT_NE(err.find("fvbench report: report.html not written: "), std::string::npos) << err;
  EXPECT_TRUE(fs::exists(Report("report.md")));
  EXPECT_TRUE(fs::exists(Report("results.json")));
}

TEST_F(ReportStep, RemovesAPlotOfAScenarioNotRunNow) {
  fs::create_directories(bench_ / "report");
  ASSERT_TRUE(detail::WriteTextFile(Report("throughput_llm.svg"), "<svg/>").ok());
  fs::remove(Controller("throughput.llm.json"));
  ::testing::internal::CaptureStdout();
  (void)WriteRunReport(config_);
  (void)::testing::internal::GetCapturedStdout();
  EXPECT_FALSE(fs::exists(Report("throughput_llm.svg")));
  EXPECT_TRUE(fs::exists(Report("throughput_simple.svg")));
}

TEST_F(ReportStep, RemovesATimelineOfAPhaseWithoutIntervalsNow) {
  fs::create_directories(bench_ / "report");
  ASSERT_TRUE(detail::WriteTextFile(Report("timeline_latency_raw_nginx.svg"), "<svg/>").ok());
  ASSERT_TRUE(detail::WriteTextFile(Report("timeline_notes.txt"), "kept").ok());
  ::testing::internal::CaptureStdout();
  (void)WriteRunReport(config_);
  (void)::testing::internal::GetCapturedStdout();
  EXPECT_FALSE(fs::exists(Report("timeline_latency_raw_nginx.svg")));
  EXPECT_TRUE(fs::exists(Report("timeline_notes.txt")));
}

}  // namespace
}  // namespace fvbench::report_step_test
