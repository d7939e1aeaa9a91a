// Counts per interval of one measured phase: its results over time. wrk's
// pace.lua writes them (field `intervals`, its header "Results over time");
// the wrk parser reads them (engine/wrk_output.h); k6's raw samples give them
// through the reducer (engine/k6_samples.h), with each interval's latency
// histogram; several load generators' series are summed per interval on the
// common clock (judge/loadgen_merge.h MergeIntervalSeries), the stall and
// drift checks read them (judge/interval_checks.h), results.json carries them.
//
// Shape: interval i (0-based) covers [start_epoch_us + i x width_us,
// start_epoch_us + (i + 1) x width_us) on the wall clock (µs since the Unix
// epoch: the load generator's host clock as parsed, the controller's once
// several are merged). Every series has one count per interval (the same
// length). width_us == 0: no series (k6 run alone, an older wrk output or
// result file).
//
// Optional per interval (empty vectors when the engine gives none; wrk:
// pace.lua has no per-request timing in Lua):
//   latency   the interval's latency histogram (IntervalLatency below), same
//             layout as the phase's; the intervals' histograms sum to the
//             phase's exactly (k6_samples.h says which sample goes where);
//   non_2xx   of `completed`, the responses whose status was not 2xx.
// A series read back from a result file (report/load_result_json.h) has no
// histograms: its latencies are the interval's percentiles as written
// (latency_read) with its timeouts (timeouts_read); non_2xx reads back as
// written. Readers take either form
// through core/interval_latency.h IntervalLatencySummaries / IntervalTimeouts.
// sends_counted == false (k6): k6's samples carry no slot or send time, so
// scheduled, sent and late_10ms are 0 in every interval, not measured: the
// stall and drift checks judge no interval of such a series (none has slots
// due), and a reader shows them as absent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "support/core/latency_us.h"

namespace fvbench {

// One interval's latency histogram in sparse form: the non-empty buckets of
// core/latency_histogram.h's layout (core/interval_latency.h converts, merges
// and reads percentiles). Timeouts are censored samples beside the buckets.
struct IntervalLatency {
  std::vector<std::pair<uint32_t, uint64_t>> buckets;  // (bucket index, count > 0), indices increasing
  uint64_t min_ns = 0;                                 // of the recorded samples; 0 when none
  uint64_t max_ns = 0;
  uint64_t timeouts = 0;
  double timeout_us = 0;  // > 0 when timeouts > 0

  uint64_t recorded() const {
    uint64_t n = 0;
    for (const auto& b : buckets) n += b.second;
    return n;
  }
  uint64_t total() const { return recorded() + timeouts; }
};

struct IntervalSeries {
  double start_epoch_us = 0;
  double width_us = 0;
  std::vector<uint64_t> scheduled;  // slots that fell due in it (by slot time)
  std::vector<uint64_t> sent;       // requests sent in it
  std::vector<uint64_t> completed;  // responses completed in it (any status)
  std::vector<uint64_t> late_10ms;  // of `sent`, those more than 10 ms behind their slot
  bool sends_counted = true;        // false: scheduled, sent, late_10ms are not measured (k6)
  std::vector<IntervalLatency> latency;  // empty, or one per interval
  std::vector<uint64_t> non_2xx;         // empty, or one per interval
  // Read back (no histograms): empty, or one per interval; empty when `latency` is not.
  std::vector<LatencyUs> latency_read;   // µs, as IntervalLatencyUs gave them when written
  std::vector<uint64_t> timeouts_read;   // IntervalLatency::timeouts

  bool empty() const { return width_us <= 0; }
  size_t size() const { return scheduled.size(); }
  // Latency per interval known, as histograms or as read back.
  bool has_latency() const { return !empty() && (!latency.empty() || !latency_read.empty()); }
};

// The sum of one series (a field of IntervalSeries).
inline uint64_t SeriesTotal(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

}  // namespace fvbench
