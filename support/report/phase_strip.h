// Measured phases end to end on one axis of load seconds, shared by the
// plots that draw several phases' counts per interval (LoadResult::intervals,
// core/interval_series.h) on one x axis: steps_timeline_plot.h (the steps of
// a search) and ab_timeline_plot.h (the runs of an A/B scenario).
//
// Layout (LayOutPhases): the phases with a series in their order, a gap of
// 2 % of all their seconds between two; the pauses between them (cool-down,
// restarts, the wait for a quiet SUT) can be ten times the load and are cut
// out. The real pause before a phase is its series' start minus the end of
// the previous drawn phase's load (that series' start plus
// LoadResult::duration_s, or its whole series without one), on the clock
// the series hold (the same for every phase of a run). A phase without a
// series (k6 run by one instance, older results) is not placed.
//
// Drawing: the stalls (judge/interval_checks.h StalledIntervals, called,
// not repeated) shaded, a phase's start rule with its label above the frame,
// its completed and scheduled lines; and the text of a phase's line under
// the plot (its stalls, the pause before it). Same contract as svg_plot.h:
// pure, deterministic, locale-independent, text escaped, no coordinate NaN.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/load_result.h"
#include "support/report/svg_writer.h"

namespace fvbench {

inline constexpr const char* kPhaseStallFill = "#f7c6cf";
inline constexpr const char* kPhaseRule = "#999999";

// Whether the phase carries counts per interval.
bool HasIntervalSeries(const LoadResult& l);

// Where each phase sits on the axis, indexed like the phases given.
struct PhaseStrip {
  std::vector<double> offset_s;  // axis seconds of the series' start; NaN: no series, not drawn
  std::vector<double> pause_s;   // seconds of the real pause before it; NaN: first drawn, or not drawn
  double end_s = 0;              // axis seconds of the last drawn phase's end (0 when none)
};

// `phases`: the phases in the order they ran; a null entry is a phase
// without a series.
PhaseStrip LayOutPhases(const std::vector<const LoadResult*>& phases);

// The axis position (s) of phase k's interval i (fractional i: within it).
double PhaseAxisS(const PhaseStrip& strip, size_t k, const LoadResult& l, double i);

// The largest scheduled or completed count per second of any drawn
// interval, at least 1 (the y axis' top before its margin).
double PeakIntervalRate(const std::vector<const LoadResult*>& phases);

// One stalled interval on the axis.
struct PhaseStall {
  size_t phase = 0;
  size_t interval = 0;
  double from_s = 0, to_s = 0;  // axis seconds
};
std::vector<PhaseStall> PhaseStalls(const PhaseStrip& strip, const std::vector<const LoadResult*>& phases);

// Each stall shaded over y0..y1 with a tooltip "<names[phase]> stall a-b s
// of the <what>: 0 of n scheduled completed".
void DrawPhaseStalls(svg::Svg& svg, const svg::LinAxis& x, const std::vector<PhaseStall>& stalls,
                     const std::vector<const LoadResult*>& phases, const std::vector<std::string>& names,
                     std::string_view what, double y0, double y1);

// Phase k's start: a dashed rule over y0..y1, `label` above it in `color`.
void DrawPhaseStart(svg::Svg& svg, const svg::LinAxis& x, double start_s, const std::string& label,
                    const char* color, double y0, double y1);

// A line's stroke.
struct PhaseLineStyle {
  const char* color;
  std::string_view dash;  // "" = solid
};

// Phase k's completed and (where sends were counted) scheduled counts per
// second, a point at each interval's middle, inside a group titled `title`.
void DrawPhaseCounts(svg::Svg& svg, const svg::LinAxis& x, const svg::LinAxis& y, const PhaseStrip& strip, size_t k,
                     const LoadResult& l, const std::string& title, PhaseLineStyle completed, PhaseLineStyle scheduled);

// The stalls part of a phase's line: "no counts per interval", "stalls not
// judged (...)", "no stall" or "stall 3-4 s, ..." (seconds into the phase,
// five named, the rest counted) followed by `if_stalled`.
std::string PhaseStallsText(const LoadResult& l, const std::string& if_stalled = "");

// "; after a pause of 5.5 s" (to 0.1 s), or "" for NaN.
std::string PhasePauseText(double pause_s);

}  // namespace fvbench
