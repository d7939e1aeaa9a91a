// SVG trend plot of one scenario's history (`fvbench_history plot`, and the
// report step with a history configured: BENCH_DIR/report/history_<scenario>.svg).
//
// One panel per metric of the scenario (p50_us, p99_us, ... in series order),
// over one x axis: the run's position in the series (run-time or commit
// order, series.h). Each run is a dot joined by a thin line; every segment
// between change points has its mean drawn as a horizontal line; every change
// point is a dashed vertical line labelled with the edge commits before and
// after it (12 hex digits), the relative change of the means and the p-value
// ("a1b2c3d4e5f6 -> 0f9e8d7c6b5a +8.1% p=0.005"). y axes are linear,
// labelled in the metric's own unit (µs, fraction, RPS, cores).
//
// Pure and deterministic: coordinates printed with one decimal by fmt, no
// clock, no locale; text is XML-escaped. SVG 1.1, no scripts, no external
// references. A series with one point draws a dot; non-finite values are
// skipped (named in a note under the panel).
#pragma once

#include <string>
#include <vector>

#include "support/history/series.h"

namespace fvbench {

// The panels of `scenario`: the series whose scenario is `scenario`, in order.
// "" when there is none.
std::string RenderTrendPlot(const std::vector<MetricSeries>& series, const std::string& scenario);

// "history_latency.decision_service.svg"
std::string TrendPlotFileName(const std::string& scenario);

}  // namespace fvbench
