// One rule of an edge policy bundle: found by the policy's id and the rule's
// algorithm, and whether it limits by exactly one request header. Pure.
//
// Source of the bundle's shape: edge's bundle_loader.lua: {"policies": [{"id",
// "spec": {"rules": [{"name", "limit_keys", "algorithm",
// "algorithm_config"}]}}]}; limit_keys "header:<name>" names a request header,
// compared without case (HTTP's header names are).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

// The one rule with "algorithm": `algorithm` of policy `policy_id` (a copy;
// other algorithms beside it are left alone). Err, each starting
// "policy '<id>': ": not JSON, no `policies` list, no policy of that id (the
// ids present are named) or two of it, no `spec.rules` list, no rule of that
// algorithm, or more than one (their names listed).
Result<nlohmann::json> OneRuleOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                       std::string_view algorithm);

// "" when `rule` limits by exactly ["header:<header>"]; else why not, naming
// the rule (by its algorithm and name) and what it limits by: the load's keys
// travel in that header, and any other key makes them share fewer buckets.
std::string KeyHeaderProblem(const nlohmann::json& rule, std::string_view header);

}  // namespace fvbench
