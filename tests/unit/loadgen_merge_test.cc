#include "support/judge/loadgen_merge.h"
#include "support/judge/validity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "support/core/interval_latency.h"
#include "support/core/latency_histogram_json.h"
#include "support/judge/loadgen_shards.h"

namespace fvbench::loadgen_merge_test {
namespace {

TEST(LoadgenShards, SharesSumToTheRateAndMergedArrivalsAreEvenlySpaced) {
  for (size_t n : {1u, 2u, 3u, 7u}) {
    const double rate = 3000;
    const auto plans = PlanShards(rate, n);
    ASSERT_EQ(plans.size(), n);
    double sum = 0;
    std::vector<double> arrivals;  // µs after the common start, first 300 slots of each shard
    for (const ShardPlan& p : plans) {
      sum += p.rate_rps;
      for (int k = 0; k < 300; ++k) arrivals.push_back(p.offset_us + k * 1e6 / p.rate_rps);
    }
    EXPECT_DOUBLE_EQ(sum, rate);
    std::sort(arrivals.begin(), arrivals.end());
    for (size_t i = 1; i < arrivals.size(); ++i) {
      ASSERT_NEAR(arrivals[i] - arrivals[i - 1], 1e6 / rate, 1e-6) << "n " << n << " slot " << i;
    }
  }
  EXPECT_TRUE(PlanShards(0, 2).empty());
  EXPECT_TRUE(PlanShards(100, 0).empty());
}

// k6's execution segments (k6 docs "Execution segment"): one sequence, one segment each.
TEST(LoadgenShards, K6SegmentsOfOneSequence) {
  const auto two = PlanShards(1000, 2);
  EXPECT_EQ(two[0].k6_segment, "0:1/2");
  EXPECT_EQ(two[1].k6_segment, "1/2:1");
  EXPECT_EQ(two[0].k6_sequence, "0,1/2,1");
  const auto three = PlanShards(1000, 3);
  EXPECT_EQ(three[1].k6_segment, "1/3:2/3");
  EXPECT_EQ(three[2].k6_sequence, "0,1/3,2/3,1");
  EXPECT_EQ(PlanShards(1000, 1)[0].k6_segment, "0:1");
  EXPECT_EQ(StartEpochUs(1'700'000'000'123'456.0, 2e6), 1'700'000'002'124'000.0);
}

InstanceRun Instance(const std::string& name, double target, uint64_t scheduled, uint64_t succeeded, double start_us,
                double mean_us, uint64_t seed) {
  InstanceRun run;
  run.meta.name = name;
  run.meta.target_rps = target;
  run.meta.start_epoch_us = start_us;
  run.meta.end_epoch_us = start_us + 10e6;
  LoadResult& r = run.result;
  r.engine = "wrk";
  r.target_rps = target;
  r.duration_s = 10;
  r.requests = succeeded;
  r.scheduled = scheduled;
  r.succeeded = succeeded;
  r.failed_sut = scheduled - succeeded;
  r.failed = scheduled - succeeded;
  r.achieved_rps = static_cast<double>(succeeded) / 10;
  r.late_send_share = 0.0001;
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> lat(1 / mean_us);
  for (uint64_t i = 0; i < succeeded; ++i) run.histogram.RecordUs(100 + lat(rng));
  return run;
}

TEST(LoadgenMerge, SumsCountsAndTakesPercentilesFromTheMergedHistogram) {
  std::vector<InstanceRun> runs = {Instance("10.77.0.3#0", 1500, 15000, 14990, 1e15, 300, 1),
                                   Instance("10.77.0.4#0", 1500, 15000, 15000, 1e15 + 4000, 900, 2)};
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const LoadResult& m = merged->merged;
  EXPECT_EQ(m.target_rps, 3000);
  EXPECT_EQ(m.scheduled, 30000u);
  EXPECT_EQ(m.failed, 10u);
  EXPECT_DOUBLE_EQ(m.error_rate, 10.0 / 30000);
  EXPECT_DOUBLE_EQ(m.achieved_rps, 2999);
  EXPECT_EQ(m.loadgen_start_skew_us, 4000);
  EXPECT_DOUBLE_EQ(merged->window_s, (10e6 - 4000) / 1e6);
  EXPECT_DOUBLE_EQ(m.duration_s, merged->window_s);
  LatencyHistogram both = runs[0].histogram;
  ASSERT_TRUE(both.Merge(runs[1].histogram).ok());
  EXPECT_EQ(m.latency_us.p99, both.ValueAtQuantile(0.99).us);
  // Not the average of the two instances' p99s.
  EXPECT_NE(m.latency_us.p99,
            (runs[0].histogram.ValueAtQuantile(0.99).us + runs[1].histogram.ValueAtQuantile(0.99).us) / 2);
  ASSERT_EQ(m.loadgens.size(), 2u);
  EXPECT_EQ(m.loadgens[0].failed_sut, 10u);
  EXPECT_TRUE(m.kept_up);
  EXPECT_EQ(FailedValidity(m.loadgen_checks), "");
}

// The engines' pools add up; the mean latency is the mean of all responses
// (each instance's weighted by its responses). Both only when every
// instance has them (EngineLimitedReason's Little's law, step_search.h).
TEST(LoadgenMerge, PoolsAddUpAndMeansWeighByResponses) {
  std::vector<InstanceRun> runs = {Instance("a#0", 1500, 15000, 15000, 1e15, 300, 1),
                                   Instance("b#0", 1500, 15000, 5000, 1e15, 300, 2)};
  runs[0].result.connections = 80;
  runs[0].result.latency_us.mean = 1000;
  runs[1].result.connections = 40;
  runs[1].result.latency_us.mean = 3000;
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->merged.connections, 120u);
  EXPECT_DOUBLE_EQ(merged->merged.latency_us.mean, (15000 * 1000.0 + 5000 * 3000.0) / 20000);
  runs[1].result.connections = 0;  // one instance without its pool: not known
  merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->merged.connections, 0u);
  EXPECT_EQ(merged->merged.latency_us.mean, 0);
}

// Why the instances' sends were late, together: each instance's share of
// pool-exhausted late sends weighted by its late sends (late_send_share x
// requests); one instance with late sends and no figure: not known.
TEST(LoadgenMerge, PoolExhaustedShareWeighsByLateSends) {
  std::vector<InstanceRun> runs = {Instance("a#0", 1500, 15000, 15000, 1e15, 300, 1),
                                   Instance("b#0", 1500, 15000, 15000, 1e15, 300, 2)};
  runs[0].result.late_send_share = 0.03;  // 450 late sends, all with the pool exhausted
  runs[0].result.late_pool_exhausted_share = 1.0;
  runs[1].result.late_send_share = 0.01;  // 150 late sends, none
  runs[1].result.late_pool_exhausted_share = 0.0;
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  ASSERT_TRUE(merged->merged.late_pool_exhausted_share.has_value());
  EXPECT_DOUBLE_EQ(*merged->merged.late_pool_exhausted_share, 450.0 / 600);
  runs[1].result.late_pool_exhausted_share.reset();
  merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(merged->merged.late_pool_exhausted_share.has_value());
  runs[1].result.late_send_share = 0;  // no late send there: its figure is not needed
  merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok());
  EXPECT_DOUBLE_EQ(merged->merged.late_pool_exhausted_share.value_or(-1), 1.0);
}

TEST(LoadgenMerge, OneInstanceFallingBehindInvalidatesThePhaseNamingIt) {
  std::vector<InstanceRun> runs = {Instance("10.77.0.3#0", 1000, 10000, 10000, 1e15, 300, 1),
                                   Instance("10.77.0.4#0", 1000, 10000, 10000, 1e15, 300, 2),
                                   Instance("10.77.0.5#0", 1000, 10000, 8000, 1e15, 300, 3)};
  runs[2].result.kept_up = false;
  runs[2].result.max_send_lag_us = 250000;
  runs[2].meta.cpu_busy = 0.99;
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok());
  const std::string why = FailedValidity(merged->merged.loadgen_checks);
  EXPECT_FALSE(merged->merged.kept_up);
  EXPECT_NE(why.find("loadgen 10.77.0.5#0: engine_kept_up"), std::string::npos) << why;
  EXPECT_NE(why.find("loadgen 10.77.0.5#0: achieved_rate"), std::string::npos) << why;
  EXPECT_NE(why.find("loadgen 10.77.0.5#0: loadgen_cpu"), std::string::npos) << why;
  EXPECT_EQ(why.find("10.77.0.3#0"), std::string::npos) << why;
}

// One instance's checks read in the phase's units (fresh-user trial: they
// printed "1 == 1" and "1 >= 0.97" beside the phase's percentages).
TEST(LoadgenMerge, InstanceChecksReadInThePhasesUnits) {
  std::vector<InstanceRun> runs = {Instance("a#1", 1000, 10000, 10000, 1e15, 300, 1),
                                   Instance("b#1", 1000, 10000, 9000, 1e15, 300, 2)};
  runs[1].result.kept_up = false;
  runs[1].result.late_send_share = 0.0125;
  runs[1].meta.cpu_busy = 0.5;
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok());
  const std::string why = FailedValidity(merged->merged.loadgen_checks);
  EXPECT_NE(why.find("loadgen b#1: engine_kept_up: measured 1.25%, limit <= 0.10% (wrk pace.lua share of sends > "
                     "10 ms behind schedule"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("loadgen b#1: achieved_rate: measured 90.00%, limit >= 97.00%"), std::string::npos) << why;
  std::string cpu;
  for (const auto& c : merged->checks) {
    if (c.name == "loadgen b#1: loadgen_cpu") cpu = DescribeValidity(c);
  }
  EXPECT_NE(cpu.find("ok, 50.00% <= 80.00%"), std::string::npos) << cpu;
}

TEST(LoadgenMerge, StartSkewAboveTenMillisecondsIsInvalid) {
  std::vector<InstanceRun> runs = {Instance("a#0", 1000, 10000, 10000, 1e15, 300, 1),
                                   Instance("b#0", 1000, 10000, 10000, 1e15 + 12000, 300, 2)};
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_TRUE(merged.ok());
  const std::string why = FailedValidity(merged->merged.loadgen_checks);
  EXPECT_NE(why.find("start_skew"), std::string::npos) << why;
}

TEST(LoadgenMerge, RefusesNothingAndDifferentTimeouts) {
  EXPECT_FALSE(MergeLoadgens({}, ValidityParams{}).ok());
  std::vector<InstanceRun> runs = {Instance("a#0", 1000, 10, 10, 1e15, 300, 1), Instance("b#0", 1000, 10, 10, 1e15, 300, 2)};
  ASSERT_TRUE(runs[0].histogram.RecordTimeouts(1, 10e6).ok());
  ASSERT_TRUE(runs[1].histogram.RecordTimeouts(1, 2e6).ok());
  auto merged = MergeLoadgens(runs, ValidityParams{});
  ASSERT_FALSE(merged.ok());
  EXPECT_NE(merged.error().message.find("loadgen b#0"), std::string::npos) << merged.error().message;
}

// One instance's counts per interval: `n` intervals from `start_us`, the
// counts drawn from `seed` (sent and late no more than scheduled).
IntervalSeries Series(double start_us, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<uint64_t> count(0, 1000);
  IntervalSeries s;
  s.start_epoch_us = start_us;
  s.width_us = 1e6;
  for (size_t i = 0; i < n; ++i) {
    s.scheduled.push_back(count(rng));
    s.sent.push_back(s.scheduled.back() - s.scheduled.back() / 10);
    s.completed.push_back(count(rng));
    s.late_10ms.push_back(s.sent.back() / 7);
  }
  return s;
}

// Two and four instances, started on the common start to within their
// clocks' offsets (µs) and one a whole interval later: the merged series sum,
// interval for interval, to the instances' (checked against an independent
// sum by wall-clock second), and their totals to the sum of their totals.
TEST(LoadgenMerge, IntervalsSumPerIntervalOnTheCommonClock) {
  const double start = 1'700'000'000'000'000.0;
  for (size_t n : {2u, 4u}) {
    std::vector<InstanceRun> runs;
    std::map<int64_t, std::array<uint64_t, 4>> by_second;  // second since `start` -> the four counts
    uint64_t totals[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
      InstanceRun run = Instance("lg" + std::to_string(i), 100, 1000, 1000, start, 100, i + 1);
      // instance 1 starts a whole interval later (+ 40 µs of clock error); the others within ±300 µs
      const double at = start + (i == 1 ? 1e6 + 40 : (static_cast<double>(i) - 1.5) * 200);
      run.result.intervals = Series(at, 10 + i, 7 * n + i);
      const IntervalSeries& s = run.result.intervals;
      for (size_t k = 0; k < s.size(); ++k) {
        const auto second = static_cast<int64_t>(std::llround((s.start_epoch_us - start) / 1e6)) + static_cast<int64_t>(k);
        const uint64_t v[4] = {s.scheduled[k], s.sent[k], s.completed[k], s.late_10ms[k]};
        for (int f = 0; f < 4; ++f) {
          by_second[second][f] += v[f];
          totals[f] += v[f];
        }
      }
      runs.push_back(run);
    }
    auto m = MergeLoadgens(runs, ValidityParams{});
    ASSERT_TRUE(m.ok()) << m.error().message;
    const IntervalSeries& s = m->merged.intervals;
    ASSERT_FALSE(s.empty());
    EXPECT_DOUBLE_EQ(s.start_epoch_us, start - 1.5 * 200);  // the earliest start
    EXPECT_DOUBLE_EQ(s.width_us, 1e6);
    ASSERT_EQ(s.size(), by_second.size()) << n << " instances";
    for (size_t k = 0; k < s.size(); ++k) {
      const auto& want = by_second[static_cast<int64_t>(k)];
      EXPECT_EQ(s.scheduled[k], want[0]) << n << " instances, interval " << k;
      EXPECT_EQ(s.sent[k], want[1]) << n << " instances, interval " << k;
      EXPECT_EQ(s.completed[k], want[2]) << n << " instances, interval " << k;
      EXPECT_EQ(s.late_10ms[k], want[3]) << n << " instances, interval " << k;
    }
    EXPECT_EQ(SeriesTotal(s.scheduled), totals[0]);
    EXPECT_EQ(SeriesTotal(s.sent), totals[1]);
    EXPECT_EQ(SeriesTotal(s.completed), totals[2]);
    EXPECT_EQ(SeriesTotal(s.late_10ms), totals[3]);
  }
}

// An instance without counts per interval (k6, an older pace.lua): no
// merged series, not a partial one. Widths that differ cannot merge.
TEST(LoadgenMerge, IntervalsAbsentAnywhereOrOfOtherWidths) {
  std::vector<IntervalSeries> some{Series(1e15, 5, 1), IntervalSeries{}};
  auto none = MergeIntervalSeries(some);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_TRUE(MergeIntervalSeries({})->empty());
  IntervalSeries other = Series(1e15, 5, 2);
  other.width_us = 500000;
  auto bad = MergeIntervalSeries({Series(1e15, 5, 1), other});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("widths differ (1000000 µs and 500000 µs)"), std::string::npos)
      << bad.error().message;
}


// k6's series (per-interval histograms, sends not counted): histograms merged
// bucket by bucket on the common clock, non_2xx summed; one instance one
// interval later lands one interval later. Absent when any instance lacks
// them; two request timeouts refused.
IntervalSeries LatencySeries(double start_us, const std::vector<std::vector<double>>& ms_per_interval,
                             uint64_t timeouts_in_last = 0) {
  IntervalSeries s;
  s.start_epoch_us = start_us;
  s.width_us = 1e6;
  s.sends_counted = false;
  for (const auto& ms : ms_per_interval) {
    LatencyHistogram h;
    for (double v : ms) h.RecordUs(v * 1000);
    s.latency.push_back(IntervalLatencyOf(h));
    s.completed.push_back(ms.size());
    s.non_2xx.push_back(ms.size() / 2);
  }
  if (timeouts_in_last > 0) {
    s.latency.back().timeouts = timeouts_in_last;
    s.latency.back().timeout_us = 60e6;
  }
  s.scheduled = s.sent = s.late_10ms = std::vector<uint64_t>(s.completed.size(), 0);
  return s;
}

TEST(LoadgenMerge, IntervalLatenciesMergeBucketByBucket) {
  const double start = 1'700'000'000'000'000.0;
  const IntervalSeries a = LatencySeries(start, {{1, 2, 3}, {4}, {5, 6}}, 1);
  const IntervalSeries b = LatencySeries(start + 1e6 + 30, {{7, 8}, {9, 10, 11}}, 2);  // one interval later
  auto m = MergeIntervalSeries({a, b});
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->has_latency());
  EXPECT_FALSE(m->sends_counted);
  ASSERT_EQ(m->size(), 3u);
  ASSERT_EQ(m->latency.size(), 3u);
  const std::vector<std::vector<double>> want_ms{{1, 2, 3}, {4, 7, 8}, {5, 6, 9, 10, 11}};
  for (size_t i = 0; i < 3; ++i) {
    LatencyHistogram want;
    for (double v : want_ms[i]) want.RecordUs(v * 1000);
    if (i == 2) ASSERT_TRUE(want.RecordTimeouts(3, 60e6).ok());
    EXPECT_EQ(HistogramToJson(IntervalHistogram(m->latency[i])).dump(), HistogramToJson(want).dump()) << i;
    EXPECT_EQ(m->completed[i], want_ms[i].size()) << i;
  }
  EXPECT_EQ(m->non_2xx, (std::vector<uint64_t>{1, 0 + 1, 1 + 1}));
  EXPECT_EQ(IntervalLatencyUs(m->latency[2]).max, 60e6);  // censored at the timeout
  EXPECT_EQ(IntervalLatencyUs(m->latency[1]).max, 8000);

  // wrk's series beside it: no per-interval latencies, sends counted no more
  auto mixed = MergeIntervalSeries({a, Series(start, 3, 1)});
  ASSERT_TRUE(mixed.ok());
  EXPECT_FALSE(mixed->has_latency());
  EXPECT_TRUE(mixed->non_2xx.empty());
  EXPECT_FALSE(mixed->sends_counted);
  auto wrk = MergeIntervalSeries({Series(start, 3, 1), Series(start, 3, 2)});
  ASSERT_TRUE(wrk.ok());
  EXPECT_TRUE(wrk->sends_counted);
  EXPECT_TRUE(wrk->latency.empty());

  IntervalSeries other = b;
  other.latency.back().timeout_us = 10e6;
  auto refused = MergeIntervalSeries({a, other});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("timeouts at 60000000 µs and at 10000000 µs"), std::string::npos)
      << refused.error().message;
}

}  // namespace
}  // namespace fvbench::loadgen_merge_test
