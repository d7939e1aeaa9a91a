// Validity from a phase's results over time (core/interval_series.h), for
// CheckPhase (validity.h). Pure. A phase with no series (k6 run by one
// instance, an older wrk output) gets no check. Judged are the intervals
// judged_intervals.h chooses: wrk's by the slots that fell due in them (at
// least half a full interval's: not the partial ones at the window's ends),
// k6's by position (inside the phase's duration from its start; k6 counts no
// slot, but its constant arrival rate has target_rps x width due in each).
// The checks, in order:
//
//   interval_stalls  the judged intervals in which no response completed
//                    (completed == 0 while slots fell due) == 0: the SUT,
//                    or the path to it, answered nothing for at least one
//                    interval. A stall shorter than an interval that the
//                    SUT then catches up on leaves no trace in the counts.
//   rate_drift       |second half / first half - 1| <= kMaxRateDrift (0.10)
//                    of the completed responses per slot due over the first
//                    and the last half of the judged intervals (the middle
//                    one left out when their number is odd): the rate the
//                    phase achieved fell (or rose) within it. Needs at
//                    least 4 judged intervals; absent with fewer. k6 too:
//                    its slots due are known (target_rps x width in every
//                    judged interval), which is all the ratio needs.
//                    Either engine counts a response in the interval it
//                    completed in, so the first interval lacks the
//                    responses still in flight at its end (latency x rate);
//                    k6 also starts its schedule a `k6 resume` round trip
//                    into interval 0: both lower the first half by
//                    milliseconds' worth of a half's seconds.
//   intervals        informational, instead of both, when a full interval
//                    holds fewer than 2 slots (target_rps x width < 2): too
//                    few to tell a stall from the schedule's own gaps; or,
//                    for a series that did not count its sends (k6), when
//                    the phase's duration is not known (duration_s <= 0).
//   p99_drift        informational, for a series with latency per interval
//                    (k6; judge/p99_drift.h): |second half's p99 / first
//                    half's - 1| over the same halves, each half's
//                    histograms merged bucket for bucket; measured is the
//                    drift, limit kMaxP99Drift (0.5) and `passed` whether it
//                    is within it. Never fails the phase: a p99 that climbs
//                    within a phase is a property of the SUT as much as of
//                    the measurement, so it is always reported and fails a
//                    scenario only through a threshold (metric p99_drift,
//                    thresholds.h). Not judged (limit NaN, the detail says
//                    why) when a half holds fewer than kMinP99DriftSamples
//                    (1000) recorded samples or its p99 is censored.
//
// interval_stalls and rate_drift fail the phase like the other validity
// checks (VALIDITY=warn records them as INVALID instead).
#pragma once

#include <vector>

#include "support/core/load_result.h"
#include "support/core/validity_check.h"

namespace fvbench {

inline constexpr double kMaxRateDrift = 0.10;  // 10 %: second half vs first half

std::vector<ValidityCheck> IntervalChecks(const LoadResult& load);

// The 0-based indexes of the intervals interval_stalls counts: judged, and
// no response completed. Empty when the phase has no series or its stalls
// are not judged (the informational `intervals` above).
std::vector<size_t> StalledIntervals(const LoadResult& load);

}  // namespace fvbench
