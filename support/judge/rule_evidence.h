// Did every rule of the policy do its work? Read from edge's own counters,
// which do not depend on its log level: a rule that is silently skipped on
// every request is caught at every log level.
//
// Source: edge's GET /metrics (Prometheus text, fairvisor/edge
// src/fairvisor/health.lua _render: `name{labels} value` lines), counted in
// src/fairvisor/rule_engine.lua:
//   fairvisor_policy_evaluations_total one per policy evaluated for a request
//                                      (label policy_id; fairvisor_decisions_total
//                                      is not used: edge counts it twice per
//                                      request, in rule_engine.lua and
//                                      decision_api.lua)
//   fairvisor_limiter_result_total     one per rule whose limiter ran
//                                      (labels algorithm, allowed)
//   fairvisor_descriptor_missing_total one per limit key a rule needed and the
//                                      request lacked (label key); the rule is
//                                      then skipped for that request
// The counters live in each nginx worker's Lua state (not a shared dict):
// one read shows the worker that answered it, since that worker started.
// Ratios within it (limiter runs per policy evaluation) are what the check uses; a
// rule skipped on every request shows in every worker.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"
#include "support/core/validity_check.h"

namespace fvbench {

struct EdgeRuleCounters {
  std::optional<double> evaluations;      // fairvisor_policy_evaluations_total, summed over labels
  std::optional<double> limiter_results;  // fairvisor_limiter_result_total, summed
  double descriptor_missing = 0;          // fairvisor_descriptor_missing_total, summed
  std::map<std::string, double> missing_by_key;  // its `key` label -> count
};

// Sums the three metrics out of /metrics text. Lines of other metrics and
// comments are ignored; a line of these metrics whose value is not a number
// is an error naming the line.
Result<EdgeRuleCounters> ParseEdgeRuleCounters(std::string_view metrics_text);

// The rules of a policy bundle (fvbench's policy JSON, edge's bundle format:
// policies[].spec.rules[]) whose limiter runs on every request: each rule with
// limit_keys, named "<policy id>/<rule name>". Error naming the path when the
// JSON has no policies array.
Result<std::vector<std::string>> LimiterRules(std::string_view policy_json);

// "rule_evidence": passes when no limit key was missing and the limiter runs
// per policy evaluation reach the number of rules (within 1 %). measured =
// limiter runs per evaluation, limit = rules.size(). E.g.
//   "3.00 limiter runs per policy evaluation for 3 rules (bench-complex/ip-rate,
//    bench-complex/org-rate, bench-complex/user-rate); 0 missing limit keys
//    (edge /metrics of the worker that answered, 91234 evaluations)"
// A missing key names it: "... 91234 missing limit keys (jwt:org_id 91234):
// a rule needing it was skipped". No evaluation counted, or no metric at all:
// failed, saying so (an edge without these counters cannot show its rules).
ValidityCheck RuleEvidenceCheck(const EdgeRuleCounters& c, const std::vector<std::string>& rules);

// "rule_evidence" failed because its inputs could not be read (the policy
// file, edge's /metrics): measured and limit unmeasured (NaN), `why` the detail.
ValidityCheck RuleEvidenceNotRead(std::string why);

}  // namespace fvbench
