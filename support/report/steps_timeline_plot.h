// The timeline of a throughput search: every step's counts per interval on
// one time axis, written by the report step beside report.md and linked from
// its list of plots:
//
//   steps_timeline_<stem>.svg  for a result with steps (ScenarioResult::steps)
//       of which at least one carries counts per interval
//       (LoadResult::intervals, core/interval_series.h). x: seconds of load,
//       the steps end to end in their order with a gap of 2 % of their
//       seconds between two: the pauses between steps (cool-down, the wait
//       for a quiet SUT) can be ten times the load and are cut out; each
//       step's line gives its pause. y: requests per second (count / its seconds under load, interval_rates.h).
//       Per step: slots scheduled (dashed) and responses completed, each
//       step its own line; a step's start is a vertical rule labelled with
//       its number above the frame. Intervals the stall check flags
//       (judge/interval_checks.h StalledIntervals) are shaded. Under the
//       plot, one line per step: number, role, target RPS, PASS/FAIL, its
//       stalled intervals (seconds into the step) and the pause before it
//       (its series' start minus the end of the previous drawn step's load:
//       that series' start plus LoadResult::duration_s), so a step
//       that passed on its totals but stalled says so.
//
// The layout, stall shading and step lines are phase_strip.h's, shared with
// the A/B timeline (ab_timeline_plot.h).
// A step without a series (k6, older results) is listed and not drawn. The
// pauses come from each step's start_epoch_us as the result holds it (one
// host's clock, or the controller's once merged: the same clock for every
// step of a run). Same contract as svg_plot.h: pure,
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
