// The latency panel of a phase's timeline (timeline_plot.h), for a series
// with latency per interval (k6; core/interval_latency.h
// IntervalLatencySummaries: from the histograms, or as read back from
// results.json, the same numbers): each interval's p50, p99 and max in µs on
// a log10 y axis (ticks labelled "500 µs", "1 ms", "1 s"), a point at the
// interval's middle on the counts' x axis, a marker on every point up to
// kMaxLatencyMarkers intervals.
//   - An interval without a sample (none completed, none timed out) is a gap:
//     no point, the lines broken there.
//   - A value at or above the interval's censored_at_us (a timeout fell at
//     that rank or above) is a lower bound: a hollow marker, always drawn,
//     with a tooltip "... >= 60 s (n timed out)".
//   - The stalls the counts shade are shaded here too.
// Pure, deterministic; no NaN coordinate (a value <= 0 or not finite is not
// drawn; one outside the axis's range sits on its edge).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "support/core/interval_series.h"
#include "support/report/svg_writer.h"

namespace fvbench {

inline constexpr size_t kMaxLatencyMarkers = 120;
// The timeline's stall shading, in the counts and in every panel.
inline constexpr const char* kTimelineStallFill = "#f7c6cf";

// The series has a latency per interval to draw: a summary for each interval.
bool HasLatencyPanel(const IntervalSeries& s);

// Draws the panel (preceded by the comment "latency panel") in the plot area
// y0..y1 (pixels, y0 the top) over x (seconds from the series' start),
// its legend right of it; stall_spans are [t0, t1) in seconds. Returns the
// note for under the plot. Nothing drawn, "" returned, when
// !HasLatencyPanel(s).
std::string DrawLatencyPanel(svg::Svg& svg, const IntervalSeries& s, const svg::LinAxis& x, double y0, double y1,
                             const std::vector<std::pair<double, double>>& stall_spans, const std::string& x_title);

}  // namespace fvbench
