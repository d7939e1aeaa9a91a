// The SUT's process exits (core/sut_timeline.h SutProcessExit) on a phase's
// timeline (timeline_plot.h): for each exit whose gone time falls within the
// intervals' span, a dashed vertical rule at that time (seconds from the
// series' start) through the counts and every panel, labelled at the top of
// the counts with the service and pid (up to kMaxExitLabels labels, each a
// line lower than the last), a tooltip giving the window it exited in (the
// last sample that held it and the first without it). Exits outside the
// span (another phase's samples) are counted in the note, not drawn.
// Pure, deterministic; no NaN coordinate (a time that is not finite is
// outside the span).
#pragma once

#include <cstddef>
#include <string>

#include "support/core/interval_series.h"
#include "support/core/sut_timeline.h"
#include "support/report/svg_writer.h"

namespace fvbench {

inline constexpr size_t kMaxExitLabels = 6;

// Draws the rules from y0 to y1 (pixels: the counts' top to the last
// panel's bottom). Returns the note for under the plot, "" when the
// timeline lists no exit.
std::string DrawProcessExits(svg::Svg& svg, const SutTimeline& t, const IntervalSeries& s, const svg::LinAxis& x,
                             double y0, double y1);

}  // namespace fvbench
