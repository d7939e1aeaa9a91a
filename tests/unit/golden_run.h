// The run behind fixtures/golden/report.md (markdown_report_test) and the
// reference it is compared with; also rendered by cmark-gfm in
// markdown_gfm_test.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "support/judge/reference.h"
#include "support/core/scenario_result.h"
#include "tests/unit/report_samples.h"

namespace fvbench::testing_samples {

inline Reference TestReference() {
  auto ref = ParseReference(R"J({"meta": {"source": "test reference (c7i.2xlarge numbers)"},
      "latency_us": {"decision_service": {"p50": 112, "p90": 191, "p99": 426, "p999": 2990},
                     "reverse_proxy":    {"p50": 241, "p90": 376, "p99": 822, "p999": 2980},
                     "raw_nginx":        {"p50":  71, "p90": 190, "p99": 446, "p999": 1610}},
      "throughput_rps": {"simple": 110500, "complex": 67600},
      "throughput_ceiling_reached": {"complex": true}})J",
                            "test-reference.json");
  EXPECT_TRUE(ref.ok()) << ref.error().message;
  return ref.ok() ? *ref : Reference{};
}

// Every state the report shows: PASS with REPEAT spread and resources, FAIL
// by a threshold (engine fell behind), FAIL before measuring (with "|" and a
// backtick in the message), a PASSing bisect search with ratio checks, an
// INVALID ceiling run, and throughput.llm not run.
inline std::vector<ScenarioResult> GoldenRun() {
  using namespace testing_samples;
  std::vector<ScenarioResult> v;
  ScenarioResult raw = SampleLatency("latency.raw_nginx", 71.4, 446.2);
  raw.checks = {{"error_rate", "<", 0, 0.01, std::nullopt, true}, {"p99_us", "<=", 446.2, 100000, 446, true}};
  raw.repeats = {raw.load, raw.load, raw.load};
  raw.spread["p99_us"] = {420, 446.2, 1210};
  raw.validity = {{"engine_kept_up", true, false, ">=", 0.9998, 0.95, "achieved / target"},
                  {"unpinned", true, true, "", 0, 0, "engine and SUT share cores"}};
  raw.sut_usage = {{"baseline", 3, 1.42, 12.5, 13.0}};
  v.push_back(raw);
  ScenarioResult ds = SampleLatency("latency.decision_service", 304, 2000, 0.0004);
  ds.load.kept_up = false;
  ds.load.dropped_iterations = 1234;
  ds.notes.push_back("engine fell behind: 1234 dropped iterations\nresult is not valid at this rate");
  ds.checks = {{"p99_us", "<=", 2000, 639, 426, false}};
  v.push_back(ds);
  ScenarioResult rp;
  rp.id = "latency.reverse_proxy";
  rp.error = "fairvisor edge did not become healthy: `nginx -t` said a|b\n<html> in the body";
  v.push_back(rp);
  ScenarioResult simple = SampleBisectThroughput("throughput.simple", 60);
  simple.checks = {{"rps", ">=", simple.throughput_rps, 93925, 110500, true}};
  v.push_back(simple);
  ScenarioResult complex = SampleThroughput("throughput.complex", {499.9, 700, 899, 998.7, 1149, 1296.5}, -1, true);
  complex.ratio_checks = {{"rps", ">=", 1296.5, "throughput.simple", 0.25, simple.throughput_rps,
                           0.25 * simple.throughput_rps, true}};
  complex.validity = {{"loadgen_cpu", false, false, "<=", 0.972, 0.8, "cpus 0-1 busy"}};
  complex.sut_usage = {{"fv", 5, 3.1, 80.25, 96.5}, {"backend", 3, 0.4, 10, 10.5}};
  v.push_back(complex);
  return v;
}

}  // namespace fvbench::testing_samples
