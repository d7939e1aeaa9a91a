#include "support/judge/interval_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

#include "support/core/units_format.h"
#include "support/judge/judged_intervals.h"
#include "support/judge/p99_drift.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "5-6 s" for interval i of width w (seconds after the series' start).
std::string Span(size_t i, double width_us) {
  return fmt::format("{}-{} s", FormatNumber(static_cast<double>(i) * width_us / 1e6),
                     FormatNumber(static_cast<double>(i + 1) * width_us / 1e6));
}

// Indexes into j (not into the series) of the stalled intervals.
std::vector<size_t> Stalled(const IntervalSeries& s, const JudgedIntervals& j) {
  std::vector<size_t> out;
  for (size_t k = 0; k < j.index.size(); ++k) {
    if (s.completed[j.index[k]] == 0) out.push_back(k);
  }
  return out;
}

// "" when the stall and drift checks judge the series; else why not.
std::string NotJudged(const LoadResult& load) {
  const IntervalSeries& s = load.intervals;
  if (SlotsPerInterval(load) < 2) {
    return fmt::format("stalls and drift not judged: {} RPS x {} s intervals is fewer than 2 slots per interval",
                       FormatNumber(load.target_rps), FormatNumber(s.width_us / 1e6));
  }
  if (!s.sends_counted && !(load.duration_s > 0)) {
    return "stalls and drift not judged: the engine's samples carry no slot or send times (k6) and the phase's "
           "duration is not known, so no interval is known to lie inside it";
  }
  return "";
}

bool Judgeable(const LoadResult& load) {
  return !load.intervals.empty() && load.intervals.size() != 0 && NotJudged(load).empty();
}

ValidityCheck Stalls(const IntervalSeries& s, const JudgedIntervals& j) {
  const std::vector<size_t> stalls = Stalled(s, j);
  const size_t stalled = stalls.size();
  const char* due = s.sends_counted ? "scheduled" : "due";
  std::string listed;
  for (size_t k = 0; k < stalled && k < 10; ++k) {
    listed += fmt::format("{}{}: 0 of {} {} completed", listed.empty() ? "" : ", ", Span(j.index[stalls[k]], s.width_us),
                          FormatNumber(j.due[stalls[k]]), due);
  }
  ValidityCheck c{"interval_stalls", stalled == 0, false, "<=", static_cast<double>(stalled), 0, ""};
  c.detail = fmt::format("intervals of {} s with slots due and no response completed, of {} judged ({}){}",
                         FormatNumber(s.width_us / 1e6), j.index.size(), j.rule,
                         stalled == 0 ? "" : ": " + listed + (stalled > 10 ? ", ..." : ""));
  return c;
}

ValidityCheck Drift(const IntervalSeries& s, const JudgedIntervals& j) {
  const size_t n = j.index.size(), half = n / 2;
  double c1 = 0, d1 = 0, c2 = 0, d2 = 0;
  for (size_t k = 0; k < half; ++k) {
    c1 += static_cast<double>(s.completed[j.index[k]]);
    d1 += j.due[k];
    c2 += static_cast<double>(s.completed[j.index[n - 1 - k]]);
    d2 += j.due[n - 1 - k];
  }
  const double r1 = c1 / d1, r2 = c2 / d2;
  const double drift = r1 > 0 ? std::fabs(r2 / r1 - 1) : (r2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  ValidityCheck c{"rate_drift", drift <= kMaxRateDrift, false, "<=", drift, kMaxRateDrift, ""};
  c.detail = fmt::format("completed responses per {} slot, second half {} vs first half {} ({} intervals of {} s "
                         "each)",
                         s.sends_counted ? "scheduled" : "due", FormatNumber(r2), FormatNumber(r1), half,
                         FormatNumber(s.width_us / 1e6));
  return c;
}

// interval_stalls and rate_drift, or the informational `intervals`.
std::vector<ValidityCheck> CountChecks(const LoadResult& load) {
  if (std::string why = NotJudged(load); !why.empty()) {
    ValidityCheck c{"intervals", true, true, "", kNaN, kNaN, std::move(why)};
    return {c};
  }
  const JudgedIntervals j = JudgeIntervals(load);
  std::vector<ValidityCheck> out{Stalls(load.intervals, j)};
  if (j.index.size() >= 4) out.push_back(Drift(load.intervals, j));
  return out;
}

ValidityCheck P99DriftCheck(const P99Drift& d, double width_us) {
  ValidityCheck c{"p99_drift", true, true, "<=", d.drift, d.judged ? kMaxP99Drift : kNaN, ""};
  const std::string read =
      std::isnan(d.drift) ? ""
                          : fmt::format("p99 of the second half {} vs the first half's {} over {} intervals of {} s "
                                        "each ({} and {} recorded samples)",
                                        detail::FormatUs(d.second_p99_us), detail::FormatUs(d.first_p99_us),
                                        d.half_intervals, FormatNumber(width_us / 1e6), d.second_samples,
                                        d.first_samples);
  if (!d.judged) {
    c.detail = "not judged: " + d.why + (read.empty() ? "" : "; read anyway: " + detail::FormatPercent(d.drift) +
                                                               ", " + read);
    return c;
  }
  c.passed = d.drift <= kMaxP99Drift;
  c.detail = fmt::format("{}, {} the informational bound <= {}: {}; reported, never failing the phase (a threshold "
                         "on p99_drift decides)",
                         detail::FormatPercent(d.drift), c.passed ? "within" : "BEYOND",
                         detail::FormatPercentLimit(kMaxP99Drift), read);
  return c;
}

}  // namespace

std::vector<ValidityCheck> IntervalChecks(const LoadResult& load) {
  const IntervalSeries& s = load.intervals;
  if (s.empty() || s.size() == 0) return {};
  std::vector<ValidityCheck> out = CountChecks(load);
  if (HasIntervalLatency(load)) out.push_back(P99DriftCheck(MeasureP99Drift(load), s.width_us));
  return out;
}

std::vector<size_t> StalledIntervals(const LoadResult& load) {
  if (!Judgeable(load)) return {};
  const JudgedIntervals j = JudgeIntervals(load);
  std::vector<size_t> out;
  for (size_t k : Stalled(load.intervals, j)) out.push_back(j.index[k]);
  return out;
}

}  // namespace fvbench
