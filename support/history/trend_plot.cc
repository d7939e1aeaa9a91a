#include "support/history/trend_plot.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "support/core/text.h"
#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

constexpr double kWidth = 900, kLeft = 80, kRight = 20, kPanel = 170, kGap = 60, kTop = 40;

struct Axis {
  double lo = 0, hi = 1;  // values at the panel's bottom and top
  double y0 = 0, y1 = 0;  // pixel rows of bottom and top
  double Y(double v) const { return y0 + (v - lo) / (hi - lo) * (y1 - y0); }
};

Axis MakeAxis(const MetricSeries& s, double top) {
  double lo = INFINITY, hi = -INFINITY;
  for (const SeriesPoint& p : s.points) {
    if (!std::isfinite(p.value)) continue;
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  const double pad = hi > lo ? 0.08 * (hi - lo) : std::max(std::fabs(hi) * 0.05, 1e-9);
  return {lo - pad, hi + pad, top + kPanel, top};
}

double X(size_t i, size_t n) {
  const double span = kWidth - kLeft - kRight;
  return n <= 1 ? kLeft + span / 2 : kLeft + span * static_cast<double>(i) / static_cast<double>(n - 1);
}

std::string SegmentMeans(const MetricSeries& s, const Axis& a) {
  std::string out;
  const size_t n = s.points.size();
  size_t from = 0;
  for (size_t c = 0; c <= s.change_points.size(); ++c) {
    const size_t to = c < s.change_points.size() ? s.change_points[c].index : n;
    const double mean = c < s.change_points.size() ? s.change_points[c].mean_before
                        : s.change_points.empty()  ? 0
                                                   : s.change_points.back().mean_after;
    if (!s.change_points.empty() && to > from) {
      out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d62728\" "
                         "stroke-width=\"2\"/>\n",
                         X(from, n), a.Y(mean), X(to - 1, n), a.Y(mean));
    }
    from = to;
  }
  return out;
}

std::string ChangeLines(const MetricSeries& s, const Axis& a) {
  std::string out;
  const size_t n = s.points.size();
  for (size_t c = 0; c < s.change_points.size(); ++c) {
    const ChangePoint& cp = s.change_points[c];
    const double x = (X(cp.index - 1, n) + X(cp.index, n)) / 2;
    out += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#d62728\" "
                       "stroke-dasharray=\"5,3\"/>\n",
                       x, a.y1, x, a.y0);
    const std::string label =
        fmt::format("#{} {} -> {} {} p={:.3g}", cp.index, detail::ShortCommit(s.points[cp.index - 1].edge_commit),
                    detail::ShortCommit(s.points[cp.index].edge_commit), ChangeText(s.metric, cp), cp.p_value);
    const bool right_half = x > kWidth / 2;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" fill=\"#d62728\" text-anchor=\"{}\">{}</text>\n",
                       right_half ? x - 3 : x + 3, a.y1 + 10 + 11.0 * static_cast<double>(c % 3),
                       right_half ? "end" : "start", svg::Escape(label));
  }
  return out;
}

std::string Panel(const MetricSeries& s, double top) {
  const Axis a = MakeAxis(s, top);
  const size_t n = s.points.size();
  std::string out = fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"13\" font-weight=\"bold\">{} ({} runs, {} change point(s))</text>\n",
                                kLeft, top - 8, svg::Escape(s.metric), n, s.change_points.size());
  out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#888\"/>\n",
                     kLeft, top, kWidth - kLeft - kRight, kPanel);
  for (int t = 0; t <= 4; ++t) {
    const double v = a.lo + (a.hi - a.lo) * t / 4;
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">{:.5g}</text>\n",
                       kLeft - 4, a.Y(v) + 3, v);
  }
  std::string line;
  int skipped = 0;
  for (size_t i = 0; i < n; ++i) {
    const double v = s.points[i].value;
    if (!std::isfinite(v)) {
      ++skipped;
      continue;
    }
    line += fmt::format("{}{:.1f},{:.1f}", line.empty() ? "" : " ", X(i, n), a.Y(v));
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2\" fill=\"#1f77b4\"/>\n", X(i, n), a.Y(v));
  }
  if (n > 1) out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"0.8\"/>\n", line);
  out += SegmentMeans(s, a) + ChangeLines(s, a);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">run #0</text>\n", kLeft, a.y0 + 14);
  out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\" text-anchor=\"end\">run #{}{}</text>\n",
                     kWidth - kRight, a.y0 + 14, n ? n - 1 : 0,
                     skipped ? fmt::format(" ({} non-finite value(s) not drawn)", skipped) : "");
  return out;
}

}  // namespace

std::string TrendPlotFileName(const std::string& scenario) { return "history_" + scenario + ".svg"; }

std::string RenderTrendPlot(const std::vector<MetricSeries>& series, const std::string& scenario) {
  std::vector<const MetricSeries*> panels;
  for (const MetricSeries& s : series) {
    if (s.scenario == scenario && !s.points.empty()) panels.push_back(&s);
  }
  if (panels.empty()) return "";
  const double height = kTop + static_cast<double>(panels.size()) * (kPanel + kGap);
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{:.0f}\" "
                                "height=\"{:.0f}\" font-family=\"sans-serif\">\n"
                                "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
                                "<text x=\"{:.1f}\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{}: history, "
                                "change points (E-Divisive) dashed, segment means red</text>\n",
                                kWidth, height, kLeft, svg::Escape(scenario));
  for (size_t i = 0; i < panels.size(); ++i) out += Panel(*panels[i], kTop + 16 + static_cast<double>(i) * (kPanel + kGap));
  return out + "</svg>\n";
}

}  // namespace fvbench
