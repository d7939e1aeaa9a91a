// What a scenario test prints when its scenario is done
// (support/report/console_outcome.h): the measured line agrees with the
// reports on a lower bound, and the outcome lists checks, validity and A/B in
// the order printed, ending with the result file.
#include "support/report/console_outcome.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::console_outcome_test {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A bisect search that stopped (here on an engine error) with no failed step
// has no resolution, and its rate is "at least".
TEST(MeasuredLine, ASearchWithoutAFailedStepIsALowerBound) {
  ScenarioResult r;
  r.id = "throughput.simple";
  r.search = "bisect";
  r.throughput_rps = 1975.6;
  r.steps.resize(2);
  for (StepResult& s : r.steps) s.passed = true;
  EXPECT_THAT(MeasuredLine(r), HasSubstr("max sustained at least 1976 RPS (no step failed) (UNCONFIRMED"));
  EXPECT_THAT(MeasuredLine(r), HasSubstr("bisect search, resolution none (no step failed), "));
  r.search_resolution = 0.02;
  r.confirmed = true;
  EXPECT_THAT(MeasuredLine(r), HasSubstr("max sustained 1976 RPS (measured in the confirmation run)"));
  r.ceiling_reached = true;
  EXPECT_THAT(MeasuredLine(r), HasSubstr("max sustained at least 1976 RPS (ceiling reached)"));
  r.search_resolution.reset();
  EXPECT_THAT(MeasuredLine(r), HasSubstr("bisect search, resolution none (ceiling), "));
}

TEST(DescribeOutcome, ListsChecksValidityAndAbInOrderAndEndsWithTheResultFile) {
  ScenarioResult r;
  r.id = "latency.raw_nginx";
  r.measured = true;
  r.load.latency_us.p99 = 900;
  ThresholdCheck pass;
  pass.metric = "p50_us";
  pass.passed = true;
  ThresholdCheck fail;
  fail.metric = "p99_us";
  fail.passed = false;
  r.checks = {pass, fail};
  ValidityCheck v;
  v.name = "engine_kept_up";
  v.passed = false;
  r.validity = {v};
  r.ab = AbResult{};
  r.ab->method = "interleaved pairs";

  const ConsoleOutcome o = DescribeOutcome(r, "/b/controller-results/latency.raw_nginx.json");
  EXPECT_THAT(o.measured, StartsWith("latency.raw_nginx: p50 "));
  EXPECT_THAT(o.checks, StartsWith("pass "));
  EXPECT_THAT(o.checks, HasSubstr("\nFAIL "));
  EXPECT_EQ(o.ab, "A/B interleaved pairs");
  EXPECT_THAT(o.text, StartsWith(o.measured + "\ncheck: pass "));
  const size_t check = o.text.find("check: FAIL "), validity = o.text.find("validity: FAIL engine_kept_up"),
               ab = o.text.find("A/B interleaved pairs\n");
  EXPECT_LT(check, validity) << o.text;
  EXPECT_LT(validity, ab) << o.text;
  EXPECT_NE(ab, std::string::npos) << o.text;
  EXPECT_THAT(o.text, EndsWith("result: /b/controller-results/latency.raw_nginx.json\n"));
}

TEST(DescribeOutcome, ANotMeasuredResultPrintsOnlyItsFile) {
  ScenarioResult r;
  r.id = "latency.raw_nginx";
  r.error = "not run: no SUT";
  const ConsoleOutcome o = DescribeOutcome(r, "x.json");
  EXPECT_EQ(o.measured, "");
  EXPECT_EQ(o.checks, "");
  EXPECT_EQ(o.ab, "");
  EXPECT_EQ(o.text, "result: x.json\n");
}

}  // namespace
}  // namespace fvbench::console_outcome_test
