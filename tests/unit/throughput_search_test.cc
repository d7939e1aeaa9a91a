// MaxThroughputSearch over synthetic SUTs (no load, no timing).
#include "support/judge/throughput_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace fvbench {
namespace {

// A SUT that serves up to `capacity` RPS at 800 µs p99; above it the achieved
// rate stays at capacity, errors and p99 grow.
LoadResult Knee(double target, double duration, double capacity) {
  LoadResult l;
  l.engine = "synthetic";
  l.target_rps = target;
  l.duration_s = duration;
  l.achieved_rps = target <= capacity ? target * 0.999 : capacity;
  l.requests = static_cast<uint64_t>(l.achieved_rps * duration);
  l.error_rate = target <= capacity ? 0 : std::min(1.0, 0.05 + (target - capacity) / target);
  l.failed = static_cast<uint64_t>(l.error_rate * static_cast<double>(l.requests));
  l.latency_us.p99 = target <= capacity ? 800 : 400000;
  return l;
}

struct Log {
  std::vector<StepRequest> requests;
};

SearchStepFunction KneeAt(double capacity, Log* log) {
  return [capacity, log](const StepRequest& r) -> Result<LoadResult> {
    log->requests.push_back(r);
    return Knee(r.target_rps, r.duration_s, capacity);
  };
}

ThroughputSearchParams Params(double cap) {
  ThroughputSearchParams p;
  p.cap_rps = cap;
  p.step_dur_s = 5;
  p.confirm_dur_s = 10;
  p.budget_s = 1000;
  return p;
}

int CountRole(const SearchOutcome& o, const std::string& role) {
  int n = 0;
  for (const auto& s : o.steps) n += s.role == role;
  return n;
}

double LoadOf(const SearchOutcome& o) {
  double t = 0;
  for (const auto& s : o.steps) t += s.load.duration_s;
  return t;
}

TEST(MaxSearch, KneeFoundWithinResolutionAndConfirmed) {
  Log log;
  SearchOutcome o = MaxThroughputSearch(Params(8000), KneeAt(3300, &log));
  ASSERT_TRUE(o.confirmed) << o.stop_reason;
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_TRUE(o.error.empty());
  EXPECT_TRUE(o.stop_reason.empty()) << o.stop_reason;
  // Bracket 1000, 2000, 4000 (fails; retried once), then bisect.
  ASSERT_GE(o.steps.size(), 5u);
  EXPECT_EQ(o.steps[0].target_rps, 1000);
  EXPECT_EQ(o.steps[1].target_rps, 2000);
  EXPECT_EQ(o.steps[2].target_rps, 4000);
  EXPECT_FALSE(o.steps[2].passed);
  EXPECT_EQ(o.steps[3].target_rps, 4000);  // the retry
  EXPECT_EQ(o.steps[3].role, "bracket");
  EXPECT_GT(CountRole(o, "bisect"), 0);
  EXPECT_EQ(CountRole(o, "confirm"), 1);
  const StepResult& c = o.steps.back();
  EXPECT_EQ(c.role, "confirm");
  EXPECT_EQ(c.load.duration_s, 10);
  EXPECT_EQ(o.reported_step, static_cast<int>(o.steps.size()) - 1);
  // Measured, not the target; within the resolution below the knee.
  EXPECT_DOUBLE_EQ(o.reported_rps, c.load.achieved_rps);
  EXPECT_NE(o.reported_rps, c.target_rps);
  EXPECT_LE(c.target_rps, 3300);
  EXPECT_GE(c.target_rps, 3300 / 1.02);
  ASSERT_TRUE(o.resolution.has_value());
  EXPECT_LE(*o.resolution, 0.02);
  EXPECT_GT(*o.resolution, 0);
  EXPECT_DOUBLE_EQ(o.load_s, LoadOf(o));
  // Indices are positions, in order.
  for (size_t i = 0; i < log.requests.size(); ++i) EXPECT_EQ(log.requests[i].index, static_cast<int>(i));
}

TEST(MaxSearch, OutcomeCarriesThePassRuleItUsed) {
  Log log;
  ThroughputSearchParams p = Params(8000);
  p.rule.slo_p99_us = 300000;
  SearchOutcome o = MaxThroughputSearch(p, KneeAt(3300, &log));
  EXPECT_EQ(o.rule.slo_p99_us, 300000);
  EXPECT_EQ(o.rule.max_error_rate, p.rule.max_error_rate);
  EXPECT_TRUE(o.rule.require_kept_up);  // the bisect search's default
}

TEST(MaxSearch, StartRateDefaultsToAnEighthOfTheCapAndHonoursStart) {
  Log log;
  ThroughputSearchParams p = Params(8000);
  p.start_rps = 3000;
  SearchOutcome o = MaxThroughputSearch(p, KneeAt(5000, &log));
  EXPECT_EQ(o.steps[0].target_rps, 3000);
  EXPECT_EQ(o.steps[1].target_rps, 6000);
  EXPECT_TRUE(o.confirmed);
  EXPECT_GE(o.steps.back().target_rps, 5000 / 1.02);
}

TEST(MaxSearch, CapThatAlwaysPassesIsACeilingNotAMaximum) {
  Log log;
  SearchOutcome o = MaxThroughputSearch(Params(1000), KneeAt(1e9, &log));
  ASSERT_TRUE(o.confirmed);
  EXPECT_TRUE(o.ceiling_reached);
  EXPECT_FALSE(o.resolution.has_value());
  std::vector<double> targets;
  for (const auto& s : o.steps) targets.push_back(s.target_rps);
  EXPECT_EQ(targets, (std::vector<double>{125, 250, 500, 1000, 1000}));
  EXPECT_EQ(o.steps.back().role, "confirm");
  EXPECT_DOUBLE_EQ(o.reported_rps, 999);  // the confirmation's measured rate
  for (const auto& r : log.requests) EXPECT_LE(r.target_rps, 1000) << "never above the cap";
}

TEST(MaxSearch, EngineThatCannotKeepUpFailsTheStep) {
  // The SUT would serve 10000, but the engine falls behind above 2500.
  Log log;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    log.requests.push_back(r);
    LoadResult l = Knee(r.target_rps, r.duration_s, 10000);
    if (r.target_rps > 2500) {
      l.kept_up = false;
      l.dropped_iterations = 1234;
    }
    return l;
  };
  SearchOutcome o = MaxThroughputSearch(Params(8000), run);
  ASSERT_TRUE(o.confirmed);
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_LE(o.steps.back().target_rps, 2500);
  EXPECT_GE(o.steps.back().target_rps, 2500 / 1.02);
  bool saw = false;
  for (const auto& s : o.steps) {
    if (s.target_rps > 2500) {
      EXPECT_FALSE(s.passed);
      EXPECT_NE(s.verdict.find("engine fell behind (1234 dropped iterations)"), std::string::npos) << s.verdict;
      saw = true;
    }
  }
  EXPECT_TRUE(saw);
}

TEST(MaxSearch, KeptUpRuleCanBeLeftOutLikeTheSeed) {
  LoadResult l = Knee(1000, 5, 2000);
  l.kept_up = false;
  l.dropped_iterations = 3;
  SearchParams seed;
  EXPECT_TRUE(JudgeStep(l, seed).passed);
  seed.require_kept_up = true;
  StepVerdict v = JudgeStep(l, seed);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.text, "fail: engine fell behind (3 dropped iterations)");
}

TEST(MaxSearch, NoiseStaysWithinResolutionOfTheKnee) {
  // ±3 % achieved-rate noise and p99 jitter, seeded: results land near the
  // knee on every seed, and always from a passing confirmation.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(-0.03, 0.03);
    const double capacity = 4200;
    auto run = [&](const StepRequest& r) -> Result<LoadResult> {
      LoadResult l = Knee(r.target_rps, r.duration_s, capacity);
      l.achieved_rps = std::min(r.target_rps, l.achieved_rps * (1 + jitter(rng)));
      l.latency_us.p99 *= 1 + 10 * jitter(rng);
      return l;
    };
    SearchOutcome o = MaxThroughputSearch(Params(16000), run);
    ASSERT_TRUE(o.confirmed) << "seed " << seed << ": " << o.stop_reason;
    const StepResult& c = o.steps[o.reported_step];
    EXPECT_TRUE(c.passed);
    EXPECT_EQ(c.role, "confirm");
    // A noisy achieved rate may fail a step below the knee (under 97 % of
    // target), so the found rate is within a few resolutions below the knee,
    // never above it.
    EXPECT_LE(c.target_rps, capacity) << "seed " << seed;
    EXPECT_GE(c.target_rps, capacity * 0.90) << "seed " << seed;
    EXPECT_DOUBLE_EQ(o.reported_rps, c.load.achieved_rps);
  }
}

TEST(MaxSearch, OneTransientBlipBelowTheKneeIsRetried) {
  // Capacity 5000; the first step at 2000 fails once (a transient blip).
  Log log;
  bool blipped = false;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    log.requests.push_back(r);
    LoadResult l = Knee(r.target_rps, r.duration_s, 5000);
    if (r.target_rps == 2000 && !blipped) {
      blipped = true;
      l.error_rate = 0.2;
    }
    return l;
  };
  SearchOutcome o = MaxThroughputSearch(Params(8000), run);
  ASSERT_TRUE(blipped);
  ASSERT_TRUE(o.confirmed);
  EXPECT_FALSE(o.steps[1].passed);
  EXPECT_TRUE(o.steps[2].passed);
  EXPECT_EQ(o.steps[2].target_rps, 2000);
  EXPECT_NE(o.steps[2].verdict.find("attempt 2 after a failed step"), std::string::npos) << o.steps[2].verdict;
  EXPECT_LE(o.steps.back().target_rps, 5000);
  EXPECT_GE(o.steps.back().target_rps, 5000 / 1.02);
}

TEST(MaxSearch, WithoutRetryABlipLowersTheResult) {
  // The documented reason for the retry: the same blip with retries = 0 ends
  // the bracket at 2000 and the result falls far below the knee.
  bool blipped = false;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    LoadResult l = Knee(r.target_rps, r.duration_s, 5000);
    if (r.target_rps == 2000 && !blipped) {
      blipped = true;
      l.error_rate = 0.2;
    }
    return l;
  };
  ThroughputSearchParams p = Params(8000);
  p.retries = 0;
  SearchOutcome o = MaxThroughputSearch(p, run);
  ASSERT_TRUE(o.confirmed);
  EXPECT_LT(o.steps.back().target_rps, 2000);
}

TEST(MaxSearch, FirstStepFailingBracketsDownwards) {
  Log log;
  SearchOutcome o = MaxThroughputSearch(Params(8000), KneeAt(300, &log));
  ASSERT_TRUE(o.confirmed) << o.stop_reason;
  EXPECT_EQ(o.steps[0].target_rps, 1000);
  EXPECT_EQ(o.steps[2].target_rps, 500);
  EXPECT_LE(o.steps.back().target_rps, 300);
  EXPECT_GE(o.steps.back().target_rps, 300 / 1.02);
}

TEST(MaxSearch, NothingPassesReportsNothing) {
  auto run = [](const StepRequest& r) -> Result<LoadResult> {
    LoadResult l = Knee(r.target_rps, r.duration_s, 1e9);
    l.error_rate = 0.5;
    return l;
  };
  ThroughputSearchParams p = Params(64);
  SearchOutcome o = MaxThroughputSearch(p, run);
  EXPECT_EQ(o.reported_step, -1);
  EXPECT_EQ(o.reported_rps, 0);
  EXPECT_FALSE(o.confirmed);
  EXPECT_EQ(CountRole(o, "confirm"), 0);
  EXPECT_NE(o.stop_reason.find("no step passed down to"), std::string::npos) << o.stop_reason;
}

TEST(MaxSearch, BudgetBoundsLoadAndKeepsTimeForTheConfirmation) {
  Log log;
  ThroughputSearchParams p = Params(8000);
  p.budget_s = 40;  // 5 s steps + a 10 s confirmation: 6 steps then confirm
  SearchOutcome o = MaxThroughputSearch(p, KneeAt(3300, &log));
  EXPECT_LE(o.load_s, 40);
  EXPECT_DOUBLE_EQ(o.load_s, LoadOf(o));
  EXPECT_EQ(o.load_s, 40);
  ASSERT_TRUE(o.confirmed);
  EXPECT_EQ(o.steps.back().role, "confirm");
  EXPECT_NE(o.stop_reason.find("budget"), std::string::npos);
  EXPECT_NE(o.stop_reason.find("THROUGHPUT_BUDGET_S=40 s"), std::string::npos) << o.stop_reason;
  ASSERT_TRUE(o.resolution.has_value());
  EXPECT_GT(*o.resolution, 0.02);  // coarser than asked: said, not hidden
}

TEST(MaxSearch, BudgetTooSmallForAConfirmationReportsUnconfirmed) {
  Log log;
  ThroughputSearchParams p = Params(8000);
  p.budget_s = 12;  // one 5 s step fits only if no confirmation is kept... none does
  p.confirm_dur_s = 10;
  SearchOutcome o = MaxThroughputSearch(p, KneeAt(3300, &log));
  EXPECT_TRUE(log.requests.empty());
  EXPECT_FALSE(o.confirmed);
  EXPECT_EQ(o.reported_step, -1);
  EXPECT_NE(o.stop_reason.find("budget"), std::string::npos);
}

TEST(MaxSearch, FailingConfirmationStepsDown) {
  // Short steps pass up to 3000; a longer run only holds 2900 (the SUT
  // degrades over time): the first confirmation fails, the search steps down
  // by the resolution until one passes.
  Log log;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    log.requests.push_back(r);
    double capacity = r.role == "confirm" ? 2900 : 3000;
    return Knee(r.target_rps, r.duration_s, capacity);
  };
  SearchOutcome o = MaxThroughputSearch(Params(8000), run);
  ASSERT_TRUE(o.confirmed) << o.stop_reason;
  EXPECT_GE(CountRole(o, "confirm"), 2);
  int first_confirm = -1;
  for (int i = 0; i < static_cast<int>(o.steps.size()); ++i) {
    if (o.steps[i].role == "confirm") {
      first_confirm = i;
      break;
    }
  }
  ASSERT_GE(first_confirm, 0);
  EXPECT_FALSE(o.steps[first_confirm].passed);
  const StepResult& c = o.steps[o.reported_step];
  EXPECT_TRUE(c.passed);
  EXPECT_LE(c.target_rps, 2900);
  EXPECT_GE(c.target_rps, 2900 * 0.98 * 0.96);  // steps of 2 %, then 4 %
  ASSERT_TRUE(o.resolution.has_value());  // against the failed confirmation
  EXPECT_GT(*o.resolution, 0);
}

TEST(MaxSearch, FailingConfirmationAtTheCapIsNoCeiling) {
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    return Knee(r.target_rps, r.duration_s, r.role == "confirm" ? 950 : 1e9);
  };
  SearchOutcome o = MaxThroughputSearch(Params(1000), run);
  ASSERT_TRUE(o.confirmed);
  EXPECT_FALSE(o.ceiling_reached);
  EXPECT_LE(o.steps[o.reported_step].target_rps, 950);
}

TEST(MaxSearch, FailingConfirmationOutOfBudgetIsReportedUnconfirmed) {
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    return Knee(r.target_rps, r.duration_s, r.role == "confirm" ? 100 : 3300);
  };
  ThroughputSearchParams p = Params(8000);
  p.budget_s = 60;
  SearchOutcome o = MaxThroughputSearch(p, run);
  EXPECT_FALSE(o.confirmed);
  EXPECT_LE(o.load_s, 60);
  EXPECT_NE(o.stop_reason.find("confirmation at"), std::string::npos) << o.stop_reason;
  ASSERT_GE(o.reported_step, 0);  // the best passing step below every failure, flagged unconfirmed
  EXPECT_TRUE(o.steps[o.reported_step].passed);
  EXPECT_NE(o.steps[o.reported_step].role, "confirm");
}

TEST(MaxSearch, RepeatsConfirmNTimesAndReportTheMedian) {
  int n = 0;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    LoadResult l = Knee(r.target_rps, r.duration_s, 3300);
    if (r.role == "confirm") l.achieved_rps = r.target_rps * (0.98 + 0.005 * (n++ % 3));
    return l;
  };
  ThroughputSearchParams p = Params(8000);
  p.confirm_runs = 3;
  p.budget_s = 60;  // + 2 x 10 s for the extra confirmation runs
  SearchOutcome o = MaxThroughputSearch(p, run);
  ASSERT_TRUE(o.confirmed) << o.stop_reason;
  ASSERT_EQ(o.repeats.size(), 3u);
  EXPECT_EQ(CountRole(o, "confirm"), 3);
  EXPECT_LE(o.load_s, 80);
  double t = o.steps[o.repeats[0]].target_rps;
  EXPECT_DOUBLE_EQ(o.reported_rps, t * 0.985);  // median of 0.98, 0.985, 0.99
  EXPECT_DOUBLE_EQ(o.steps[o.reported_step].load.achieved_rps, o.reported_rps);
}

TEST(MaxSearch, EngineErrorStopsAndKeepsWhatWasKnown) {
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    if (r.target_rps >= 4000) return Error{"wrk exited 1: connection refused"};
    return Knee(r.target_rps, r.duration_s, 1e9);
  };
  SearchOutcome o = MaxThroughputSearch(Params(8000), run);
  EXPECT_EQ(o.error, "wrk exited 1: connection refused");
  EXPECT_FALSE(o.confirmed);
  EXPECT_EQ(o.steps.back().verdict, "fail: engine error: wrk exited 1: connection refused");
  EXPECT_EQ(CountRole(o, "confirm"), 0);
  ASSERT_GE(o.reported_step, 0);
  EXPECT_EQ(o.steps[o.reported_step].target_rps, 2000);
}

}  // namespace
}  // namespace fvbench

namespace fvbench {
namespace {

TEST(MaxSearch, ConfigChoosesTheSearch) {
  Config c;
  c.throughput_search_max = 1000;
  c.step_dur_s = 3;
  c.confirm_dur_s = 6;
  std::vector<StepRequest> seen;
  auto run = [&](const StepRequest& r) -> Result<LoadResult> {
    seen.push_back(r);
    LoadResult l;
    l.target_rps = r.target_rps;
    l.duration_s = r.duration_s;
    l.requests = 100;
    l.achieved_rps = r.target_rps;
    return l;
  };
  SearchOutcome b = SearchMaxThroughput(c, run);
  EXPECT_TRUE(b.confirmed);
  EXPECT_TRUE(b.ceiling_reached);
  EXPECT_EQ(seen.back().role, "confirm");
  EXPECT_EQ(seen.back().duration_s, 6);
  seen.clear();
  c.throughput_search = ThroughputSearchKind::kSeed;
  SearchOutcome s = SearchMaxThroughput(c, run);
  EXPECT_FALSE(s.confirmed);
  EXPECT_TRUE(s.ceiling_reached);
  ASSERT_EQ(seen.size(), 6u);
  EXPECT_EQ(seen[0].target_rps, 500);
  EXPECT_EQ(seen[5].target_rps, 1300);
  EXPECT_EQ(seen[5].role, "");
  EXPECT_EQ(s.load_s, 18);
}

}  // namespace
}  // namespace fvbench
