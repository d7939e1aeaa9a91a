// The limits.keys sweep as planned: its points (LIMITS_KEYS_SWEEP, a comma
// list of key counts), each point's warmup and measured seconds at the fixed
// total rate LIMITS_KEYS_RPS, and the bound on their sum. Pure.
//
// At a fixed total rate R a point of K keys offers each key R / K requests
// per second; the sweep's policy (fixtures/policies/limits_keys.json) gives
// each key a bucket small enough that every key is offered more than it
// allows. A point measures for max(LIMITS_DUR, kSweepRequestsPerKey x K / R)
// seconds, so that every key is sent at least that many requests, and warms
// up (when WARMUP_DUR > 0) for max(WARMUP_DUR, K / R) seconds, so that every
// key's bucket exists in edge's shared dict before the measured phase; both
// rounded up to whole seconds (wrk runs whole seconds: the planned length is
// the one that runs).
#pragma once

#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

inline constexpr int kMaxSweepKeys = 100000;
// Requests each key is sent in a point's measured phase, at least.
inline constexpr double kSweepRequestsPerKey = 5;
// A sweep whose warmups and measured phases add up to more is refused.
inline constexpr double kMaxSweepLoadS = 3600;

// "10,100,1000" -> {10, 100, 1000}. Err naming LIMITS_KEYS_SWEEP and the bad
// element (its position, 1-based, and text): empty list or element, not an
// integer, outside 1..kMaxSweepKeys, not above the element before it.
Result<std::vector<int>> ParseKeySweep(std::string_view text);

// A point's measured and warmup seconds (the header's rules); rps > 0.
double SweepPointDuration(int keys, double rps, double limits_dur_s);
double SweepPointWarmup(int keys, double rps, double warmup_dur_s);
// The sum over the points of both.
double SweepLoadSeconds(const std::vector<int>& points, double rps, double limits_dur_s, double warmup_dur_s);
// Ok when SweepLoadSeconds <= kMaxSweepLoadS; else an Error naming the sum
// and LIMITS_KEYS_SWEEP, LIMITS_KEYS_RPS and LIMITS_DUR.
Result<void> CheckSweepLoad(const std::vector<int>& points, double rps, double limits_dur_s, double warmup_dur_s);

}  // namespace fvbench
