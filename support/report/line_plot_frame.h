// The layout and frame shared by the report's line plots over linear axes
// (limits_plot.cc, timeline_plot.cc): an 820-px-wide figure whose plot area
// is x 84..560, y 78..388 (pixels, y growing downwards in SVG), the legend to
// its right.
#pragma once

#include <string>

#include "support/report/svg_writer.h"

namespace fvbench::svg {

inline constexpr double kLinePlotWidth = 820, kLinePlotX0 = 84, kLinePlotX1 = 560, kLinePlotY0 = 78,
                        kLinePlotY1 = 388;

// Grid, tick labels, the plot area's border and the two axis titles (the
// y title rotated). No background: a caller that wants one draws it first.
inline void DrawLinePlotFrame(Svg& svg, const LinAxis& x, const LinAxis& y, const std::string& x_title,
                              const std::string& y_title) {
  constexpr double x0 = kLinePlotX0, x1 = kLinePlotX1, y0 = kLinePlotY0, y1 = kLinePlotY1;
  for (double v : y.Ticks()) {
    const double py = y.Map(v);
    svg.Line(x0, py, x1, py, kGrid, 1);
    svg.Text(x0 - 6, py + 4, TickLabel(v, y.step), 11, "end");
  }
  for (double v : x.Ticks()) {
    const double px = x.Map(v);
    svg.Line(px, y1, px, y1 + 4, kInk, 1);
    svg.Text(px, y1 + 17, TickLabel(v, x.step), 11, "middle");
  }
  svg.Rect(x0, y0, x1 - x0, y1 - y0, "none", kInk, 1);
  svg.Text((x0 + x1) / 2, y1 + 36, x_title, 12, "middle");
  svg.Text(22, (y0 + y1) / 2, y_title, 12, "middle", kInk, false, true);
}

}  // namespace fvbench::svg
