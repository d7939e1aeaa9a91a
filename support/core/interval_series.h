// Counts per interval of one measured phase: its results over time. wrk's
// pace.lua writes them (field `intervals`, its header "Results over time");
// the wrk parser reads them (engine/wrk_output.h), several load generators'
// series are summed per interval on the common clock (judge/loadgen_merge.h
// MergeIntervalSeries), the stall and drift checks read them
// (judge/interval_checks.h), results.json carries them.
//
// Shape: interval i (0-based) covers [start_epoch_us + i x width_us,
// start_epoch_us + (i + 1) x width_us) on the wall clock (µs since the Unix
// epoch: the load generator's host clock as parsed, the controller's once
// several are merged). Every series has one count per interval (the same
// length). width_us == 0: no series (k6, an older wrk output or result file).
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace fvbench {

struct IntervalSeries {
  double start_epoch_us = 0;
  double width_us = 0;
  std::vector<uint64_t> scheduled;  // slots that fell due in it (by slot time)
  std::vector<uint64_t> sent;       // requests sent in it
  std::vector<uint64_t> completed;  // responses completed in it (any status)
  std::vector<uint64_t> late_10ms;  // of `sent`, those more than 10 ms behind their slot

  bool empty() const { return width_us <= 0; }
  size_t size() const { return scheduled.size(); }
};

// The sum of one series (a field of IntervalSeries).
inline uint64_t SeriesTotal(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

}  // namespace fvbench
