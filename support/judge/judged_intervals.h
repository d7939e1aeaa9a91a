// Which intervals of a phase's series (core/interval_series.h) the interval
// checks judge (judge/interval_checks.h, judge/p99_drift.h), and the slots
// due in each. Pure.
//
//   sends counted (wrk): interval i is judged when at least half of a full
//     interval's slots fell due in it (scheduled[i] >= ceil(target_rps x
//     width / 2)): the partial intervals at the window's ends are not. Due:
//     scheduled[i], as pace.lua counted it.
//   sends not counted (k6): the series has no slot counts, but k6's
//     constant-arrival-rate scenario starts target_rps iterations per second
//     from the phase's start, so a full interval has target_rps x width
//     slots due. Interval i is judged when it lies inside the phase by
//     position: (i + 1) x width <= duration_s, counted from the series'
//     start. That start is the phase's common start (k6_engine.cc GridOf:
//     LoadSpec::start_epoch_us, the time every instance is resumed at;
//     merged, the earliest instance's, loadgen_merge.h), so k6 begins its
//     schedule a `k6 resume` round trip (milliseconds) into interval 0; and
//     duration_s is the instances' common window (loadgen_merge.h), which
//     starts at the latest instance's start (the start skew, also
//     milliseconds, after the series' start). Due: target_rps x width.
//     duration_s <= 0: nothing is judged (not known where the phase ends).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/core/load_result.h"

namespace fvbench {

struct JudgedIntervals {
  std::vector<size_t> index;  // the judged intervals' 0-based indexes, increasing
  std::vector<double> due;    // slots due in each, index for index
  // How they were chosen, for a check's detail: ">= 100 slots due" (wrk),
  // "inside the phase's 30 s, 200 slots due each" (k6).
  std::string rule;
};

// Empty when the phase has no series.
JudgedIntervals JudgeIntervals(const LoadResult& load);

// The slots a full interval holds: target_rps x width (the schedule's rate,
// whatever the engine counted).
double SlotsPerInterval(const LoadResult& load);

}  // namespace fvbench
