// The timeline of a scenario's main measured phase, written by the report
// step beside report.md and linked from its list of plots:
//
//   timeline_<stem>.svg  the counts per interval of ScenarioResult::load
//       (latency: the measured phase; throughput: the reported step), from
//       LoadResult::intervals (core/interval_series.h). x: seconds from the
//       series' start (interval i spans i x width .. (i + 1) x width), y:
//       requests per second (count / its seconds under load, interval_rates.h). Three lines, a point at each
//       interval's middle: slots scheduled, responses completed, and sends
//       more than 10 ms behind their slot. An interval the stall check
//       flags (judge/interval_checks.h "interval_stalls": slots due and no
//       response completed) is shaded over the frame's height, with a
//       tooltip naming it; a note under the plot counts them.
//     Under it, on the same x axis, when the series has latency per interval
//       (k6; IntervalSeries::has_latency, in memory or read back from
//       results.json): the latency panel (timeline_latency_panel.h): p50,
//       p99 and max per interval on a log scale, an interval without a
//       request a gap, a value censored at the timeout a hollow marker.
//     Under that, on the same x axis, when ScenarioResult::sut_timeline has
//       points whose window's middle falls within the intervals' span (both
//       on one clock: phase_monitor.h "Timeline" says how far they may be
//       apart): up to three panels, each point at its window's middle, a
//       marker per point (up to 120), a line broken where a value is absent
//       (a sample that failed): SUT CPU (cores) per service, RSS (MiB) per
//       service (its own range, not from 0), and the busy fractions 0..1 of
//       the SUT's CPUs and of the load generator's. A panel with no value is
//       left out; no point in the span (a result written before the series
//       was kept, k6 too: a phase not monitored) leaves out all three. The
//       stalls are shaded in every panel. wrk's series has no latency per
//       interval: no latency panel.
//     Over the counts and every panel, a dotted rule at each SUT process
//       that exited within the span (ScenarioResult::sut_timeline's exits;
//       timeline_exits.h), labelled with its service and pid.
//
// <stem> is the scenario id with '.' -> '_' (latency.raw_nginx ->
// timeline_latency_raw_nginx.svg). A scenario whose phase has no series (k6
// run by one instance, a result written before they were kept) has no
// timeline: no file name, no plot. A series whose sends were not counted
// (several k6 instances: IntervalSeries::sends_counted) draws completed
// only, and no interval of it is judged a stall. Same contract as
// svg_plot.h: pure, deterministic, locale-independent, text escaped, no
// coordinate NaN; a reporter computing
// only layout (the stall rule is the judge's, called, not repeated).
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/report/plot_file.h"

namespace fvbench {

// "timeline_<stem>.svg", or "" when r.load carries no intervals.
std::string TimelinePlotFile(const ScenarioResult& r);

// The SVG of r.load's intervals (an empty frame with a note when it has none).
std::string RenderTimelinePlot(const ScenarioResult& r);

// The timeline of every result that has one, in `results` order.
std::vector<PlotFile> RenderTimelinePlots(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
