// The SUT's timeline from the phase monitor's samples
// (support/judge/sut_timeline_series.h): CPU per service over each window,
// RSS at its end, the busy fractions, a failed read leaving a gap (never a
// zero), and the times mapped onto the intervals' clock.
#include "support/judge/sut_timeline_series.h"

#include <gtest/gtest.h>

namespace fvbench::sut_timeline_series_test {
namespace {

using detail::CpuTicks;
using detail::ProcSample;
using detail::ProcStat;

// Two cpus, each `busy` of `total` ticks so far; the processes' (pid,
// utime + stime, rss pages).
ProcSample Sample(uint64_t total, uint64_t busy, std::vector<std::tuple<int, uint64_t, int64_t>> procs) {
  ProcSample s;
  s.cpus[0] = CpuTicks{busy, total};
  s.cpus[1] = CpuTicks{busy, total};
  for (const auto& [pid, ticks, rss] : procs) {
    ProcStat p;
    p.pid = pid;
    p.ppid = 1;
    p.comm = "nginx";
    p.utime = ticks;
    p.stime = 0;
    p.rss_pages = rss;
    s.procs.push_back(p);
  }
  return s;
}

SutTimelineParams TwoServices() {
  SutTimelineParams p;
  p.services = {{"backend", {10, 11}}, {"fv", {20}}};
  p.page_size = 4096;  // 256 pages = 1 MiB
  return p;
}

TEST(SutTimelineSeries, CpuPerServiceOverEachWindowAndRssAtItsEnd) {
  // 100 ticks of one cpu per window (1 s at USER_HZ 100).
  const ProcSample s0 = Sample(1000, 100, {{10, 0, 256}, {11, 0, 256}, {20, 0, 512}});
  const ProcSample s1 = Sample(1100, 150, {{10, 50, 256}, {11, 30, 512}, {20, 100, 512}});
  const ProcSample s2 = Sample(1200, 160, {{10, 55, 256}, {11, 35, 512}, {20, 100, 768}});
  const std::vector<SutTimelineSample> in = {{1e12, &s0, &s0}, {1e12 + 1e6, &s1, &s1}, {1e12 + 2e6, &s2, &s2}};
  const SutTimeline t = SutTimelineFromSamples(in, TwoServices());
  EXPECT_EQ(t.services, (std::vector<std::string>{"backend", "fv"}));
  ASSERT_EQ(t.points.size(), 2u);  // one per pair of consecutive samples
  const SutTimelinePoint& a = t.points[0];
  EXPECT_DOUBLE_EQ(a.start_epoch_us, 1e12);
  EXPECT_DOUBLE_EQ(a.end_epoch_us, 1e12 + 1e6);
  ASSERT_EQ(a.cpu_cores.size(), 2u);
  EXPECT_NEAR(*a.cpu_cores[0], 0.8, 1e-9);  // (50 + 30) / 100
  EXPECT_NEAR(*a.cpu_cores[1], 1.0, 1e-9);
  EXPECT_NEAR(*a.rss_mib[0], 3.0, 1e-9);  // 256 + 512 pages at the window's end
  EXPECT_NEAR(*a.rss_mib[1], 2.0, 1e-9);
  EXPECT_NEAR(*a.sut_busy, 0.5, 1e-9);  // 50 of 100 ticks on each cpu
  EXPECT_NEAR(*a.loadgen_busy, 0.5, 1e-9);
  // The second window: fv did nothing (a stopped SUT): 0, measured, not absent.
  const SutTimelinePoint& b = t.points[1];
  EXPECT_NEAR(*b.cpu_cores[0], 0.1, 1e-9);
  ASSERT_TRUE(b.cpu_cores[1].has_value());
  EXPECT_DOUBLE_EQ(*b.cpu_cores[1], 0.0);
  EXPECT_NEAR(*b.rss_mib[1], 3.0, 1e-9);
  EXPECT_NEAR(*b.sut_busy, 0.1, 1e-9);
}

TEST(SutTimelineSeries, AFailedReadLeavesAGapOnBothSidesNeverAZero) {
  const ProcSample s0 = Sample(1000, 100, {{10, 0, 256}, {20, 0, 256}});
  const ProcSample s1 = Sample(1100, 150, {{10, 50, 256}, {20, 50, 256}});
  const ProcSample lg2 = Sample(1200, 200, {});  // the load generator's own read 2
  const ProcSample failed;  // no cpu line: what a read that failed to parse leaves
  const ProcSample s3 = Sample(1300, 250, {{10, 150, 256}, {20, 90, 256}});
  const ProcSample s4 = Sample(1400, 300, {{10, 200, 256}, {20, 100, 256}});
  // SUT read 2 failed (null), the load generator's read 3 failed (no cpu line).
  const std::vector<SutTimelineSample> in = {
      {0, &s0, &s0}, {1e6, &s1, &s1}, {2e6, nullptr, &lg2}, {3e6, &s3, &failed}, {4e6, &s4, &s4}};
  const SutTimeline t = SutTimelineFromSamples(in, TwoServices());
  ASSERT_EQ(t.points.size(), 4u);
  for (size_t i : {1, 2}) {
    const SutTimelinePoint& p = t.points[i];
    EXPECT_FALSE(p.cpu_cores[0].has_value()) << i;
    EXPECT_FALSE(p.cpu_cores[1].has_value()) << i;
    EXPECT_FALSE(p.sut_busy.has_value()) << i;
  }
  EXPECT_FALSE(t.points[1].rss_mib[0].has_value());  // ends at the failed read
  EXPECT_TRUE(t.points[2].rss_mib[0].has_value());   // ends at a good one
  EXPECT_TRUE(t.points[0].loadgen_busy.has_value());
  EXPECT_TRUE(t.points[1].loadgen_busy.has_value());
  EXPECT_FALSE(t.points[2].loadgen_busy.has_value());
  EXPECT_FALSE(t.points[3].loadgen_busy.has_value());
  // Either side of the gaps, measured.
  EXPECT_NEAR(*t.points[0].cpu_cores[1], 0.5, 1e-9);
  EXPECT_NEAR(*t.points[3].cpu_cores[0], 0.5, 1e-9);
  EXPECT_NEAR(*t.points[3].cpu_cores[1], 0.1, 1e-9);
}

TEST(SutTimelineSeries, AServiceWhoseProcessesAreGoneIsAbsentNotIdle) {
  const ProcSample s0 = Sample(1000, 100, {{10, 0, 256}, {20, 0, 256}});
  const ProcSample s1 = Sample(1100, 150, {{10, 50, 256}});  // fv's worker not in this read
  const SutTimeline t = SutTimelineFromSamples({{0, &s0, &s0}, {1e6, &s1, &s1}}, TwoServices());
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_NEAR(*t.points[0].cpu_cores[0], 0.5, 1e-9);
  EXPECT_FALSE(t.points[0].cpu_cores[1].has_value());
  EXPECT_FALSE(t.points[0].rss_mib[1].has_value());
}

TEST(SutTimelineSeries, TimesMoveOntoTheIntervalsClockAndCpusSelect) {
  ProcSample s0 = Sample(1000, 100, {});
  ProcSample s1 = Sample(1100, 150, {});
  s1.cpus[1] = CpuTicks{200, 1100};  // cpu 1: all 100 ticks busy
  SutTimelineParams p = TwoServices();
  p.clock_offset_us = -2500;  // the intervals' clock runs 2.5 ms behind the controller's
  p.sut_cpus = {1};
  p.loadgen_cpus = {0};
  const SutTimeline t = SutTimelineFromSamples({{1e12, &s0, &s0}, {1e12 + 5e5, &s1, &s1}}, p);
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_DOUBLE_EQ(t.points[0].start_epoch_us, 1e12 - 2500);
  EXPECT_DOUBLE_EQ(t.points[0].end_epoch_us, 1e12 + 5e5 - 2500);
  EXPECT_NEAR(*t.points[0].sut_busy, 1.0, 1e-9);
  EXPECT_NEAR(*t.points[0].loadgen_busy, 0.5, 1e-9);
  // One sample: no window, no point.
  EXPECT_TRUE(SutTimelineFromSamples({{0, &s0, &s0}}, p).empty());
}

TEST(SutTimelineSeries, AProcessGoneBetweenTwoGoodReadsIsAnExitWithBothTimes) {
  const ProcSample s0 = Sample(1000, 100, {{10, 0, 256}, {11, 0, 256}, {20, 0, 256}});
  const ProcSample s1 = Sample(1100, 150, {{10, 50, 256}, {11, 10, 256}, {20, 50, 256}});
  const ProcSample failed;  // a read that failed: proves nothing about the processes
  const ProcSample s3 = Sample(1300, 250, {{10, 150, 256}, {20, 90, 256}});  // backend's 11 gone
  const ProcSample s4 = Sample(1400, 300, {{10, 200, 256}});                 // fv's 20 gone
  const std::vector<SutTimelineSample> in = {
      {0, &s0, &s0}, {1e6, &s1, &s1}, {2e6, &failed, &s1}, {3e6, &s3, &s3}, {4e6, &s4, &s4}};
  SutTimelineParams p = TwoServices();
  p.clock_offset_us = 100;
  const SutTimeline t = SutTimelineFromSamples(in, p);
  ASSERT_EQ(t.exits.size(), 2u);
  EXPECT_EQ(t.exits[0].service, "backend");
  EXPECT_EQ(t.exits[0].pid, 11);
  EXPECT_DOUBLE_EQ(t.exits[0].last_seen_epoch_us, 1e6 + 100);  // the failed read at 2 s is skipped
  EXPECT_DOUBLE_EQ(t.exits[0].gone_epoch_us, 3e6 + 100);
  EXPECT_EQ(t.exits[1].service, "fv");
  EXPECT_EQ(t.exits[1].pid, 20);
  EXPECT_DOUBLE_EQ(t.exits[1].last_seen_epoch_us, 3e6 + 100);
  EXPECT_DOUBLE_EQ(t.exits[1].gone_epoch_us, 4e6 + 100);
}

TEST(SutTimelineSeries, AProcessAbsentFromTheFirstGoodReadIsNoExit) {
  const ProcSample s0 = Sample(1000, 100, {{10, 0, 256}});  // 11 and 20 already gone at the start
  const ProcSample s1 = Sample(1100, 150, {{10, 50, 256}});
  EXPECT_TRUE(SutTimelineFromSamples({{0, &s0, &s0}, {1e6, &s1, &s1}}, TwoServices()).exits.empty());
}

}  // namespace
}  // namespace fvbench::sut_timeline_series_test
