#include "support/judge/interval_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <string>

#include "support/core/units_format.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

struct Judged {
  std::vector<size_t> index;  // intervals judged, in order
  uint64_t min_scheduled = 0;
};

Judged JudgedIntervals(const IntervalSeries& s, double target_rps) {
  Judged j;
  j.min_scheduled = static_cast<uint64_t>(std::ceil(target_rps * s.width_us / 1e6 / 2));
  if (j.min_scheduled == 0) j.min_scheduled = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.scheduled[i] >= j.min_scheduled) j.index.push_back(i);
  }
  return j;
}

// "5-6 s" for interval i of width w (seconds after the series' start).
std::string Span(size_t i, double width_us) {
  return fmt::format("{}-{} s", FormatNumber(static_cast<double>(i) * width_us / 1e6),
                     FormatNumber(static_cast<double>(i + 1) * width_us / 1e6));
}

std::vector<size_t> Stalled(const IntervalSeries& s, const Judged& j) {
  std::vector<size_t> out;
  for (size_t i : j.index) {
    if (s.completed[i] == 0) out.push_back(i);
  }
  return out;
}

bool Judgeable(const LoadResult& load) {
  const IntervalSeries& s = load.intervals;
  return !s.empty() && s.size() != 0 && s.sends_counted && load.target_rps * s.width_us / 1e6 >= 2;
}

ValidityCheck Stalls(const IntervalSeries& s, const Judged& j) {
  const std::vector<size_t> stalls = Stalled(s, j);
  const size_t stalled = stalls.size();
  std::string listed;
  for (size_t k = 0; k < stalled && k < 10; ++k) {
    const size_t i = stalls[k];
    listed += fmt::format("{}{}: 0 of {} scheduled completed", listed.empty() ? "" : ", ", Span(i, s.width_us),
                          s.scheduled[i]);
  }
  ValidityCheck c{"interval_stalls", stalled == 0, false, "<=", static_cast<double>(stalled), 0, ""};
  c.detail = fmt::format("intervals of {} s with slots due and no response completed, of {} judged (>= {} slots "
                         "due){}",
                         FormatNumber(s.width_us / 1e6), j.index.size(), j.min_scheduled,
                         stalled == 0 ? "" : ": " + listed + (stalled > 10 ? ", ..." : ""));
  return c;
}

ValidityCheck Drift(const IntervalSeries& s, const Judged& j) {
  const size_t half = j.index.size() / 2;
  uint64_t c1 = 0, s1 = 0, c2 = 0, s2 = 0;
  for (size_t k = 0; k < half; ++k) {
    c1 += s.completed[j.index[k]];
    s1 += s.scheduled[j.index[k]];
    c2 += s.completed[j.index[j.index.size() - 1 - k]];
    s2 += s.scheduled[j.index[j.index.size() - 1 - k]];
  }
  const double r1 = static_cast<double>(c1) / static_cast<double>(s1);
  const double r2 = static_cast<double>(c2) / static_cast<double>(s2);
  const double drift = r1 > 0 ? std::fabs(r2 / r1 - 1) : (r2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  ValidityCheck c{"rate_drift", drift <= kMaxRateDrift, false, "<=", drift, kMaxRateDrift, ""};
  c.detail = fmt::format("completed responses per scheduled slot, second half {} vs first half {} ({} intervals "
                         "of {} s each)",
                         FormatNumber(r2), FormatNumber(r1), half, FormatNumber(s.width_us / 1e6));
  return c;
}

}  // namespace

std::vector<ValidityCheck> IntervalChecks(const LoadResult& load) {
  const IntervalSeries& s = load.intervals;
  if (s.empty() || s.size() == 0) return {};
  if (!s.sends_counted) {
    ValidityCheck c{"intervals", true, true, "", std::numeric_limits<double>::quiet_NaN(),
                    std::numeric_limits<double>::quiet_NaN(), ""};
    c.detail = "stalls and drift not judged: the engine's samples carry no slot or send times (k6), so no "
               "interval's due slots are known";
    return {c};
  }
  if (!Judgeable(load)) {
    ValidityCheck c{"intervals", true, true, "", std::numeric_limits<double>::quiet_NaN(),
                    std::numeric_limits<double>::quiet_NaN(), ""};
    c.detail = fmt::format("stalls and drift not judged: {} RPS x {} s intervals is fewer than 2 slots per interval",
                           FormatNumber(load.target_rps), FormatNumber(s.width_us / 1e6));
    return {c};
  }
  const Judged j = JudgedIntervals(s, load.target_rps);
  std::vector<ValidityCheck> out{Stalls(s, j)};
  if (j.index.size() >= 4) out.push_back(Drift(s, j));
  return out;
}

std::vector<size_t> StalledIntervals(const LoadResult& load) {
  if (!Judgeable(load)) return {};
  return Stalled(load.intervals, JudgedIntervals(load.intervals, load.target_rps));
}

}  // namespace fvbench
