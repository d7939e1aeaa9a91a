#include "support/report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <iterator>
#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include "support/core/metric_names.h"
#include "support/core/path_text.h"
#include "support/core/units_format.h"
#include "support/judge/validity.h"
#include "support/report/limits_plot.h"
#include "support/report/log_axis.h"
#include "support/report/svg_writer.h"
#include "support/report/ab_timeline_plot.h"
#include "support/report/steps_timeline_plot.h"
#include "support/report/timeline_plot.h"

namespace fvbench {
namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatPercentLimit;
using detail::FormatRps;
using namespace svg;  // NOLINT: the shared writer (svg_writer.h)

bool AnyCheckFailed(const ScenarioResult& r) {
  for (const auto& c : r.checks) {
    if (!c.passed) return true;
  }
  for (const auto& c : r.ratio_checks) {
    if (!c.passed) return true;
  }
  return false;
}

std::string EngineText(const RunMeta& meta, const std::vector<ScenarioResult>& results) {
  std::string engine = !meta.engine_version.empty() ? meta.engine_version : meta.engine;
  if (engine.empty()) {
    for (const auto& r : results) {
      if (!r.load.engine_version.empty() || !r.load.engine.empty()) {
        engine = !r.load.engine_version.empty() ? r.load.engine_version : r.load.engine;
        break;
      }
    }
  }
  // wrk -v prints "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer".
  if (auto pos = engine.find(" Copyright"); pos != std::string::npos) engine.erase(pos);
  return engine.empty() ? "engine unknown" : Shorten(engine, 48);
}

// Status of a scenario for a legend: what a reader must know before trusting its line.
struct Status {
  std::string text;
  bool bad = false;
};

Status ScenarioStatus(const ScenarioResult* r) {
  if (r == nullptr) return {"not run", true};
  if (!r->measured) return {"FAILED before measuring", true};
  std::vector<std::string> parts;
  bool bad = false;
  if (!ValidityPassed(r->validity)) {
    parts.push_back("INVALID");
    bad = true;
  }
  if (AnyCheckFailed(*r)) {
    parts.push_back("threshold FAILED");
    bad = true;
  }
  if (!r->error.empty()) {
    parts.push_back("error, see below");
    bad = true;
  }
  if (!r->load.kept_up) {
    parts.push_back("engine fell behind");
    bad = true;
  }
  if (parts.empty()) parts.push_back("measured, checks passed");
  std::string t;
  for (const auto& p : parts) t += (t.empty() ? "" : ", ") + p;
  return {t, bad};
}

// ----------------------------------------------------------------- latency

struct LatencyPath {
  const char* id;
  const char* label;
  const char* color;
  char shape;
};
constexpr LatencyPath kPaths[] = {{"latency.raw_nginx", "Raw nginx", kBlue, 'o'},
                                  {"latency.decision_service", "Decision Svc", kVermillion, 's'},
                                  {"latency.reverse_proxy", "Reverse Proxy", kGreen, 't'}};

// A latency metric (metric_names.h kLatencyMetrics) on the plot's x scale.
struct PlotMetric {
  const char* label;
  const char* key;  // Spread / reference metric
  double LatencyUs::*field;
  double x;         // position on the x scale (nines; max in its own column)
  bool percentile;
};
// Nines: log10(1 / (1 - q)). p50 -> 0.301, p90 -> 1, p99 -> 2, p99.9 -> 3; max at 3.9.
constexpr double kMetricX[] = {0.30103, 1.0, 2.0, 3.0, 3.9};
static_assert(std::size(kMetricX) == std::size(kLatencyMetrics));
const std::vector<PlotMetric>& PlotMetrics() {
  static const std::vector<PlotMetric> metrics = [] {
    std::vector<PlotMetric> v;
    for (size_t i = 0; i < std::size(kLatencyMetrics); ++i) {
      const LatencyMetric& m = kLatencyMetrics[i];
      v.push_back({m.label, m.name, m.field, kMetricX[i], i < kPercentileCount});
    }
    return v;
  }();
  return metrics;
}
constexpr double kNinesLo = 0.0, kNinesHi = 4.3, kMaxSeparator = 3.45;
constexpr double kLatWidth = 820, kLatX0 = 84, kLatX1 = 560, kLatY0 = 78, kLatY1 = 408;

// Every value the y axis must cover: measured values, spreads, reference
// values. `any_spread` / `runs`: whether a REPEAT spread is drawn, of how many runs.
std::vector<double> LatencyValues(const std::vector<ScenarioResult>& results, const Reference* reference,
                                  bool& any_spread, int& runs) {
  std::vector<double> values;
  for (const auto& p : kPaths) {
    const ScenarioResult* r = FindResult(results, p.id);
    if (r != nullptr && r->measured) {
      for (const auto& m : PlotMetrics()) {
        values.push_back(r->load.latency_us.*m.field);
        if (auto it = r->spread.find(m.key); it != r->spread.end()) {
          values.push_back(it->second.min);
          values.push_back(it->second.max);
          any_spread = true;
          runs = std::max(runs, static_cast<int>(r->repeats.size()));
        }
      }
    }
    if (reference != nullptr) {
      for (const auto& m : PlotMetrics()) {
        if (auto v = reference->value(p.id, m.key)) values.push_back(*v);
      }
    }
  }
  return values;
}

// The title names the target rate: the run's, else the first measured latency phase's.
std::string LatencyTitle(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  double rate = meta.latency_rps;
  if (!(rate > 0)) {
    for (const auto& r : results) {
      if (r.id.rfind("latency.", 0) == 0 && r.measured && r.load.target_rps > 0) {
        rate = r.load.target_rps;
        break;
      }
    }
  }
  return rate > 0 ? fmt::format("Latency by percentile at {} RPS (constant arrival rate)", FormatRps(rate))
                  : std::string("Latency by percentile (target rate unknown)");
}

std::string LatencySubtitle(const std::vector<ScenarioResult>& results, const RunMeta& meta, bool any_spread,
                            int runs) {
  std::string subtitle = "engine: " + EngineText(meta, results);
  if (meta.latency_dur_s > 0) subtitle += fmt::format("; {} s measured", FormatNumber(meta.latency_dur_s));
  if (meta.warmup_s > 0) subtitle += fmt::format(" after {} s warmup", FormatNumber(meta.warmup_s));
  if (any_spread) {
    subtitle += runs > 0 ? fmt::format("; median of {} runs, whiskers min–max", runs)
                         : std::string("; median of the runs, whiskers min–max");
  }
  return subtitle;
}

// Frame, grid, the metric columns and the axis titles.
void DrawLatencyFrame(Svg& body, const LinAxis& x, const LogAxis& y) {
  body.Rect(kLatX0, kLatY0, kLatX1 - kLatX0, kLatY1 - kLatY0, "#ffffff", "#999999", 1);
  DrawLogGrid(body, y, kLatX0, kLatX1);
  for (const auto& m : PlotMetrics()) {
    double px = x.Map(m.x);
    body.Line(px, kLatY0, px, kLatY1, kGrid, 1);
    body.Line(px, kLatY1, px, kLatY1 + 5, kInk, 1);
    body.Text(px, kLatY1 + 18, m.label, 12, "middle");
  }
  double sep = x.Map(kMaxSeparator);
  body.Line(sep, kLatY0, sep, kLatY1, "#aaaaaa", 1, "4 3");
  body.Text((kLatX0 + sep) / 2, kLatY1 + 36, "percentile (spaced by nines: p90, p99, p99.9 one step apart)", 11,
            "middle", kMuted);
  body.Text((sep + kLatX1) / 2, kLatY1 + 36, "not a percentile", 11, "middle", kMuted);
  body.Text(22, (kLatY0 + kLatY1) / 2, "latency (log scale)", 12, "middle", kInk, false, true);
}

// The reference's percentiles of one path: a dashed line of its colour.
void DrawReferenceCurve(Svg& body, const LatencyPath& p, const Reference& reference, const LinAxis& x,
                        const LogAxis& y, std::vector<std::string>& notes) {
  std::vector<std::pair<double, double>> ref_pts;
  for (const auto& m : PlotMetrics()) {
    if (!m.percentile) continue;
    auto v = reference.value(p.id, m.key);
    if (v && y.Contains(*v)) {
      ref_pts.emplace_back(x.Map(m.x), y.Map(*v));
    } else if (v) {
      notes.push_back(fmt::format("not drawn on the log scale: {} reference {} = {}", p.label, m.label, Duration(*v)));
    }
  }
  body.Polyline(ref_pts, p.color, 1.6, "7 5");
}

// One measured path: whiskers of the REPEAT spread, the percentile curve
// (broken where a value is off the scale), a marker per metric.
void DrawMeasuredCurve(Svg& body, const LatencyPath& p, const ScenarioResult& r, double dx, const LinAxis& x,
                       const LogAxis& y, std::vector<std::string>& notes) {
  std::vector<std::pair<double, double>> pts;
  for (const auto& m : PlotMetrics()) {
    double v = r.load.latency_us.*m.field;
    double px = x.Map(m.x) + dx;
    if (auto it = r.spread.find(m.key); it != r.spread.end()) {
      const Spread& s = it->second;
      if (y.Contains(s.min) && y.Contains(s.max)) {
        body.Line(px, y.Map(s.min), px, y.Map(s.max), p.color, 1.4);
        body.Line(px - 4, y.Map(s.min), px + 4, y.Map(s.min), p.color, 1.4);
        body.Line(px - 4, y.Map(s.max), px + 4, y.Map(s.max), p.color, 1.4);
      } else {
        notes.push_back(fmt::format("spread not drawn on the log scale: {} {} min {} max {}", p.label, m.label,
                                    Duration(s.min), Duration(s.max)));
      }
    }
    if (!y.Contains(v)) {
      notes.push_back(fmt::format("not drawn on the log scale: {} {} = {}", p.label, m.label, Duration(v)));
      if (m.percentile) {
        body.Polyline(pts, p.color, 2.2);
        pts.clear();
      }
      continue;
    }
    if (m.percentile) pts.emplace_back(px, y.Map(v));
  }
  body.Polyline(pts, p.color, 2.2);
  for (const auto& m : PlotMetrics()) {
    double v = r.load.latency_us.*m.field;
    if (y.Contains(v)) body.Marker(p.shape, x.Map(m.x) + dx, y.Map(v), 4.5, p.color, true);
  }
}

// The reference's source under its legend entry, on up to two lines.
void DrawReferenceSource(Svg& body, const Reference& reference, double lx, double ly) {
  std::string src = reference.describe();
  for (int line = 0; line < 2 && !src.empty(); ++line) {
    size_t cut = src.size();
    if (detail::DisplayWidth(src) > 32) {
      cut = src.rfind(' ', 32);
      if (cut == std::string::npos || cut == 0 || line == 1) cut = src.size();
    }
    body.Text(lx + 34, ly + 19 + 13 * line, Shorten(src.substr(0, cut), 32), 10, "start", kMuted);
    src = cut < src.size() ? src.substr(cut + 1) : "";
  }
}

// Legend, right of the plot: each path with its state, the reference, the spread.
void DrawLatencyLegend(Svg& body, const std::vector<ScenarioResult>& results, const Reference* reference,
                       bool any_spread) {
  double lx = kLatX1 + 24, ly = kLatY0 + 6;
  for (const auto& p : kPaths) {
    const ScenarioResult* r = FindResult(results, p.id);
    Status st = ScenarioStatus(r);
    bool drawn = r != nullptr && r->measured;
    body.Line(lx, ly, lx + 26, ly, drawn ? p.color : "#bbbbbb", 2.2);
    body.Marker(p.shape, lx + 13, ly, 4.5, p.color, drawn);
    body.Text(lx + 34, ly + 4, p.label, 13, "start", kInk, true);
    body.Text(lx + 34, ly + 20, st.text, 11, "start", st.bad ? kFailInk : kMuted, st.bad);
    if (r != nullptr && r->measured && !r->load.engine.empty() && r->load.target_rps > 0) {
      body.Text(lx + 34, ly + 35,
                fmt::format("{} RPS target, {} achieved", FormatRps(r->load.target_rps), FormatRps(r->load.achieved_rps)),
                10, "start", kMuted);
    }
    if (reference != nullptr && !reference->value(p.id, kMetricP50) && !reference->value(p.id, kMetricP99)) {
      body.Text(lx + 34, ly + 49, "no reference values", 10, "start", kMuted);
    }
    ly += 64;
  }
  if (reference != nullptr) {
    body.Line(lx, ly, lx + 26, ly, kGrey, 1.6, "7 5");
    body.Text(lx + 34, ly + 4, "reference (same colour)", 11, "start", kInk);
    DrawReferenceSource(body, *reference, lx, ly);
    ly += 50;
  }
  body.Line(lx + 13, ly - 6, lx + 13, ly + 6, kGrey, 1.4);
  body.Line(lx + 9, ly - 6, lx + 17, ly - 6, kGrey, 1.4);
  body.Line(lx + 9, ly + 6, lx + 17, ly + 6, kGrey, 1.4);
  body.Text(lx + 34, ly + 4, any_spread ? "REPEAT: min–max of the runs" : "REPEAT=1: no spread", 11, "start", kInk);
}

// Why a path is missing or not to be trusted.
void LatencyNotes(const std::vector<ScenarioResult>& results, std::vector<std::string>& notes) {
  for (const auto& p : kPaths) {
    const ScenarioResult* r = FindResult(results, p.id);
    if (r == nullptr) {
      notes.push_back(fmt::format("{} ({}): not run", p.label, p.id));
    } else if (!r->measured) {
      notes.push_back(fmt::format("{}: FAILED before measuring: {}", p.label, r->error.empty() ? "no reason recorded" : r->error));
    } else if (!r->error.empty()) {
      notes.push_back(fmt::format("{}: error after measuring: {}", p.label, r->error));
    } else if (!ValidityPassed(r->validity)) {
      notes.push_back(fmt::format("{}: INVALID: {}", p.label, FailedValidity(r->validity)));
    }
  }
}

// The notes under a plot from `y` down, each wrapped to at most 3 lines;
// returns the y below the last.
double DrawNotes(Svg& svg, const std::vector<std::string>& notes, double y) {
  for (const auto& n : notes) {
    for (const std::string& line : Wrap(n, 124, 3)) {
      svg.Text(16, y, line, 11, "start", kMuted);
      y += 15;
    }
  }
  return y;
}

}  // namespace

std::string RenderLatencyPlot(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                              const Reference* reference) {
  bool any_spread = false;
  int runs = 0;
  LogAxis y = MakeLogAxis(LatencyValues(results, reference, any_spread, runs), kLatY1, kLatY0);
  LinAxis x;
  x.lo = kNinesLo;
  x.hi = kNinesHi;
  x.p0 = kLatX0;
  x.p1 = kLatX1;
  const std::string title = LatencyTitle(results, meta);
  // The plot body into its own Svg (height known after the notes).
  Svg body(kLatWidth);
  body.Text(16, 26, title, 16, "start", kInk, true);
  body.Text(16, 46, LatencySubtitle(results, meta, any_spread, runs), 12, "start", kMuted);
  DrawLatencyFrame(body, x, y);
  // Notes under the plot: failures and values a log axis cannot show.
  std::vector<std::string> notes;
  for (size_t i = 0; i < std::size(kPaths); ++i) {
    const LatencyPath& p = kPaths[i];
    const ScenarioResult* r = FindResult(results, p.id);
    double dx = (static_cast<double>(i) - 1) * 5;  // side by side, so equal values do not hide each other
    body.Comment(p.id);
    if (reference != nullptr) DrawReferenceCurve(body, p, *reference, x, y, notes);
    if (r != nullptr && r->measured) DrawMeasuredCurve(body, p, *r, dx, x, y, notes);
  }
  DrawLatencyLegend(body, results, reference, any_spread);
  LatencyNotes(results, notes);
  return body.Finish(title, DrawNotes(body, notes, kLatY1 + 62) + 4);
}

namespace {

struct ThroughputPolicy {
  const char* id;
  const char* file;   // plot file name
  const char* label;  // as in the summary table
};
constexpr ThroughputPolicy kPolicies[] = {
    {"throughput.simple", "throughput_simple.svg", "Simple rate limit (1 rule)"},
    {"throughput.complex", "throughput_complex.svg", "Complex policy"},
    {"throughput.llm", "throughput_llm.svg", "LLM token-budget policy"}};

const ThroughputPolicy* FindPolicy(const std::string& id) {
  for (const auto& p : kPolicies) {
    if (id == p.id) return &p;
  }
  return nullptr;
}

char RoleShape(const std::string& role) {
  if (role == "bisect") return 'd';
  if (role == "confirm") return 's';
  return 'o';  // bracket, or the seed's fixed steps
}

// A label with a white halo so lines do not run through it; kept inside
// [left, right] by switching its anchor.
void Label(Svg& svg, double x, double y, const std::string& text, double size, const char* color,
                double left, double right, bool bold) {
  double w = TextWidth(text, size);
  const char* anchor = "start";
  double tx = x + 5;
  if (tx + w > right) {
    anchor = "end";
    tx = x - 5;
  }
  if (std::string_view(anchor) == "end" && tx - w < left) {
    anchor = "start";
    tx = left + 2;
  }
  svg.Text(tx, y, text, size, anchor, color, bold, false, true);
}

// The throughput plot's geometry: three panels over one x axis.
constexpr double kTpWidth = 820, kX0 = 84, kX1 = 580;
constexpr double kP1Top = 100, kP1Bot = 312;  // p99
constexpr double kP2Top = 334, kP2Bot = 424;  // error rate
constexpr double kP3Top = 446, kP3Bot = 536;  // achieved / target

// What one throughput plot draws, worked out before drawing.
struct ThroughputPlot {
  std::string scenario_id;
  std::string label;                 // the policy's label, as in the summary table
  const ScenarioResult* r = nullptr;  // null: not run
  std::vector<StepResult> steps;
  StepPassRule rule;  // the rule the search used (its defaults for results that carry none)
  LinAxis x, y2, y3;
  LogAxis y1;
  double limit_pct = 0;  // rule.min_achieved_fraction in %
  std::string result_text;
  bool result_bad = false;
  std::vector<std::string> notes;
};

// Axes covering every step, the reported value and the pass rule's limits.
void ThroughputAxes(ThroughputPlot& p, const RunMeta& meta) {
  double xmax = 0;
  for (const auto& s : p.steps) {
    if (std::isfinite(s.target_rps)) xmax = std::max(xmax, s.target_rps);
  }
  if (p.r != nullptr && p.r->measured && std::isfinite(p.r->throughput_rps)) xmax = std::max(xmax, p.r->throughput_rps);
  if (!(xmax > 0)) xmax = meta.search_max > 0 ? meta.search_max : 1000;
  p.x = MakeLinAxis(0, xmax * 1.04, 8, kX0, kX1);
  std::vector<double> p99s;
  double max_err = 0, min_ratio = 100, max_ratio = 100;
  for (const auto& s : p.steps) {
    p99s.push_back(s.load.latency_us.p99);
    if (std::isfinite(s.load.error_rate)) max_err = std::max(max_err, s.load.error_rate * 100);
    if (s.target_rps > 0 && std::isfinite(s.load.achieved_rps)) {
      double ratio = s.load.achieved_rps / s.target_rps * 100;
      if (std::isfinite(ratio)) {
        min_ratio = std::min(min_ratio, ratio);
        max_ratio = std::max(max_ratio, ratio);
      }
    }
  }
  p99s.push_back(p.rule.slo_p99_us);
  p.y1 = MakeLogAxis(p99s, kP1Bot, kP1Top);
  p.y2 = MakeLinAxis(0, std::max(max_err * 1.1, p.rule.max_error_rate * 100 * 2), 4, kP2Bot, kP2Top);
  p.limit_pct = p.rule.min_achieved_fraction * 100;
  p.y3 = MakeLinAxis(std::min(min_ratio, p.limit_pct) - 2, std::max(max_ratio, 100.0) + 2, 4, kP3Bot, kP3Top);
}

// The result, in the words of the summary table.
void ThroughputResultText(ThroughputPlot& p) {
  const ScenarioResult* r = p.r;
  if (r == nullptr) {
    p.result_text = "not run";
    p.result_bad = true;
  } else if (!r->measured) {
    p.result_text = "FAILED: no number";
    p.result_bad = true;
  } else {
    if (r->ceiling_reached) {
      p.result_text = fmt::format("at least {} RPS (ceiling reached)", FormatRps(r->throughput_rps));
    } else if (r->search == "bisect" && !r->search_resolution) {
      p.result_text = fmt::format("at least {} RPS (no step failed)", FormatRps(r->throughput_rps));
    } else {
      p.result_text = fmt::format("{} RPS", FormatRps(r->throughput_rps));
    }
    if (r->search == "bisect" && !r->confirmed) {
      p.result_text += " UNCONFIRMED";
      p.result_bad = true;
    }
  }
}

// Title, subtitle (engine, search, cap, steps, policy) and the result line.
void DrawThroughputHeader(Svg& svg, ThroughputPlot& p, const std::string& title, const RunMeta& meta,
                          const std::vector<ScenarioResult>& results) {
  const ScenarioResult* r = p.r;
  std::string subtitle = "engine: " + EngineText(meta, results);
  if (r != nullptr && !r->search.empty()) subtitle += fmt::format("; {} search", r->search);
  if (meta.search_max > 0) subtitle += fmt::format(", cap {} RPS", FormatRps(meta.search_max));
  if (meta.step_dur_s > 0) subtitle += fmt::format(", {} s steps", FormatNumber(meta.step_dur_s));
  if (r != nullptr && !r->policy.empty()) subtitle += "; policy " + Shorten(detail::Basename(r->policy), 40);
  svg.Text(16, 26, title, 16, "start", kInk, true);
  svg.Text(16, 46, subtitle, 12, "start", kMuted);
  std::string result_line = "result: " + p.result_text;
  if (r != nullptr && r->measured) {
    if (r->search_resolution) result_line += fmt::format(", resolution {:.1f} %", *r->search_resolution * 100);
    if (!r->search.empty()) result_line += fmt::format(", {} s of load", FormatNumber(r->search_load_s));
    if (auto it = r->spread.find(kMetricRps); it != r->spread.end()) {
      result_line += fmt::format(", median of {} confirmation runs ({}–{})", r->repeats.size(),
                                 FormatRps(it->second.min), FormatRps(it->second.max));
    }
    Status st = ScenarioStatus(r);
    if (st.bad) {
      result_line += "; " + st.text;
      p.result_bad = true;
    }
  }
  svg.Text(16, 66, Shorten(result_line, 120), 12, "start", p.result_bad ? kFailInk : kInk, true);
}

// Frames, grids, tick labels and axis titles of the three panels.
void DrawThroughputFrames(Svg& svg, const ThroughputPlot& p) {
  for (auto [top, bot] : {std::pair{kP1Top, kP1Bot}, std::pair{kP2Top, kP2Bot}, std::pair{kP3Top, kP3Bot}}) {
    svg.Rect(kX0, top, kX1 - kX0, bot - top, "#ffffff", "#999999", 1);
    for (double t : p.x.Ticks()) svg.Line(p.x.Map(t), top, p.x.Map(t), bot, kGrid, 1);
  }
  DrawLogGrid(svg, p.y1, kX0, kX1);
  for (const LinAxis* y : {&p.y2, &p.y3}) {
    for (double t : y->Ticks()) {
      svg.Line(kX0, y->Map(t), kX1, y->Map(t), kGrid, 1);
      svg.Text(kX0 - 6, y->Map(t) + 4, TickLabel(t, y->step) + " %", 11, "end");
    }
  }
  for (double t : p.x.Ticks()) {
    svg.Line(p.x.Map(t), kP3Bot, p.x.Map(t), kP3Bot + 5, kInk, 1);
    svg.Text(p.x.Map(t), kP3Bot + 18, TickLabel(t, p.x.step), 11, "middle");
  }
  svg.Text((kX0 + kX1) / 2, kP3Bot + 36, "target rate of the step (RPS)", 12, "middle");
  svg.Text(18, (kP1Top + kP1Bot) / 2, "p99 latency (log scale)", 12, "middle", kInk, false, true);
  svg.Text(18, (kP2Top + kP2Bot) / 2, "error rate", 12, "middle", kInk, false, true);
  svg.Text(18, (kP3Top + kP3Bot) / 2, "achieved / target", 12, "middle", kInk, false, true);
}

// Limits of the pass rule: dashed horizontal lines, labelled at the left.
void DrawPassLimits(Svg& svg, const ThroughputPlot& p) {
  if (p.y1.Contains(p.rule.slo_p99_us)) {
    double yy = p.y1.Map(p.rule.slo_p99_us);
    svg.Line(kX0, yy, kX1, yy, kFailInk, 1.4, "8 4");
    // Above the line, or below it when the line runs close to the frame's top.
    Label(svg, kX0, yy - kP1Top < 16 ? yy + 14 : yy - 4, "SLO: p99 < " + Duration(p.rule.slo_p99_us), 11, kFailInk,
          kX0, kX1, false);
  }
  {
    double yy = p.y2.Map(p.rule.max_error_rate * 100);
    svg.Line(kX0, yy, kX1, yy, kFailInk, 1.4, "8 4");
    Label(svg, kX0, yy - 4, "limit: errors < " + FormatPercentLimit(p.rule.max_error_rate), 11, kFailInk, kX0, kX1,
          false);
  }
  {
    double yy = p.y3.Map(p.limit_pct);
    svg.Line(kX0, yy, kX1, yy, kFailInk, 1.4, "8 4");
    Label(svg, kX0, yy + 14, "limit: achieved ≥ " + FormatNumber(p.limit_pct) + " % of target", 11, kFailInk, kX0,
          kX1, false);
  }
}

// The reference: a dotted vertical line when it falls on the scale, else a
// note. Returns whether it was drawn.
bool DrawThroughputReference(Svg& svg, ThroughputPlot& p, const Reference* reference) {
  if (reference == nullptr) return false;
  auto rv = reference->value(p.scenario_id, kMetricRps);
  if (!rv) return false;
  std::string text = fmt::format("ref {}{} RPS", reference->lower_bound(p.scenario_id) ? "≥ " : "", FormatRps(*rv));
  if (std::isfinite(*rv) && *rv >= p.x.lo && *rv <= p.x.hi) {
    double xx = p.x.Map(*rv);
    svg.Line(xx, kP1Top, xx, kP3Bot, kGrey, 1.4, "2 3");
    // In the gap between the first two panels: never over a marker.
    Label(svg, xx, kP1Bot + 15, text, 11, kGrey, kX0, kX1, false);
    return true;
  }
  p.notes.push_back(fmt::format("reference ({}): {}, outside this plot's rate axis (0–{} RPS)",
                                Shorten(reference->describe(), 40), text.substr(4), FormatRps(p.x.hi)));
  return false;
}

// The reported result: a solid vertical line across the panels, labelled
// above the frame (never over a marker).
void DrawReportedResult(Svg& svg, const ThroughputPlot& p) {
  const ScenarioResult* r = p.r;
  if (r == nullptr || !r->measured || !std::isfinite(r->throughput_rps) || r->throughput_rps < p.x.lo ||
      r->throughput_rps > p.x.hi) {
    return;
  }
  double xx = p.x.Map(r->throughput_rps);
  svg.Line(xx, kP1Top - 14, xx, kP3Bot, kInk, 2);
  Label(svg, xx, kP1Top - 4, p.result_text + (r->ceiling_reached ? "" : " measured"), 12,
        p.result_bad ? kFailInk : kInk, kX0, kX1, true);
}

// Steps: filled = passed, hollow = failed; shape = role. A value off its
// axis is named in a note.
void DrawSteps(Svg& svg, ThroughputPlot& p) {
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const StepResult& s = p.steps[i];
    if (!std::isfinite(s.target_rps) || s.target_rps < p.x.lo || s.target_rps > p.x.hi) {
      p.notes.push_back(fmt::format("step {} not drawn: target {} RPS", i + 1, FormatNumber(s.target_rps)));
      continue;
    }
    const char* color = s.passed ? kBlue : kVermillion;
    char shape = RoleShape(s.role);
    double r0 = s.role == "confirm" ? 5.5 : 4.5;
    double xx = p.x.Map(s.target_rps);
    svg.Comment(fmt::format("step {} {} {} RPS {}", i + 1, s.role.empty() ? "step" : s.role, FormatRps(s.target_rps),
                            s.passed ? "passed" : "failed"));
    double p99 = s.load.latency_us.p99;
    if (p.y1.Contains(p99)) {
      svg.Marker(shape, xx, p.y1.Map(p99), r0, color, s.passed);
    } else {
      p.notes.push_back(fmt::format("step {} ({} RPS): p99 = {} not drawn on the log scale", i + 1,
                                    FormatRps(s.target_rps), Duration(p99)));
    }
    double err = s.load.error_rate * 100;
    if (std::isfinite(err) && err >= p.y2.lo && err <= p.y2.hi) svg.Marker(shape, xx, p.y2.Map(err), r0, color, s.passed);
    if (s.target_rps > 0) {
      double ratio = s.load.achieved_rps / s.target_rps * 100;
      if (std::isfinite(ratio) && ratio >= p.y3.lo && ratio <= p.y3.hi) {
        svg.Marker(shape, xx, p.y3.Map(ratio), r0, color, s.passed);
      }
    }
  }
  if (p.r == nullptr || !p.r->measured || p.steps.empty()) {
    std::string msg = p.r == nullptr ? "not run" : !p.r->measured ? "FAILED: no number" : "no steps recorded";
    double w = TextWidth(msg, 18);
    double cx = (kX0 + kX1) / 2, cy = (kP1Top + kP1Bot) / 2;
    svg.Rect(cx - w / 2 - 8, cy - 22, w + 16, 32, "#ffffff", "#cccccc", 1);
    svg.Text(cx, cy, msg, 18, "middle", kFailInk, true);
  }
}

// Legend, right of the panels.
void DrawThroughputLegend(Svg& svg, bool ref_drawn) {
  double lx = kX1 + 24, ly = kP1Top + 6;
  svg.Text(lx, ly + 4, "step outcome", 12, "start", kInk, true);
  ly += 20;
  svg.Marker('o', lx + 8, ly, 4.5, kBlue, true);
  svg.Text(lx + 22, ly + 4, "passed (filled)", 11);
  ly += 18;
  svg.Marker('o', lx + 8, ly, 4.5, kVermillion, false);
  svg.Text(lx + 22, ly + 4, "failed (hollow)", 11);
  ly += 26;
  svg.Text(lx, ly + 4, "search role (shape)", 12, "start", kInk, true);
  ly += 20;
  for (auto [shape, text] : {std::pair{'o', "bracket / fixed step"}, std::pair{'d', "bisect"},
                             std::pair{'s', "confirmation run"}}) {
    svg.Marker(shape, lx + 8, ly, shape == 's' ? 5.5 : 4.5, kGrey, true);
    svg.Text(lx + 22, ly + 4, text, 11);
    ly += 18;
  }
  ly += 8;
  svg.Line(lx, ly, lx + 16, ly, kInk, 2);
  svg.Text(lx + 22, ly + 4, "reported result", 11);
  ly += 18;
  svg.Line(lx, ly, lx + 16, ly, kFailInk, 1.4, "8 4");
  svg.Text(lx + 22, ly + 4, "pass limit (SLO)", 11);
  ly += 18;
  if (ref_drawn) {
    svg.Line(lx, ly, lx + 16, ly, kGrey, 1.4, "2 3");
    svg.Text(lx + 22, ly + 4, "reference", 11);
    ly += 18;
  }
  ly += 10;
  svg.Text(lx, ly + 4, "A step passes when every", 10, "start", kMuted);
  svg.Text(lx, ly + 18, "panel is on the good side", 10, "start", kMuted);
  svg.Text(lx, ly + 32, "of its limit and the engine", 10, "start", kMuted);
  svg.Text(lx, ly + 46, "kept up with its schedule.", 10, "start", kMuted);
}

// Notes under the plot: not run, the failure, an early stop, steps whose
// engine fell behind.
void ThroughputNotes(ThroughputPlot& p) {
  const ScenarioResult* r = p.r;
  if (r == nullptr) {
    p.notes.push_back(fmt::format("{} ({}): not run", p.label, p.scenario_id));
    return;
  }
  if (!r->measured) {
    p.notes.push_back(fmt::format("FAILED: {}", r->error.empty() ? "no reason recorded" : r->error));
  } else if (!r->error.empty()) {
    p.notes.push_back("error after measuring: " + r->error);
  }
  if (!r->search_stop.empty()) p.notes.push_back("search stopped early: " + r->search_stop);
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (!p.steps[i].load.kept_up) {
      p.notes.push_back(fmt::format("step {} ({} RPS): engine fell behind its schedule", i + 1,
                                    FormatRps(p.steps[i].target_rps)));
    }
  }
}

}  // namespace

std::string RenderThroughputPlot(const std::vector<ScenarioResult>& results, const std::string& scenario_id,
                                 const RunMeta& meta, const Reference* reference) {
  ThroughputPlot p;
  p.scenario_id = scenario_id;
  const ThroughputPolicy* policy = FindPolicy(scenario_id);
  p.label = policy != nullptr ? policy->label : scenario_id;
  p.r = FindResult(results, scenario_id);
  if (p.r != nullptr) {
    p.steps = p.r->steps;
    p.rule = p.r->search_rule.value_or(StepPassRule{});
  }
  ThroughputAxes(p, meta);
  ThroughputResultText(p);
  const std::string title = fmt::format("Throughput search: {}", p.label);
  Svg svg(kTpWidth);
  DrawThroughputHeader(svg, p, title, meta, results);
  DrawThroughputFrames(svg, p);
  DrawPassLimits(svg, p);
  const bool ref_drawn = DrawThroughputReference(svg, p, reference);
  DrawReportedResult(svg, p);
  DrawSteps(svg, p);
  DrawThroughputLegend(svg, ref_drawn);
  ThroughputNotes(p);
  return svg.Finish(title, DrawNotes(svg, p.notes, kP3Bot + 62) + 4);
}

std::vector<PlotFile> RenderPlots(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                                  const Reference* reference) {
  std::vector<PlotFile> files;
  files.push_back({"latency.svg", RenderLatencyPlot(results, meta, reference)});
  for (const auto& p : kPolicies) files.push_back({p.file, RenderThroughputPlot(results, p.id, meta, reference)});
  for (PlotFile& f : RenderLimitsPlots(results)) files.push_back(std::move(f));
  for (PlotFile& f : RenderTimelinePlots(results)) files.push_back(std::move(f));
  for (PlotFile& f : RenderStepsTimelinePlots(results)) files.push_back(std::move(f));
  for (PlotFile& f : RenderAbTimelinePlots(results)) files.push_back(std::move(f));
  return files;
}

std::vector<PlotFile> RenderPlots(const RunReport& report) {
  return RenderPlots(report.results, report.meta, report.cmp());
}

}  // namespace fvbench
