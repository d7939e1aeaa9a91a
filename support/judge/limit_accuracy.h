// How closely edge's limiter kept to its token bucket in one limits phase:
// the policy's bucket, the figures of core/limit_figures.h LimitAccuracy from
// the access log's counts (judge/limits_log_parse.h), and the validity checks of a
// limits phase. Pure.
//
// Source of the bucket's semantics: edge's src/fairvisor/token_bucket.lua
// (validate_config, check): `tokens_per_second` (or its alias `rps`) > 0,
// `burst` > 0 and >= tokens_per_second, a bucket starts full (burst tokens)
// and refills continuously, capped at burst; a request costs `fixed_cost`
// tokens (default 1). The state lives in one shared dict per key, shared by
// all nginx workers: a bucket per worker, or one whose state is lost, admits
// more than the bound below.
//
// Bounds (per key): over any window of w seconds a correct bucket admits at
// most rate * w + burst; a key offered more than its rate throughout is
// admitted at least rate * w - burst. The log's times are nginx's $msec at
// the end of each request, not the instant the bucket decided: a few
// milliseconds of jitter move a request between bins, which the checks'
// max_fraction (default 2 %) absorbs.
#pragma once

#include <cstdint>
#include <map>
#include <string_view>

#include "support/core/limit_figures.h"
#include "support/core/result.h"
#include "support/core/validity_check.h"

namespace fvbench {

// The token bucket of policy `policy_id` in an edge policy bundle (JSON:
// policies[].id, policies[].spec.rules[] with "algorithm": "token_bucket"
// and algorithm_config.tokens_per_second / rps and burst). Err, naming the
// policy and why: not JSON, no `policies` list, no policy of that id (the
// ids present are named) or two of it, no `spec.rules` list, no token_bucket
// rule or more than one, algorithm_config missing, a rate or burst missing
// or not a positive number, burst < rate (edge refuses it), a request cost
// other than 1 (cost_source other than "fixed", fixed_cost != 1: the figures
// count requests as tokens). With `key_header`, also a rule that does not
// limit by exactly ["header:<key_header>"] (the name without case): keys the
// load rotates in that header would otherwise share fewer buckets.
Result<TokenBucketLimit> TokenBucketOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                             std::string_view key_header = "");

// Every LimitAccuracy field, as its comments in limit_figures.h say, over
// the whole log window (window_s = last_unix - first_unix, the same for every
// key):
//   admitted_min/median/max over the keys seen (median of an even count: the
//   mean of the two middle ones; all 0 when no key was seen);
//   over_admission: (admitted - allowed) / allowed, the divisor at least 1
//   request (a TokenBucketLimit not from TokenBucketOfPolicy may have burst 0);
//   under_admission and keys_under: keys planned but absent from the log
//   count as keys admitted 0 (under by 1.0 when floor_per_key > 0); the keys
//   seen beyond keys_planned count as seen; the floor assumes every key was
//   offered more than the rate throughout (offered_rps / keys_planned > rate,
//   rotated evenly): under-admission means nothing for a phase offered less;
//   worst window: the most admitted to one key over any run of 1 / bin_s
//   consecutive bins (sliding; all of a key's bins when it has fewer);
//   window_allowed = rate * (window_bins * bin_s) + burst, which is
//   rate * 1 + burst for the bin widths limits_log.h accepts;
//   expected_reject_share: 0 when offered_rps * window_s is 0;
//   admitted_per_key: the keys seen, ascending (unseen keys are not in it);
//   admitted_per_second: every key's admitted_per_bin summed, bin i into
//   second floor(i * bin_s); empty when bin_s is not positive.
LimitAccuracy AssessLimits(const AccessLogCounts& log, const TokenBucketLimit& limit, int keys_planned,
                           double offered_rps);

// The checks of a limits phase (ValidityCheck, core/validity_check.h). Names:
//   "limit_keys_arrived"   keys_seen == keys_planned, and no line without the
//                          key and no malformed line (measured = keys seen)
//   "limit_log_agrees"     the access log's 2xx / 429 / other counts against
//                          the engine's, per status, within the tolerance
//                          (measured = the largest difference, requests)
//   "limit_over_admission" over_admission <= max_fraction (a fraction)
//   "limit_window"         worst_window_admitted <= window_allowed *
//                          (1 + max_fraction) (requests)
// A check with nothing to judge (no key seen, statuses not counted) fails
// with measured NaN and says why.
ValidityCheck KeysArrivedCheck(const AccessLogCounts& log, int keys_planned);

// Tolerance: |log - engine| <= tolerance_fraction x (the engine's responses)
// + in_flight, per status class. The fraction (default 1 %) covers what the
// two sides legitimately disagree on inside the phase (a response the engine
// timed out on that nginx logged with its own status; a connection error);
// `in_flight` covers the phase's two ends: requests the engine had
// outstanding when it stopped (nginx logs them, the engine never counts
// them) and ones logged before the phase's first engine count. Pass the
// engine's connections (LoadResult::connections: each has at most one
// request outstanding) or 2 x that when both ends can overlap the log.
// The log's lines without a key or malformed have no status in the reduced
// log and are left out (KeysArrivedCheck fails them).
inline constexpr double kLogEngineTolerance = 0.01;
ValidityCheck LogAgreesWithEngineCheck(const AccessLogCounts& log, uint64_t engine_2xx, uint64_t engine_429,
                                       uint64_t engine_other, uint64_t in_flight,
                                       double tolerance_fraction = kLogEngineTolerance);
// The same from pace.lua's status_counts (engine/wrk_output.h
// WrkOutput::status_counts: HTTP status -> responses): 200..299, 429, the
// rest. An empty map (statuses not counted: FVBENCH_COUNT_RATELIMIT unset)
// fails with measured NaN.
ValidityCheck LogAgreesWithEngineCheck(const AccessLogCounts& log, const std::map<int, uint64_t>& status_counts,
                                       uint64_t in_flight, double tolerance_fraction = kLogEngineTolerance);

// "limit_overload": each key must be offered at least min_ratio x what its
// bucket allows over the window (offered_rps / keys_planned x window_s
// against allowed_per_key): below that, a limiter that admits everything
// admits no more than the bucket allows and over-admission cannot show.
// (measured = the ratio; fails as NaN without keys or window).
inline constexpr double kMinOverload = 1.25;
ValidityCheck OverloadCheck(const LimitAccuracy& acc, double min_ratio = kMinOverload);

// The same before the load, from the plan: each key offered `overload` x
// the bucket's rate for `dur_s` seconds against rate x dur_s + burst. Err
// naming LIMITS_OVERLOAD and LIMITS_DUR when the ratio is under min_ratio.
Result<void> CheckPlannedOverload(double overload, double dur_s, const TokenBucketLimit& limit,
                                  double min_ratio = kMinOverload);

inline constexpr double kMaxOverAdmission = 0.02;
ValidityCheck OverAdmissionCheck(const LimitAccuracy& acc, double max_fraction = kMaxOverAdmission);
ValidityCheck WindowCheck(const LimitAccuracy& acc, double max_fraction = kMaxOverAdmission);

}  // namespace fvbench
