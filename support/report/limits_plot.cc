#include "support/report/limits_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>

#include "support/core/units_format.h"
#include "support/report/line_plot_frame.h"
#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

constexpr double kWidth = kLinePlotWidth, kX0 = kLinePlotX0, kX1 = kLinePlotX1, kY0 = kLinePlotY0,
                 kY1 = kLinePlotY1;
// Over this many points a series is drawn at this many ranks.
constexpr size_t kMaxDrawn = 1000;
// Markers on every point up to this many points.
constexpr size_t kMaxMarkers = 60;

struct PhaseStyle {
  const char* color;
  char shape;
};
constexpr PhaseStyle kStyles[] = {{kBlue, 'o'}, {kVermillion, 's'}, {kGreen, 't'}, {kGrey, 'd'}};
const PhaseStyle& StyleOf(size_t i) { return kStyles[i % std::size(kStyles)]; }

std::string Stem(const std::string& id) {
  std::string s = id;
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

// A phase's name in legends and labels: its key count in a key sweep
// (limits.keys, whose points differ by keys), else its workers.
std::string PhaseName(const ScenarioResult& r, const LimitRun& run) {
  if (!r.key_sweep.empty()) return fmt::format("{} keys", run.accuracy.keys_planned);
  return run.workers > 0 ? fmt::format("{} worker{}", run.workers, run.workers == 1 ? "" : "s")
                         : Shorten(run.phase, 24);
}

std::string Subtitle(const ScenarioResult& r) {
  if (r.limits.empty()) return "";
  const LimitAccuracy& a = r.limits.front().accuracy;
  const int last_keys = r.limits.back().accuracy.keys_planned;
  const std::string keys = a.keys_planned == last_keys ? std::to_string(last_keys)
                                                       : fmt::format("{} to {}", a.keys_planned, last_keys);
  return fmt::format("token bucket per key: {} tokens/s, burst {}; {} keys; counted by edge's access log",
                     FormatNumber(a.limit.rate_per_s), FormatNumber(a.limit.burst), keys);
}

// White background, then the shared frame (line_plot_frame.h).
void DrawFrame(Svg& svg, const LinAxis& x, const LinAxis& y, const std::string& x_title,
               const std::string& y_title) {
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  DrawLinePlotFrame(svg, x, y, x_title, y_title);
}

// A horizontal limit line across the frame, its label's baseline `dy`
// pixels below it (negative: above) at the left or right end.
constexpr double kAbove = -5, kBelow = 14, kLabelStep = 14;
void LimitLine(Svg& svg, const LinAxis& y, double v, const char* color, std::string_view dash,
               const std::string& label, double dy, bool left) {
  if (!std::isfinite(v)) return;
  const double py = y.Map(v);
  svg.Line(kX0, py, kX1, py, color, 1.5, dash);
  svg.Text(left ? kX0 + 6 : kX1 - 6, py + dy, label, 11, left ? "start" : "end", color, false, false, true);
}

// One phase's series at x = x_of(i), every point when few, else kMaxDrawn
// indices spread evenly (the first and last among them).
void Series(Svg& svg, const std::vector<uint64_t>& values, const LinAxis& x, const LinAxis& y,
            const PhaseStyle& style, double x_offset) {
  const size_t n = values.size();
  std::vector<size_t> at;
  if (n <= kMaxDrawn) {
    for (size_t i = 0; i < n; ++i) at.push_back(i);
  } else {
    for (size_t j = 0; j < kMaxDrawn; ++j) at.push_back((j * (n - 1) + (kMaxDrawn - 1) / 2) / (kMaxDrawn - 1));
  }
  std::vector<std::pair<double, double>> pts;
  for (size_t i : at) pts.emplace_back(x.Map(static_cast<double>(i) + x_offset), y.Map(static_cast<double>(values[i])));
  svg.Polyline(pts, style.color, 2);
  if (pts.size() == 1 || pts.size() <= kMaxMarkers) {
    for (const auto& [px, py] : pts) svg.Marker(style.shape, px, py, 3.5, style.color, true);
  }
}

struct LegendLine {
  std::string text;
  const char* color;
  std::string_view dash;  // "" solid with the phase's marker
  char shape;
};

void Legend(Svg& svg, const std::vector<LegendLine>& lines) {
  double y = kY0 + 8;
  for (const LegendLine& l : lines) {
    svg.Line(kX1 + 16, y, kX1 + 40, y, l.color, l.dash.empty() ? 2 : 1.5, l.dash);
    if (l.dash.empty()) svg.Marker(l.shape, kX1 + 28, y, 3.5, l.color, true);
    for (const std::string& part : Wrap(l.text, 36, 2)) {
      svg.Text(kX1 + 46, y + 4, part, 11, "start", kInk);
      y += 14;
    }
    y += 8;
  }
}

double DrawNotes(Svg& svg, const std::vector<std::string>& notes, double y) {
  for (const auto& n : notes) {
    for (const std::string& line : Wrap(n, 124, 3)) {
      svg.Text(16, y, line, 11, "start", kMuted);
      y += 15;
    }
  }
  return y;
}

std::string Finish(Svg& svg, const std::string& title, const ScenarioResult& r,
                   const std::vector<std::string>& notes) {
  svg.Text(16, 26, title, 16, "start", kInk, true);
  svg.Text(16, 46, Subtitle(r), 12, "start", kMuted);
  const double bottom = DrawNotes(svg, notes, kY1 + 62);
  return svg.Finish(title, std::max(kY1 + 56, bottom) + 10);
}

constexpr const char* kAllowedDash = "7 4";
constexpr const char* kFloorDash = "2 3";

}  // namespace

std::vector<std::string> LimitsPlotFiles(const ScenarioResult& r) {
  if (r.limits.empty()) return {};
  return {Stem(r.id) + "_per_key.svg", Stem(r.id) + "_per_second.svg"};
}

std::string RenderLimitsPerKeyPlot(const ScenarioResult& r) {
  const std::string title = "Admitted per key: " + r.id;
  Svg svg(kWidth);
  std::vector<std::string> notes;
  if (r.limits.empty()) return Finish(svg, title, r, {"no limits phase in this result"});
  size_t keys = 1;
  double top = 1;
  for (const LimitRun& run : r.limits) {
    const LimitAccuracy& a = run.accuracy;
    keys = std::max({keys, a.admitted_per_key.size(), static_cast<size_t>(std::max(0, a.keys_planned))});
    top = std::max(top, a.allowed_per_key);
    if (!a.admitted_per_key.empty()) top = std::max(top, static_cast<double>(a.admitted_per_key.back()));
  }
  const LinAxis x = MakeLinAxis(0, static_cast<double>(keys), 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, top * 1.08, 6, kY1, kY0);
  DrawFrame(svg, x, y, "keys, by admitted (rank)", "admitted in the phase's window (requests)");
  std::vector<LegendLine> legend;
  for (size_t i = 0; i < r.limits.size(); ++i) {
    const LimitRun& run = r.limits[i];
    const LimitAccuracy& a = run.accuracy;
    const PhaseStyle& st = StyleOf(i);
    const double step = kLabelStep * static_cast<double>(i);
    // Low ranks are the least admitted: the allowed line is labelled above
    // it at the left, the floor below it at the right, away from the curve
    // of a limiter that keeps between them; the phases' labels stacked.
    LimitLine(svg, y, a.allowed_per_key, st.color, kAllowedDash,
              fmt::format("allowed {} ({})", FormatNumber(a.allowed_per_key), PhaseName(r, run)), kAbove - step, true);
    if (a.floor_per_key > 0) {
      LimitLine(svg, y, a.floor_per_key, st.color, kFloorDash,
                fmt::format("floor {} ({})", FormatNumber(a.floor_per_key), PhaseName(r, run)), kBelow + step, false);
    }
    if (a.admitted_per_key.empty()) {
      notes.push_back(fmt::format("{}: no per-key counts in this result (written before they were kept)",
                                  PhaseName(r, run)));
    } else {
      Series(svg, a.admitted_per_key, x, y, st, 1);
      if (a.admitted_per_key.size() > kMaxDrawn) {
        notes.push_back(fmt::format("{}: {} keys, {} ranks spread evenly drawn", PhaseName(r, run),
                                    a.admitted_per_key.size(), kMaxDrawn));
      }
    }
    legend.push_back({fmt::format("{}: {} keys over, {} under", PhaseName(r, run), a.keys_over, a.keys_under), st.color,
                      "", st.shape});
  }
  legend.push_back({"allowed: rate × window + burst", kInk, kAllowedDash, 'o'});
  legend.push_back({"floor: rate × window − burst", kInk, kFloorDash, 'o'});
  Legend(svg, legend);
  return Finish(svg, title, r, notes);
}

std::string RenderLimitsPerSecondPlot(const ScenarioResult& r) {
  const std::string title = "Admitted per second, all keys: " + r.id;
  Svg svg(kWidth);
  std::vector<std::string> notes;
  if (r.limits.empty()) return Finish(svg, title, r, {"no limits phase in this result"});
  size_t seconds = 1;
  double top = 1;
  for (const LimitRun& run : r.limits) {
    const LimitAccuracy& a = run.accuracy;
    seconds = std::max(seconds, a.admitted_per_second.size());
    top = std::max(top, a.keys_planned * (a.limit.rate_per_s + a.limit.burst));
    for (uint64_t n : a.admitted_per_second) top = std::max(top, static_cast<double>(n));
  }
  const LinAxis x = MakeLinAxis(0, static_cast<double>(seconds), 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, top * 1.08, 6, kY1, kY0);
  DrawFrame(svg, x, y, "seconds from the phase's first log line", "admitted per second, all keys (requests)");
  // The lines of the first phase; another phase's only when its keys or
  // bucket differ.
  std::vector<LegendLine> legend;
  double last_rate = -1;
  for (size_t i = 0; i < r.limits.size(); ++i) {
    const LimitAccuracy& a = r.limits[i].accuracy;
    const double rate = a.keys_planned * a.limit.rate_per_s;
    const double most = a.keys_planned * (a.limit.rate_per_s + a.limit.burst);
    if (std::fabs(rate - last_rate) <= 1e-9 * std::max(1.0, rate)) continue;
    last_rate = rate;
    const char* color = i == 0 ? kInk : StyleOf(i).color;
    // The first second holds the burst, the last is partial: the rate's
    // label below it at the left, the 1 s bound's above it at the right.
    LimitLine(svg, y, rate, color, kAllowedDash, fmt::format("keys × rate: {}/s", FormatNumber(rate)), kBelow,
              true);
    LimitLine(svg, y, most, color, kFloorDash,
              fmt::format("keys × (rate + burst): {} in 1 s", FormatNumber(most)), kAbove, false);
  }
  for (size_t i = 0; i < r.limits.size(); ++i) {
    const LimitRun& run = r.limits[i];
    const LimitAccuracy& a = run.accuracy;
    const PhaseStyle& st = StyleOf(i);
    if (a.admitted_per_second.empty()) {
      notes.push_back(fmt::format("{}: no per-second counts in this result (written before they were kept)",
                                  PhaseName(r, run)));
    } else {
      Series(svg, a.admitted_per_second, x, y, st, 0.5);
      // The last entry covers what the window holds beyond its whole
      // seconds: a window of 10.03 s ends in a 0.03 s sliver, drawn low.
      const double last = a.window_s - static_cast<double>(a.admitted_per_second.size() - 1);
      if (a.window_s > 0 && last > 0 && last < 1 - 1e-9) {
        notes.push_back(fmt::format("{}: the last point is {:.2f} s, not a whole second (the log's window is {:.2f} s)",
                                    PhaseName(r, run), last, a.window_s));
      }
    }
    legend.push_back({fmt::format("{}: {} admitted in {} s", PhaseName(r, run), a.admitted, FormatNumber(a.window_s)),
                      st.color, "", st.shape});
  }
  legend.push_back({"keys × rate: what a correct limiter holds to", kInk, kAllowedDash, 'o'});
  legend.push_back({"keys × (rate + burst): the most in any 1 s", kInk, kFloorDash, 'o'});
  Legend(svg, legend);
  return Finish(svg, title, r, notes);
}

std::vector<PlotFile> RenderLimitsPlots(const std::vector<ScenarioResult>& results) {
  std::vector<PlotFile> out;
  for (const ScenarioResult& r : results) {
    const std::vector<std::string> names = LimitsPlotFiles(r);
    if (names.empty()) continue;
    out.push_back({names[0], RenderLimitsPerKeyPlot(r)});
    out.push_back({names[1], RenderLimitsPerSecondPlot(r)});
  }
  return out;
}

}  // namespace fvbench
