#include "support/report/timeline_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "support/core/units_format.h"
#include "support/judge/interval_checks.h"
#include "support/report/line_plot_frame.h"
#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

constexpr double kWidth = kLinePlotWidth, kX0 = kLinePlotX0, kX1 = kLinePlotX1, kY0 = kLinePlotY0,
                 kY1 = kLinePlotY1;
// Markers on every point up to this many intervals.
constexpr size_t kMaxMarkers = 60;
constexpr const char* kStallFill = "#f7c6cf";
constexpr const char* kScheduledDash = "7 4";

uint64_t At(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

// Whether interval i is a stall, by the judge's own check run on that
// interval alone (interval_checks.h: an interval is judged, and stalled, by
// its own counts and the phase's target rate only).
bool Stalled(const LoadResult& load, size_t i) {
  const IntervalSeries& s = load.intervals;
  LoadResult one;
  one.target_rps = load.target_rps;
  one.intervals.start_epoch_us = s.start_epoch_us;
  one.intervals.width_us = s.width_us;
  one.intervals.scheduled = {At(s.scheduled, i)};
  one.intervals.sent = {At(s.sent, i)};
  one.intervals.completed = {At(s.completed, i)};
  one.intervals.late_10ms = {At(s.late_10ms, i)};
  for (const ValidityCheck& c : IntervalChecks(one)) {
    if (c.name == "interval_stalls") return !c.passed;
  }
  return false;
}

// The intervals check's note when stalls were not judged ("" otherwise).
std::string NotJudged(const LoadResult& load) {
  for (const ValidityCheck& c : IntervalChecks(load)) {
    if (c.name == "intervals") return c.detail;
  }
  return "";
}

std::string Stem(const std::string& id) {
  std::string s = id;
  std::replace(s.begin(), s.end(), '.', '_');
  return s;
}

struct Line {
  const std::vector<uint64_t>* counts;
  const char* color;
  char shape;
  const char* dash;
  std::string legend;
};

void Legend(Svg& svg, const std::vector<Line>& lines, bool stalls) {
  double y = kY0 + 8;
  for (const Line& l : lines) {
    svg.Line(kX1 + 16, y, kX1 + 40, y, l.color, 2, l.dash);
    svg.Marker(l.shape, kX1 + 28, y, 3.5, l.color, true);
    for (const std::string& part : Wrap(l.legend, 36, 2)) {
      svg.Text(kX1 + 46, y + 4, part, 11, "start", kInk);
      y += 14;
    }
    y += 8;
  }
  if (!stalls) return;
  svg.Rect(kX1 + 16, y - 6, 24, 12, kStallFill);
  svg.Text(kX1 + 46, y + 4, "stall: slots due, none completed", 11, "start", kInk);
}

std::string Subtitle(const ScenarioResult& r) {
  const LoadResult& l = r.load;
  return fmt::format("{}: {}, target {} RPS; {} intervals of {} s", r.steps.empty() ? "measured phase" : "reported step",
                     l.engine.empty() ? "engine unknown" : Shorten(l.engine, 16), FormatNumber(l.target_rps),
                     l.intervals.size(), FormatNumber(l.intervals.width_us / 1e6));
}

std::string Finish(Svg& svg, const std::string& title, const std::string& subtitle,
                   const std::vector<std::string>& notes) {
  svg.Text(16, 26, title, 16, "start", kInk, true);
  svg.Text(16, 46, subtitle, 12, "start", kMuted);
  double y = kY1 + 62;
  for (const auto& n : notes) {
    for (const std::string& line : Wrap(n, 124, 3)) {
      svg.Text(16, y, line, 11, "start", kMuted);
      y += 15;
    }
  }
  return svg.Finish(title, std::max(kY1 + 56, y) + 10);
}

}  // namespace

std::string TimelinePlotFile(const ScenarioResult& r) {
  if (r.load.intervals.empty() || r.load.intervals.size() == 0) return "";
  return "timeline_" + Stem(r.id) + ".svg";
}

std::string RenderTimelinePlot(const ScenarioResult& r) {
  const std::string title = "Over time: " + r.id;
  Svg svg(kWidth);
  const IntervalSeries& s = r.load.intervals;
  if (TimelinePlotFile(r).empty()) {
    return Finish(svg, title, "", {"no counts per interval in this result (k6, or written before they were kept)"});
  }
  const double width_s = s.width_us / 1e6;
  const size_t n = s.size();
  double top = 1;
  for (const auto* v : {&s.scheduled, &s.completed, &s.late_10ms}) {
    for (uint64_t c : *v) top = std::max(top, static_cast<double>(c) / width_s);
  }
  const LinAxis x = MakeLinAxis(0, static_cast<double>(n) * width_s, 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, top * 1.08, 6, kY1, kY0);
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  // Stalls first, under the grid and the lines.
  std::vector<size_t> stalls;
  for (size_t i = 0; i < n; ++i) {
    if (!Stalled(r.load, i)) continue;
    stalls.push_back(i);
    const double t0 = static_cast<double>(i) * width_s, t1 = static_cast<double>(i + 1) * width_s;
    svg.Group(fmt::format("stall {}-{} s: 0 of {} scheduled completed", FormatNumber(t0), FormatNumber(t1),
                          At(s.scheduled, i)));
    svg.Rect(x.Map(t0), kY0, x.Map(t1) - x.Map(t0), kY1 - kY0, kStallFill);
    svg.EndGroup();
  }
  DrawLinePlotFrame(svg, x, y, "seconds from the phase's start", "per second (requests)");
  const std::vector<Line> lines = {
      {&s.scheduled, kBlue, 'o', kScheduledDash,
       fmt::format("scheduled: {} slots fell due", SeriesTotal(s.scheduled))},
      {&s.completed, kGreen, 's', "", fmt::format("completed: {} responses (any status)", SeriesTotal(s.completed))},
      {&s.late_10ms, kVermillion, 't', "", fmt::format("late: {} sent > 10 ms behind", SeriesTotal(s.late_10ms))},
  };
  // Completed first: scheduled, dashed, stays visible where they coincide.
  for (size_t k : {1, 0, 2}) {
    const Line& l = lines[k];
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i < n; ++i) {
      pts.emplace_back(x.Map((static_cast<double>(i) + 0.5) * width_s),
                       y.Map(static_cast<double>(At(*l.counts, i)) / width_s));
    }
    svg.Polyline(pts, l.color, 2, l.dash);
    if (n <= kMaxMarkers) {
      for (const auto& [px, py] : pts) svg.Marker(l.shape, px, py, 3, l.color, true);
    }
  }
  Legend(svg, lines, !stalls.empty());
  std::vector<std::string> notes;
  if (std::string nj = NotJudged(r.load); !nj.empty()) {
    notes.push_back(nj);
  } else if (stalls.empty()) {
    notes.push_back("no stall: every judged interval completed at least one response");
  } else {
    notes.push_back(fmt::format("{} stalled interval{} shaded: slots fell due and no response completed "
                                "(validity check interval_stalls)",
                                stalls.size(), stalls.size() == 1 ? "" : "s"));
  }
  notes.push_back("Rates are each interval's count divided by its width; the first and last intervals may be partial.");
  return Finish(svg, title, Subtitle(r), notes);
}

std::vector<PlotFile> RenderTimelinePlots(const std::vector<ScenarioResult>& results) {
  std::vector<PlotFile> out;
  for (const ScenarioResult& r : results) {
    std::string name = TimelinePlotFile(r);
    if (!name.empty()) out.push_back({std::move(name), RenderTimelinePlot(r)});
  }
  return out;
}

}  // namespace fvbench
