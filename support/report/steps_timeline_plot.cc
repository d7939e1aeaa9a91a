#include "support/report/steps_timeline_plot.h"

#include <fmt/format.h>

#include <algorithm>

#include "support/core/units_format.h"
#include "support/report/line_plot_frame.h"
#include "support/report/phase_strip.h"
#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

constexpr double kWidth = kLinePlotWidth, kX0 = kLinePlotX0, kX1 = kLinePlotX1, kY0 = kLinePlotY0,
                 kY1 = kLinePlotY1;
constexpr const char* kStallFill = kPhaseStallFill;
constexpr const char* kScheduledDash = "7 4";
constexpr const char* kRule = kPhaseRule;
// Steps listed under the plot, one line each; the rest are counted.
constexpr size_t kMaxListed = 40;

bool HasSeries(const StepResult& s) { return HasIntervalSeries(s.load); }

// The steps' loads for the strip (phase_strip.h), null where a step has no series.
std::vector<const LoadResult*> Phases(const std::vector<StepResult>& steps) {
  std::vector<const LoadResult*> out;
  for (const StepResult& s : steps) out.push_back(HasSeries(s) ? &s.load : nullptr);
  return out;
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

std::string StepLine(size_t k, const StepResult& s, double pause_s) {
  const std::string stalls = PhaseStallsText(s.load, s.passed ? " (passed on its totals)" : "");
  return fmt::format("{}. {}{} RPS: {}; {}{}", k + 1, s.role.empty() ? "" : s.role + ", ", FormatNumber(s.target_rps),
                     s.passed ? "PASS" : "FAIL", stalls, PhasePauseText(pause_s));
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
  const std::vector<const LoadResult*> phases = Phases(r.steps);
  const PhaseStrip lay = LayOutPhases(phases);
  size_t drawn = 0;
  std::vector<std::string> names;
  for (size_t k = 0; k < r.steps.size(); ++k) {
    drawn += HasSeries(r.steps[k]) ? 1 : 0;
    names.push_back(fmt::format("step {}", k + 1));
  }
  const LinAxis x = MakeLinAxis(0, std::max(lay.end_s, 1e-3), 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, PeakIntervalRate(phases) * 1.08, 6, kY1, kY0);
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  const std::vector<PhaseStall> stalls = PhaseStalls(lay, phases);
  const size_t stalled = stalls.size();
  DrawPhaseStalls(svg, x, stalls, phases, names, "step", kY0, kY1);
  DrawLinePlotFrame(svg, x, y, "seconds of load, steps end to end (the pauses between them cut out)",
                    "per second (requests)");
  for (size_t k = 0; k < r.steps.size(); ++k) {
    const StepResult& s = r.steps[k];
    if (!HasSeries(s)) continue;
    DrawPhaseStart(svg, x, lay.offset_s[k], fmt::format("{}", k + 1), s.passed ? kInk : kVermillion, kY0, kY1);
    DrawPhaseCounts(svg, x, y, lay, k, s.load, StepLine(k, s, lay.pause_s[k]), {kGreen, ""},
                    {kBlue, kScheduledDash});
  }
  Legend(svg);
  std::vector<std::string> notes;
  for (size_t k = 0; k < r.steps.size() && k < kMaxListed; ++k) {
    notes.push_back(StepLine(k, r.steps[k], lay.pause_s[k]));
  }
  if (r.steps.size() > kMaxListed) notes.push_back(fmt::format("... and {} more steps", r.steps.size() - kMaxListed));
  notes.push_back("Rates are each interval's count over the seconds of it the load covered; an interval at a step's "
                  "end covered under half is not drawn. The pause before a step (cool-down, the wait for a quiet SUT) is cut from the axis and "
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
