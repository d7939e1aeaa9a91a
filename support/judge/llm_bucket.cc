#include "support/judge/llm_bucket.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "support/core/units_format.h"
#include "support/judge/policy_rule.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

// A positive finite number at `field` of `obj` (`path` names obj in
// messages), or "" with `value` set; else what is wrong.
std::string PositiveNumber(const nlohmann::json& obj, const std::string& path, const char* field, double& value) {
  const auto it = obj.find(field);
  if (it == obj.end()) return fmt::format("{} has no `{}`", path, field);
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() <= 0) {
    return fmt::format("{}.{} is {}, not a positive number", path, field, it->dump());
  }
  value = it->get<double>();
  return "";
}

// What edge's llm_limiter.validate_config refuses at load: found here, before
// edge starts.
std::string ConfigRefusedByEdge(const nlohmann::json& config) {
  double per_minute = 0, burst_tokens = 0;
  if (std::string why = PositiveNumber(config, "algorithm_config", "tokens_per_minute", per_minute); !why.empty()) {
    return why + " (edge refuses the rule)";
  }
  if (config.contains("burst_tokens")) {
    if (std::string why = PositiveNumber(config, "algorithm_config", "burst_tokens", burst_tokens); !why.empty()) {
      return why + " (edge refuses the rule)";
    }
    if (burst_tokens < per_minute) {
      return fmt::format("algorithm_config.burst_tokens {} is below tokens_per_minute {} (edge refuses the rule)",
                         FormatNumber(burst_tokens), FormatNumber(per_minute));
    }
  }
  return "";
}

// Fields that would reject or charge requests beside the bucket.
std::string OtherLimits(const nlohmann::json& config) {
  static const struct {
    const char* field;
    const char* why;
  } kRefused[] = {
      {"tokens_per_day", "a per-UTC-day token counter that outlives the phase and rejects beside the bucket"},
      {"max_prompt_tokens", "rejects requests by their prompt estimate, beside the bucket"},
      {"max_tokens_per_request", "rejects requests by their estimated total, beside the bucket"},
  };
  for (const auto& r : kRefused) {
    if (const auto it = config.find(r.field); it != config.end()) {
      return fmt::format("algorithm_config.{} is {}: {}; the scenario judges the bucket alone, leave it out", r.field,
                         it->dump(), r.why);
    }
  }
  const auto source = config.find("token_source");
  if (source == config.end()) return "";
  if (!source->is_object()) return fmt::format("algorithm_config.token_source is {}, not an object", source->dump());
  const auto estimator = source->find("estimator");
  if (estimator != source->end() && *estimator != "simple_word") {
    return fmt::format("algorithm_config.token_source.estimator is {}: only \"simple_word\" keeps a request's cost "
                       "at default_max_completion (header_hint adds the request's X-Token-Estimate)",
                       estimator->dump());
  }
  return "";
}

// C: default_max_completion, capped at max_completion_tokens when set.
std::string CostOf(const nlohmann::json& config, double& cost) {
  if (!config.contains("default_max_completion")) {
    return "algorithm_config has no `default_max_completion`: edge would charge its own default (1000) per "
           "request; write the cost in the policy";
  }
  if (std::string why = PositiveNumber(config, "algorithm_config", "default_max_completion", cost); !why.empty()) {
    return why;
  }
  if (config.contains("max_completion_tokens")) {
    double cap = 0;
    if (std::string why = PositiveNumber(config, "algorithm_config", "max_completion_tokens", cap); !why.empty()) {
      return why;
    }
    cost = std::min(cost, cap);
  }
  return "";
}

std::string BucketOf(const nlohmann::json& config, LlmBucket& b) {
  const auto bucket = config.find("_tpm_bucket_config");
  if (bucket == config.end() || !bucket->is_object()) {
    return "algorithm_config has no `_tpm_bucket_config` object: edge at f3116f9 runs the bucket written there "
           "(its derived one never reaches the rule) and fails every request without it";
  }
  const std::string path = "algorithm_config._tpm_bucket_config";
  if (std::string why = PositiveNumber(*bucket, path, "tokens_per_second", b.tokens_per_second); !why.empty()) {
    return why;
  }
  if (std::string why = PositiveNumber(*bucket, path, "burst", b.burst_tokens); !why.empty()) return why;
  if (b.burst_tokens < b.cost_tokens) {
    return fmt::format("{}.burst {} is below a request's cost {}: no request could ever be admitted", path,
                       FormatNumber(b.burst_tokens), FormatNumber(b.cost_tokens));
  }
  return "";
}

}  // namespace

Result<LlmBucket> LlmBucketOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                    std::string_view key_header) {
  auto rule = OneRuleOfPolicy(policy_json, policy_id, "token_bucket_llm");
  if (!rule) return rule.error();
  LlmBucket b;
  const nlohmann::json name = rule->value("name", nlohmann::json(""));
  b.rule = name.is_string() ? name.get<std::string>() : name.dump();
  const std::string where = fmt::format("policy '{}': token_bucket_llm rule {}", policy_id, name.dump());
  if (!key_header.empty()) {
    if (std::string why = KeyHeaderProblem(*rule, key_header); !why.empty()) {
      return Error{fmt::format("policy '{}': {}", policy_id, why)};
    }
  }
  const auto config = rule->find("algorithm_config");
  if (config == rule->end() || !config->is_object()) {
    return Error{fmt::format("{}: no algorithm_config object", where)};
  }
  for (auto step : {ConfigRefusedByEdge, OtherLimits}) {
    if (std::string why = step(*config); !why.empty()) return Error{fmt::format("{}: {}", where, why)};
  }
  if (std::string why = CostOf(*config, b.cost_tokens); !why.empty()) return Error{fmt::format("{}: {}", where, why)};
  if (std::string why = BucketOf(*config, b); !why.empty()) return Error{fmt::format("{}: {}", where, why)};
  b.per_request = {b.tokens_per_second / b.cost_tokens, b.burst_tokens / b.cost_tokens};
  return b;
}

std::string DescribeLlmBucket(const LlmBucket& b) {
  return fmt::format(
      "token_bucket_llm rule \"{}\": every request costs {} tokens (default_max_completion, capped at "
      "max_completion_tokens; edge reads no request body), charged once; its _tpm_bucket_config ({} tokens/s, burst "
      "{}) is judged as {} requests/s, burst {} per key",
      b.rule, FormatNumber(b.cost_tokens), FormatNumber(b.tokens_per_second), FormatNumber(b.burst_tokens),
      FormatNumber(b.per_request.rate_per_s), FormatNumber(b.per_request.burst));
}

}  // namespace fvbench
