// RunPlan (core/run_plan.h) and its readers agree: the throughput search's
// parameters and budget, the progress lines' budget (the plan's
// load_budget_s), the ctest TIMEOUT bound (core/scenario_time.h) and the A/B
// pair length. Synthetic SUTs (no load, no timing) show that the searches
// the plan allows stay within the phases and load the bound counts.
#include "support/core/run_plan.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "support/core/scenario_time.h"
#include "support/judge/throughput_search.h"

namespace fvbench::run_plan_test {
namespace {

using ::testing::HasSubstr;

// The quiet wait counted per phase by the TIMEOUT bound (QUIET_TIMEOUT's default).
constexpr double kQuietTimeoutS = 30;

TEST(RunPlan, DefaultSearchLengthsComeFromTheBudget) {
  const Config c;
  const RunPlan p = RunPlanOf(c);
  EXPECT_FALSE(p.search.seed);
  EXPECT_TRUE(p.search.lengths_from_budget);
  EXPECT_EQ(p.search.lengths.probe_s, 3);
  EXPECT_EQ(p.search.lengths.step_s, 10);
  EXPECT_EQ(p.search.lengths.confirm_s, 20);
  EXPECT_EQ(p.search.confirm_runs, 1);
  EXPECT_EQ(p.search.load_budget_s, 120);
  EXPECT_EQ(p.search.max_phases, 41);  // 120 s of 3 s probes, + 1
  EXPECT_EQ(p.latency_runs, 1);
  EXPECT_EQ(p.ab_pairs, 0);
}

TEST(RunPlan, StepDurAndConfirmDurAsGiven) {
  Config c;
  c.step_dur_s = 20;
  RunPlan p = RunPlanOf(c);
  EXPECT_FALSE(p.search.lengths_from_budget);
  EXPECT_EQ(p.search.lengths.probe_s, 0);
  EXPECT_EQ(p.search.lengths.step_s, 20);
  EXPECT_EQ(p.search.lengths.confirm_s, 40);  // 2 x STEP_DUR
  EXPECT_EQ(p.search.max_phases, 7);
  c.confirm_dur_s = 30;
  EXPECT_EQ(RunPlanOf(c).search.lengths.confirm_s, 30);
  c.step_dur_s.reset();  // CONFIRM_DUR alone: probes and steps still from the budget
  p = RunPlanOf(c);
  EXPECT_EQ(p.search.lengths.probe_s, 3);
  EXPECT_EQ(p.search.lengths.step_s, 10);
  EXPECT_EQ(p.search.lengths.confirm_s, 30);
}

TEST(RunPlan, SeedSearchRunsItsSixSteps) {
  Config c;
  c.throughput_search = ThroughputSearchKind::kSeed;
  RunPlan p = RunPlanOf(c);
  EXPECT_TRUE(p.search.seed);
  EXPECT_EQ(p.search.lengths.step_s, 20);  // STEP_DUR unset: the seed's 20 s
  EXPECT_EQ(p.search.load_budget_s, 0);   // no budget: the progress lines count the search's load alone
  EXPECT_EQ(p.search.max_load_s, 120);
  EXPECT_EQ(p.search.max_phases, 6);
  c.step_dur_s = 5;
  EXPECT_EQ(RunPlanOf(c).search.max_load_s, 30);
}

// REPEAT=3 with the default budget: two more 20 s confirmation runs on top
// of the 120 s budget, 160 s, for the search and the progress lines alike.
// The progress lines counted 120 + 2 x CONFIRM_DUR's raw 40 s = 200 s.
TEST(RunPlan, RepeatThreeBudgetIsTheSearchsBudget) {
  Config c;
  c.repeat = 3;
  const RunPlan p = RunPlanOf(c);
  EXPECT_EQ(p.search.confirm_runs, 3);
  EXPECT_EQ(p.search.load_budget_s, 160);
  const ThroughputSearchParams sp = ThroughputSearchParamsFrom(c, RunPlanOf(c).search);
  EXPECT_EQ(sp.confirm_runs, 3);
  EXPECT_EQ(sp.confirm_dur_s, p.search.lengths.confirm_s);
  EXPECT_EQ(SearchLoadBudget(sp), p.search.load_budget_s);
  EXPECT_EQ(p.latency_runs, 3);
}

// A/B mode: REPEAT counts the pairs; the search (on side A) confirms once,
// so its budget is THROUGHPUT_BUDGET_S alone; the pairs run the search's
// step length (docs/ab.md: "for STEP_DUR s each", whose default is the
// budget's step, 10 s at 120 s). The pairs ran the raw STEP_DUR, 20 s.
TEST(RunPlan, AbModeRepeatCountsPairs) {
  Config c;
  c.ab = true;
  c.repeat = 5;
  c.latency_dur_s = 60;
  RunPlan p = RunPlanOf(c);
  EXPECT_EQ(p.ab_pairs, 5);
  EXPECT_EQ(p.search.confirm_runs, 1);
  EXPECT_EQ(p.search.load_budget_s, 120);
  EXPECT_EQ(ThroughputSearchParamsFrom(c, RunPlanOf(c).search).confirm_runs, 1);
  EXPECT_EQ(p.ab_latency_run_s, 60);
  EXPECT_EQ(p.ab_throughput_run_s, 10);
  c.step_dur_s = 3;  // STEP_DUR set (the ab-selftest preset)
  EXPECT_EQ(RunPlanOf(c).ab_throughput_run_s, 3);
  const ScenarioTimeBound b = ThroughputScenarioBound(ScenarioTimeInputsOf(c), kQuietTimeoutS);
  EXPECT_THAT(b.breakdown, HasSubstr("A/B 10 runs x (WARMUP_DUR 10 + step 3 + "));
}

// A synthetic SUT: serves up to `capacity` for runs up to `short_s`, up to
// `long_capacity` for longer ones; a random `flaky` share of its passing
// steps fail marginally (p99 over the SLO at the full rate: retried).
struct Sut {
  double capacity = 5000;
  double long_capacity = 5000;
  double short_s = 0;
  double flaky = 0;
  std::mt19937 rng{7};

  Result<MeasuredPhase> Run(const StepRequest& r) {
    const double cap = r.duration_s <= short_s ? capacity : long_capacity;
    LoadResult l;
    l.engine = "synthetic";
    l.target_rps = r.target_rps;
    l.duration_s = r.duration_s;
    l.achieved_rps = r.target_rps <= cap ? r.target_rps * 0.999 : cap;
    l.requests = static_cast<uint64_t>(l.achieved_rps * r.duration_s) + 1;
    l.error_rate = r.target_rps <= cap ? 0 : 0.2;
    l.latency_us.p99 = r.target_rps <= cap ? 800 : 400000;
    if (r.target_rps <= cap && std::uniform_real_distribution<double>(0, 1)(rng) < flaky) l.latency_us.p99 = 2e6;
    return MeasuredPhase{l};
  }
};

// The TIMEOUT bound counts the plan's phases and load; every search the
// plan allows stays within them. It counted load / min(STEP_DUR,
// CONFIRM_DUR) + 1 phases with the raw 20 s and 40 s: 7 at the defaults,
// where the default search runs more (3 s probes and 10 s steps).
TEST(RunPlan, TimeoutBoundCoversEverySearchThePlanAllows) {
  int most_phases = 0;
  for (int repeat : {1, 3}) {
    for (bool step_set : {false, true}) {
      Config c;
      c.repeat = repeat;
      if (step_set) c.step_dur_s = 5;
      const SearchPlan plan = RunPlanOf(c).search;
      const ScenarioTimeBound bound = ThroughputScenarioBound(ScenarioTimeInputsOf(c), kQuietTimeoutS);
      EXPECT_THAT(bound.breakdown, HasSubstr(fmt::format("{} phases x (QUIET_TIMEOUT 30 + 5)", plan.max_phases)));
      for (double capacity : {300.0, 4321.0, 17000.0, 149000.0}) {
        for (double flaky : {0.0, 0.3, 0.9}) {
          for (double long_capacity : {capacity, capacity / 3}) {
            Sut sut;
            sut.capacity = capacity;
            sut.long_capacity = long_capacity;
            sut.short_s = plan.lengths.step_s;
            sut.flaky = flaky;
            const SearchOutcome o =
                SearchMaxThroughput(c, RunPlanOf(c).search, [&](const StepRequest& r) { return sut.Run(r); });
            SCOPED_TRACE(fmt::format("REPEAT {} STEP_DUR {} capacity {} flaky {} long {}", repeat, step_set,
                                     capacity, flaky, long_capacity));
            EXPECT_LE(static_cast<int>(o.steps.size()), plan.max_phases);
            EXPECT_LE(o.load_s, plan.max_load_s + 1e-9);
            EXPECT_LE(o.load_s, plan.load_budget_s + 1e-9);
            most_phases = std::max(most_phases, static_cast<int>(o.steps.size()));
          }
        }
      }
    }
  }
  RecordProperty("most_phases", most_phases);
  EXPECT_GT(most_phases, 7);  // what the bound counted at the defaults
}

// The bound at the defaults: 41 phases of up to QUIET_TIMEOUT + 5 s each
// (1190 s more than the 7 it counted), the search's 120 s of load.
TEST(RunPlan, TimeoutBoundAtTheDefaults) {
  const Config c;
  const ScenarioTimeBound b = ThroughputScenarioBound(ScenarioTimeInputsOf(c), kQuietTimeoutS);
  EXPECT_EQ(b.breakdown,
            "WARMUP_DUR 10 + THROUGHPUT_BUDGET_S 120 + 0 x confirmation 20 + 41 phases x (QUIET_TIMEOUT 30 + 5) + "
            "start/stop 2 x HEALTH_TIMEOUT 20 + 60 + one phase timing out 60");
  EXPECT_EQ(b.seconds, 10 + 120 + 41 * 35 + 40 + 60 + 60);
  Config repeat3;
  repeat3.repeat = 3;
  EXPECT_THAT(ThroughputScenarioBound(ScenarioTimeInputsOf(repeat3), kQuietTimeoutS).breakdown,
              HasSubstr("THROUGHPUT_BUDGET_S 120 + 2 x confirmation 20 + 54 phases"));
}

}  // namespace
}  // namespace fvbench::run_plan_test
