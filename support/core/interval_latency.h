// One interval's latencies (core/interval_series.h IntervalLatency) as a
// LatencyHistogram and back, their merge, and their percentiles. Pure.
//
// IntervalLatency holds only the non-empty buckets of the fixed layout
// (core/latency_histogram.h), so a phase's series costs memory per interval
// by the buckets its samples touch, not the layout's 31744 counts; the
// conversions are exact both ways (same buckets, min/max, timeouts).
#pragma once

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

}  // namespace fvbench
