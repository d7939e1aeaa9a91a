#include "support/judge/judged_intervals.h"

#include <fmt/format.h>

#include <cmath>

#include "support/core/units_format.h"

namespace fvbench {

double SlotsPerInterval(const LoadResult& load) { return load.target_rps * load.intervals.width_us / 1e6; }

JudgedIntervals JudgeIntervals(const LoadResult& load) {
  JudgedIntervals j;
  const IntervalSeries& s = load.intervals;
  if (s.empty()) return j;
  if (s.sends_counted) {
    auto min_scheduled = static_cast<uint64_t>(std::ceil(SlotsPerInterval(load) / 2));
    if (min_scheduled == 0) min_scheduled = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s.scheduled[i] < min_scheduled) continue;
      j.index.push_back(i);
      j.due.push_back(static_cast<double>(s.scheduled[i]));
    }
    j.rule = fmt::format(">= {} slots due", min_scheduled);
    return j;
  }
  const double due = SlotsPerInterval(load);
  // in µs, half a µs of slack: 3 x 0.1 s is not past a phase of 0.3 s
  for (size_t i = 0; i < s.size() && load.duration_s > 0; ++i) {
    if (static_cast<double>(i + 1) * s.width_us > load.duration_s * 1e6 + 0.5) break;
    j.index.push_back(i);
    j.due.push_back(due);
  }
  j.rule = fmt::format("inside the phase's {} s, {} slots due each", detail::FormatNumber(load.duration_s),
                       detail::FormatNumber(due));
  return j;
}

}  // namespace fvbench
