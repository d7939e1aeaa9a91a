// One interval's latencies (core/interval_series.h IntervalLatency) as a
// LatencyHistogram and back, their merge, and their percentiles. Pure.
//
// IntervalLatency holds only the non-empty buckets of the fixed layout
// (core/latency_histogram.h), so a phase's series costs memory per interval
// by the buckets its samples touch, not the layout's 31744 counts; the
// conversions are exact both ways (same buckets, min/max, timeouts).
#pragma once

#include <cstdint>
#include <vector>

#include "support/core/interval_series.h"
#include "support/core/latency_histogram.h"
#include "support/core/result.h"

namespace fvbench {

LatencyHistogram IntervalHistogram(const IntervalLatency& l);
IntervalLatency IntervalLatencyOf(const LatencyHistogram& h);

// Adds `from` into `into` bucket by bucket. Error (nothing changed) when both
// carry timeouts at different timeout_us, as LatencyHistogram::Merge.
Result<void> MergeIntervalLatency(IntervalLatency& into, const IntervalLatency& from);

// p50/p90/p99/p99.9/max in µs (LatencyHistogram::ToLatencyUs: nearest rank,
// censored at the timeout when a rank falls among the timeouts).
LatencyUs IntervalLatencyUs(const IntervalLatency& l);

// Each interval's percentiles (µs, IntervalLatencyUs) from the histograms
// when s has them, else as read back (IntervalSeries::latency_read): one per
// interval, empty when s has no latency per interval. An interval without a
// sample (no response completed, none timed out) has all zeros.
std::vector<LatencyUs> IntervalLatencySummaries(const IntervalSeries& s);
// Each interval's timeouts, from the same source; empty as above.
std::vector<uint64_t> IntervalTimeouts(const IntervalSeries& s);

}  // namespace fvbench
