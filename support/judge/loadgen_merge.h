// One phase driven by several load-generator instances -> one LoadResult
// Pure. The merged result feeds the search, repeats, A/B mode,
// thresholds and reports unchanged; the instances are kept in
// LoadResult::loadgens.
//
// Merged: target_rps, requests and every outcome count are sums; achieved_rps
// the sum of the instances' achieved rates; latency from the merge of their
// histograms (core/latency_histogram.h: exact percentiles of the union within
// 1/2048, never averaged); kept_up only when every instance kept up;
// dropped_iterations summed, send lag and earliness the worst, the late-send
// share weighted by each instance's sends; ratelimit_evidence summed when
// every instance counted it; connections (the engine pools) summed and the
// mean latency weighted by each instance's responses, both only when every
// instance has them. duration_s is the measured window: the span in
// which all instances ran (latest start to earliest end, wall clock), or the
// longest engine duration when the instances carry no times.
//
// Each instance's own validity applies (checks named "loadgen <name>:
// <check>"): engine_kept_up, achieved_rate (its achieved / its target >=
// min_achieved_fraction), loadgen_cpu (when sampled, <= max_loadgen_busy);
// and start_skew (latest - earliest start <= max_start_skew_us, 10 ms). They
// are in merged.loadgen_checks, which the scenario runner judges with the
// phase's own checks: one failed check invalidates the phase, naming the
// instance.
#pragma once

#include <vector>

#include "support/core/latency_histogram.h"
#include "support/core/load_result.h"
#include "support/core/loadgen_instance.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/core/validity_params.h"

namespace fvbench {

inline constexpr double kMaxLoadgenStartSkewUs = 10000;  // all instances start within 10 ms

struct InstanceRun {
  LoadgenInstance meta;        // name, target_rps, offset/segment, cpu_busy, start/end set by the runner
  LoadResult result;           // its own engine output, parsed
  LatencyHistogram histogram;  // its latency distribution
};

struct MergedPhase {
  LoadResult merged;
  double window_s = 0;
  std::vector<ValidityCheck> checks;  // per instance, then start_skew
};

// The instances' counts per interval (core/interval_series.h) summed per
// interval on the common clock: each series is placed at the whole number of
// intervals its start lies after the earliest start (rounded: synchronised
// instances start together, to within their clocks' measured offsets), and
// the merged series starts at the earliest start. Empty when `series` is, or
// when any instance has none (k6 run alone, an older output): a sum over
// some instances would not be the phase's. Error when two widths differ.
// sends_counted only when every series counted its sends. The per-interval
// latencies and non_2xx counts merge as MergeIntervalLatencies says.
Result<IntervalSeries> MergeIntervalSeries(const std::vector<IntervalSeries>& series);

// The instances' per-interval histograms (IntervalSeries::latency) merged
// bucket by bucket and their non_2xx summed, each series placed as
// MergeIntervalSeries places it in `merged` (start and width already set).
// Both left empty when any series lacks them (wrk): the merged histograms
// then sum to the merged phase histogram exactly. Error when two carry
// timeouts at different request timeouts.
Result<void> MergeIntervalLatencies(const std::vector<IntervalSeries>& series, IntervalSeries& merged);

// Error when `runs` is empty, the histograms cannot merge (different request
// timeouts) or the interval series cannot (different widths). The merged
// result's `intervals` are MergeIntervalSeries of the instances'.
Result<MergedPhase> MergeLoadgens(const std::vector<InstanceRun>& runs, const ValidityParams& params,
                                  double max_start_skew_us = kMaxLoadgenStartSkewUs);

}  // namespace fvbench
