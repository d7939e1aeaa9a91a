// The layout and frame shared by the report's line plots over linear axes
// (limits_plot.cc, timeline_plot.cc, steps_timeline_plot.cc): an 820-px-wide figure whose plot area
// is x 84..560, y 78..388 (pixels, y growing downwards in SVG), the legend to
// its right. A figure with panels stacked under that area (timeline_plot.cc)
// draws each with DrawLinePlotPanel over the same x axis (a panel over a log
// y axis, timeline_latency_panel.cc, with DrawLinePlotPanelEdges).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "support/report/svg_writer.h"

namespace fvbench::svg {

inline constexpr double kLinePlotWidth = 820, kLinePlotX0 = 84, kLinePlotX1 = 560, kLinePlotY0 = 78,
                        kLinePlotY1 = 388;

// A panel's x tick marks and labels under y1, its border, and its axis
// titles (the y title rotated, at the panel's middle; no x title when
// x_title is ""): all of a panel but its y grid, which a panel over another
// y axis (a log axis, log_axis.h) draws itself.
inline void DrawLinePlotPanelEdges(Svg& svg, const LinAxis& x, double y0, double y1, const std::string& x_title,
                                   const std::string& y_title) {
  constexpr double x0 = kLinePlotX0, x1 = kLinePlotX1;
  for (double v : x.Ticks()) {
    const double px = x.Map(v);
    svg.Line(px, y1, px, y1 + 4, kInk, 1);
    svg.Text(px, y1 + 17, TickLabel(v, x.step), 11, "middle");
  }
  svg.Rect(x0, y0, x1 - x0, y1 - y0, "none", kInk, 1);
  if (!x_title.empty()) svg.Text((x0 + x1) / 2, y1 + 36, x_title, 12, "middle");
  svg.Text(22, (y0 + y1) / 2, y_title, 12, "middle", kInk, false, true);
}

// One panel's grid, tick labels, border and axis titles, its plot area
// x kLinePlotX0..kLinePlotX1, y y0..y1 (the y title rotated, at the panel's
// middle; no x title when x_title is ""). No background: a caller that wants
// one draws it first.
inline void DrawLinePlotPanel(Svg& svg, const LinAxis& x, const LinAxis& y, double y0, double y1,
                              const std::string& x_title, const std::string& y_title) {
  constexpr double x0 = kLinePlotX0, x1 = kLinePlotX1;
  for (double v : y.Ticks()) {
    const double py = y.Map(v);
    svg.Line(x0, py, x1, py, kGrid, 1);
    svg.Text(x0 - 6, py + 4, TickLabel(v, y.step), 11, "end");
  }
  DrawLinePlotPanelEdges(svg, x, y0, y1, x_title, y_title);
}

// The figure's one plot area (kLinePlotY0..kLinePlotY1) with both titles.
inline void DrawLinePlotFrame(Svg& svg, const LinAxis& x, const LinAxis& y, const std::string& x_title,
                              const std::string& y_title) {
  DrawLinePlotPanel(svg, x, y, kLinePlotY0, kLinePlotY1, x_title, y_title);
}

// A scenario id as a file-name stem: '.' -> '_' (latency.raw_nginx ->
// latency_raw_nginx).
inline std::string PlotStem(const std::string& id) {
  std::string s = id;
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

// The title and subtitle above the plot, the notes (wrapped, muted) under
// the lowest panel, whose bottom edge is `bottom`; the finished SVG.
inline std::string FinishLinePlot(Svg& svg, const std::string& title, const std::string& subtitle,
                                  const std::vector<std::string>& notes, double bottom = kLinePlotY1) {
  svg.Text(16, 26, title, 16, "start", kInk, true);
  svg.Text(16, 46, subtitle, 12, "start", kMuted);
  double y = bottom + 62;
  for (const auto& n : notes) {
    for (const std::string& line : Wrap(n, 124, 3)) {
      svg.Text(16, y, line, 11, "start", kMuted);
      y += 15;
    }
  }
  return svg.Finish(title, std::max(bottom + 56, y) + 10);
}

}  // namespace fvbench::svg
