// Validity from a phase's results over time (core/interval_series.h), for
// CheckPhase (validity.h). Pure. A phase with no series (k6, an older wrk
// output) gets no check. Judged are the intervals in which at least half of
// a full interval's slots fell due (scheduled >= target_rps x width / 2): the
// partial intervals at the window's ends are not. The checks, in order:
//
//   interval_stalls  the judged intervals in which no response completed
//                    (completed == 0 while slots fell due) == 0: the SUT,
//                    or the path to it, answered nothing for at least one
//                    interval. A stall shorter than an interval that the
//                    SUT then catches up on leaves no trace in the counts.
//   rate_drift       |second half / first half - 1| <= kMaxRateDrift (0.10)
//                    of the completed responses per scheduled slot over the
//                    first and the last half of the judged intervals (the
//                    middle one left out when their number is odd): the rate
//                    the phase achieved fell (or rose) within it. Needs at
//                    least 4 judged intervals; absent with fewer.
//   intervals        informational, instead of both, when a full interval
//                    holds fewer than 2 slots (target_rps x width < 2): too
//                    few to tell a stall from the schedule's own gaps; or
//                    when the series did not count its sends
//                    (sends_counted false: k6's per-interval series).
//
// Both fail the phase like the other validity checks (VALIDITY=warn records
// them as INVALID instead).
#pragma once

#include <vector>

#include "support/core/load_result.h"
#include "support/core/validity_check.h"

namespace fvbench {

inline constexpr double kMaxRateDrift = 0.10;  // 10 %: second half vs first half

std::vector<ValidityCheck> IntervalChecks(const LoadResult& load);

// The 0-based indexes of the intervals interval_stalls counts: judged, and
// no response completed. Empty when the phase has no series or is not
// judged (its sends not counted, as k6's; fewer than 2 slots per interval).
std::vector<size_t> StalledIntervals(const LoadResult& load);

}  // namespace fvbench
