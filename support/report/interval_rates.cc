#include "support/report/interval_rates.h"

#include <algorithm>
#include <cmath>

namespace fvbench {

double CoveredSeconds(const LoadResult& l, size_t i) {
  const IntervalSeries& s = l.intervals;
  const double w = s.width_us / 1e6;
  if (!(w > 0) || i >= s.size()) return 0;
  if (s.sends_counted) {
    if (!(l.target_rps > 0) || i >= s.scheduled.size()) return w;
    return std::min(w, static_cast<double>(s.scheduled[i]) / l.target_rps);
  }
  if (!(l.duration_s > 0) || !std::isfinite(l.duration_s)) return w;
  const double from = static_cast<double>(i) * w;
  return std::clamp(l.duration_s - from, 0.0, w);
}

std::optional<double> DrawnRate(const LoadResult& l, const std::vector<uint64_t>& counts, size_t i) {
  const double w = l.intervals.width_us / 1e6;
  const double covered = CoveredSeconds(l, i);
  if (i >= counts.size() || !(covered > 0) || covered < w / 2) return std::nullopt;
  return static_cast<double>(counts[i]) / covered;
}

std::vector<size_t> UndrawnIntervals(const LoadResult& l) {
  std::vector<size_t> out;
  const double w = l.intervals.width_us / 1e6;
  for (size_t i = 0; i < l.intervals.size(); ++i) {
    if (CoveredSeconds(l, i) < w / 2) out.push_back(i);
  }
  return out;
}

}  // namespace fvbench
