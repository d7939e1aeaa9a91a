// SVG plots of a limits scenario (ScenarioResult::limits, limit_figures.h),
// written by the report step beside report.md and linked from its "Limiter
// accuracy" section (limits_markdown.h):
//
//   <stem>_per_key.svg     admitted per key: the keys sorted by what they were
//       admitted (x: key rank 1..keys, y: requests admitted in the phase's
//       log window), one line per phase (all of edge's workers, 1 worker),
//       each phase's allowed (rate × window + burst) as a dashed and its
//       floor (rate × window − burst) as a dotted horizontal line of its
//       colour. Over 1000 keys, 1000 ranks spread evenly (the first and last
//       among them) are drawn, which a sorted series loses nothing of but
//       steps between them; a note says so.
//   <stem>_per_second.svg  admitted per second, all keys summed (x: whole
//       seconds from the log's first line, y: requests admitted), one line
//       per phase, against keys × rate (the long-run rate a correct limiter
//       holds to, dashed) and keys × (rate + burst) (the most in any 1 s,
//       dotted). The last point is what the window holds beyond its whole
//       seconds (a note says how long).
// <stem> is the scenario id with '.' -> '_' (limits.accuracy ->
// limits_accuracy). Keys are the phase's keys_planned.
//
// A phase without the series (a result written before they were kept) is
// named in a note under the plot and not drawn. Same contract as
// svg_plot.h: pure, deterministic, locale-independent, text escaped, no
// coordinate NaN; a reporter computing only layout.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/report/plot_file.h"

namespace fvbench {

// The plot files of `r`, in the order RenderLimitsPlots returns them; empty
// when it has no limits runs.
std::vector<std::string> LimitsPlotFiles(const ScenarioResult& r);

std::string RenderLimitsPerKeyPlot(const ScenarioResult& r);
std::string RenderLimitsPerSecondPlot(const ScenarioResult& r);

// Both plots of every result with limits runs, in `results` order.
std::vector<PlotFile> RenderLimitsPlots(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
