#include "support/report/steps_timeline_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

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
constexpr const char* kStallFill = "#f7c6cf";
constexpr const char* kScheduledDash = "7 4";
constexpr const char* kRule = "#999999";
// Steps listed under the plot, one line each; the rest are counted.
constexpr size_t kMaxListed = 40;

bool HasSeries(const StepResult& s) { return !s.load.intervals.empty() && s.load.intervals.size() != 0; }

uint64_t At(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }


double Seconds(const StepResult& s) {
  return static_cast<double>(s.load.intervals.size()) * s.load.intervals.width_us / 1e6;
}

// Where each step with a series sits on the axis of load seconds: steps end
// to end in their order, a gap of kGapShare of all their seconds between
// two; and the real pause before each (its series' start minus the end of
// the previous drawn step's load: that series' start plus its phase's
// duration_s, or its whole series without one; NaN for the first). Indexed like r.steps; steps without a
// series get NaN.
struct Layout {
  std::vector<double> offset_s;
  std::vector<double> pause_s;
  double end_s = 0;
};
constexpr double kGapShare = 0.02;

Layout Place(const std::vector<StepResult>& steps) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Layout l{std::vector<double>(steps.size(), nan), std::vector<double>(steps.size(), nan), 0};
  double total = 0;
  for (const StepResult& s : steps) {
    if (HasSeries(s)) total += Seconds(s);
  }
  const double gap = total * kGapShare;
  double at = 0, prev_end_us = nan;
  for (size_t k = 0; k < steps.size(); ++k) {
    if (!HasSeries(steps[k])) continue;
    const IntervalSeries& iv = steps[k].load.intervals;
    if (!std::isnan(prev_end_us)) {
      at += gap;
      l.pause_s[k] = (iv.start_epoch_us - prev_end_us) / 1e6;
    }
    l.offset_s[k] = at;
    at += Seconds(steps[k]);
    // The phase's load ends its duration after its series' start; the
    // series itself runs on past that by its partial last interval.
    const double load_us = steps[k].load.duration_s > 0 ? steps[k].load.duration_s * 1e6
                                                        : static_cast<double>(iv.size()) * iv.width_us;
    prev_end_us = iv.start_epoch_us + load_us;
  }
  l.end_s = at;
  return l;
}

// The axis position (s) of step k's interval i (fractional i: within it).
double At(const Layout& l, const std::vector<StepResult>& steps, size_t k, double i) {
  return l.offset_s[k] + i * steps[k].load.intervals.width_us / 1e6;
}

void Legend(Svg& svg) {
  double y = kY0 + 8;
  svg.Line(kX1 + 16, y, kX1 + 40, y, kBlue, 2, kScheduledDash);
  svg.Text(kX1 + 46, y + 4, "scheduled: slots due per second", 11, "start", kInk);
  y += 22;
  svg.Line(kX1 + 16, y, kX1 + 40, y, kGreen, 2);
  svg.Text(kX1 + 46, y + 4, "completed: responses per second", 11, "start", kInk);
  y += 22;
  svg.Line(kX1 + 28, y - 7, kX1 + 28, y + 7, kRule, 1, "2 2");
  svg.Text(kX1 + 46, y + 4, "a step's start (its number above)", 11, "start", kInk);
  y += 22;
  svg.Rect(kX1 + 16, y - 6, 24, 12, kStallFill);
  svg.Text(kX1 + 46, y + 4, "stall: slots due, none completed", 11, "start", kInk);
}

// Whether the stall check judged this phase's intervals (interval_checks.h
// gives the informational "intervals" check instead when it did not).
bool Judged(const LoadResult& load) {
  for (const ValidityCheck& c : IntervalChecks(load)) {
    if (c.name == "intervals") return false;
  }
  return true;
}

std::string StepLine(size_t k, const StepResult& s, double pause_s) {
  std::string stalls;
  if (!HasSeries(s)) {
    stalls = "no counts per interval";
  } else if (!Judged(s.load)) {
    stalls = s.load.intervals.sends_counted ? "stalls not judged (under 2 slots per interval)"
                                            : "stalls not judged (sends not counted)";
  } else {
    const std::vector<size_t> st = StalledIntervals(s.load);
    const double w = s.load.intervals.width_us / 1e6;
    if (st.empty()) stalls = "no stall";
    for (size_t j = 0; j < st.size() && j < 5; ++j) {
      stalls += fmt::format("{}stall {}-{} s", j == 0 ? "" : ", ", FormatNumber(static_cast<double>(st[j]) * w),
                            FormatNumber(static_cast<double>(st[j] + 1) * w));
    }
    if (st.size() > 5) stalls += fmt::format(" and {} more", st.size() - 5);
    if (!st.empty() && s.passed) stalls += " (passed on its totals)";
  }
  const std::string pause =
      std::isnan(pause_s) ? "" : fmt::format("; after a pause of {} s", FormatNumber(std::round(pause_s * 10) / 10));
  return fmt::format("{}. {}{} RPS: {}; {}{}", k + 1, s.role.empty() ? "" : s.role + ", ", FormatNumber(s.target_rps),
                     s.passed ? "PASS" : "FAIL", stalls, pause);
}


}  // namespace

std::string StepsTimelinePlotFile(const ScenarioResult& r) {
  if (std::none_of(r.steps.begin(), r.steps.end(), HasSeries)) return "";
  return "steps_timeline_" + PlotStem(r.id) + ".svg";
}

std::string RenderStepsTimelinePlot(const ScenarioResult& r) {
  const std::string title = "Search steps over time: " + r.id;
  Svg svg(kWidth);
  if (StepsTimelinePlotFile(r).empty()) {
    return FinishLinePlot(svg, title, "", {"no step of this result carries counts per interval (k6, no search, or written "
                                   "before they were kept)"});
  }
  const Layout lay = Place(r.steps);
  double top = 1;
  size_t drawn = 0;
  for (const StepResult& s : r.steps) {
    if (!HasSeries(s)) continue;
    ++drawn;
    const IntervalSeries& iv = s.load.intervals;
    for (const auto* v : {&iv.scheduled, &iv.completed}) {
      for (uint64_t c : *v) top = std::max(top, static_cast<double>(c) / (iv.width_us / 1e6));
    }
  }
  const LinAxis x = MakeLinAxis(0, std::max(lay.end_s, 1e-3), 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, top * 1.08, 6, kY1, kY0);
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  size_t stalled = 0;
  for (size_t k = 0; k < r.steps.size(); ++k) {
    const StepResult& s = r.steps[k];
    if (!HasSeries(s)) continue;
    for (size_t i : StalledIntervals(s.load)) {
      ++stalled;
      const double w = s.load.intervals.width_us / 1e6;
      const double a = At(lay, r.steps, k, static_cast<double>(i)), b = At(lay, r.steps, k, static_cast<double>(i + 1));
      svg.Group(fmt::format("step {} stall {}-{} s of the step: 0 of {} scheduled completed", k + 1,
                            FormatNumber(static_cast<double>(i) * w), FormatNumber(static_cast<double>(i + 1) * w),
                            At(s.load.intervals.scheduled, i)));
      svg.Rect(x.Map(a), kY0, x.Map(b) - x.Map(a), kY1 - kY0, kStallFill);
      svg.EndGroup();
    }
  }
  DrawLinePlotFrame(svg, x, y, "seconds of load, steps end to end (the pauses between them cut out)",
                    "per second (requests)");
  for (size_t k = 0; k < r.steps.size(); ++k) {
    const StepResult& s = r.steps[k];
    if (!HasSeries(s)) continue;
    const IntervalSeries& iv = s.load.intervals;
    const double w = iv.width_us / 1e6;
    const double start = x.Map(At(lay, r.steps, k, 0));
    svg.Line(start, kY0, start, kY1, kRule, 1, "2 2");
    svg.Text(start, kY0 - 6, fmt::format("{}", k + 1), 10, "middle", s.passed ? kInk : kVermillion);
    svg.Group(StepLine(k, s, lay.pause_s[k]));
    for (const auto& [counts, color, dash] : {std::tuple{&iv.completed, kGreen, ""},
                                              std::tuple{&iv.scheduled, kBlue, kScheduledDash}}) {
      if (counts == &iv.scheduled && !iv.sends_counted) continue;  // k6: not measured
      std::vector<std::pair<double, double>> pts;
      for (size_t i = 0; i < iv.size(); ++i) {
        pts.emplace_back(x.Map(At(lay, r.steps, k, static_cast<double>(i) + 0.5)),
                         y.Map(static_cast<double>(At(*counts, i)) / w));
      }
      svg.Polyline(pts, color, 2, dash);
    }
    svg.EndGroup();
  }
  Legend(svg);
  std::vector<std::string> notes;
  for (size_t k = 0; k < r.steps.size() && k < kMaxListed; ++k) {
    notes.push_back(StepLine(k, r.steps[k], lay.pause_s[k]));
  }
  if (r.steps.size() > kMaxListed) notes.push_back(fmt::format("... and {} more steps", r.steps.size() - kMaxListed));
  notes.push_back("Rates are each interval's count divided by its width; a step's first and last intervals may be "
                  "partial. The pause before a step (cool-down, the wait for a quiet SUT) is cut from the axis and "
                  "given in its line.");
  const std::string subtitle =
      fmt::format("{} step{} drawn of {}; {} stalled interval{}", drawn, drawn == 1 ? "" : "s", r.steps.size(),
                  stalled, stalled == 1 ? "" : "s");
  return FinishLinePlot(svg, title, subtitle, notes);
}

std::vector<PlotFile> RenderStepsTimelinePlots(const std::vector<ScenarioResult>& results) {
  return PlotsOf(results, StepsTimelinePlotFile, RenderStepsTimelinePlot);
}

}  // namespace fvbench
