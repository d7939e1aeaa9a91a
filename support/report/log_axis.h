// A log10 axis for latencies in µs, shared by the report's plots that draw
// latencies spanning decades (svg_plot.cc, timeline_latency_panel.cc): the
// axis from the values, its grid and labels, and the duration labels
// ("812 µs", "1.5 ms", "2 s"). Pure, header-only as svg_writer.h; a value
// the axis cannot hold (not finite, <= 0, outside its range) is the
// caller's to leave out or clamp, never a NaN coordinate.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "support/core/units_format.h"
#include "support/report/svg_writer.h"

namespace fvbench::svg {

// A duration in µs for labels: "812 µs", "1.5 ms", "1000 ms" stays "1 s".
inline std::string Duration(double us) {
  if (std::isnan(us)) return "NaN";
  if (std::isinf(us)) return us > 0 ? "infinite" : "-infinite";
  if (std::fabs(us) >= 1e15) return fmt::format("{:.3g} s", us / 1e6);
  if (std::fabs(us) < 1000) return detail::FormatNumber(us) + " µs";
  if (std::fabs(us) < 1e6) return detail::FormatNumber(us / 1000) + " ms";
  return detail::FormatNumber(us / 1e6) + " s";
}

inline bool Positive(double v) { return std::isfinite(v) && v > 0; }

// y = log10 axis over whole decades [10^lo, 10^hi], mapped to pixels
// [bottom, top].
struct LogAxis {
  double lo = 0, hi = 3;  // log10 of the values at bottom and top
  double bottom = 0, top = 0;
  bool Contains(double v) const {
    return Positive(v) && std::log10(v) >= lo - 1e-9 && std::log10(v) <= hi + 1e-9;
  }
  double Map(double v) const { return bottom + (std::log10(v) - lo) / (hi - lo) * (top - bottom); }
};

// The range of the positive finite values with a little headroom (0.15
// decade each side, so nothing sits on the frame), at least one decade wide,
// limited to 10^-3 .. 10^12 so a wild value cannot make hundreds of decades
// (values outside are then reported as off scale). The ends need not be
// whole decades: the labels are.
inline LogAxis MakeLogAxis(const std::vector<double>& values, double bottom, double top) {
  LogAxis a;
  a.bottom = bottom;
  a.top = top;
  double mn = 0, mx = 0;
  bool any = false;
  for (double v : values) {
    if (!Positive(v)) continue;
    if (!any || v < mn) mn = v;
    if (!any || v > mx) mx = v;
    any = true;
  }
  if (!any) return a;  // 1 µs .. 1 ms: an empty frame with a sensible scale
  double lo = std::log10(mn) - 0.15, hi = std::log10(mx) + 0.15;
  if (hi - lo < 1) {
    double mid = (lo + hi) / 2;
    lo = mid - 0.5;
    hi = mid + 0.5;
  }
  a.lo = std::clamp(lo, -3.0, 11.0);
  a.hi = std::clamp(hi, a.lo + 1, 12.0);
  return a;
}

// Horizontal gridlines and labels of a log axis in µs, left of x0: a label
// at every decade (every k-th beyond 8 decades), minor lines at 2..9 x 10^k
// up to 4 decades, labelled at 2 and 5 up to 2 decades.
inline void DrawLogGrid(Svg& svg, const LogAxis& a, double x0, double x1) {
  const double span = a.hi - a.lo;
  const int label_every = span <= 8 ? 1 : static_cast<int>(std::ceil(span / 8));
  const int first = static_cast<int>(std::floor(a.lo)), last = static_cast<int>(std::floor(a.hi + 1e-9));
  for (int e = first; e <= last; ++e) {
    double v = std::pow(10.0, e);
    if (span <= 4) {
      for (int m = 2; m <= 9; ++m) {
        if (!a.Contains(v * m)) continue;
        double y = a.Map(v * m);
        svg.Line(x0, y, x1, y, kGridMinor, 1);
        if (span <= 2 && (m == 2 || m == 5)) svg.Text(x0 - 6, y + 4, Duration(v * m), 10, "end", kMuted);
      }
    }
    if (!a.Contains(v)) continue;
    double y = a.Map(v);
    svg.Line(x0, y, x1, y, kGrid, 1);
    if (e % label_every == 0) svg.Text(x0 - 6, y + 4, Duration(v), 11, "end");
  }
}

}  // namespace fvbench::svg
