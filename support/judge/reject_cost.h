// limits.reject_cost's arithmetic (core/reject_cost_figures.h): the keys of
// each phase from the rate and the policy's token bucket, a phase's status
// split and CPU per request, the rejected / admitted ratios, and each
// phase's validity by its 429 share. Pure.
#pragma once

#include "support/core/reject_cost_figures.h"
#include "support/core/validity_check.h"

namespace fvbench {

// Per-key offered rate as a multiple of the bucket's rate in each phase.
inline constexpr double kAdmittedKeyLoad = 0.5;  // the admitted phase: at most half the rate per key
inline constexpr double kRejectedKeyLoad = 20;   // the rejected phase: at least 20 x the rate per key
// The most keys a phase rotates over (LIMITS_KEYS' own maximum).
inline constexpr int kMaxRejectCostKeys = 100000;
// A phase is valid when its 429 share is within these.
inline constexpr double kAdmittedMaxRejectShare = 0.01;  // admitted: under 1 % rejected
inline constexpr double kRejectedMinRejectShare = 0.90;  // rejected: at least 90 % rejected

// The admitted phase's keys: ceil(rate_rps / (kAdmittedKeyLoad x rate_per_s)),
// at least 1, at most kMaxRejectCostKeys. 0 when either rate is not > 0.
int AdmittedPhaseKeys(double rate_rps, double rate_per_s);
// The rejected phase's keys: max(1, floor(rate_rps / (kRejectedKeyLoad x
// rate_per_s))), at most kMaxRejectCostKeys. 0 when either rate is not > 0.
int RejectedPhaseKeys(double rate_rps, double rate_per_s);

// A phase from what the engine measured and edge's CPU (cores, NaN when not
// sampled): the status split (by_status from load.status_counts when it has
// any; else 2xx = requests - non_2xx and every non-2xx counted rejected),
// the 429 share (NaN without a response), CPU per request (NaN without CPU
// or an achieved rate).
RejectCostPhase MakeRejectCostPhase(std::string name, std::string phase, int keys, const LoadResult& load,
                                    double fv_cpu_cores);

// rejected / admitted for p50, p99 and CPU per request; NaN where either is
// NaN or the admitted one is not > 0.
void SetRejectCostRatios(RejectCostRun& run);

// The phase's 429 share against its bound, as a check named
// "reject_cost_admitted" (share < kAdmittedMaxRejectShare) or
// "reject_cost_rejected" (share >= kRejectedMinRejectShare); the detail
// names the share, the counts and the keys. A share not known (no
// response) fails with measured NaN.
ValidityCheck AdmittedPhaseCheck(const RejectCostPhase& p);
ValidityCheck RejectedPhaseCheck(const RejectCostPhase& p);

}  // namespace fvbench
