#include "support/judge/thresholds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "support/judge/reference.h"
#include "tests/unit/k6_series.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::thresholds_test {
namespace {

using testing_samples::K6Phase;
using testing_samples::SampleLatency;
using testing_samples::SetTails;
using testing_samples::SampleThroughput;

std::string SourceDir() { return FVBENCH_SOURCE_DIR; }

constexpr const char* kExample = R"({"schema_version": 1, "description": "example",
  "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": 20000}, "error_rate": {"<=": 0.01}},
                "throughput.simple": {"rps": {">=": 500}, "error_rate": {"<": 0.01}}}})";

TEST(Thresholds, ParsesTheDocumentedExampleInFileOrder) {
  auto p = ParseThresholdProfile(kExample, "t.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->description, "example");
  ASSERT_EQ(p->scenarios.size(), 2u);
  const auto* lat = p->rules_for("latency.raw_nginx");
  ASSERT_NE(lat, nullptr);
  ASSERT_EQ(lat->size(), 2u);
  EXPECT_EQ((*lat)[0].metric, "p99_us");
  EXPECT_EQ((*lat)[0].op, "<=");
  EXPECT_EQ((*lat)[0].limit, 20000);
  EXPECT_EQ((*lat)[1].metric, "error_rate");
  EXPECT_EQ(p->rules_for("throughput.complex"), nullptr);
}

TEST(Thresholds, KernelCounterMaximaInFileOrder) {
  auto p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {},
      "kernel_counters": {"Tcp.RetransSegs": {"<=": 100}, "TcpExt.TCPTimeouts": {"<": 1}}})",
                                 "t.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->kernel_limits.size(), 2u);
  EXPECT_EQ(p->kernel_limits[0].counter, "Tcp.RetransSegs");
  EXPECT_EQ(p->kernel_limits[0].op, "<=");
  EXPECT_EQ(p->kernel_limits[0].limit, 100u);
  EXPECT_EQ(p->kernel_limits[1].counter, "TcpExt.TCPTimeouts");
  EXPECT_EQ(p->kernel_limits[1].op, "<");
  EXPECT_EQ(p->kernel_limits[1].limit, 1u);
  EXPECT_TRUE(ParseThresholdProfile(kExample, "t.json")->kernel_limits.empty());
}

TEST(Thresholds, SeveralOperatorsOnOneMetric) {
  auto p = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {">": 0, "<=": 20000}}}})", "t.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->rules_for("latency.raw_nginx")->size(), 2u);
  EXPECT_EQ((*p->rules_for("latency.raw_nginx"))[0].op, ">");
}

struct BadCase {
  const char* name;  // test name suffix
  const char* text;
  const char* fragment;
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class ThresholdErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ThresholdErrors, NameFileKeyPathAndAllowedValues) {
  auto p = ParseThresholdProfile(GetParam().text, "bad.json");
  ASSERT_FALSE(p.ok());
  const std::string& m = p.error().message;
  EXPECT_EQ(m.rfind("bad.json: ", 0), 0u) << m;
  EXPECT_NE(m.find(GetParam().fragment), std::string::npos) << m;
}

INSTANTIATE_TEST_SUITE_P(
    Thresholds, ThresholdErrors,
    ::testing::Values(
        BadCase{"NotJson", "{", "not valid JSON"},
        BadCase{"DuplicateOperator",
                R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": 100, "<=": 200000}}}})",
                "scenarios.latency.raw_nginx.p99_us: the key '<=' appears twice"},
        BadCase{"DuplicateMetric",
                R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": 100}, "p99_us": {}}}})",
                "scenarios.latency.raw_nginx: the key 'p99_us' appears twice"},
        BadCase{"DuplicateTopKey", R"({"schema_version": 1, "scenarios": {}, "scenarios": {}})",
                "bad.json: the key 'scenarios' appears twice"},
        BadCase{"NoSchemaVersion", R"({"scenarios": {}})", "schema_version: missing"},
        BadCase{"SchemaVersion2", R"({"schema_version": 2, "scenarios": {}})", "schema_version: unsupported value 2"},
        BadCase{"NoScenarios", R"({"schema_version": 1})", "scenarios: missing"},
        BadCase{"UnknownTopKey", R"({"schema_version": 1, "scenario": {}})",
                "scenario: unknown key (allowed: schema_version, description, scenarios, kernel_counters)"},
        BadCase{"KernelCounterNotWatched",
                R"({"schema_version": 1, "scenarios": {}, "kernel_counters": {"Tcp.InSegs": {"<=": 1}}})",
                "kernel_counters.Tcp.InSegs: not a watched kernel counter (allowed: Tcp.RetransSegs, "
                "TcpExt.TCPTimeouts,"},
        BadCase{"KernelCounterMinimum",
                R"({"schema_version": 1, "scenarios": {}, "kernel_counters": {"Tcp.RetransSegs": {">=": 1}}})",
                "kernel_counters.Tcp.RetransSegs.>=: unknown operator (a kernel counter takes a maximum: <=, <)"},
        BadCase{"KernelCounterFraction",
                R"({"schema_version": 1, "scenarios": {}, "kernel_counters": {"Tcp.RetransSegs": {"<=": 1.5}}})",
                "kernel_counters.Tcp.RetransSegs.<=: limit must be a whole number 0..2^53"},
        BadCase{"KernelCounterNegative",
                R"({"schema_version": 1, "scenarios": {}, "kernel_counters": {"TcpExt.PruneCalled": {"<": -1}}})",
                "kernel_counters.TcpExt.PruneCalled.<: limit must be a whole number"},
        BadCase{"KernelCountersNotAnObject", R"({"schema_version": 1, "scenarios": {}, "kernel_counters": [1]})",
                "kernel_counters: expected an object of counter"},
        BadCase{"UnknownScenario", R"({"schema_version": 1, "scenarios": {"latency.nginx": {}}})",
                "scenarios.latency.nginx: unknown scenario (allowed: latency.raw_nginx, latency.decision_service, "
                "latency.reverse_proxy, throughput.simple, throughput.complex, throughput.llm, limits.accuracy, "
                "limits.llm, limits.reject_cost, limits.keys)"},
        BadCase{"UnknownMetric", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p95_us": {"<": 1}}}})",
                "scenarios.latency.raw_nginx.p95_us: unknown metric (allowed for latency scenarios: p50_us, "
                "p90_us, p99_us, p999_us, max_us, error_rate, achieved_rps, p99_drift)"},
        BadCase{"RpsOnLatencyScenario", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"rps": {">": 1}}}})",
                "scenarios.latency.raw_nginx.rps: unknown metric (allowed for latency scenarios"},
        BadCase{"AchievedRpsOnThroughputScenario", R"({"schema_version": 1, "scenarios": {"throughput.llm": {"achieved_rps": {">": 1}}}})",
                "scenarios.throughput.llm.achieved_rps: unknown metric (allowed for throughput scenarios: rps, "
                "error_rate"},
        BadCase{"UnknownOperator", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"=<": 1}}}})",
                "scenarios.latency.raw_nginx.p99_us.=<: unknown operator (allowed: <=, <, >=, >)"},
        BadCase{"StringLimit", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": "20ms"}}}})",
                "scenarios.latency.raw_nginx.p99_us.<=: limit must be a number, got \"20ms\""},
        BadCase{"NullLimit", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": null}}}})",
                "limit must be a number, got null"},
        BadCase{"BareNumber", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": 20000}}})",
                "scenarios.latency.raw_nginx.p99_us: expected an object of operator -> limit"},
        BadCase{"EmptyOperators", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {}}}})",
                "scenarios.latency.raw_nginx.p99_us: expected an object of operator -> limit"},
        BadCase{"RatioToUnknown", R"({"schema_version": 1, "scenarios": {"latency.decision_service":
                      {"p99_us": {"<=": {"ratio_to": "same_run_raw_nginx", "factor": 3}}}}})",
                "scenarios.latency.decision_service.p99_us.<=.ratio_to: 'same_run_raw_nginx' is not a scenario to "
                "compare latency.decision_service with in the same run (allowed: latency.raw_nginx, "
                "latency.reverse_proxy)"},
        BadCase{"RatioToItself", R"({"schema_version": 1, "scenarios": {"latency.raw_nginx":
                      {"p99_us": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 3}}}}})",
                "'latency.raw_nginx' is not a scenario to compare latency.raw_nginx with"},
        BadCase{"RatioAcrossKinds", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"ratio_to": "latency.raw_nginx", "factor": 3}}}}})",
                "(allowed: throughput.simple, throughput.complex)"},
        BadCase{"RatioToReference", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"ratio_to": "reference", "factor": 0.85}}}}})",
                "scenarios.throughput.llm.rps.>=.ratio_to: 'reference' is not a scenario"},
        BadCase{"RatioUnknownKey", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"ratio_to": "throughput.simple", "max": 3}}}}})",
                "scenarios.throughput.llm.rps.>=.max: unknown key of a ratio limit (allowed: ratio_to, factor)"},
        BadCase{"RatioWithoutFactor", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"ratio_to": "throughput.simple"}}}}})",
                "scenarios.throughput.llm.rps.>=: ratio limit without factor"},
        BadCase{"RatioWithoutTarget", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"factor": 2}}}}})",
                "scenarios.throughput.llm.rps.>=: ratio limit without ratio_to"},
        BadCase{"RatioFactorNotPositive", R"({"schema_version": 1, "scenarios": {"throughput.llm":
                      {"rps": {">=": {"ratio_to": "throughput.simple", "factor": 0}}}}})",
                "scenarios.throughput.llm.rps.>=.factor: expected a finite number > 0, got 0"},
        BadCase{"P99DriftRatioLimit", R"({"schema_version": 1, "scenarios": {"latency.decision_service":
                      {"p99_drift": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 2}}}}})",
                "scenarios.latency.decision_service.p99_drift.<=: p99_drift takes an absolute limit, not a ratio "
                "limit"},
        BadCase{"P99DriftOnThroughputScenario",
                R"({"schema_version": 1, "scenarios": {"throughput.simple": {"p99_drift": {"<=": 0.5}}}})",
                "scenarios.throughput.simple.p99_drift: unknown metric (allowed for throughput scenarios"},
        BadCase{"P99DriftNegative",
                R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_drift": {"<=": -0.5}}}})",
                "a drift is a fraction |second half's p99 / first half's - 1|, 0..1000"},
        BadCase{"DescriptionNotString", R"({"schema_version": 1, "description": 7, "scenarios": {}})", "description: expected a string"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(Thresholds, ShippedProfilesParseAndCoverEveryScenario) {
  for (const char* name : {"portable.json", "ci-small.json", "reference-c7i.json", "portable-ratios.json"}) {
    std::string path = SourceDir() + "/thresholds/" + name;
    auto p = LoadThresholdProfile(path);
    ASSERT_TRUE(p.ok()) << p.error().message;
    EXPECT_FALSE(p->description.empty()) << name;
    for (const char* id : kLatencyScenarios) EXPECT_NE(p->rules_for(id), nullptr) << name << " " << id;
    for (const char* id : kThroughputScenarios) {
      const auto* rules = p->rules_for(id);
      ASSERT_NE(rules, nullptr) << name << " " << id;
      bool has_rps_floor = false;
      for (const auto& r : *rules) has_rps_floor |= r.metric == "rps" && (r.op == ">" || r.op == ">=");
      EXPECT_TRUE(has_rps_floor) << name << " " << id << ": a throughput scenario must require some rate";
    }
    for (const char* id : kLimitsScenarios) {
      const auto* rules = p->rules_for(id);
      ASSERT_NE(rules, nullptr) << name << " " << id;
      // limits.accuracy bounds over-admission; limits.reject_cost the rejected phase's p99.
      const std::string gated = std::string(id) == "limits.reject_cost" ? "reject_p99_ratio" : "over_admission";
      bool gates = false;
      for (const auto& r : *rules) gates |= r.metric == gated && (r.op == "<" || r.op == "<=");
      EXPECT_TRUE(gates) << name << " " << id << ": must bound " << gated;
    }
  }
}

// reference-c7i.json is derived from reference.json: p50/p99 <= round(1.5 x),
// rps >= floor(0.85 x). If one file changes, the other must follow.
TEST(Thresholds, ReferenceProfileMatchesReferenceJson) {
  auto ref = LoadReference(SourceDir() + "/reference.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  auto p = LoadThresholdProfile(SourceDir() + "/thresholds/reference-c7i.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  int compared = 0;
  for (const auto& s : p->scenarios) {
    for (const auto& r : s.rules) {
      // Not from the reference: the error rate, and the limits figures (a bucket's own bound).
      if (r.metric == "error_rate" || s.scenario_id.rfind("limits.", 0) == 0) continue;
      auto v = ref->value(s.scenario_id, r.metric);
      ASSERT_TRUE(v.has_value()) << s.scenario_id << " " << r.metric << " has no reference value";
      if (r.metric == "rps") {
        EXPECT_EQ(r.op, ">=");
        EXPECT_EQ(r.limit, std::floor(*v * 0.85)) << s.scenario_id;
      } else {
        EXPECT_EQ(r.op, "<=");
        EXPECT_EQ(r.limit, std::round(*v * 1.5)) << s.scenario_id << " " << r.metric;
      }
      ++compared;
    }
  }
  EXPECT_EQ(compared, 9);
}

ThresholdProfile Profile(const char* text) {
  auto p = ParseThresholdProfile(text, "t.json");
  EXPECT_TRUE(p.ok()) << p.error().message;
  return p.ok() ? *p : ThresholdProfile{};
}

TEST(Thresholds, EvaluateFillsMeasuredLimitReferenceAndVerdict) {
  ThresholdProfile p = Profile(R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {
      "p99_us": {"<=": 20000}, "p50_us": {"<": 50}, "error_rate": {"<=": 0.01}, "achieved_rps": {">=": 9000},
      "max_us": {"<": 1}}}})");
  auto ref = ParseReference(R"({"latency_us": {"raw_nginx": {"p50": 71, "p99": 446}}})", "ref.json");
  ASSERT_TRUE(ref.ok());
  ScenarioResult r = SampleLatency("latency.raw_nginx", 71.4, 1234);
  auto checks = Evaluate(p, r, &*ref);
  ASSERT_EQ(checks.size(), 5u);
  EXPECT_EQ(checks[0].metric, "p99_us");
  EXPECT_EQ(checks[0].measured, 1234);
  EXPECT_EQ(checks[0].limit, 20000);
  EXPECT_EQ(checks[0].reference, 446);
  EXPECT_TRUE(checks[0].passed);
  EXPECT_EQ(checks[1].metric, "p50_us");
  EXPECT_FALSE(checks[1].passed);  // 71.4 is not < 50
  EXPECT_EQ(checks[1].reference, 71);
  EXPECT_EQ(checks[2].metric, "error_rate");
  EXPECT_TRUE(checks[2].passed);
  EXPECT_FALSE(checks[2].reference.has_value());
  EXPECT_EQ(checks[3].measured, 9998.5);
  EXPECT_TRUE(checks[3].passed);
  EXPECT_FALSE(checks[4].passed);

  auto no_ref = Evaluate(p, r, nullptr);
  ASSERT_EQ(no_ref.size(), 5u);
  EXPECT_FALSE(no_ref[0].reference.has_value());
}

TEST(Thresholds, OperatorsAtTheBoundary) {
  ScenarioResult r = SampleLatency("latency.raw_nginx", 100, 500);
  auto eval = [&](const char* op) {
    std::string text = std::string(R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {")") +
                       op + R"(": 500}}}})";
    auto checks = Evaluate(Profile(text.c_str()), r, nullptr);
    EXPECT_EQ(checks.size(), 1u);
    return !checks.empty() && checks[0].passed;
  };
  EXPECT_TRUE(eval("<="));
  EXPECT_FALSE(eval("<"));
  EXPECT_TRUE(eval(">="));
  EXPECT_FALSE(eval(">"));
}

TEST(Thresholds, ReportedRpsIsTheMeasuredRate) {
  ThresholdProfile p = Profile(R"({"schema_version": 1, "scenarios": {"throughput.simple": {
      "rps": {">=": 1001}, "error_rate": {"<": 0.01}, "p99_us": {"<": 1000}}}})");
  auto ref = ParseReference(R"({"throughput_rps": {"simple": 110500}})", "ref.json");
  ASSERT_TRUE(ref.ok());
  // Knee at step 4: reported step 3, target 1000, measured 1001.2.
  ScenarioResult r = SampleThroughput("throughput.simple", {500, 699.8, 897, 1001.2, 1131}, 4, false);
  auto checks = Evaluate(p, r, &*ref);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].measured, 1001.2);
  EXPECT_TRUE(checks[0].passed);
  EXPECT_EQ(checks[0].reference, 110500);
  EXPECT_EQ(checks[1].measured, 0);
  EXPECT_TRUE(checks[1].passed);
  EXPECT_EQ(checks[2].measured, 900);
  EXPECT_FALSE(checks[2].reference.has_value());
}

TEST(Thresholds, UnmeasuredScenarioFailsEveryCheck) {
  ThresholdProfile p = Profile(R"({"schema_version": 1, "scenarios": {"latency.reverse_proxy": {
      "error_rate": {"<=": 1}, "p99_us": {">=": 0}}}})");
  ScenarioResult r;
  r.id = "latency.reverse_proxy";
  r.measured = false;
  r.error = "edge did not start";
  auto checks = Evaluate(p, r, nullptr);
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& c : checks) {
    EXPECT_FALSE(c.passed) << c.metric;
    EXPECT_TRUE(std::isnan(c.measured));
  }
  EXPECT_EQ(DescribeCheck(checks[1]), "p99_us = not measured (limit >= 0 µs)");
}

// p99_drift (judge/p99_drift.h): the phase's per-interval latency, second
// half's p99 against the first's; passes within the limit, fails beyond it,
// and is "not measured" (failing) for a phase without latency per interval
// (wrk) or with too few samples per half.
TEST(Thresholds, P99DriftPassesFailsOrIsNotMeasured) {
  ThresholdProfile p =
      Profile(R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_drift": {"<=": 0.5}}}})");
  ScenarioResult r = SampleLatency("latency.raw_nginx", 1000, 2000);
  r.load = K6Phase(10, 10);
  SetTails(r.load, 1000, 2000, 2400);
  std::vector<ThresholdCheck> checks = Evaluate(p, r, nullptr);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].metric, "p99_drift");
  EXPECT_NEAR(checks[0].measured, 0.2, 0.002);
  EXPECT_TRUE(checks[0].passed) << DescribeCheck(checks[0]);
  EXPECT_FALSE(checks[0].censored);
  EXPECT_EQ(DescribeCheck(checks[0]), "p99_drift = 19.96% (limit <= 50%)");  // 2400 µs read from its bucket
  SetTails(r.load, 1000, 2000, 4000);
  checks = Evaluate(p, r, nullptr);
  EXPECT_NEAR(checks[0].measured, 1.0, 0.002);
  EXPECT_FALSE(checks[0].passed);
  SetTails(r.load, 100, 2000, 2000);  // 500 samples per half
  checks = Evaluate(p, r, nullptr);
  EXPECT_TRUE(std::isnan(checks[0].measured));
  EXPECT_FALSE(checks[0].passed);
  r.load = SampleLatency("latency.raw_nginx", 1000, 2000).load;  // no series at all
  checks = Evaluate(p, r, nullptr);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(DescribeCheck(checks[0]), "p99_drift = not measured (limit <= 50%)");
}

TEST(Thresholds, NanMeasurementNeverPasses) {
  ThresholdProfile p =
      Profile(R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": 1e9, ">=": 0}}}})");
  ScenarioResult r = SampleLatency("latency.raw_nginx", 1, std::numeric_limits<double>::quiet_NaN());
  for (const auto& c : Evaluate(p, r, nullptr)) EXPECT_FALSE(c.passed) << c.op;
}

TEST(Thresholds, ScenarioWithoutRulesHasNoChecks) {
  ThresholdProfile p = Profile(kExample);
  EXPECT_TRUE(Evaluate(p, SampleLatency("latency.decision_service", 1, 2), nullptr).empty());
}

TEST(Thresholds, DescribeCheckSpellsUnits) {
  EXPECT_EQ(DescribeCheck({"p99_us", "<=", 1234, 20000, 446, true}),
            "p99_us = 1234 µs (limit <= 20000 µs; reference 446 µs)");
  EXPECT_EQ(DescribeCheck({"p50_us", "<", 71.42, 50, std::nullopt, false}), "p50_us = 71.4 µs (limit < 50 µs)");
  EXPECT_EQ(DescribeCheck({"error_rate", "<", 0.032, 0.01, std::nullopt, false}),
            "error_rate = 3.20% (limit < 1%)");
  EXPECT_EQ(DescribeCheck({"rps", ">=", 104200.4, 93925, 110500, true}),
            "rps = 104200 RPS (limit >= 93925 RPS; reference 110500 RPS)");
  EXPECT_EQ(DescribeCheck({"achieved_rps", ">", 0, 0, std::nullopt, false}),
            "achieved_rps = 0 RPS (limit > 0 RPS)");
}

}  // namespace
}  // namespace fvbench::thresholds_test

namespace fvbench::thresholds_test {
namespace {

ScenarioResult Measured(const std::string& id, double p99, double rps = 0) {
  ScenarioResult r;
  r.id = id;
  r.measured = true;
  r.load.latency_us.p99 = p99;
  r.throughput_rps = rps;
  return r;
}

TEST(Thresholds, RatioLimitsAreEvaluatedAgainstTheSameRun) {
  auto p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {
      "latency.decision_service": {"p99_us": {"<=": {"ratio_to": "latency.raw_nginx", "factor": 3}, "<": 5000}},
      "throughput.complex": {"rps": {">=": {"ratio_to": "throughput.simple", "factor": 0.5}}}}})",
                                 "ratios.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  const auto* rules = p->rules_for("latency.decision_service");
  ASSERT_EQ(rules->size(), 2u);
  EXPECT_EQ((*rules)[0].ratio_to, "latency.raw_nginx");
  EXPECT_EQ((*rules)[0].factor, 3);

  std::vector<ScenarioResult> run = {Measured("latency.raw_nginx", 446), Measured("latency.decision_service", 1400),
                                     Measured("throughput.simple", 0, 2000), Measured("throughput.complex", 0, 900)};
  // Evaluate (per scenario) checks only the absolute rule.
  auto abs = Evaluate(*p, run[1], nullptr);
  ASSERT_EQ(abs.size(), 1u);
  EXPECT_EQ(abs[0].limit, 5000);

  std::vector<std::string> skipped;
  auto lat = EvaluateRatios(*p, run[1], run, &skipped);
  ASSERT_EQ(lat.size(), 1u);
  EXPECT_FALSE(lat[0].passed);  // 1400 > 3 x 446 = 1338
  EXPECT_EQ(lat[0].limit, 1338);
  EXPECT_EQ(lat[0].base, 446);
  EXPECT_EQ(DescribeRatioCheck(lat[0]),
            "p99_us = 1400 µs = 3.14 x latency.raw_nginx (limit <= 3 x latency.raw_nginx's 446 µs = 1338 µs)");
  auto thr = EvaluateRatios(*p, run[3], run, &skipped);
  ASSERT_EQ(thr.size(), 1u);
  EXPECT_FALSE(thr[0].passed);  // 900 < 0.5 x 2000
  run[3].throughput_rps = 1000;
  EXPECT_TRUE(EvaluateRatios(*p, run[3], run, &skipped)[0].passed);
  EXPECT_TRUE(skipped.empty());
  EXPECT_TRUE(EvaluateRatios(*p, run[0], run, &skipped).empty());  // no ratio rules of its own

  // The yardstick not run (ctest -R): skipped, said so. Run but not measured: fails.
  std::vector<ScenarioResult> partial = {run[1]};
  EXPECT_TRUE(EvaluateRatios(*p, run[1], partial, &skipped).empty());
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(skipped[0], "p99_us <= 3 x latency.raw_nginx not evaluated: latency.raw_nginx was not run");
  run[0].measured = false;
  auto failed = EvaluateRatios(*p, run[1], run, nullptr);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_FALSE(failed[0].passed);
  EXPECT_EQ(DescribeRatioCheck(failed[0]),
            "p99_us = 1400 µs (limit <= 3 x latency.raw_nginx, which was not measured)");
}

}  // namespace
}  // namespace fvbench::thresholds_test

namespace fvbench::thresholds_test {
namespace {

// "throughput >= 0.85 x reference": limits relative to the reference file.
TEST(Thresholds, ReferenceRelativeLimits) {
  auto p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {
      "latency.raw_nginx": {"p99_us": {"<=": {"x_reference": 1.5}}},
      "throughput.simple": {"rps": {">=": {"x_reference": 0.85}, ">": 0}}}})",
                                 "rel.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ((*p->rules_for("throughput.simple"))[0].x_reference, 0.85);
  auto ref = ParseReference(R"({"latency_us": {"raw_nginx": {"p99": 446}}, "throughput_rps": {"simple": 110500}})",
                            "ref.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_TRUE(CheckReferenceCovers(*p, *ref).ok());

  auto thr = Evaluate(*p, Measured("throughput.simple", 0, 93925), &*ref);  // exactly 0.85 x 110500
  ASSERT_EQ(thr.size(), 2u);
  EXPECT_DOUBLE_EQ(thr[0].limit, 0.85 * 110500);
  EXPECT_TRUE(thr[0].passed);
  EXPECT_EQ(DescribeCheck(thr[0]), "rps = 93925 RPS (limit >= 93925 RPS; reference 110500 RPS)");
  EXPECT_FALSE(Evaluate(*p, Measured("throughput.simple", 0, 93924), &*ref)[0].passed);
  auto lat = Evaluate(*p, Measured("latency.raw_nginx", 700), &*ref);
  ASSERT_EQ(lat.size(), 1u);
  EXPECT_DOUBLE_EQ(lat[0].limit, 669);
  EXPECT_FALSE(lat[0].passed);

  // No reference value: never passes, and provision rejects the pair first.
  auto none = Evaluate(*p, Measured("throughput.simple", 0, 1e9), nullptr);
  EXPECT_FALSE(none[0].passed);
  EXPECT_EQ(DescribeCheck(none[0]), "rps = 1000000000 RPS (limit >= a multiple of the reference, which has no value)");
  auto partial = ParseReference(R"({"latency_us": {"raw_nginx": {"p99": 446}}})", "partial-ref.json");
  ASSERT_TRUE(partial.ok());
  auto covered = CheckReferenceCovers(*p, *partial);
  ASSERT_FALSE(covered.ok());
  EXPECT_EQ(covered.error().message,
            "rel.json: scenarios.throughput.simple.rps.>=: limit 0.85 x the reference, but reference "
            "partial-ref.json has no rps value for throughput.simple");
}

TEST(Thresholds, ReferenceRelativeLimitErrors) {
  struct Case {
    const char* text;
    const char* fragment;
  };
  const Case cases[] = {
      {R"({"schema_version": 1, "scenarios": {"throughput.llm": {"rps": {">=": {"x_reference": 0}}}}})",
       "bad.json: scenarios.throughput.llm.rps.>=.x_reference: expected a finite number > 0, got 0"},
      {R"({"schema_version": 1, "scenarios": {"throughput.llm": {"rps": {">=": {"x_reference": "0.85"}}}}})",
       "scenarios.throughput.llm.rps.>=.x_reference: expected a finite number > 0, got \"0.85\""},
      {R"({"schema_version": 1, "scenarios": {"throughput.llm": {"rps": {">=": {"x_reference": 0.8, "factor": 2}}}}})",
       "scenarios.throughput.llm.rps.>=.factor: unknown key of a reference limit (allowed: x_reference alone)"},
      {R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"max_us": {"<=": {"x_reference": 2}}}}})",
       "scenarios.latency.raw_nginx.max_us.<=.x_reference: a reference has no max_us for latency scenarios "
       "(x_reference allowed on: p50_us, p90_us, p99_us, p999_us)"},
      {R"({"schema_version": 1, "scenarios": {"throughput.llm": {"error_rate": {"<": {"x_reference": 2}}}}})",
       "(x_reference allowed on: rps)"},
      {R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": {"p99_us": {"<=": true}}}})",
       "limit must be a number, got true (or a ratio limit {\"ratio_to\": \"<scenario>\", \"factor\": <number>}, "
       "or a reference limit {\"x_reference\": <number>})"},
  };
  for (const Case& c : cases) {
    auto p = ParseThresholdProfile(c.text, "bad.json");
    ASSERT_FALSE(p.ok()) << c.text;
    EXPECT_NE(p.error().message.find(c.fragment), std::string::npos) << p.error().message;
  }
}

// A percentile among timed-out requests is a lower bound
// of the timeout; an upper limit on it fails whatever its value.
TEST(Thresholds, CensoredLatencyFailsAnUpperLimit) {
  auto profile = ParseThresholdProfile(
      R"({"schema_version":1,"scenarios":{"latency.raw_nginx":{"p999_us":{"<=":100000000},"p99_us":{"<=":5000}}}})",
      "t.json");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  ScenarioResult r;
  r.id = "latency.raw_nginx";
  r.measured = true;
  r.load.latency_us = {410, 620, 1900, 2e6, 2e6, 2e6};  // p99.9 and max censored at 2 s
  auto checks = Evaluate(*profile, r, nullptr);
  ASSERT_EQ(checks.size(), 2u);
  for (const ThresholdCheck& c : checks) {
    if (c.metric == "p999_us") {
      EXPECT_TRUE(c.censored);
      EXPECT_FALSE(c.passed) << "a lower bound of 2 s passed a 100 s limit";
      EXPECT_NE(DescribeCheck(c).find("p999_us = >= 2000000 µs (requests timed out"), std::string::npos) << DescribeCheck(c);
    } else {
      EXPECT_FALSE(c.censored);
      EXPECT_TRUE(c.passed);
    }
  }
}

}  // namespace
}  // namespace fvbench::thresholds_test

namespace fvbench::thresholds_test {
namespace {

std::string ProfileWith(const std::string& latency_rules) {
  return R"({"schema_version": 1, "scenarios": {"latency.raw_nginx": )" + latency_rules + "}}";
}

// fixtures/odd_inputs/thresholds-overflow.json:
// limits of 1e308 x reference, 1e308 µs, 5e-324 x reference and an error
// rate of 1e-320 were accepted; a check passed against "limit <= inf µs".
// Each is refused when the profile is read, naming scenario, metric and value.
TEST(Thresholds, OverflowingAndSubnormalLimitsAreRefusedWhenRead) {
  auto p = LoadThresholdProfile(FVBENCH_SOURCE_DIR "/fixtures/odd_inputs/thresholds-overflow.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("thresholds-overflow.json: scenarios.latency.raw_nginx.p99_us.<=.x_reference: "
                                   "1e+308 is above 1000000"),
            std::string::npos)
      << p.error().message;
  struct Bad {
    const char* rules;
    const char* fragment;
  };
  for (const Bad& b : {
           Bad{R"({"p50_us": {"<=": 1e308}})", "scenarios.latency.raw_nginx.p50_us.<=: limit 1e+308 is above 1e+15 (a latency"},
           Bad{R"({"p90_us": {">=": {"x_reference": 5e-324}}})",
               "scenarios.latency.raw_nginx.p90_us.>=.x_reference: 4.94e-324 is subnormal"},
           Bad{R"({"error_rate": {"<=": 1e-320}})", "scenarios.latency.raw_nginx.error_rate.<=: limit 1e-320 is subnormal"},
           Bad{R"({"error_rate": {"<": 5}})", "error_rate.<: limit 5 is above 1 (an error rate is a fraction 0..1)"},
           Bad{R"({"achieved_rps": {">": -1}})", "achieved_rps.>: limit -1 is below 0"},
           Bad{R"({"p99_us": {"<=": {"ratio_to": "latency.decision_service", "factor": 1e308}}})",
               "p99_us.<=.factor: 1e+308 is above 1000000"},
       }) {
    auto q = ParseThresholdProfile(ProfileWith(b.rules), "t.json");
    ASSERT_FALSE(q.ok()) << b.rules;
    EXPECT_NE(q.error().message.find(b.fragment), std::string::npos) << q.error().message;
  }
  // The limits a profile means stay accepted: 0, a small fraction, big but plausible numbers.
  EXPECT_TRUE(ParseThresholdProfile(ProfileWith(R"({"error_rate": {"<=": 0, "<": 1e-6}, "p99_us": {"<=": 6e7},
      "achieved_rps": {">": 0}, "p50_us": {"<=": {"x_reference": 1000}}})"), "t.json")
                  .ok());
}

// An x_reference limit whose product with the reference is no latency is
// refused before any load, naming scenario, metric and the numbers.
TEST(Thresholds, ReferenceLimitOutOfRangeIsRefusedBeforeLoad) {
  auto p = ParseThresholdProfile(ProfileWith(R"({"p99_us": {"<=": {"x_reference": 1e6}}})"), "t.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto ref = ParseReference(R"({"latency_us": {"raw_nginx": {"p99": 1e12}}})", "r.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  auto covered = CheckReferenceCovers(*p, *ref);
  ASSERT_FALSE(covered.ok());
  EXPECT_NE(covered.error().message.find("t.json: scenarios.latency.raw_nginx.p99_us.<=: limit 1000000 x the "
                                         "reference's 1000000000000 = 1e+18: 1e+18 is above 1e+15"),
            std::string::npos)
      << covered.error().message;
}

// A profile built in code (or one that slipped past the reader) with an
// infinite limit: no check passes against it, absolute, x_reference or ratio.
TEST(Thresholds, NoCheckPassesAgainstAnInfiniteLimit) {
  const double inf = std::numeric_limits<double>::infinity();
  ThresholdProfile p;
  p.source_name = "code";
  ThresholdRule absolute{"p99_us", "<=", inf, "", 0, 0};
  ThresholdRule relative{"p50_us", "<=", 0, "", 0, 1e300};
  ThresholdRule ratio{"p90_us", "<=", 0, "latency.decision_service", 1e300, 0};
  p.scenarios.push_back({"latency.raw_nginx", {absolute, relative, ratio}});
  ScenarioResult r = SampleLatency("latency.raw_nginx", 71.4, 446.2);
  auto ref = ParseReference(R"({"latency_us": {"raw_nginx": {"p50": 1e10}}})", "r.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  auto checks = Evaluate(p, r, &*ref);
  ASSERT_EQ(checks.size(), 2u);
  for (const ThresholdCheck& c : checks) {
    EXPECT_FALSE(c.passed) << DescribeCheck(c);
    EXPECT_EQ(DescribeCheck(c).find("inf"), std::string::npos) << DescribeCheck(c);
  }
  ScenarioResult yardstick = SampleLatency("latency.decision_service", 1e10, 1e11);
  auto ratios = EvaluateRatios(p, r, {r, yardstick}, nullptr);
  ASSERT_EQ(ratios.size(), 1u);
  EXPECT_FALSE(ratios[0].passed) << DescribeRatioCheck(ratios[0]);
  EXPECT_EQ(DescribeRatioCheck(ratios[0]).find("inf"), std::string::npos) << DescribeRatioCheck(ratios[0]);
}

// Limits scenarios: their own metrics, the worst of their phases.
TEST(Thresholds, LimitsMetricsGateTheWorstPhase) {
  auto p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {"limits.accuracy":
      {"over_admission": {"<=": 0.02}, "window_excess": {"<=": 0.05}, "under_admission": {"<=": 0.1},
       "p99_us": {"<": 100000}}}})",
                                 "x.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ScenarioResult r;
  r.id = "limits.accuracy";
  r.measured = true;
  r.load.latency_us = {100, 200, 300, 400, 500};
  LimitRun all, one;
  all.accuracy.over_admission = 0.5;  // a bucket per worker
  all.accuracy.worst_window_admitted = 60;
  all.accuracy.window_allowed = 30;
  one.accuracy.over_admission = 0;
  one.accuracy.worst_window_admitted = 30;
  one.accuracy.window_allowed = 30;
  one.accuracy.under_admission = 0.01;
  r.limits = {all, one};
  auto checks = Evaluate(*p, r, nullptr);
  ASSERT_EQ(checks.size(), 4u);
  EXPECT_EQ(checks[0].metric, "over_admission");
  EXPECT_DOUBLE_EQ(checks[0].measured, 0.5);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[1].metric, "window_excess");
  EXPECT_DOUBLE_EQ(checks[1].measured, 1.0);  // 60 / 30 - 1
  EXPECT_FALSE(checks[1].passed);
  EXPECT_DOUBLE_EQ(checks[2].measured, 0.01);
  EXPECT_TRUE(checks[2].passed);
  EXPECT_TRUE(checks[3].passed);
  r.limits = {one};
  checks = Evaluate(*p, r, nullptr);
  EXPECT_TRUE(checks[0].passed);
  EXPECT_TRUE(checks[1].passed);
  // No phase: nothing measured, nothing passes.
  r.limits.clear();
  EXPECT_FALSE(Evaluate(*p, r, nullptr)[0].passed);
}

TEST(Thresholds, LimitsMetricsBelongToLimitsScenariosOnly) {
  auto p = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"throughput.simple": {"over_admission": {"<=": 0.02}}}})", "x.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("unknown metric (allowed for throughput scenarios:"), std::string::npos)
      << p.error().message;
  p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {"limits.accuracy": {"rps": {">": 0}}}})",
                            "x.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("allowed for limits scenarios: over_admission, under_admission, window_excess"),
            std::string::npos)
      << p.error().message;
  p = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"limits.accuracy": {"p99_us": {"<=": {"x_reference": 2}}}}})", "x.json");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("x_reference allowed on: none"), std::string::npos) << p.error().message;
}

// limits.reject_cost: its ratios, rejected phase / admitted phase; not
// known (no figures) fails; the ratios belong to it alone.
TEST(Thresholds, RejectCostRatiosGateTheRejectedPhase) {
  auto p = ParseThresholdProfile(R"({"schema_version": 1, "scenarios": {"limits.reject_cost":
      {"reject_p99_ratio": {"<=": 2}, "reject_cpu_ratio": {"<=": 1.5}, "reject_p50_ratio": {"<": 2}}}})",
                                 "x.json");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ScenarioResult r;
  r.id = "limits.reject_cost";
  r.measured = true;
  r.load.latency_us = {100, 200, 300, 400, 500};
  RejectCostRun run;
  run.p50_ratio = 0.9;
  run.p99_ratio = 2.5;  // the rejected phase's p99 2.5 x the admitted one's
  run.cpu_ratio = 0.6;
  r.reject_cost = run;
  auto checks = Evaluate(*p, r, nullptr);
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].metric, "reject_p99_ratio");
  EXPECT_DOUBLE_EQ(checks[0].measured, 2.5);
  EXPECT_FALSE(checks[0].passed) << DescribeCheck(checks[0]);
  EXPECT_FALSE(checks[0].censored);
  EXPECT_TRUE(checks[1].passed) << DescribeCheck(checks[1]);
  EXPECT_TRUE(checks[2].passed) << DescribeCheck(checks[2]);
  r.reject_cost->p99_ratio = 1.2;
  EXPECT_TRUE(Evaluate(*p, r, nullptr)[0].passed);
  r.reject_cost.reset();
  for (const ThresholdCheck& c : Evaluate(*p, r, nullptr)) EXPECT_FALSE(c.passed) << DescribeCheck(c);
  auto bad = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"limits.accuracy": {"reject_p99_ratio": {"<=": 2}}}})", "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown metric"), std::string::npos) << bad.error().message;
  bad = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"limits.reject_cost": {"over_admission": {"<=": 0.02}}}})", "x.json");
  ASSERT_FALSE(bad.ok());
  bad = ParseThresholdProfile(
      R"({"schema_version": 1, "scenarios": {"limits.reject_cost": {"reject_p99_ratio": {"<=": 5000}}}})", "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("a ratio of the rejected phase"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace fvbench::thresholds_test
