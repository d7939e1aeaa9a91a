#include "support/judge/policy_rule.h"

#include <fmt/format.h>

#include <vector>

#include "support/core/text.h"

namespace fvbench {

Result<nlohmann::json> OneRuleOfPolicy(std::string_view policy_json, std::string_view policy_id,
                                       std::string_view algorithm) {
  const std::string where = fmt::format("policy '{}'", policy_id);
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(policy_json);
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: the bundle is not valid JSON: {}", where, e.what())};
  }
  const auto policies = doc.is_object() ? doc.find("policies") : doc.end();
  if (!doc.is_object() || policies == doc.end() || !policies->is_array()) {
    return Error{fmt::format("{}: the bundle has no `policies` list", where)};
  }
  const nlohmann::json* policy = nullptr;
  std::string ids;
  for (const auto& p : *policies) {
    const auto id = p.is_object() ? p.find("id") : p.end();
    if (!p.is_object() || id == p.end() || !id->is_string()) continue;
    ids += (ids.empty() ? "" : ", ") + id->get<std::string>();
    if (id->get<std::string>() != policy_id) continue;
    if (policy != nullptr) return Error{fmt::format("{}: the bundle has two policies of that id", where)};
    policy = &p;
  }
  if (policy == nullptr) {
    return Error{fmt::format("{}: not in the bundle (its policies: {})", where, ids.empty() ? "none" : ids)};
  }
  const auto spec = policy->find("spec");
  const nlohmann::json* rules = nullptr;
  if (spec != policy->end() && spec->is_object()) {
    if (const auto it = spec->find("rules"); it != spec->end() && it->is_array()) rules = &*it;
  }
  if (rules == nullptr) return Error{fmt::format("{}: no `spec.rules` list", where)};
  std::vector<const nlohmann::json*> found;
  std::string names;
  for (const auto& r : *rules) {
    if (!r.is_object() || r.value("algorithm", nlohmann::json()) != algorithm) continue;
    found.push_back(&r);
    names += fmt::format("{}{}", names.empty() ? "" : ", ", r.value("name", nlohmann::json("")).dump());
  }
  if (found.empty()) return Error{fmt::format("{}: no rule with \"algorithm\": \"{}\"", where, algorithm)};
  if (found.size() > 1) {
    return Error{fmt::format("{}: {} {} rules ({}), expected exactly one", where, found.size(), algorithm, names)};
  }
  return *found[0];
}

std::string KeyHeaderProblem(const nlohmann::json& rule, std::string_view header) {
  const auto keys = rule.find("limit_keys");
  const std::string shown = keys == rule.end() ? "no limit_keys" : keys->dump();
  const std::string want = "header:" + detail::AsciiLower(header);
  if (keys != rule.end() && keys->is_array() && keys->size() == 1 && (*keys)[0].is_string() &&
      detail::AsciiLower((*keys)[0].get<std::string>()) == want) {
    return "";
  }
  const nlohmann::json algorithm = rule.value("algorithm", nlohmann::json("limiting"));
  return fmt::format("its {} rule {} limits by {}, but the load sends its keys in {}: the rule must "
                     "limit by exactly [\"header:{}\"], or every request shares the buckets of fewer keys",
                     algorithm.is_string() ? algorithm.get<std::string>() : algorithm.dump(),
                     rule.value("name", nlohmann::json("")).dump(), shown, header, header);
}

}  // namespace fvbench
