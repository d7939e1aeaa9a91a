// The SUT side of a limits phase: the token bucket edge enforces, read from
// the copy of the policy it loaded, and the phase's access log reduced on the
// SUT host (limits_log.h), parsed and judged (judge/limits_log_parse.h,
// judge/limit_accuracy.h). The load itself is MeasurePhase's.
#pragma once

#include <string>

#include "support/core/limit_figures.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/host/host.h"

namespace fvbench {

// DRY_RUN plans a limits scenario without reading the policy: its per-key
// rate is taken as this many tokens per second (the bench-limits policy's).
inline constexpr double kDryRunLimitRate = 10;

// The access log window of a phase: its measured duration and this much
// more for the requests in flight at its end. Lines older than that are
// counted apart (AccessLogCounts::before_window).
inline constexpr int kLimitsWindowSlackMs = 500;

// The keys the policy-live probes send (never one of the load's k<i>): the
// load leaves their buckets empty, and a probe must be admitted. The probe
// after the load has a key of its own: a small bucket (limits.keys' one
// token per 100 s) has not refilled the first probe's token by then.
inline constexpr char kLimitsProbeKey[] = "fvbench-probe";
inline constexpr char kLimitsAfterLoadProbeKey[] = "fvbench-probe-after-load";

// The access log's bins, in milliseconds: ten per second, so that the worst
// 1 s window slides in 100 ms steps.
inline constexpr int kLimitsBinMs = 100;

// The bucket a limits phase is judged by, in requests, and what the
// scenario's notes say of it ("" for a token_bucket rule: its tokens are
// requests).
struct PolicyBucket {
  TokenBucketLimit limit;
  std::string note;
};

// The policy `policy_id`'s one rule of `algorithm` in the file edge loaded
// on the SUT host, which must limit by the load's key header
// (kBenchKeyHeader): "token_bucket" (judge/limit_accuracy.h
// TokenBucketOfPolicy) or "token_bucket_llm" (judge/llm_bucket.h
// LlmBucketOfPolicy, its bucket divided by a request's cost). Errors name
// the host, the file and what was wrong; another algorithm is refused.
Result<PolicyBucket> ReadTokenBucket(Host& sut, const std::string& policy_path, const std::string& policy_id,
                                     const std::string& algorithm = "token_bucket");

// After a limits phase: the access log at `log_path` reduced on the SUT host
// and parsed; the phase gains the checks that the keys arrived and that the
// log agrees with the engine's counts, and, informational (the threshold
// profile gates the figures), the over-admission and 1 s window read against
// the bucket; returns the accuracy at the phase's
// target rate. Errors (the log could not be read or parsed) name the host and
// the log; the phase's load stays measured.
Result<LimitAccuracy> JudgeLimitPhase(Host& sut, const std::string& log_path, const TokenBucketLimit& limit,
                                      int keys, MeasuredPhase& phase);

}  // namespace fvbench
