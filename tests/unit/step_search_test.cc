#include "support/judge/step_search.h"

#include <gtest/gtest.h>

#include <vector>

namespace fvbench::step_search_test {
namespace {

// A synthetic SUT: serves up to `capacity` RPS with 800 µs p99; above it the
// achieved rate stays at capacity and errors grow with the overload.
LoadResult Synthetic(double target, double capacity) {
  LoadResult l;
  l.engine = "synthetic";
  l.target_rps = target;
  l.duration_s = 20;
  l.achieved_rps = target <= capacity ? target * 0.998 : capacity;
  l.requests = static_cast<uint64_t>(l.achieved_rps * l.duration_s);
  l.error_rate = target <= capacity ? 0 : (target - capacity) / target;
  l.failed = static_cast<uint64_t>(l.error_rate * static_cast<double>(l.requests));
  l.latency_us.p99 = target <= capacity ? 812 : 250000;
  return l;
}

struct Recorder {
  std::vector<double> targets;
  std::vector<int> indices;
};

StepFunction Capacity(double capacity, Recorder* rec) {
  return [capacity, rec](double target, int index) -> Result<LoadResult> {
    rec->targets.push_back(target);
    rec->indices.push_back(index);
    return Synthetic(target, capacity);
  };
}

SearchParams Params(double max) {
  SearchParams p;
  p.search_max_rps = max;
  return p;
}

TEST(StepSearch, KneeReportsMeasuredRateOfBestPassingStep) {
  Recorder rec;
  // Capacity 95000 of max 100000: 50, 70, 90 pass; 100 fails; search stops.
  SearchOutcome o = SeedStepSearch(Params(100000), Capacity(95000, &rec));
  EXPECT_EQ(rec.targets, (std::vector<double>{50000, 70000, 90000, 100000}));
  EXPECT_EQ(rec.indices, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(o.steps.size(), 4u);
  EXPECT_TRUE(o.steps[2].passed);
  EXPECT_FALSE(o.steps[3].passed);
  EXPECT_EQ(o.reported_step, 2);
  EXPECT_DOUBLE_EQ(o.reported_rps, 90000 * 0.998);  // measured, not the 90000 target
  EXPECT_NE(o.reported_rps, o.steps[2].target_rps);
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_TRUE(o.error.empty());
  EXPECT_EQ(o.steps[0].verdict, "pass: error_rate 0.00% < 1%, p99 812 µs < 1000000 µs, achieved 49900 of 50000 RPS >= 97%");
  EXPECT_EQ(o.steps[3].verdict, "fail: error_rate 5.00% >= 1%, achieved 95000 of 100000 RPS < 97%");
}

// The outcome carries the rule its steps were judged by, for the reports.
TEST(StepSearch, OutcomeCarriesThePassRuleItUsed) {
  Recorder rec;
  SearchParams p = Params(1000);
  p.slo_p99_us = 200000;
  p.max_error_rate = 0.05;
  p.min_achieved_fraction = 0.9;
  SearchOutcome o = SeedStepSearch(p, Capacity(1200, &rec));
  EXPECT_EQ(o.rule.slo_p99_us, 200000);
  EXPECT_EQ(o.rule.max_error_rate, 0.05);
  EXPECT_EQ(o.rule.min_achieved_fraction, 0.9);
  EXPECT_FALSE(o.rule.require_kept_up);
}

TEST(StepSearch, AlwaysPassingHitsTheCeiling) {
  Recorder rec;
  SearchOutcome o = SeedStepSearch(Params(1000), Capacity(1e9, &rec));
  EXPECT_EQ(rec.targets, (std::vector<double>{500, 700, 900, 1000, 1150, 1300}));
  ASSERT_EQ(o.steps.size(), 6u);
  EXPECT_TRUE(o.ceiling_reached);
  EXPECT_EQ(o.reported_step, 5);
  EXPECT_DOUBLE_EQ(o.reported_rps, 1300 * 0.998);
}

TEST(StepSearch, FailingTopStepIsNotACeiling) {
  Recorder rec;
  SearchOutcome o = SeedStepSearch(Params(1000), Capacity(1200, &rec));
  ASSERT_EQ(o.steps.size(), 6u);
  EXPECT_FALSE(o.steps[5].passed);
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_EQ(o.reported_step, 4);
}

TEST(StepSearch, FirstStepFailsReportsNothing) {
  Recorder rec;
  SearchOutcome o = SeedStepSearch(Params(1000), Capacity(100, &rec));
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_FALSE(o.steps[0].passed);
  EXPECT_EQ(o.reported_step, -1);
  EXPECT_EQ(o.reported_rps, 0);
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_EQ(o.steps[0].verdict, "fail: error_rate 80.00% >= 1%, achieved 100 of 500 RPS < 97%");  // p99 250 ms is within the SLO
}

TEST(StepSearch, EngineErrorMidSearchIsAFailedStepAndStops) {
  int calls = 0;
  auto run = [&](double target, int index) -> Result<LoadResult> {
    ++calls;
    if (index == 2) return Error{"k6 exited with status 107: stderr tail: ..."};
    return Synthetic(target, 1e9);
  };
  SearchOutcome o = SeedStepSearch(Params(1000), run);
  EXPECT_EQ(calls, 3);
  ASSERT_EQ(o.steps.size(), 3u);
  EXPECT_FALSE(o.steps[2].passed);
  EXPECT_EQ(o.steps[2].target_rps, 900);
  EXPECT_EQ(o.steps[2].load.target_rps, 900);
  EXPECT_EQ(o.steps[2].verdict, "fail: engine error: k6 exited with status 107: stderr tail: ...");
  EXPECT_EQ(o.error, "k6 exited with status 107: stderr tail: ...");
  EXPECT_EQ(o.reported_step, 1);
  EXPECT_DOUBLE_EQ(o.reported_rps, 700 * 0.998);
  EXPECT_FALSE(o.ceiling_reached);
}

TEST(StepSearch, SlowStepFailsOnP99Alone) {
  SearchParams p = Params(1000);
  p.slo_p99_us = 500;
  Recorder rec;
  SearchOutcome o = SeedStepSearch(p, Capacity(1e9, &rec));
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_EQ(o.steps[0].verdict, "fail: p99 812 µs >= 500 µs");
}

TEST(StepSearch, TargetsUseTheSeedsIntegerArithmetic) {
  Recorder rec;
  SearchOutcome o = SeedStepSearch(Params(333), Capacity(1e9, &rec));
  // floor(333 * pct / 100)
  EXPECT_EQ(rec.targets, (std::vector<double>{166, 233, 299, 333, 382, 432}));
  (void)o;
}

TEST(StepSearch, BestIsHighestMeasuredAmongPassingSteps) {
  // Achieved rates that do not grow with the target (engine-limited):
  std::vector<double> achieved = {500, 690, 650, 640, 630, 620};
  auto run = [&](double target, int index) -> Result<LoadResult> {
    LoadResult l = Synthetic(target, 1e9);
    l.achieved_rps = achieved[index];
    l.kept_up = false;
    l.dropped_iterations = 1000;
    return l;
  };
  SearchParams seed_rule = Params(1000);
  seed_rule.min_achieved_fraction = 0;  // the seed's rule: errors and p99 only
  SearchOutcome o = SeedStepSearch(seed_rule, run);
  EXPECT_EQ(o.reported_step, 1);
  EXPECT_EQ(o.reported_rps, 690);
  EXPECT_TRUE(o.ceiling_reached);
  EXPECT_EQ(o.steps[1].verdict,
            "pass: error_rate 0.00% < 1%, p99 812 µs < 1000000 µs; engine fell behind (1000 dropped iterations)");
}

TEST(StepSearch, SaturatedSutThatQueuesWithoutErrorsFailsOnAchievedRate) {
  // Recorded on this project's 2-core box (wrk, fairvisor reverse_proxy,
  // simple policy): no errors and p99 far under 1 s at every step, but the
  // achieved rate stops following the target. The seed's rule passed all six
  // steps and called the result a ceiling.
  const std::vector<double> achieved = {2499, 3498, 4439, 4540, 5194, 4992};
  auto run = [&](double target, int index) -> Result<LoadResult> {
    LoadResult l = Synthetic(target, 1e9);
    l.achieved_rps = achieved[index];
    l.latency_us.p99 = 20000;
    return l;
  };
  SearchOutcome o = SeedStepSearch(Params(5000), run);
  ASSERT_EQ(o.steps.size(), 4u);
  EXPECT_TRUE(o.steps[2].passed);
  EXPECT_FALSE(o.steps[3].passed);
  EXPECT_EQ(o.steps[3].verdict, "fail: achieved 4540 of 5000 RPS < 97%");
  EXPECT_EQ(o.reported_step, 2);
  EXPECT_EQ(o.reported_rps, 4439);
  EXPECT_FALSE(o.ceiling_reached);
}

TEST(StepSearch, StepWithNoRequestsFails) {
  auto run = [](double target, int) -> Result<LoadResult> {
    LoadResult l;
    l.target_rps = target;
    return l;  // zero requests, zero errors, zero latency
  };
  SearchOutcome o = SeedStepSearch(Params(1000), run);
  ASSERT_EQ(o.steps.size(), 1u);
  EXPECT_FALSE(o.steps[0].passed);
  EXPECT_EQ(o.steps[0].verdict, "fail: no requests completed, achieved 0 of 500 RPS < 97%");
  EXPECT_EQ(o.reported_step, -1);
}

TEST(StepSearch, JudgeStepBoundaries) {
  SearchParams p;
  LoadResult l = Synthetic(100, 1e9);
  l.error_rate = 0.01;  // not < 1%
  EXPECT_FALSE(JudgeStep(l, p).passed);
  l.error_rate = 0.0099;
  EXPECT_TRUE(JudgeStep(l, p).passed);
  l.latency_us.p99 = 1e6;  // not < 1 s
  EXPECT_FALSE(JudgeStep(l, p).passed);
  EXPECT_EQ(JudgeStep(l, p).text, "fail: p99 1000000 µs >= 1000000 µs");
}

// Requests the engine never sent are the engine's: the step fails because
// the engine fell behind, never on the SUT's error rate.
TEST(StepSearch, EngineFailuresAreNeverTheSutsErrorRate) {
  SearchParams p;
  p.require_kept_up = true;  // as the scenarios run it (LoadConfig)
  LoadResult l = Synthetic(1000, 1e9);
  l.scheduled = 20000;
  l.succeeded = 19000;
  l.failed_sut = 0;
  l.failed_engine = 1000;
  l.failed = 1000;
  l.error_rate = 0.05;
  l.dropped_iterations = 1000;
  l.kept_up = false;
  StepVerdict v = JudgeStep(l, p);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.text, "fail: engine fell behind (1000 dropped iterations)");
  l.failed_sut = 400;  // 2 % the SUT's
  v = JudgeStep(l, p);
  EXPECT_NE(v.text.find("SUT error_rate 2.00% (+1000 never sent by the engine) >= 1%"), std::string::npos) << v.text;
}

// A wrk schedule that ran ahead offered more than the target: named as such.
TEST(StepSearch, ScheduleThatRanAheadIsNamed) {
  SearchParams p;
  p.require_kept_up = true;  // as the scenarios run it (LoadConfig)
  LoadResult l = Synthetic(1000, 1e9);
  l.kept_up = false;
  l.max_early_send_us = 1770919.8;
  StepVerdict v = JudgeStep(l, p);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.text.find("engine ran ahead of its schedule"), std::string::npos) << v.text;
}

}  // namespace
}  // namespace fvbench::step_search_test
