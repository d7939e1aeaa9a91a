// The timeline of an A/B scenario's runs (ScenarioResult::ab, ab_result.h),
// written by the report step beside report.md and linked from its list of
// plots:
//
//   ab_timeline_<stem>.svg  for a result whose A/B part has a run with
//       counts per interval (LoadResult::intervals, core/interval_series.h).
//       x: seconds of load, every run end to end in the order the pairs ran
//       (A1, B1, A2, B2, ...: run/scenario_runner.cc AbPairs; when the A/B
//       part stopped early one side may have a run more), a gap of 2 % of
//       their seconds between two (phase_strip.h): the pauses between runs
//       (stopping one side's edge, starting the other's, its warmup) are cut
//       out; each run's line gives its pause. y: requests per second
//       (count / its seconds under load, interval_rates.h). Per run: responses completed (solid) and, where
//       sends were counted, slots scheduled (dashed), side A blue, side B
//       vermillion; a run's start is a vertical rule labelled with its side
//       and number ("A1", "B1", ...) above the frame. Intervals the stall
//       check flags (judge/interval_checks.h StalledIntervals) are shaded.
//     Under it, on the same x axis, when a drawn run's SUT timeline
//       (AbSide::sut_timelines) has an edge ("fv") CPU value in a window
//       whose middle falls within the run's intervals: edge's CPU (cores)
//       per sample window, a point at the window's middle, a line per run in
//       its side's colour, broken where a value is absent; stalls shaded.
//     Under the plot, one line per run in run order: its label, side and
//       number, target RPS, p99, its stalled intervals (seconds into the run)
//       and the pause before it.
//
// A run without a series (k6, older results) is listed and not drawn. The
// pauses come from each series' start_epoch_us (one clock for every run of
// a scenario). Same contract as svg_plot.h: pure, deterministic,
// locale-independent, text escaped, no coordinate NaN.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/report/plot_file.h"

namespace fvbench {

// One A/B run in the order the pairs ran.
struct AbRunRef {
  char side = 'A';   // 'A' or 'B'
  size_t index = 0;  // into that side's runs (run index + 1 in its label)
};

// The runs of both sides in the order they ran: A1, B1, A2, B2, ...
std::vector<AbRunRef> AbRunOrder(const AbResult& ab);

// "ab_timeline_<stem>.svg" (<stem>: the id, '.' -> '_'), or "" when r has
// no A/B part or none of its runs carries intervals.
std::string AbTimelinePlotFile(const ScenarioResult& r);

// The SVG (an empty frame with a note when no run has a series).
std::string RenderAbTimelinePlot(const ScenarioResult& r);

// The A/B timeline of every result that has one, in `results` order.
std::vector<PlotFile> RenderAbTimelinePlots(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
