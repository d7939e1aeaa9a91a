#include "support/judge/rule_evidence.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

using detail::FormatFixed;
using detail::FormatNumber;

constexpr std::string_view kEvaluations = "fairvisor_policy_evaluations_total";
constexpr std::string_view kLimiter = "fairvisor_limiter_result_total";
constexpr std::string_view kMissing = "fairvisor_descriptor_missing_total";

// The `key="..."` label of a series ("" when absent).
std::string KeyLabel(std::string_view labels) {
  const size_t at = labels.find("key=\"");
  if (at == std::string_view::npos) return "";
  const size_t from = at + 5;
  const size_t end = labels.find('"', from);
  return std::string(labels.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from));
}

}  // namespace

Result<EdgeRuleCounters> ParseEdgeRuleCounters(std::string_view text) {
  EdgeRuleCounters c;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.empty() || line.front() == '#') continue;
    const size_t name_end = line.find_first_of("{ ");
    const std::string_view name = line.substr(0, name_end);
    if (name != kEvaluations && name != kLimiter && name != kMissing) continue;
    const size_t space = line.rfind(' ');
    const std::string value_text(line.substr(space == std::string_view::npos ? line.size() : space + 1));
    char* stop = nullptr;
    const double value = std::strtod(value_text.c_str(), &stop);
    if (value_text.empty() || stop != value_text.c_str() + value_text.size() || !std::isfinite(value) || value < 0) {
      return Error{fmt::format("edge /metrics line {}: '{}': the value is not a count", line_no, line)};
    }
    if (name == kEvaluations) {
      c.evaluations = c.evaluations.value_or(0) + value;
    } else if (name == kLimiter) {
      c.limiter_results = c.limiter_results.value_or(0) + value;
    } else {
      c.descriptor_missing += value;
      if (value > 0) c.missing_by_key[KeyLabel(line.substr(name_end, space - name_end))] += value;
    }
  }
  return c;
}

Result<std::vector<std::string>> LimiterRules(std::string_view policy_json) {
  if (auto nul = detail::RefuseNulBytes(policy_json, "the policy bundle"); !nul) return nul.error();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(policy_json);
  } catch (const nlohmann::json::parse_error& e) {
    return Error{fmt::format("not JSON: {}{}", e.what(), detail::AfterDocumentHint(e.what()))};
  }
  if (!doc.is_object() || !doc.contains("policies") || !doc["policies"].is_array()) {
    return Error{"the policy bundle has no `policies` array"};
  }
  std::vector<std::string> rules;
  for (const auto& p : doc["policies"]) {
    if (!p.is_object() || !p.contains("spec") || !p["spec"].is_object()) continue;
    const auto& spec = p["spec"];
    if (!spec.contains("rules") || !spec["rules"].is_array()) continue;
    const std::string id = p.contains("id") && p["id"].is_string() ? p["id"].get<std::string>() : "?";
    for (const auto& r : spec["rules"]) {
      if (!r.is_object() || !r.contains("limit_keys")) continue;
      const std::string name = r.contains("name") && r["name"].is_string() ? r["name"].get<std::string>() : "?";
      rules.push_back(id + "/" + name);
    }
  }
  return rules;
}

ValidityCheck RuleEvidenceNotRead(std::string why) {
  ValidityCheck v;
  v.name = "rule_evidence";
  v.passed = false;
  v.op = ">=";
  v.measured = v.limit = std::numeric_limits<double>::quiet_NaN();
  v.detail = std::move(why);
  return v;
}

ValidityCheck RuleEvidenceCheck(const EdgeRuleCounters& c, const std::vector<std::string>& rules) {
  ValidityCheck v;
  v.name = "rule_evidence";
  v.op = ">=";
  v.limit = static_cast<double>(rules.size());
  const std::string names = fmt::format("{}", fmt::join(rules, ", "));
  if (!c.evaluations || *c.evaluations <= 0 || !c.limiter_results) {
    v.passed = false;
    v.measured = std::numeric_limits<double>::quiet_NaN();
    v.detail = fmt::format("edge /metrics counted no policy evaluation (fairvisor_policy_evaluations_total {}, "
                           "fairvisor_limiter_result_total {}): the policy's {} rule(s) ({}) cannot be shown to have "
                           "run",
                           c.evaluations ? FormatNumber(*c.evaluations) : "absent",
                           c.limiter_results ? FormatNumber(*c.limiter_results) : "absent", rules.size(), names);
    return v;
  }
  v.measured = *c.limiter_results / *c.evaluations;
  std::string missing = fmt::format("{} missing limit keys", FormatNumber(c.descriptor_missing));
  if (c.descriptor_missing > 0) {
    std::vector<std::string> keys;
    for (const auto& [key, n] : c.missing_by_key) keys.push_back(fmt::format("{} {}", key, FormatNumber(n)));
    missing += fmt::format(" ({}): a rule needing it was skipped", fmt::join(keys, ", "));
  }
  v.passed = c.descriptor_missing == 0 && v.measured >= 0.99 * v.limit;
  v.detail = fmt::format("{} limiter runs per policy evaluation for {} rule{} ({}); {} (edge /metrics of the worker "
                         "that answered, {} evaluations)",
                         FormatFixed(v.measured, 2), rules.size(), rules.size() == 1 ? "" : "s", names, missing,
                         FormatNumber(*c.evaluations));
  return v;
}

}  // namespace fvbench
