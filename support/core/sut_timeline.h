// The SUT's resources over one measured phase, one point per sample interval
// of the phase monitor (support/run/phase_monitor.h samples /proc every
// ~500 ms; support/judge/sut_timeline_series.h turns the samples into this).
// Carried beside ServiceUsage (scenario_result.h), written to results.json
// as `sut_timeline` (docs/outputs.md), drawn under the timeline's counts
// (report/timeline_plot.h).
//
// Point i covers [start_epoch_us, end_epoch_us): two consecutive samples'
// times, µs since the Unix epoch on the controller's clock (the series
// function can shift them by a known offset, clock_offset_us; the monitor
// knows none: how far they may lie from LoadResult::intervals' clock is
// phase_monitor.h "Timeline"). Every figure is absent (nullopt, null in
// JSON) where a sample at either end of the window failed or did not hold
// it: a gap, never a zero.
//
// Beside the points, the SUT's processes that exited during the phase
// (SutProcessExit): the monitor finds each service's processes once, at its
// start (phase_monitor.h), so a worker that crashed or was killed shows as a
// pid present in one good SUT read and absent from the next, and the
// replacement its master starts is not seen (its CPU is missing from the
// later windows' figures).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fvbench {

struct SutTimelinePoint {
  double start_epoch_us = 0;
  double end_epoch_us = 0;
  // Per service, index for index with SutTimeline::services:
  std::vector<std::optional<double>> cpu_cores;  // (utime + stime) over the window / its ticks, cores
  std::vector<std::optional<double>> rss_mib;    // summed RSS at the window's end, MiB (2^20 bytes)
  std::optional<double> sut_busy;                // busy fraction 0..1 of the SUT's CPUs over the window
  std::optional<double> loadgen_busy;            // busy fraction 0..1 of the load generator's cpuset
};

struct SutProcessExit {
  std::string service;            // as SutTimeline::services
  int pid = 0;
  double last_seen_epoch_us = 0;  // the last good SUT read that held it (same clock as the points)
  double gone_epoch_us = 0;       // the first good SUT read without it
};

struct SutTimeline {
  std::vector<std::string> services;  // baseline | backend | fv, in the monitor's order
  std::vector<SutTimelinePoint> points;
  std::vector<SutProcessExit> exits;  // in time order
  bool empty() const { return points.empty(); }
};

}  // namespace fvbench
