#include "support/report/timeline_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "support/core/units_format.h"
#include "support/judge/interval_checks.h"
#include "support/judge/judged_intervals.h"
#include "support/report/line_plot_frame.h"
#include "support/report/svg_writer.h"
#include "support/report/interval_rates.h"
#include "support/report/timeline_exits.h"
#include "support/report/timeline_latency_panel.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

constexpr double kWidth = kLinePlotWidth, kX0 = kLinePlotX0, kX1 = kLinePlotX1, kY0 = kLinePlotY0,
                 kY1 = kLinePlotY1;
// Markers on every point up to this many intervals.
constexpr size_t kMaxMarkers = 60;
constexpr const char* kStallFill = kTimelineStallFill;
constexpr const char* kScheduledDash = "7 4";

uint64_t At(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

// The slots due in interval i as the judge counts them (judged_intervals.h:
// wrk's scheduled count, k6's rate x width); 0 when it is not judged.
double DueIn(const JudgedIntervals& j, size_t i) {
  const auto it = std::lower_bound(j.index.begin(), j.index.end(), i);
  return it != j.index.end() && *it == i ? j.due[static_cast<size_t>(it - j.index.begin())] : 0;
}

// The intervals check's note when stalls were not judged ("" otherwise).
std::string NotJudged(const LoadResult& load) {
  for (const ValidityCheck& c : IntervalChecks(load)) {
    if (c.name == "intervals") return c.detail;
  }
  return "";
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

// ---- the SUT's panels (core/sut_timeline.h), under the counts ----

constexpr double kPanelGap = 34;  // from a panel's bottom to the next one's top: its tick labels
constexpr double kLatencyPanelHeight = 150, kCpuPanelHeight = 120, kSmallPanelHeight = 90;
constexpr size_t kMaxPanelMarkers = 120;  // a marker on every sample up to this many
constexpr const char* kLoadgenDash = "5 3";

// One line of a SUT panel: a value per timeline point, absent = a gap.
struct PanelLine {
  std::string legend;
  const char* color;
  char shape;
  const char* dash;
  std::vector<std::optional<double>> values;
};

struct Panel {
  std::string y_title;
  std::vector<PanelLine> lines;
  double lo = 0, hi = 0;  // the y range before rounding to ticks
};

// Each service's colour and marker: fv, backend, baseline as the report's
// other plots tell them apart; another name in grey.
std::pair<const char*, char> ServiceStyle(const std::string& service) {
  if (service == "fv") return {kVermillion, 'o'};
  if (service == "backend") return {kBlue, 's'};
  if (service == "baseline") return {kGreen, 'd'};
  return {kGrey, 't'};
}

// The timeline's points whose window's middle lies inside the intervals'
// span, with that middle in seconds from the intervals' start.
std::vector<std::pair<const SutTimelinePoint*, double>> PointsInSpan(const SutTimeline& t, const IntervalSeries& s) {
  std::vector<std::pair<const SutTimelinePoint*, double>> out;
  const double span_s = static_cast<double>(s.size()) * s.width_us / 1e6;
  for (const SutTimelinePoint& p : t.points) {
    const double mid_s = ((p.start_epoch_us + p.end_epoch_us) / 2 - s.start_epoch_us) / 1e6;
    if (std::isfinite(mid_s) && mid_s >= 0 && mid_s <= span_s) out.emplace_back(&p, mid_s);
  }
  return out;
}

// The panels of the points: CPU cores per service, RSS MiB per service, the
// busy fractions (the SUT's CPUs and the load generator's); a panel with no
// value at all is left out.
std::vector<Panel> SutPanels(const SutTimeline& t, const std::vector<std::pair<const SutTimelinePoint*, double>>& pts) {
  Panel cpu{"SUT CPU (cores)", {}, 0, 0}, rss{"RSS (MiB)", {}, 0, 0}, busy{"busy (fraction)", {}, 0, 1};
  bool rss_seen = false;
  for (size_t k = 0; k < t.services.size(); ++k) {
    const auto [color, shape] = ServiceStyle(t.services[k]);
    PanelLine c{t.services[k], color, shape, "", {}}, m{t.services[k], color, shape, "", {}};
    for (const auto& [p, mid] : pts) {
      c.values.push_back(k < p->cpu_cores.size() ? p->cpu_cores[k] : std::nullopt);
      m.values.push_back(k < p->rss_mib.size() ? p->rss_mib[k] : std::nullopt);
    }
    cpu.lines.push_back(std::move(c));
    rss.lines.push_back(std::move(m));
  }
  PanelLine sut{"SUT CPUs busy", kGrey, 's', "", {}}, lg{"load generator busy", kBlue, 'o', kLoadgenDash, {}};
  for (const auto& [p, mid] : pts) {
    sut.values.push_back(p->sut_busy);
    lg.values.push_back(p->loadgen_busy);
  }
  busy.lines = {std::move(sut), std::move(lg)};
  for (const PanelLine& l : rss.lines) {
    for (const auto& v : l.values) {
      if (!v || !std::isfinite(*v)) continue;
      rss.lo = rss_seen ? std::min(rss.lo, *v) : *v;
      rss.hi = rss_seen ? std::max(rss.hi, *v) : *v;
      rss_seen = true;
    }
  }
  for (const PanelLine& l : cpu.lines) {
    for (const auto& v : l.values) {
      if (v && std::isfinite(*v)) cpu.hi = std::max(cpu.hi, *v);
    }
  }
  cpu.hi = std::max(cpu.hi * 1.1, 0.1);
  // RSS barely moves in a phase: its own range (a 5 % margin), not from 0.
  const double margin = std::max((rss.hi - rss.lo) * 0.05, std::max(rss.hi * 0.005, 0.5));
  rss.lo = std::max(0.0, rss.lo - margin);
  rss.hi += margin;
  std::vector<Panel> out;
  for (Panel* p : {&cpu, &rss, &busy}) {
    bool any = false;
    for (const PanelLine& l : p->lines) {
      for (const auto& v : l.values) any = any || (v && std::isfinite(*v));
    }
    if (any) out.push_back(std::move(*p));
  }
  return out;
}

// One SUT panel at y0..y1: the stalls shaded, the frame, a line per series
// (broken where a value is absent), a marker per point, its legend.
void DrawPanel(Svg& svg, const Panel& panel, const LinAxis& x, const std::vector<double>& mids, double y0, double y1,
               const std::vector<std::pair<double, double>>& stall_spans, const std::string& x_title) {
  const LinAxis y = MakeLinAxis(panel.lo, panel.hi, 4, y1, y0);
  svg.Rect(kX0, y0, kX1 - kX0, y1 - y0, "#ffffff");
  for (const auto& [t0, t1] : stall_spans) svg.Rect(x.Map(t0), y0, x.Map(t1) - x.Map(t0), y1 - y0, kStallFill);
  DrawLinePlotPanel(svg, x, y, y0, y1, x_title, panel.y_title);
  double ly = y0 + 8;
  for (const PanelLine& l : panel.lines) {
    std::vector<std::pair<double, double>> run, all;
    auto flush = [&] {
      if (run.size() >= 2) svg.Polyline(run, l.color, 2, l.dash);
      run.clear();
    };
    for (size_t i = 0; i < l.values.size() && i < mids.size(); ++i) {
      const std::optional<double>& v = l.values[i];
      if (!v || !std::isfinite(*v)) {
        flush();
        continue;
      }
      run.emplace_back(x.Map(mids[i]), y.Map(std::clamp(*v, y.lo, y.hi)));
      all.push_back(run.back());
    }
    flush();
    if (all.size() <= kMaxPanelMarkers) {
      for (const auto& [px, py] : all) svg.Marker(l.shape, px, py, 2.5, l.color, true);
    }
    svg.Line(kX1 + 16, ly, kX1 + 40, ly, l.color, 2, l.dash);
    svg.Marker(l.shape, kX1 + 28, ly, 3, l.color, true);
    svg.Text(kX1 + 46, ly + 4, Shorten(l.legend, 36), 11, "start", kInk);
    ly += 18;
  }
}

std::string Subtitle(const ScenarioResult& r) {
  const LoadResult& l = r.load;
  return fmt::format("{}: {}, target {} RPS; {} intervals of {} s", r.steps.empty() ? "measured phase" : "reported step",
                     l.engine.empty() ? "engine unknown" : Shorten(l.engine, 16), FormatNumber(l.target_rps),
                     l.intervals.size(), FormatNumber(l.intervals.width_us / 1e6));
}


// Shades the stalled intervals over the counts' frame, a tooltip each with
// the slots due as the judge counts them; their spans in seconds.
std::vector<std::pair<double, double>> DrawStalls(Svg& svg, const LoadResult& l, const std::vector<size_t>& stalls,
                                                  const LinAxis& x) {
  const double width_s = l.intervals.width_us / 1e6;
  const JudgedIntervals judged = JudgeIntervals(l);
  std::vector<std::pair<double, double>> spans;
  for (size_t i : stalls) {
    const double t0 = static_cast<double>(i) * width_s, t1 = static_cast<double>(i + 1) * width_s;
    spans.emplace_back(t0, t1);
    svg.Group(fmt::format("stall {}-{} s: 0 of {} {} completed", FormatNumber(t0), FormatNumber(t1),
                          FormatNumber(DueIn(judged, i)), l.intervals.sends_counted ? "scheduled" : "due"));
    svg.Rect(x.Map(t0), kY0, x.Map(t1) - x.Map(t0), kY1 - kY0, kStallFill);
    svg.EndGroup();
  }
  return spans;
}

// The count lines in the legend's order; an engine that does not count its
// sends (k6) has no scheduled or late line.
std::vector<Line> CountLines(const IntervalSeries& s) {
  std::vector<Line> lines;
  if (s.sends_counted) {
    lines.push_back({&s.scheduled, kBlue, 'o', kScheduledDash,
                     fmt::format("scheduled: {} slots fell due", SeriesTotal(s.scheduled))});
  }
  lines.push_back(
      {&s.completed, kGreen, 's', "", fmt::format("completed: {} responses (any status)", SeriesTotal(s.completed))});
  if (s.sends_counted) {
    lines.push_back(
        {&s.late_10ms, kVermillion, 't', "", fmt::format("late: {} sent > 10 ms behind", SeriesTotal(s.late_10ms))});
  }
  return lines;
}

// Each line as runs of drawn intervals (an interval the load covered under
// half of, interval_rates.h, breaks it), completed first so that scheduled,
// dashed, stays visible where they coincide; markers up to kMaxMarkers.
void DrawCountLines(Svg& svg, const LoadResult& load, const std::vector<Line>& lines, const LinAxis& x,
                    const LinAxis& y) {
  const IntervalSeries& s = load.intervals;
  const double width_s = s.width_us / 1e6;
  const size_t n = s.size();
  std::vector<const Line*> drawn;
  for (const Line& l : lines) {
    if (l.counts == &s.completed) drawn.insert(drawn.begin(), &l);
    else drawn.push_back(&l);
  }
  for (const Line* line : drawn) {
    const Line& l = *line;
    std::vector<std::pair<double, double>> run, all;
    for (size_t i = 0; i <= n; ++i) {
      const std::optional<double> rate = i < n ? DrawnRate(load, *l.counts, i) : std::nullopt;
      if (!rate) {
        svg.Polyline(run, l.color, 2, l.dash);
        run.clear();
        continue;
      }
      run.emplace_back(x.Map((static_cast<double>(i) + 0.5) * width_s), y.Map(*rate));
      all.push_back(run.back());
    }
    if (n <= kMaxMarkers) {
      for (const auto& [px, py] : all) svg.Marker(l.shape, px, py, 3, l.color, true);
    }
  }
}

// The first note: why stalls were not judged, none, or how many are shaded.
std::string StallsNote(const LoadResult& l, size_t stalls) {
  if (std::string nj = NotJudged(l); !nj.empty()) return nj;
  if (stalls == 0) return "no stall: every judged interval completed at least one response";
  return fmt::format("{} stalled interval{} shaded: slots fell due and no response completed "
                     "(validity check interval_stalls)",
                     stalls, stalls == 1 ? "" : "s");
}

// How the rates were taken, naming the intervals left out.
std::string RatesNote(const LoadResult& l) {
  std::string note =
      "Rates are each interval's count divided by the seconds of it the load covered (a partial interval at the "
      "phase's ends by its part).";
  const std::vector<size_t> undrawn = UndrawnIntervals(l);
  if (undrawn.empty()) return note;
  const double w = l.intervals.width_us / 1e6;
  std::string which;
  for (size_t k = 0; k < undrawn.size() && k < 4; ++k) {
    const size_t i = undrawn[k];
    const std::string counts =
        l.intervals.sends_counted  // k6 counts no slot
            ? fmt::format("{} scheduled, {} completed", At(l.intervals.scheduled, i), At(l.intervals.completed, i))
            : fmt::format("{} completed", At(l.intervals.completed, i));
    which += fmt::format("{}{}-{} s ({})", k == 0 ? "" : ", ", FormatNumber(static_cast<double>(i) * w),
                         FormatNumber(static_cast<double>(i + 1) * w), counts);
  }
  if (undrawn.size() > 4) which += fmt::format(" and {} more", undrawn.size() - 4);
  return note + " Not drawn, the load covering under half of them: " + which + ".";
}

}  // namespace

std::string TimelinePlotFile(const ScenarioResult& r) {
  if (r.load.intervals.empty() || r.load.intervals.size() == 0) return "";
  return "timeline_" + PlotStem(r.id) + ".svg";
}

std::string RenderTimelinePlot(const ScenarioResult& r) {
  const std::string title = "Over time: " + r.id;
  Svg svg(kWidth);
  const IntervalSeries& s = r.load.intervals;
  if (TimelinePlotFile(r).empty()) {
    return FinishLinePlot(svg, title, "", {"no counts per interval in this result (k6, or written before they were kept)"});
  }
  const double width_s = s.width_us / 1e6;
  const size_t n = s.size();
  double top = 1;
  for (const auto* v : {&s.scheduled, &s.completed, &s.late_10ms}) {
    for (size_t i = 0; i < n; ++i) top = std::max(top, DrawnRate(r.load, *v, i).value_or(0));
  }
  const LinAxis x = MakeLinAxis(0, static_cast<double>(n) * width_s, 8, kX0, kX1);
  const LinAxis y = MakeLinAxis(0, top * 1.08, 6, kY1, kY0);
  svg.Rect(kX0, kY0, kX1 - kX0, kY1 - kY0, "#ffffff");
  const auto sut_points = PointsInSpan(r.sut_timeline, s);
  const std::vector<Panel> panels = SutPanels(r.sut_timeline, sut_points);
  const std::string x_title = "seconds from the phase's start";
  const bool latency_panel = HasLatencyPanel(s);
  // Stalls first, under the grid and the lines.
  const std::vector<size_t> stalls = StalledIntervals(r.load);
  const std::vector<std::pair<double, double>> stall_spans = DrawStalls(svg, r.load, stalls, x);
  DrawLinePlotFrame(svg, x, y, panels.empty() && !latency_panel ? x_title : "", "per second (requests)");
  const std::vector<Line> lines = CountLines(s);
  DrawCountLines(svg, r.load, lines, x, y);
  Legend(svg, lines, !stalls.empty());
  // The latency per interval (k6), then the SUT's panels, on the same x axis.
  double bottom = kY1;
  std::string latency_note;
  if (latency_panel) {
    const double top = bottom + kPanelGap;
    bottom = top + kLatencyPanelHeight;
    latency_note = DrawLatencyPanel(svg, s, x, top, bottom, stall_spans, panels.empty() ? x_title : "");
  }
  // Each SUT window's figure at its middle.
  std::vector<double> mids;
  for (const auto& [p, mid] : sut_points) mids.push_back(mid);
  for (size_t k = 0; k < panels.size(); ++k) {
    const double top = bottom + kPanelGap;
    bottom = top + (k == 0 ? kCpuPanelHeight : kSmallPanelHeight);
    svg.Comment("SUT panel: " + panels[k].y_title);
    DrawPanel(svg, panels[k], x, mids, top, bottom, stall_spans, k + 1 == panels.size() ? x_title : "");
  }
  const std::string exits_note = DrawProcessExits(svg, r.sut_timeline, s, x, kY0, bottom);
  std::vector<std::string> notes;
  notes.push_back(StallsNote(r.load, stalls.size()));
  notes.push_back(RatesNote(r.load));
  if (!latency_note.empty()) notes.push_back(latency_note);
  if (!panels.empty()) {
    notes.push_back(fmt::format(
        "Under the counts, the SUT host sampled {} times ({} windows in this span): each service's CPU over a window "
        "and its RSS at the window's end, at the window's middle; a gap is a sample that failed.",
        r.sut_timeline.points.size() + 1, sut_points.size()));
  } else if (!r.sut_timeline.empty()) {
    notes.push_back("The SUT's samples do not fall within these intervals (another run's), so they are not drawn.");
  }
  if (!exits_note.empty()) notes.push_back(exits_note);
  return FinishLinePlot(svg, title, Subtitle(r), notes, bottom);
}

std::vector<PlotFile> RenderTimelinePlots(const std::vector<ScenarioResult>& results) {
  return PlotsOf(results, TimelinePlotFile, RenderTimelinePlot);
}

}  // namespace fvbench
