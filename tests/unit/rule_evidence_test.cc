// RuleEvidenceCheck over edge's /metrics text (its health.lua _render format).
#include "support/judge/rule_evidence.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace fvbench::rule_evidence_test {
namespace {

using ::testing::HasSubstr;

// As edge renders it: HELP/TYPE comments, sorted series, other metrics around.
std::string Metrics(double decisions, double limiter, const std::string& missing = "") {
  std::string t =
      "# HELP fairvisor_build_info \n# TYPE fairvisor_build_info gauge\nfairvisor_build_info{version=\"0.1\"} 1\n"
      "# HELP fairvisor_decisions_total Decisions\n# TYPE fairvisor_decisions_total counter\n";
  // Counted twice per request by edge: not the denominator.
  t += "fairvisor_decisions_total{action=\"allow\",policy=\"bench-complex\"} " + std::to_string(2 * decisions) + "\n";
  t += "fairvisor_policy_evaluations_total{policy_id=\"bench-complex\"} " + std::to_string(decisions - 1) + "\n";
  t += "fairvisor_policy_evaluations_total{policy_id=\"other\"} 1\n";
  if (!missing.empty()) t += missing;
  t += "# TYPE fairvisor_limiter_result_total counter\n";
  t += "fairvisor_limiter_result_total{algorithm=\"token_bucket\",allowed=\"true\"} " + std::to_string(limiter) + "\n";
  t += "fairvisor_ratelimit_remaining{policy=\"bench-complex\",route=\"/\",window=\"request\"} 99999998";
  return t;
}

const std::vector<std::string> kRules = {"bench-complex/ip-rate", "bench-complex/org-rate", "bench-complex/user-rate"};

TEST(RuleEvidence, EveryRuleRanOnEveryDecision) {
  auto c = ParseEdgeRuleCounters(Metrics(1000, 3000));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(*c->evaluations, 1000);
  EXPECT_EQ(*c->limiter_results, 3000);
  ValidityCheck v = RuleEvidenceCheck(*c, kRules);
  EXPECT_TRUE(v.passed) << v.detail;
  EXPECT_EQ(v.measured, 3);
  EXPECT_EQ(v.limit, 3);
  EXPECT_EQ(v.detail,
            "3.00 limiter runs per policy evaluation for 3 rules (bench-complex/ip-rate, bench-complex/org-rate, "
            "bench-complex/user-rate); 0 missing limit keys (edge /metrics of the worker that answered, 1000 "
            "evaluations)");
}

// A JWT without the org_id claim: edge skips org-rate on every request and
// counts the missing key (it logs it at warn, which a quieter log level hides).
TEST(RuleEvidence, ASkippedRuleIsNamedByItsKey) {
  auto c = ParseEdgeRuleCounters(
      Metrics(1000, 2000, "fairvisor_descriptor_missing_total{key=\"jwt:org_id\"} 1000\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  ValidityCheck v = RuleEvidenceCheck(*c, kRules);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.measured, 2);
  EXPECT_THAT(v.detail, HasSubstr("1000 missing limit keys (jwt:org_id 1000): a rule needing it was skipped"));
  // Fewer limiter runs than rules, without a missing key (a rule matched no request): failed too.
  auto fewer = ParseEdgeRuleCounters(Metrics(1000, 2500));
  ASSERT_TRUE(fewer.ok());
  EXPECT_FALSE(RuleEvidenceCheck(*fewer, kRules).passed);
}

TEST(RuleEvidence, NoCountersIsNoEvidence) {
  auto none = ParseEdgeRuleCounters("# HELP x\nfairvisor_build_info{version=\"0.1\"} 1\n");
  ASSERT_TRUE(none.ok());
  ValidityCheck v = RuleEvidenceCheck(*none, kRules);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(std::isnan(v.measured));
  EXPECT_THAT(v.detail, HasSubstr("fairvisor_policy_evaluations_total absent"));
  auto bad = ParseEdgeRuleCounters("fairvisor_policy_evaluations_total{policy_id=\"p\"} many\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "edge /metrics line 1: 'fairvisor_policy_evaluations_total{policy_id=\"p\"} many': the value is not a "
            "count");
}

TEST(RuleEvidence, LimiterRulesOfABundle) {
  auto rules = LimiterRules(R"({"bundle_version":1,"policies":[{"id":"p","spec":{"rules":[
      {"name":"a","algorithm":"token_bucket","limit_keys":["ip:address"]},
      {"name":"b","algorithm":"token_bucket","limit_keys":["jwt:sub"]}],
      "loop_detection":{"enabled":true}}}]})");
  ASSERT_TRUE(rules.ok()) << rules.error().message;
  EXPECT_THAT(*rules, ::testing::ElementsAre("p/a", "p/b"));
  EXPECT_FALSE(LimiterRules("{}").ok());
  auto not_json = LimiterRules("not json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_THAT(not_json.error().message, HasSubstr("not JSON: "));
  EXPECT_THAT(not_json.error().message, HasSubstr("at line 1, column 2"));
}

TEST(RuleEvidence, InputsNotReadFailWithoutNumbers) {
  ValidityCheck v = RuleEvidenceNotRead("edge /metrics: curl exited 7");
  EXPECT_EQ(v.name, "rule_evidence");
  EXPECT_FALSE(v.passed);
  EXPECT_FALSE(v.informational);
  EXPECT_TRUE(std::isnan(v.measured));
  EXPECT_TRUE(std::isnan(v.limit));
  EXPECT_EQ(v.detail, "edge /metrics: curl exited 7");
}

}  // namespace
}  // namespace fvbench::rule_evidence_test
