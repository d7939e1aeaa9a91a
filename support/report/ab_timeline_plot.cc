#include "support/report/ab_timeline_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

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
constexpr const char* kScheduledDash = "7 4";
constexpr const char* kSideAColor = kBlue;
constexpr const char* kSideBColor = kVermillion;
constexpr double kPanelGap = 34, kCpuPanelHeight = 120;  // the CPU panel under the counts (timeline_plot.h's size)
// Runs listed under the plot, one line each; the rest are counted.
constexpr size_t kMaxListed = 40;

// One run in run order with what the plot needs of it.
struct Run {
  char side;
  size_t number;  // 1-based within its side
  const LoadResult* load;
  const SutTimeline* sut;  // null when the side has no timeline for it
};

std::vector<Run> Runs(const AbResult& ab) {
  std::vector<Run> out;
  for (const AbRunRef& ref : AbRunOrder(ab)) {
    const AbSide& s = ref.side == 'B' ? ab.b : ab.a;
    out.push_back({ref.side, ref.index + 1, &s.runs[ref.index],
                   ref.index < s.sut_timelines.size() ? &s.sut_timelines[ref.index] : nullptr});
  }
  return out;
}

const char* SideColor(char side) { return side == 'B' ? kSideBColor : kSideAColor; }

std::string Label(const Run& r) { return fmt::format("{}{}", r.side, r.number); }

std::string RunLine(const Run& r, double rate_rps, double pause_s) {
  const LoadResult& l = *r.load;
  const double target = l.target_rps > 0 ? l.target_rps : rate_rps;
  return fmt::format("{}. side {} run {}, {} RPS: p99 {}; {}{}", Label(r), r.side, r.number, FormatNumber(target),
                     detail::FormatLatency(l.latency_us, l.latency_us.p99), PhaseStallsText(l),
                     PhasePauseText(pause_s));
}

// Edge's CPU per sample window of run k: (axis s of the window's middle,
// cores or absent), the windows whose middle lies within its intervals.
std::vector<std::pair<double, std::optional<double>>> FvCpu(const Run& r, const PhaseStrip& strip, size_t k) {
  std::vector<std::pair<double, std::optional<double>>> out;
  if (r.sut == nullptr || std::isnan(strip.offset_s[k])) return out;
  const auto fv = std::find(r.sut->services.begin(), r.sut->services.end(), "fv");
  if (fv == r.sut->services.end()) return out;
  const size_t at = static_cast<size_t>(fv - r.sut->services.begin());
  const IntervalSeries& iv = r.load->intervals;
  const double span_s = static_cast<double>(iv.size()) * iv.width_us / 1e6;
  for (const SutTimelinePoint& p : r.sut->points) {
    const double mid_s = ((p.start_epoch_us + p.end_epoch_us) / 2 - iv.start_epoch_us) / 1e6;
    if (!std::isfinite(mid_s) || mid_s < 0 || mid_s > span_s) continue;
    std::optional<double> v = at < p.cpu_cores.size() ? p.cpu_cores[at] : std::nullopt;
    if (v && !std::isfinite(*v)) v.reset();
    out.emplace_back(strip.offset_s[k] + mid_s, v);
  }
  return out;
}

using CpuSeries = std::vector<std::vector<std::pair<double, std::optional<double>>>>;

// The CPU panel at y0..y1: stalls shaded, a line per run in its side's
// colour (broken where a value is absent), its legend.
void DrawCpuPanel(Svg& svg, const LinAxis& x, const std::vector<Run>& runs, const CpuSeries& cpu,
                  const std::vector<PhaseStall>& stalls, double y0, double y1, const std::string& x_title) {
  double hi = 0;
  for (const auto& run : cpu) {
    for (const auto& [t, v] : run) {
      if (v) hi = std::max(hi, *v);
    }
  }
  const LinAxis y = MakeLinAxis(0, std::max(hi * 1.1, 0.1), 4, y1, y0);
  svg.Rect(kX0, y0, kX1 - kX0, y1 - y0, "#ffffff");
  for (const PhaseStall& s : stalls) svg.Rect(x.Map(s.from_s), y0, x.Map(s.to_s) - x.Map(s.from_s), y1 - y0, kPhaseStallFill);
  DrawLinePlotPanel(svg, x, y, y0, y1, x_title, "edge (fv) CPU (cores)");
  for (size_t k = 0; k < runs.size(); ++k) {
    std::vector<std::pair<double, double>> line;
    auto flush = [&] {
      if (line.size() >= 2) svg.Polyline(line, SideColor(runs[k].side), 2);
      line.clear();
    };
    for (const auto& [t, v] : cpu[k]) {
      if (!v) {
        flush();
        continue;
      }
      line.emplace_back(x.Map(t), y.Map(std::clamp(*v, y.lo, y.hi)));
    }
    flush();
  }
  double ly = y0 + 8;
  for (char side : {'A', 'B'}) {
    svg.Line(kX1 + 16, ly, kX1 + 40, ly, SideColor(side), 2);
    svg.Text(kX1 + 46, ly + 4, fmt::format("side {}: edge CPU per window", side), 11, "start", kInk);
    ly += 18;
  }
}

void Legend(Svg& svg) {
  double y = kY0 + 8;
  for (char side : {'A', 'B'}) {
    svg.Line(kX1 + 16, y, kX1 + 40, y, SideColor(side), 2);
    svg.Text(kX1 + 46, y + 4, fmt::format("side {} completed per second", side), 11, "start", kInk);
    y += 22;
    svg.Line(kX1 + 16, y, kX1 + 40, y, SideColor(side), 2, kScheduledDash);
    svg.Text(kX1 + 46, y + 4, fmt::format("side {} scheduled per second", side), 11, "start", kInk);
    y += 22;
  }
  svg.Line(kX1 + 28, y - 7, kX1 + 28, y + 7, kPhaseRule, 1, "2 2");
  svg.Text(kX1 + 46, y + 4, "a run's start (side, number above)", 11, "start", kInk);
  y += 22;
  svg.Rect(kX1 + 16, y - 6, 24, 12, kPhaseStallFill);
  svg.Text(kX1 + 46, y + 4, "stall: slots due, none completed", 11, "start", kInk);
}

bool AnyCpu(const CpuSeries& cpu) {
  for (const auto& run : cpu) {
    for (const auto& [t, v] : run) {
      if (v) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<AbRunRef> AbRunOrder(const AbResult& ab) {
  std::vector<AbRunRef> out;
  for (size_t i = 0; i < std::max(ab.a.runs.size(), ab.b.runs.size()); ++i) {
    if (i < ab.a.runs.size()) out.push_back({'A', i});
    if (i < ab.b.runs.size()) out.push_back({'B', i});
  }
  return out;
}

std::string AbTimelinePlotFile(const ScenarioResult& r) {
  if (!r.ab) return "";
  for (const AbSide* s : {&r.ab->a, &r.ab->b}) {
    if (std::any_of(s->runs.begin(), s->runs.end(), HasIntervalSeries)) return "ab_timeline_" + PlotStem(r.id) + ".svg";
  }
  return "";
}

std::string RenderAbTimelinePlot(const ScenarioResult& r) {
  const std::string title = "A/B runs over time: " + r.id;
  Svg svg(kWidth);
  if (AbTimelinePlotFile(r).empty()) {
    return FinishLinePlot(svg, title, "", {"no A/B run of this result carries counts per interval (k6, no A/B "
                                           "part, or written before they were kept)"});
  }
  const AbResult& ab = *r.ab;
  const std::vector<Run> runs = Runs(ab);
  std::vector<const LoadResult*> phases;
  std::vector<std::string> names;
  size_t drawn = 0;
  for (const Run& run : runs) {
    const bool has = HasIntervalSeries(*run.load);
    phases.push_back(has ? run.load : nullptr);
    names.push_back(Label(run));
    drawn += has ? 1 : 0;
  }
  const PhaseStrip lay = LayOutPhases(phases);
  CpuSeries cpu;
  for (size_t k = 0; k < runs.size(); ++k) cpu.push_back(FvCpu(runs[k], lay, k));
  const bool panel = AnyCpu(cpu);
  const std::string x_title = "seconds of load, runs end to end (the pauses between them cut out)";
  const LinAxis x = MakeLinAxis(0, std::max(lay.end_s, 1e-3), 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, PeakIntervalRate(phases) * 1.08, 6, kY1, kY0);
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  const std::vector<PhaseStall> stalls = PhaseStalls(lay, phases);
  DrawPhaseStalls(svg, x, stalls, phases, names, "run", kY0, kY1);
  DrawLinePlotFrame(svg, x, y, panel ? "" : x_title, "per second (requests)");
  for (size_t k = 0; k < runs.size(); ++k) {
    if (phases[k] == nullptr) continue;
    const char* color = SideColor(runs[k].side);
    DrawPhaseStart(svg, x, lay.offset_s[k], names[k], color, kY0, kY1);
    DrawPhaseCounts(svg, x, y, lay, k, *phases[k], RunLine(runs[k], ab.rate_rps, lay.pause_s[k]), {color, ""},
                    {color, kScheduledDash});
  }
  Legend(svg);
  double bottom = kY1;
  if (panel) {
    const double top = bottom + kPanelGap;
    bottom = top + kCpuPanelHeight;
    DrawCpuPanel(svg, x, runs, cpu, stalls, top, bottom, x_title);
  }
  std::vector<std::string> notes;
  for (size_t k = 0; k < runs.size() && k < kMaxListed; ++k) notes.push_back(RunLine(runs[k], ab.rate_rps, lay.pause_s[k]));
  if (runs.size() > kMaxListed) notes.push_back(fmt::format("... and {} more runs", runs.size() - kMaxListed));
  notes.push_back("Rates are each interval's count over the seconds of it the load covered; an interval at a run's "
                  "end covered under half is not drawn. The pause before a run (stopping one side's edge, starting the other's, its warmup) is "
                  "cut from the axis and given in its line.");
  if (panel) {
    notes.push_back("Edge CPU: the phase monitor's fv cores per sample window, at the window's middle (its clock "
                    "may differ from the counts' by the amount phase_monitor.h \"Timeline\" gives).");
  } else {
    notes.push_back("No run's SUT timeline has edge (fv) CPU within its intervals: no CPU panel.");
  }
  const std::string subtitle =
      fmt::format("{}{}{} run{} drawn of {}; {} stalled interval{}", ab.method, ab.method.empty() ? "" : "; ", drawn,
                  drawn == 1 ? "" : "s", runs.size(), stalls.size(), stalls.size() == 1 ? "" : "s");
  return FinishLinePlot(svg, title, Shorten(subtitle, 130), notes, bottom);
}

std::vector<PlotFile> RenderAbTimelinePlots(const std::vector<ScenarioResult>& results) {
  return PlotsOf(results, AbTimelinePlotFile, RenderAbTimelinePlot);
}

}  // namespace fvbench
