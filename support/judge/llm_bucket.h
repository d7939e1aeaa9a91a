// The bucket of an LLM rule (algorithm token_bucket_llm) as the limits
// scenarios judge it: in requests, each request costing the fixed number of
// tokens edge charges it. Pure.
//
// Sources, edge at f3116f9 (src/fairvisor/):
// - decision_api.lua build_request_context puts neither the body nor
//   max_tokens in the request context, so llm_limiter.check estimates 0
//   prompt tokens (simple_word of an empty body) and charges every request
//   C = default_max_completion, capped at max_completion_tokens when set,
//   once, at request time: reconcile is called only from streaming.lua and
//   cost_extractor.lua, which nothing requires. The header_hint estimator
//   adds ceil(X-Token-Estimate) to that.
// - the bucket is token_bucket.check(dict, "tpm:llm:<rule>:<key>",
//   algorithm_config._tpm_bucket_config, C): {tokens_per_second, burst}
//   exactly as the policy writes it (bundle_loader validates a copy of
//   algorithm_config, so validate_config's derived _tpm_bucket_config never
//   reaches the rule); it starts full, refills continuously up to burst,
//   admits when tokens >= C and takes C; a rejection takes nothing.
// - tokens_per_day (a per-UTC-day counter, which outlives a phase),
//   max_prompt_tokens and max_tokens_per_request reject for other reasons.
//
// In requests, that bucket is exactly the token bucket of rate
// tokens_per_second / C and burst burst / C taking one per request (its
// state divided by C), for any numbers: over w seconds a key is admitted at
// most (rate * w + burst) / C requests; no multiple of C is required.
#pragma once

#include <string>
#include <string_view>

#include "support/core/limit_figures.h"
#include "support/core/result.h"

namespace fvbench {

struct LlmBucket {
  std::string rule;               // the rule's name
  double cost_tokens = 0;         // C: what each request takes
  double tokens_per_second = 0;   // _tpm_bucket_config.tokens_per_second
  double burst_tokens = 0;        // _tpm_bucket_config.burst
  TokenBucketLimit per_request;   // {tokens_per_second / C, burst / C}
};

// The one token_bucket_llm rule of policy `policy_id` (policy_rule.h's
// errors for finding it). Err, each naming the policy, the rule and the
// field: no algorithm_config object; tokens_per_minute not a positive number,
// or burst_tokens not one or below it (edge refuses both at load);
// default_max_completion missing (edge would charge its own default, 1000)
// or not a positive number; max_completion_tokens set and not a positive
// number; token_source not an object or its estimator other than
// "simple_word" (header_hint charges the request's X-Token-Estimate too);
// tokens_per_day, max_prompt_tokens or max_tokens_per_request set (state or
// rejections beside the bucket); _tpm_bucket_config missing, or its
// tokens_per_second or burst not a positive number; a burst below C (no
// request could ever be admitted). With `key_header`, also a rule that does
// not limit by exactly ["header:<key_header>"].
Result<LlmBucket> LlmBucketOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                    std::string_view key_header = "");

// One line for the scenario's notes: the rule, C and where it comes from,
// the bucket in tokens and in requests.
std::string DescribeLlmBucket(const LlmBucket& b);

}  // namespace fvbench
