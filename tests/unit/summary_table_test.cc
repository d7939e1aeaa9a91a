// Golden-file test of the console summary.
//
// The expected output is fixtures/golden/summary_table.txt. After an intended
// change to the table's layout, regenerate it and review the diff:
//
//   FVBENCH_UPDATE_GOLDEN=1 ctest --test-dir <build> -R unit.SummaryTable
//   git diff fixtures/golden/summary_table.txt
//
// With FVBENCH_UPDATE_GOLDEN=1 the golden test writes the file instead of
// comparing (and says so in its output).
#include "support/report/summary_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/judge/reference.h"
#include "tests/unit/golden.h"
#include "tests/unit/report_samples.h"

namespace fvbench::summary_table_test {
namespace {

using testing_samples::SampleMeta;
using testing_samples::SampleRun;

using testing_golden::CompareGolden;
using testing_golden::FixturesDir;

// A reference independent of the shipped reference.json, so editing that file
// does not change this golden output.
Reference TestReference() {
  auto ref = ParseReference(R"J({"meta": {"source": "test reference (c7i.2xlarge numbers)"},
      "latency_us": {"decision_service": {"p50": 112, "p90": 191, "p99": 426, "p999": 2990},
                     "reverse_proxy":    {"p50": 241, "p90": 376, "p99": 822, "p999": 2980},
                     "raw_nginx":        {"p50":  71, "p90": 190, "p99": 446, "p999": 1610}},
      "throughput_rps": {"simple": 110500, "complex": 67600},
      "throughput_ceiling_reached": {"complex": true}})J",
                            "test-reference.json");
  EXPECT_TRUE(ref.ok()) << ref.error().message;
  return ref.ok() ? *ref : Reference{};
}

std::vector<ScenarioResult> GoldenRun() {
  auto run = SampleRun();
  run[0].checks = {{"error_rate", "<", 0, 0.01, std::nullopt, true},
                   {"p99_us", "<=", 446.2, 100000, 446, true}};
  run[1].load.kept_up = false;
  run[1].load.dropped_iterations = 1234;
  run[1].notes.push_back("engine fell behind: 1234 dropped iterations\nresult is not valid at this rate");
  run[1].checks = {{"p99_us", "<=", 2000, 639, 426, false}};
  run[2].checks = {{"error_rate", "<", std::nan(""), 0.01, std::nullopt, false}};
  run[3].checks = {{"rps", ">", 1001.2, 0, 110500, true}};
  run[3].error = "SUT error log grew by 312 lines during the load\nfirst: [error] lua entry thread aborted";
  return run;
}

TEST(SummaryTable, MatchesGoldenFile) {
  Reference ref = TestReference();
  std::string got = RenderSummaryTable(GoldenRun(), SampleMeta(), &ref);
  CompareGolden("summary_table.txt", got);
}

// The properties the golden file is meant to show, asserted directly so a
// careless regeneration cannot hide their loss.
TEST(SummaryTable, ShowsEveryStateHonestly) {
  Reference ref = TestReference();
  std::string t = RenderSummaryTable(GoldenRun(), SampleMeta(), &ref);
  EXPECT_NE(t.find("71 µs (ref 71, +0.6 %)"), std::string::npos) << t;          // raw nginx p50 with ref and delta
  EXPECT_NE(t.find("2.00 ms (ref 426 µs, +369.5 %)"), std::string::npos) << t;    // units differ: ref keeps its own; signed delta
  EXPECT_NE(t.find("FAILED"), std::string::npos);                       // reverse_proxy failed
  EXPECT_NE(t.find("latency.reverse_proxy (FAILED before measuring): fairvisor edge did not become healthy"),
            std::string::npos)
      << t;                                                              // and why
  EXPECT_NE(t.find("throughput.simple (after measuring): SUT error log grew"), std::string::npos) << t;
  EXPECT_NE(t.find("at least 1296 (ceiling reached) (ref ≥ 67600)"), std::string::npos) << t;
  EXPECT_NE(t.find("latency.decision_service / latency.raw_nginx    p50 4.26x  p90 4.26x  p99 4.48x  p99.9 4.48x"),
            std::string::npos)
      << t;  // same-run ratios
  EXPECT_NE(t.find("1001 (ref 110500, −99.1 %)      0.00%, see Errors"), std::string::npos) << t;       // measured, not the 1000 target
  EXPECT_NE(t.find("LLM token-budget policy"), std::string::npos);
  EXPECT_NE(t.find("not run"), std::string::npos);                      // llm absent
  EXPECT_NE(t.find("NO (1234 dropped)"), std::string::npos) << t;
  EXPECT_NE(t.find("SUT cpuset 0-3, engine cpuset 4-7 (auto split)"), std::string::npos);
  EXPECT_NE(t.find("k6 v0.54.0"), std::string::npos);
  EXPECT_NE(t.find("@ 0123456789abcdef0123456789abcdef01234567"), std::string::npos);  // commit as given
  EXPECT_NE(t.find("FAIL  latency.decision_service: p99_us = 2000 µs (limit <= 639 µs; reference 426 µs)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("0.04%"), std::string::npos);                        // decision_service error rate
}

TEST(SummaryTable, UnpinnedAndNoReference) {
  RunMeta m = SampleMeta();
  m.sut_cpuset.clear();
  m.loadgen_cpuset.clear();
  m.cpusets_auto = false;
  std::string t = RenderSummaryTable(SampleRun(), m, nullptr);
  EXPECT_NE(t.find("unpinned: engine and SUT share cores"), std::string::npos) << t;
  EXPECT_EQ(t.find("(ref "), std::string::npos) << t;
  EXPECT_NE(t.find("none (no reference values shown)"), std::string::npos);

  m.mode = "remote";
  m.sut_host = "ubuntu@sut";
  m.loadgen_host = "ubuntu@loadgen";
  t = RenderSummaryTable(SampleRun(), m, nullptr);
  EXPECT_NE(t.find("unpinned (engine and SUT on separate hosts)"), std::string::npos) << t;
}

TEST(SummaryTable, EmptyRunSaysNotRunEverywhere) {
  std::string t = RenderSummaryTable({}, RunMeta{}, nullptr);
  size_t count = 0;
  for (size_t pos = t.find("not run"); pos != std::string::npos; pos = t.find("not run", pos + 1)) ++count;
  EXPECT_EQ(count, 8u * 3 + 3);  // 8 latency rows x 3 columns + 3 throughput rows
  EXPECT_EQ(t.find("FAILED"), std::string::npos);
  // No search ran: the throughput header must not describe one (it used to
  // describe the seed search whenever no result said "bisect").
  EXPECT_NE(t.find("(no throughput search ran in this run)"), std::string::npos) << t;
  EXPECT_EQ(t.find("50/70/90"), std::string::npos) << t;
  EXPECT_EQ(t.find("bisect between"), std::string::npos) << t;
}

}  // namespace
}  // namespace fvbench::summary_table_test

namespace fvbench::summary_table_test {
namespace {

// The bisect search's details, REPEAT spreads and same-run ratio checks.
TEST(SummaryTable, SearchRepeatsAndRatioChecks) {
  auto run = testing_samples::SampleRun();
  ScenarioResult& lat = run[0];  // latency.raw_nginx, p99 446.2
  lat.repeats = {lat.load, lat.load, lat.load};
  lat.spread["p99_us"] = {812, 964, 1100};
  ScenarioResult& thr = run[3];  // throughput.simple
  thr.search = "bisect";
  thr.confirmed = true;
  thr.search_resolution = 0.018;
  thr.search_load_s = 96;
  thr.steps[0].role = "bracket";
  thr.steps[1].role = "bisect";
  thr.steps[2].role = "confirm";
  thr.steps[2].load.duration_s = 10;
  RatioCheck rc;
  rc.metric = "p99_us";
  rc.op = "<=";
  rc.measured = 2000;
  rc.ratio_to = "latency.raw_nginx";
  rc.factor = 3;
  rc.base = 446.2;
  rc.limit = 1338.6;
  rc.passed = false;
  run[1].ratio_checks.push_back(rc);
  std::string t = RenderSummaryTable(run, SampleMeta(), nullptr);
  EXPECT_NE(t.find("446 µs (812 µs–1.10 ms, n=3)"), std::string::npos) << t;
  EXPECT_NE(t.find("bisect search: resolution 1.8 %, 96 s of load, confirmed"), std::string::npos) << t;
  EXPECT_NE(t.find("confirm      900 RPS for  10 s ->      897 RPS measured  pass"), std::string::npos) << t;
  EXPECT_NE(t.find("bracket      500 RPS for  60 s"), std::string::npos) << t;
  EXPECT_NE(t.find("double from the start rate until a step fails"), std::string::npos) << t;
  EXPECT_NE(t.find("FAIL  latency.decision_service: p99_us = 2000 µs = 4.48 x latency.raw_nginx (limit <= 3 x "
                   "latency.raw_nginx's 446 µs = 1339 µs)"),
            std::string::npos)
      << t;

  thr.confirmed = false;
  thr.search_resolution.reset();
  thr.search_stop = "budget: a bisect step at 1200 RPS (5 s) would exceed THROUGHPUT_BUDGET_S=60 s (used 60 s)";
  t = RenderSummaryTable(run, SampleMeta(), nullptr);
  EXPECT_NE(t.find("at least 1001 (no step failed) UNCONFIRMED"), std::string::npos) << t;
  EXPECT_NE(t.find("no resolution (no step failed), 96 s of load, UNCONFIRMED; stopped early: budget"),
            std::string::npos)
      << t;
  // Nothing passed (the fresh-user trial's search of one failed step), or
  // passes with a failure at or below them: never "no step failed".
  for (StepResult& s : thr.steps) s.passed = false;
  t = RenderSummaryTable(run, SampleMeta(), nullptr);
  EXPECT_NE(t.find("no resolution (no step passed), 96 s of load"), std::string::npos) << t;
  thr.steps[1].passed = true;
  thr.throughput_rps = 0;
  thr.measured = false;
  t = RenderSummaryTable(run, SampleMeta(), nullptr);
  EXPECT_NE(t.find("no resolution (no rate held), 96 s of load"), std::string::npos) << t;
}

}  // namespace
}  // namespace fvbench::summary_table_test
