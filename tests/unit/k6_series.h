// k6 phases with a series per interval, shared by the judge's tests
// (interval_checks_test.cc, thresholds_test.cc): completed responses per
// interval, sends not counted, one latency histogram per interval.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/core/interval_latency.h"
#include "support/core/latency_histogram.h"
#include "support/core/load_result.h"

namespace fvbench::testing_samples {

// One interval's latencies: `n` samples, 2 % of them at tail_us and the rest
// at 1 ms, so that its p99, and a merge's of such intervals, is tail_us.
inline IntervalLatency TailLatency(uint64_t n, double tail_us) {
  LatencyHistogram h;
  const uint64_t tail = n / 50;
  h.RecordUs(1000, n - tail);
  h.RecordUs(tail_us, tail);
  return IntervalLatencyOf(h);
}

// A k6 phase at `rate` RPS of `n` 1 s intervals over duration_s, every
// interval `rate` completed; no latency per interval.
inline LoadResult K6Phase(size_t n, double duration_s, double rate = 200) {
  LoadResult r;
  r.engine = "k6";
  r.target_rps = rate;
  r.duration_s = duration_s;
  IntervalSeries& s = r.intervals;
  s.start_epoch_us = 1.7e15;
  s.width_us = 1e6;
  s.sends_counted = false;
  s.scheduled = s.sent = s.late_10ms = std::vector<uint64_t>(n, 0);
  s.completed = std::vector<uint64_t>(n, static_cast<uint64_t>(rate));
  return r;
}

// Latency per interval: `samples` each, p99 first_us in the first half of
// the intervals and second_us in the rest.
inline void SetTails(LoadResult& r, uint64_t samples, double first_us, double second_us) {
  IntervalSeries& s = r.intervals;
  s.latency.clear();
  s.non_2xx.assign(s.size(), 0);
  for (size_t i = 0; i < s.size(); ++i) s.latency.push_back(TailLatency(samples, i < s.size() / 2 ? first_us : second_us));
}

}  // namespace fvbench::testing_samples
