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

struct SutTimeline {
  std::vector<std::string> services;  // baseline | backend | fv, in the monitor's order
  std::vector<SutTimelinePoint> points;
  bool empty() const { return points.empty(); }
};

}  // namespace fvbench
