#include "support/judge/reference.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "support/report/markdown_report.h"
#include "support/report/summary_table.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::reference_test {
namespace {

std::string SourceDir() { return FVBENCH_SOURCE_DIR; }

TEST(Reference, ShippedFileHasTheSeedNumbers) {
  auto ref = LoadReference(SourceDir() + "/reference.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_EQ(ref->value("latency.decision_service", "p50_us"), 112);
  EXPECT_EQ(ref->value("latency.decision_service", "p999_us"), 2990);
  EXPECT_EQ(ref->value("latency.reverse_proxy", "p99_us"), 822);
  EXPECT_EQ(ref->value("latency.raw_nginx", "p90_us"), 190);
  EXPECT_EQ(ref->value("latency.raw_nginx", "p99_us"), 446);
  EXPECT_EQ(ref->value("throughput.simple", "rps"), 110500);
  EXPECT_EQ(ref->value("throughput.complex", "rps"), 67600);
  EXPECT_EQ(ref->value("throughput.llm", "rps"), 49400);
  EXPECT_EQ(ref->meta.at("instance"), "c7i.2xlarge");
  EXPECT_EQ(ref->meta.at("vcpu"), "8");
  EXPECT_NE(ref->describe().find("fairvisor/benchmark"), std::string::npos);
  EXPECT_FALSE(ref->lower_bound("throughput.simple"));  // not recorded by the seed
}

TEST(Reference, ValueIsEmptyForMetricsItDoesNotHave) {
  auto ref = ParseReference(R"({"latency_us": {"raw_nginx": {"p99": 446}}})", "r.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_EQ(ref->value("latency.raw_nginx", "p99_us"), 446);
  EXPECT_FALSE(ref->value("latency.raw_nginx", "p50_us").has_value());
  EXPECT_FALSE(ref->value("latency.raw_nginx", "error_rate").has_value());
  EXPECT_FALSE(ref->value("latency.raw_nginx", "rps").has_value());
  EXPECT_FALSE(ref->value("throughput.simple", "rps").has_value());
  EXPECT_EQ(ref->describe(), "r.json");
}

TEST(Reference, CeilingFlagsAreRead) {
  auto ref = ParseReference(R"({"throughput_rps": {"simple": 1300},
                               "throughput_ceiling_reached": {"simple": true}})",
                            "r.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_TRUE(ref->lower_bound("throughput.simple"));
  EXPECT_FALSE(ref->lower_bound("throughput.complex"));
}

struct BadCase {
  const char* name;  // test name suffix
  const char* text;
  const char* expected_fragment;
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }

class ReferenceErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ReferenceErrors, NameFileAndField) {
  auto ref = ParseReference(GetParam().text, "ref.json");
  ASSERT_FALSE(ref.ok());
  const std::string& m = ref.error().message;
  EXPECT_EQ(m.rfind("ref.json: ", 0), 0u) << m;
  EXPECT_NE(m.find(GetParam().expected_fragment), std::string::npos) << m;
}

INSTANTIATE_TEST_SUITE_P(
    Reference, ReferenceErrors,
    ::testing::Values(
        BadCase{"NotJson", "{", "not valid JSON"},
        BadCase{"SchemaVersion2", R"({"schema_version": 2})", "schema_version: unsupported value 2"},
        BadCase{"StringValue", R"({"latency_us": {"raw_nginx": {"p99": "446"}}})", "latency_us.raw_nginx.p99: expected a number"},
        BadCase{"UnknownScenario", R"({"latency_us": {"nginx": {"p99": 1}}})", "latency_us.nginx: unknown scenario (allowed: decision_service"},
        BadCase{"UnknownPercentile", R"({"latency_us": {"raw_nginx": {"p95": 1}}})", "latency_us.raw_nginx.p95: unknown percentile (allowed: p50, p90, p99, p999)"},
        BadCase{"NullRps", R"({"throughput_rps": {"simple": null}})", "throughput_rps.simple: expected a number"},
        BadCase{"UnknownThroughputKey", R"({"throughput_rps": {"huge": 1}})", "throughput_rps.huge: unknown scenario (allowed: simple, complex, llm)"},
        BadCase{"ArrayNotObject", R"({"throughput_rps": [1]})", "throughput_rps: expected an object"},
        BadCase{"UnknownTopKey", R"({"latency": {}})", "latency: unknown key"},
        BadCase{"CeilingNotBool", R"({"throughput_ceiling_reached": {"simple": 1}})", "throughput_ceiling_reached.simple: expected true or false"},
        // Numbers no run measures (baseline-denormal-huge.json's summary block).
        BadCase{"ZeroLatency", R"({"latency_us": {"raw_nginx": {"p50": 0}}})", "latency_us.raw_nginx.p50: 0 is not > 0"},
        BadCase{"NegativeLatency", R"({"latency_us": {"raw_nginx": {"p50": -3}}})", "latency_us.raw_nginx.p50: -3 is below 0"},
        BadCase{"SubnormalLatency", R"({"latency_us": {"raw_nginx": {"p90": 5e-324}}})", "latency_us.raw_nginx.p90: 4.94e-324 is subnormal"},
        BadCase{"HugeLatency", R"({"latency_us": {"raw_nginx": {"p99": 1e308}}})", "latency_us.raw_nginx.p99: 1e+308 is above 1e+15"},
        BadCase{"PercentilesOutOfOrder", R"({"latency_us": {"raw_nginx": {"p50": 71, "p90": 190, "p99": 446, "p999": 302}}})",
                "latency_us.raw_nginx.p999: 302 µs is below p99's 446 µs (percentiles must not decrease"},
        BadCase{"ZeroRps", R"({"throughput_rps": {"simple": 0}})", "throughput_rps.simple: 0 is not > 0"},
        BadCase{"HugeRps", R"({"throughput_rps": {"simple": 1e300}})", "throughput_rps.simple: 1e+300 is above 1000000000"}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::string(info.param.name); });

TEST(Reference, LoadNamesAMissingFile) {
  auto ref = LoadReference("/nonexistent/ref.json");
  ASSERT_FALSE(ref.ok());
  EXPECT_NE(ref.error().message.find("/nonexistent/ref.json"), std::string::npos);
}

// Deltas against a comparison measured at another latency rate compare
// different loads: the table and report.md say so.
TEST(Reference, LatencyLoadMismatchNamesBothRates) {
  Reference ref;
  ref.meta["rps_latency"] = "10000";  // reference.json's meta key
  EXPECT_EQ(ref.latency_rps(), 10000.0);
  EXPECT_EQ(LatencyLoadMismatch(ref, 10000), "");
  EXPECT_EQ(LatencyLoadMismatch(ref, 10050), "");  // within 1 %
  EXPECT_EQ(LatencyLoadMismatch(ref, 1000),
            "latency deltas compare different loads: this run at 1000 RPS, the reference at 10000 RPS");
  EXPECT_EQ(LatencyLoadMismatch(ref, 0), "");  // run rate unknown: no claim

  Reference base;
  base.baseline = true;
  base.meta["latency_rps"] = "1000.0";  // a results.json's RunMeta
  EXPECT_NE(LatencyLoadMismatch(base, 500).find("this run at 500 RPS, the baseline at 1000 RPS"), std::string::npos);
  base.meta["latency_rps"] = "fast";
  EXPECT_FALSE(base.latency_rps().has_value());
  EXPECT_EQ(LatencyLoadMismatch(base, 500), "");

  RunMeta meta = testing_samples::SampleMeta();
  meta.latency_rps = 1000;
  auto run = testing_samples::SampleRunAllMeasured();
  std::string table = RenderSummaryTable(run, meta, &ref);
  EXPECT_NE(table.find("WARNING"), std::string::npos) << table;
  EXPECT_NE(table.find("this run at 1000 RPS, the reference at 10000 RPS"), std::string::npos) << table;
  std::string md = RenderMarkdownReport(run, meta, &ref);
  EXPECT_NE(md.find("**Warning:** latency deltas compare different loads"), std::string::npos) << md;
  meta.latency_rps = 10000;
  EXPECT_EQ(RenderSummaryTable(run, meta, &ref).find("WARNING"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::reference_test
