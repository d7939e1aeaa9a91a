// The timeline of a throughput search: every step's counts per interval on
// one time axis, written by the report step beside report.md and linked from
// its list of plots:
//
//   steps_timeline_<stem>.svg  for a result with steps (ScenarioResult::steps)
//       of which at least one carries counts per interval
//       (LoadResult::intervals, core/interval_series.h). x: seconds from the
//       earliest step's series start; each step's interval i is drawn at its
//       own start (start_epoch_us) + i x width, so the pauses between steps
//       (cool-down, the wait for a quiet SUT) are the gaps they were. y:
//       requests per second (count / width). Per step: slots scheduled
//       (dashed) and responses completed, each step its own line; a step's
//       start is a vertical rule labelled with its number above the frame.
//       Intervals the stall check flags (judge/interval_checks.h
//       StalledIntervals) are shaded. Under the plot, one line per step:
//       number, role, target RPS, PASS/FAIL and its stalled intervals, so a
//       step that passed on its totals but stalled says so.
//
// A step without a series (k6, older results) is listed and not drawn. The
// series' clocks: each step's start_epoch_us as the result holds it (one
// host's clock, or the controller's once merged), so steps of one run
// line up with each other. Same contract as svg_plot.h: pure,
// deterministic, locale-independent, text escaped, no coordinate NaN.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/report/plot_file.h"

namespace fvbench {

// "steps_timeline_<stem>.svg" (<stem>: the id, '.' -> '_'), or "" when no
// step of r carries intervals.
std::string StepsTimelinePlotFile(const ScenarioResult& r);

// The SVG (an empty frame with a note when no step has a series).
std::string RenderStepsTimelinePlot(const ScenarioResult& r);

// The steps timeline of every result that has one, in `results` order.
std::vector<PlotFile> RenderStepsTimelinePlots(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
