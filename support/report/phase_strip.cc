#include "support/report/phase_strip.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "support/core/units_format.h"
#include "support/judge/judged_intervals.h"
#include "support/judge/interval_checks.h"
#include "support/report/interval_rates.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

constexpr double kGapShare = 0.02;

uint64_t CountAt(const std::vector<uint64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

double SeriesSeconds(const LoadResult& l) {
  return static_cast<double>(l.intervals.size()) * l.intervals.width_us / 1e6;
}

bool Drawn(const LoadResult* l) { return l != nullptr && HasIntervalSeries(*l); }

// Whether the stall check judged this phase's intervals (interval_checks.h
// gives the informational "intervals" check instead when it did not).
bool Judged(const LoadResult& load) {
  for (const ValidityCheck& c : IntervalChecks(load)) {
    if (c.name == "intervals") return false;
  }
  return true;
}

}  // namespace

bool HasIntervalSeries(const LoadResult& l) { return !l.intervals.empty(); }

PhaseStrip LayOutPhases(const std::vector<const LoadResult*>& phases) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PhaseStrip l{std::vector<double>(phases.size(), nan), std::vector<double>(phases.size(), nan), 0};
  double total = 0;
  for (const LoadResult* p : phases) {
    if (Drawn(p)) total += SeriesSeconds(*p);
  }
  const double gap = total * kGapShare;
  double at = 0, prev_end_us = nan;
  for (size_t k = 0; k < phases.size(); ++k) {
    if (!Drawn(phases[k])) continue;
    const LoadResult& p = *phases[k];
    const IntervalSeries& iv = p.intervals;
    if (!std::isnan(prev_end_us)) {
      at += gap;
      l.pause_s[k] = (iv.start_epoch_us - prev_end_us) / 1e6;
    }
    l.offset_s[k] = at;
    at += SeriesSeconds(p);
    // The phase's load ends its duration after its series' start; the
    // series itself runs on past that by its partial last interval.
    const double load_us = p.duration_s > 0 ? p.duration_s * 1e6 : static_cast<double>(iv.size()) * iv.width_us;
    prev_end_us = iv.start_epoch_us + load_us;
  }
  l.end_s = at;
  return l;
}

double PhaseAxisS(const PhaseStrip& strip, size_t k, const LoadResult& l, double i) {
  return strip.offset_s[k] + i * l.intervals.width_us / 1e6;
}

double PeakIntervalRate(const std::vector<const LoadResult*>& phases) {
  double top = 1;
  for (const LoadResult* p : phases) {
    if (!Drawn(p)) continue;
    const IntervalSeries& iv = p->intervals;
    for (const auto* v : {&iv.scheduled, &iv.completed}) {
      for (size_t i = 0; i < iv.size(); ++i) top = std::max(top, DrawnRate(*p, *v, i).value_or(0));
    }
  }
  return top;
}

std::vector<PhaseStall> PhaseStalls(const PhaseStrip& strip, const std::vector<const LoadResult*>& phases) {
  std::vector<PhaseStall> out;
  for (size_t k = 0; k < phases.size(); ++k) {
    if (!Drawn(phases[k])) continue;
    for (size_t i : StalledIntervals(*phases[k])) {
      out.push_back({k, i, PhaseAxisS(strip, k, *phases[k], static_cast<double>(i)),
                     PhaseAxisS(strip, k, *phases[k], static_cast<double>(i + 1))});
    }
  }
  return out;
}

void DrawPhaseStalls(svg::Svg& svg, const svg::LinAxis& x, const std::vector<PhaseStall>& stalls,
                     const std::vector<const LoadResult*>& phases, const std::vector<std::string>& names,
                     std::string_view what, double y0, double y1) {
  for (const PhaseStall& s : stalls) {
    const LoadResult& l = *phases[s.phase];
    const double w = l.intervals.width_us / 1e6;
    const bool counted = l.intervals.sends_counted;  // k6: due by the schedule (judged_intervals.h)
    const double due = counted ? static_cast<double>(CountAt(l.intervals.scheduled, s.interval)) : SlotsPerInterval(l);
    svg.Group(fmt::format("{} stall {}-{} s of the {}: 0 of {} {} completed", names[s.phase],
                          FormatNumber(static_cast<double>(s.interval) * w),
                          FormatNumber(static_cast<double>(s.interval + 1) * w), what, FormatNumber(due),
                          counted ? "scheduled" : "due"));
    svg.Rect(x.Map(s.from_s), y0, x.Map(s.to_s) - x.Map(s.from_s), y1 - y0, kPhaseStallFill);
    svg.EndGroup();
  }
}

void DrawPhaseStart(svg::Svg& svg, const svg::LinAxis& x, double start_s, const std::string& label,
                    const char* color, double y0, double y1) {
  const double start = x.Map(start_s);
  svg.Line(start, y0, start, y1, kPhaseRule, 1, "2 2");
  svg.Text(start, y0 - 6, label, 10, "middle", color);
}

void DrawPhaseCounts(svg::Svg& svg, const svg::LinAxis& x, const svg::LinAxis& y, const PhaseStrip& strip, size_t k,
                     const LoadResult& l, const std::string& title, PhaseLineStyle completed,
                     PhaseLineStyle scheduled) {
  const IntervalSeries& iv = l.intervals;
  svg.Group(title);
  for (const auto& [counts, style] : {std::pair{&iv.completed, completed}, std::pair{&iv.scheduled, scheduled}}) {
    if (counts == &iv.scheduled && !iv.sends_counted) continue;  // k6: not measured
    // An interval the load covered under half of is not drawn (interval_rates.h).
    std::vector<std::pair<double, double>> pts;
    for (size_t i = 0; i <= iv.size(); ++i) {
      const std::optional<double> rate = i < iv.size() ? DrawnRate(l, *counts, i) : std::nullopt;
      if (!rate) {
        svg.Polyline(pts, style.color, 2, style.dash);
        pts.clear();
        continue;
      }
      pts.emplace_back(x.Map(PhaseAxisS(strip, k, l, static_cast<double>(i) + 0.5)), y.Map(*rate));
    }
  }
  svg.EndGroup();
}

std::string PhaseStallsText(const LoadResult& l, const std::string& if_stalled) {
  if (!HasIntervalSeries(l)) return "no counts per interval";
  if (!Judged(l)) {
    return SlotsPerInterval(l) < 2 ? "stalls not judged (under 2 slots per interval)"
                                   : "stalls not judged (k6: the phase's duration is not known)";
  }
  const std::vector<size_t> st = StalledIntervals(l);
  if (st.empty()) return "no stall";
  const double w = l.intervals.width_us / 1e6;
  std::string out;
  for (size_t j = 0; j < st.size() && j < 5; ++j) {
    out += fmt::format("{}stall {}-{} s", j == 0 ? "" : ", ", FormatNumber(static_cast<double>(st[j]) * w),
                       FormatNumber(static_cast<double>(st[j] + 1) * w));
  }
  if (st.size() > 5) out += fmt::format(" and {} more", st.size() - 5);
  return out + if_stalled;
}

std::string PhasePauseText(double pause_s) {
  return std::isnan(pause_s) ? "" : fmt::format("; after a pause of {} s", FormatNumber(std::round(pause_s * 10) / 10));
}

}  // namespace fvbench
