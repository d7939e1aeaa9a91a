// What a scenario test prints when its scenario is done
// (support/report/console_outcome.h): the measured line agrees with the
// reports on a lower bound, and the outcome lists checks, validity and A/B in
// the order printed, ending with the result file.
#include "support/report/console_outcome.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

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

TEST(DescribeOutcome, LimitsPhasesOneLineEach) {
  ScenarioResult r;
  r.id = "limits.accuracy";
  r.measured = true;
  LimitRun two;
  two.workers = 2;
  LimitAccuracy& a = two.accuracy;
  a.admitted_min = 150;
  a.admitted_median = 150;
  a.admitted_max = 151;
  a.allowed_per_key = 120;
  a.floor_per_key = 80.2;
  a.over_admission = 0.2569;
  a.keys_over = 300;
  a.keys_planned = 300;
  a.over_admission_key = "k1";
  a.worst_window_admitted = 16;
  a.window_allowed = 30;
  a.reject_share = 0;
  a.expected_reject_share = 0.2002;
  a.before_window = 3;
  LimitRun one = two;
  one.workers = 1;
  one.accuracy.keys_over = 0;
  r.limits = {two, one};
  const ConsoleOutcome o = DescribeOutcome(r, "x.json");
  EXPECT_EQ(o.limits,
            "limits 2 workers, 300 keys: admitted per key 150/150/151 of 120 allowed (floor 80.2), over-admission 25.69% (300 "
            "keys, worst k1), worst 1 s 16 of 30, 429 share 0.00% (a correct limiter's least 20.02%), 3 log lines "
            "before the phase\n"
            "limits 1 worker, 300 keys: admitted per key 150/150/151 of 120 allowed (floor 80.2), over-admission none, "
            "worst 1 s 16 of 30, 429 share 0.00% (a correct limiter's least 20.02%), 3 log lines before the phase");
  EXPECT_NE(o.text.find(o.limits + "\n"), std::string::npos) << o.text;
  EXPECT_TRUE(DescribeOutcome(ScenarioResult{}, "y.json").limits.empty());
}

TEST(DescribeOutcome, RejectCostPhasesThenRatios) {
  ScenarioResult r;
  r.id = "limits.reject_cost";
  r.measured = true;
  RejectCostRun run;
  run.admitted.name = "admitted";
  run.admitted.keys = 100;
  run.admitted.offered_per_key_rps = 5;
  run.admitted.load.achieved_rps = 500;
  run.admitted.load.latency_us = {400, 500, 1200, 2100, 3000};
  run.admitted.ok = 2000;
  run.admitted.reject_share = 0;
  run.admitted.cpu_us_per_request = 150.04;
  run.rejected = run.admitted;
  run.rejected.name = "rejected";
  run.rejected.keys = 1;
  run.rejected.offered_per_key_rps = 500;
  run.rejected.by_status = false;
  run.rejected.ok = 40;
  run.rejected.rejected = 1960;
  run.rejected.reject_share = 0.98;
  run.rejected.cpu_us_per_request = std::nan("");
  run.p50_ratio = 0.75;
  run.p99_ratio = 1.25;
  r.reject_cost = run;
  const ConsoleOutcome o = DescribeOutcome(r, "x.json");
  EXPECT_EQ(o.reject_cost,
            "reject_cost admitted: 100 keys at 5 RPS each, achieved 500 RPS, 2xx/429/other 2000/0/0 (429 share "
            "0.00%), p50 400 µs p99 1.20 ms p99.9 2.10 ms (all statuses), edge CPU 150 µs per request\n"
            "reject_cost rejected: 1 key at 500 RPS each, achieved 500 RPS, 2xx/non-2xx/other 40/1960/0 (429 share "
            "98.00%), p50 400 µs p99 1.20 ms p99.9 2.10 ms (all statuses), edge CPU not sampled\n"
            "reject_cost rejected / admitted: p50 0.75 x, p99 1.25 x, CPU per request not known");
  EXPECT_NE(o.text.find(o.reject_cost + "\n"), std::string::npos) << o.text;
  EXPECT_TRUE(DescribeOutcome(ScenarioResult{}, "y.json").reject_cost.empty());
}

TEST(DescribeOutcome, KeySweepOneLinePerPointAndTheBreak) {
  ScenarioResult r;
  r.id = "limits.keys";
  r.measured = true;
  LimitRun p10;
  p10.accuracy.keys_planned = 10;
  p10.load.achieved_rps = 1000;
  p10.load.latency_us.p50 = 500;
  p10.load.latency_us.p99 = 1000;
  LimitRun p100 = p10;
  p100.accuracy.keys_planned = 100;
  p100.load.latency_us.p99 = 2500;
  r.limits = {p10, p100};
  r.key_sweep = {{10, 10, 20.0, 21.0}, {100, 10, std::nullopt, std::nullopt}};
  const ConsoleOutcome o = DescribeOutcome(r, "x.json");
  EXPECT_EQ(o.key_sweep,
            "keys 10: achieved 1000 RPS, p50 500 µs p99 1.00 ms, over-admission 0.00% (0 keys over), edge RSS 20.0 MiB "
            "(peak 21.0 MiB)\n"
            "keys 100: achieved 1000 RPS, p50 500 µs p99 2.50 ms, over-admission 0.00% (0 keys over), edge RSS not "
            "sampled (peak not sampled)\n"
            "break: p99 breaks at K=100 (2.50 ms > 2 x 1.00 ms at the first point)");
  EXPECT_NE(o.text.find(o.key_sweep + "\n"), std::string::npos) << o.text;
  EXPECT_TRUE(DescribeOutcome(ScenarioResult{}, "y.json").key_sweep.empty());
}

}  // namespace
}  // namespace fvbench::console_outcome_test
