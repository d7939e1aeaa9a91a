// The rate a timeline draws for one interval of a phase's series
// (core/interval_series.h): its count divided by the seconds of it the
// phase's load covered, so the partial intervals at a phase's ends do not
// read as a collapse (a 4 s phase's fifth interval holds the few slots of the
// engine's last ~50 ms, not a second of them). Pure.
//
// Covered seconds of interval i (at most its width):
//   sends counted (wrk): scheduled[i] / target_rps, the slots of the
//     constant-rate schedule that fell due in it;
//   sends not counted (k6): the part of [i w, (i + 1) w) within
//     [0, duration_s] of the series' start; the whole width when the
//     duration is not known.
// An interval whose load covered less than half its width is not drawn
// (the judge leaves the same intervals out, judge/judged_intervals.h); its
// counts stay in the series, the totals and the plot's legend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "support/core/load_result.h"

namespace fvbench {

// Seconds of interval i the load covered, 0..width.
double CoveredSeconds(const LoadResult& l, size_t i);

// counts[i] / CoveredSeconds(l, i) (per second), or nullopt when the
// interval is not drawn (covered under half its width, or i out of range).
std::optional<double> DrawnRate(const LoadResult& l, const std::vector<uint64_t>& counts, size_t i);

// The intervals of l's series not drawn (ascending).
std::vector<size_t> UndrawnIntervals(const LoadResult& l);

}  // namespace fvbench
