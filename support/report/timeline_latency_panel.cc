#include "support/report/timeline_latency_panel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

#include "support/core/interval_latency.h"
#include "support/core/units_format.h"
#include "support/report/line_plot_frame.h"
#include "support/report/log_axis.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

constexpr double kX0 = kLinePlotX0, kX1 = kLinePlotX1;

// A line of the panel: one percentile of every interval.
struct Level {
  const char* name;
  double LatencyUs::*value;
  const char* color;
  char shape;
  const char* dash;
};
// In the legend's order; drawn in reverse, so p50 lies on top.
constexpr Level kLevels[] = {{"p50", &LatencyUs::p50, kBlue, 'o', ""},
                             {"p99", &LatencyUs::p99, kVermillion, 't', ""},
                             {"max", &LatencyUs::max, kGrey, 'd', "5 3"}};

uint64_t At(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

size_t SummaryCount(const IntervalSeries& s) {
  return s.latency.empty() ? std::min(s.latency_read.size(), s.timeouts_read.size()) : s.latency.size();
}

struct Drawn {
  size_t censored = 0;  // hollow markers
};

// One level's line (broken at gaps) and markers; a censored value's hollow
// marker carries a tooltip and is drawn at any number of intervals.
void DrawLevel(Svg& svg, const Level& level, const std::vector<LatencyUs>& lat, const std::vector<uint64_t>& timeouts,
               const std::vector<bool>& sampled, double width_s, const LinAxis& x, const LogAxis& y, Drawn& drawn) {
  struct Point {
    double px, py;
    size_t i;
    bool censored;
  };
  std::vector<Point> points;
  std::vector<std::pair<double, double>> run;
  auto flush = [&] {
    svg.Polyline(run, level.color, 1.5, level.dash);
    run.clear();
  };
  const double lo = std::pow(10.0, y.lo), hi = std::pow(10.0, y.hi);
  for (size_t i = 0; i < lat.size(); ++i) {
    const double v = lat[i].*level.value;
    if (!sampled[i] || !Positive(v)) {
      flush();
      continue;
    }
    const Point p{x.Map((static_cast<double>(i) + 0.5) * width_s), y.Map(std::clamp(v, lo, hi)), i,
                  lat[i].IsCensored(v)};
    run.emplace_back(p.px, p.py);
    points.push_back(p);
  }
  flush();
  const bool every = lat.size() <= kMaxLatencyMarkers;
  for (const Point& p : points) {
    if (!p.censored) {
      if (every) svg.Marker(level.shape, p.px, p.py, 2.5, level.color, true);
      continue;
    }
    ++drawn.censored;
    const double t0 = static_cast<double>(p.i) * width_s;
    const uint64_t n = At(timeouts, p.i);
    svg.Group(fmt::format("{}-{} s: {} >= {} (a lower bound: {} request{} timed out)", FormatNumber(t0),
                          FormatNumber(t0 + width_s), level.name, Duration(lat[p.i].censored_at_us), n,
                          n == 1 ? "" : "s"));
    svg.Marker(level.shape, p.px, p.py, 3, level.color, false);
    svg.EndGroup();
  }
}

}  // namespace

bool HasLatencyPanel(const IntervalSeries& s) {
  return s.has_latency() && s.size() > 0 && SummaryCount(s) == s.size();
}

std::string DrawLatencyPanel(Svg& svg, const IntervalSeries& s, const LinAxis& x, double y0, double y1,
                             const std::vector<std::pair<double, double>>& stall_spans, const std::string& x_title) {
  if (!HasLatencyPanel(s)) return "";
  const std::vector<LatencyUs> lat = IntervalLatencySummaries(s);
  const std::vector<uint64_t> timeouts = IntervalTimeouts(s);
  const double width_s = s.width_us / 1e6;
  std::vector<bool> sampled(lat.size());
  std::vector<double> values;
  size_t gaps = 0;
  for (size_t i = 0; i < lat.size(); ++i) {
    sampled[i] = At(s.completed, i) + At(timeouts, i) > 0;
    gaps += sampled[i] ? 0 : 1;
    if (!sampled[i]) continue;
    for (const Level& l : kLevels) values.push_back(lat[i].*l.value);
  }
  const LogAxis y = MakeLogAxis(values, y1, y0);
  svg.Comment("latency panel");
  svg.Rect(kX0, y0, kX1 - kX0, y1 - y0, "#ffffff");
  for (const auto& [t0, t1] : stall_spans) {
    svg.Rect(x.Map(t0), y0, x.Map(t1) - x.Map(t0), y1 - y0, kTimelineStallFill);
  }
  DrawLogGrid(svg, y, kX0, kX1);
  DrawLinePlotPanelEdges(svg, x, y0, y1, x_title, "latency (log scale)");
  Drawn drawn;
  for (auto it = std::rbegin(kLevels); it != std::rend(kLevels); ++it) {
    DrawLevel(svg, *it, lat, timeouts, sampled, width_s, x, y, drawn);
  }
  double ly = y0 + 8;
  for (const Level& l : kLevels) {
    svg.Line(kX1 + 16, ly, kX1 + 40, ly, l.color, 2, l.dash);
    svg.Marker(l.shape, kX1 + 28, ly, 3, l.color, true);
    svg.Text(kX1 + 46, ly + 4, std::string(l.name) + " per interval", 11, "start", kInk);
    ly += 18;
  }
  if (drawn.censored > 0) {
    svg.Marker('o', kX1 + 28, ly, 3, kGrey, false);
    svg.Text(kX1 + 46, ly + 4, "hollow: at least (timeouts)", 11, "start", kInk);
  }
  std::string note =
      "Latency panel: p50, p99 and max of each interval's requests (placed by the time they ended, timeouts "
      "included), on a log scale";
  if (gaps > 0) note += fmt::format("; {} interval{} without a request left blank", gaps, gaps == 1 ? "" : "s");
  if (drawn.censored > 0) {
    note += fmt::format("; {} value{} hollow: at the request timeout, a lower bound", drawn.censored,
                        drawn.censored == 1 ? "" : "s");
  }
  return note + ".";
}

}  // namespace fvbench
