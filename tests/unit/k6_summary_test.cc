#include "support/engine/k6_summary.h"
#include "fvbench/source_dir.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fvbench::k6_summary_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Json = nlohmann::json;

std::string FixturePath(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return std::string(dir && *dir ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/k6/" + name;
}

std::string ReadFixture(const std::string& name) {
  std::ifstream in(FixturePath(name), std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << FixturePath(name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Json FixtureJson(const std::string& name) { return Json::parse(ReadFixture(name)); }

// Parses `name` and expects an error containing every fragment.
void ExpectError(const std::string& text, const std::vector<std::string>& fragments) {
  auto r = ParseK6Summary(text, "/x/lat.json", 1000);
  ASSERT_FALSE(r.ok()) << "accepted: " << text.substr(0, 200);
  EXPECT_THAT(r.error().message, HasSubstr("/x/lat.json: ")) << r.error().message;
  for (const auto& f : fragments) EXPECT_THAT(r.error().message, HasSubstr(f));
}

// ---------------------------------------------------------------- good inputs

TEST(K6Summary, HandleSummaryCleanRun) {
  auto r = ParseK6SummaryDetailed(ReadFixture("handle_summary_latency_ok.json"), "lat.json", 10000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->shape, K6SummaryShape::kHandleSummary);
  const LoadResult& l = r->load;
  EXPECT_EQ(l.engine, "k6");
  EXPECT_EQ(l.raw_path, "lat.json");
  EXPECT_EQ(l.target_rps, 10000);
  EXPECT_EQ(l.requests, 600000u);
  EXPECT_EQ(l.failed, 0u);
  EXPECT_EQ(l.non_2xx, 0u);
  EXPECT_EQ(l.error_rate, 0);
  EXPECT_DOUBLE_EQ(l.duration_s, 60.000891204);
  EXPECT_DOUBLE_EQ(l.achieved_rps, 600000 / 60.000891204);
  // Milliseconds in the file, microseconds out.
  EXPECT_DOUBLE_EQ(l.latency_us.p50, 412.317);
  EXPECT_DOUBLE_EQ(l.latency_us.p90, 684.102);
  EXPECT_DOUBLE_EQ(l.latency_us.p99, 1523.088);
  EXPECT_DOUBLE_EQ(l.latency_us.p999, 4871.266);
  EXPECT_DOUBLE_EQ(l.latency_us.max, 23114.502);
  EXPECT_DOUBLE_EQ(l.latency_us.mean, 468.839);  // avg
  EXPECT_EQ(l.connections, 0u);  // the VUs are the engine's to set (k6_engine.h), not in the summary
  EXPECT_TRUE(l.kept_up);
  EXPECT_EQ(l.dropped_iterations, 0u);
  ASSERT_TRUE(l.ratelimit_evidence.has_value());
  EXPECT_EQ(*l.ratelimit_evidence, 600000u);
  EXPECT_THAT(r->failed_thresholds, IsEmpty());
}

TEST(K6Summary, HandleSummaryDroppedIterationsAndFailures) {
  auto r = ParseK6SummaryDetailed(ReadFixture("handle_summary_step_dropped.json"), "s.json", 40000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LoadResult& l = r->load;
  EXPECT_EQ(l.requests, 781244u);
  EXPECT_EQ(l.non_2xx, 1563u);  // = http_req_failed.passes: the FAILED requests
  EXPECT_EQ(l.dropped_iterations, 18756u);
  // Per scheduled request: every iteration ran or was dropped.
  EXPECT_EQ(l.scheduled, 781244u + 18756u);
  EXPECT_EQ(l.succeeded, 781244u - 1563u);
  EXPECT_EQ(l.failed_sut, 1563u);
  EXPECT_EQ(l.failed_engine, 18756u);  // dropped: the engine's, never the SUT's
  EXPECT_EQ(l.failed, 1563u + 18756u);
  EXPECT_DOUBLE_EQ(l.error_rate, (1563.0 + 18756.0) / 800000.0);
  EXPECT_FALSE(l.kept_up);
  EXPECT_DOUBLE_EQ(l.latency_us.p999, 903441.88);
  EXPECT_FALSE(l.ratelimit_evidence.has_value());  // COUNT_RATELIMIT was 0
  // {"ok": false} is the failed one; {"ok": true} held.
  EXPECT_THAT(r->failed_thresholds, ElementsAre("http_req_duration: p(99)<100"));
}

TEST(K6Summary, LegacyExportCleanRun) {
  auto r = ParseK6SummaryDetailed(ReadFixture("summary_export_ok.json"), "e.json", 5000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->shape, K6SummaryShape::kSummaryExport);
  const LoadResult& l = r->load;
  EXPECT_EQ(l.requests, 150000u);
  EXPECT_EQ(l.failed, 0u);
  EXPECT_TRUE(l.kept_up);
  EXPECT_DOUBLE_EQ(l.latency_us.p50, 291);
  EXPECT_DOUBLE_EQ(l.latency_us.p999, 2911);
  // No state in the export: duration from count / rate.
  EXPECT_NEAR(l.duration_s, 30.002113, 1e-9);
  EXPECT_NEAR(l.achieved_rps, 150000 / 30.002113, 1e-9);
  // Thresholds exported as false held.
  EXPECT_THAT(r->failed_thresholds, IsEmpty());
}

TEST(K6Summary, LegacyExportThresholdTrueMeansFailed) {
  auto r = ParseK6SummaryDetailed(ReadFixture("summary_export_dropped.json"), "e.json", 20000);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const LoadResult& l = r->load;
  EXPECT_EQ(l.requests, 387311u);
  EXPECT_EQ(l.failed_sut, 12044u);
  EXPECT_EQ(l.dropped_iterations, 12689u);
  EXPECT_EQ(l.failed_engine, 12689u);
  EXPECT_EQ(l.failed, 12044u + 12689u);
  EXPECT_FALSE(l.kept_up);
  EXPECT_THAT(r->failed_thresholds, ElementsAre("http_req_failed: rate<0.01"));
}

TEST(K6Summary, PercentileKeysMatchByNumber) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  Json& v = j["metrics"]["http_req_duration"]["values"];
  v["p(99.90)"] = 7.5;
  v.erase("p(99.9)");
  v["p(50.0)"] = v["p(50)"];
  v.erase("p(50)");
  auto r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->latency_us.p999, 7500);
  EXPECT_DOUBLE_EQ(r->latency_us.p50, 412.317);
}

TEST(K6Summary, MedianStandsInForP50) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  Json& v = j["metrics"]["http_req_duration"]["values"];
  v.erase("p(50)");
  v["med"] = 0.25;
  auto r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->latency_us.p50, 250);
}

// The mean is optional (summaryTrendStats without "avg"): 0, not known.
TEST(K6Summary, MeanLatencyIsOptional) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  j["metrics"]["http_req_duration"]["values"].erase("avg");
  auto r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->latency_us.mean, 0);
  j["metrics"]["http_req_duration"]["values"]["avg"] = -1;
  r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("[\"avg\"]"));
}

TEST(K6Summary, Non2xxFallsBackToFailedWithoutTheCounter) {
  Json j = FixtureJson("handle_summary_step_dropped.json");
  j["metrics"].erase("non_2xx");
  j["metrics"]["http_req_failed"]["values"]["passes"] = 44;
  j["metrics"]["http_req_failed"]["values"]["fails"] = 781244 - 44;
  auto r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->failed_sut, 44u);
  EXPECT_EQ(r->non_2xx, 44u);
}

TEST(K6Summary, DurationFromStateWinsOverRate) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  j["metrics"]["http_reqs"]["values"].erase("rate");
  auto r = ParseK6Summary(j.dump(), "x", 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->duration_s, 60.000891204);
  EXPECT_DOUBLE_EQ(r->achieved_rps, 600000 / 60.000891204);
}

// ----------------------------------------------------------------- bad inputs

TEST(K6Summary, RejectsEmptyFile) {
  ExpectError(ReadFixture("empty.json"), {"empty file"});
  ExpectError(" \n", {"empty file"});
}

TEST(K6Summary, RejectsTruncatedJson) {
  ExpectError(ReadFixture("truncated.json"), {"not valid JSON"});
}

TEST(K6Summary, RejectsTextSummary) {
  ExpectError(ReadFixture("not_json.txt"), {"not valid JSON"});
}

TEST(K6Summary, RejectsMissingPercentile) {
  auto r = ParseK6Summary(ReadFixture("missing_percentile.json"), "/x/lat.json", 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "/x/lat.json: metrics.http_req_duration.values: missing percentile p(99.9) "
            "(summaryTrendStats must include it)");
}

TEST(K6Summary, RejectsMissingMetric) {
  ExpectError(ReadFixture("missing_metric.json"), {"metrics.http_req_failed: missing"});
}

TEST(K6Summary, RejectsZeroRequestsWithNullRate) {
  ExpectError(ReadFixture("handle_summary_null_rate.json"),
              {"metrics.http_reqs.values.count", "0 requests completed"});
}

TEST(K6Summary, RejectsNullFailedRateWithRequests) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  j["metrics"]["http_req_failed"]["values"]["rate"] = nullptr;
  ExpectError(j.dump(), {"metrics.http_req_failed.values.rate", "null (no samples)"});
}

TEST(K6Summary, RejectsNullPercentile) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  j["metrics"]["http_req_duration"]["values"]["p(99)"] = nullptr;
  ExpectError(j.dump(), {"metrics.http_req_duration.values[\"p(99)\"]", "null"});
}

TEST(K6Summary, RejectsWrongTypes) {
  struct Case {
    const char* pointer;
    Json value;
    const char* expect;
  };
  const Case cases[] = {
      {"/metrics/http_reqs/values/count", "600000", "metrics.http_reqs.values.count: expected a number, got string"},
      {"/metrics/http_reqs/values/count", 12.5, "metrics.http_reqs.values.count: 12.5 is not a whole count"},
      {"/metrics/http_reqs/values/count", -3, "metrics.http_reqs.values.count: -3 is not a number >= 0"},
      {"/metrics/http_req_duration/values/max", true, "metrics.http_req_duration.values[\"max\"]: expected a number"},
      {"/metrics/http_req_duration/type", "counter", "metrics.http_req_duration.type: 'counter', expected 'trend'"},
      {"/metrics/http_req_duration/contains", "default", "metrics.http_req_duration.contains"},
      {"/metrics/http_req_failed/values", Json::array(), "metrics.http_req_failed.values: expected an object, got array"},
      {"/metrics/non_2xx", 5, "metrics.non_2xx: expected an object, got number"},
      {"/metrics/non_2xx/values/count", 600001, "metrics.non_2xx.values.count: 600001 exceeds http_reqs count"},
      {"/state/testRunDurationMs", 0, "state.testRunDurationMs: 0"},
      {"/state", "60s", "state: expected an object, got string"},
      {"/options/summaryTimeUnit", "s", "options.summaryTimeUnit: 's'"},
      {"/metrics", Json::array(), "metrics: expected an object, got array"},
      {"/metrics/http_req_duration/thresholds", Json{{"p(99)<5", true}}, "expected {\"ok\": <bool>}"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.pointer);
    Json j = FixtureJson("handle_summary_latency_ok.json");
    j[Json::json_pointer(c.pointer)] = c.value;
    ExpectError(j.dump(), {c.expect});
  }
}

TEST(K6Summary, RejectsDisagreeingFailureCounters) {
  Json j = FixtureJson("handle_summary_latency_ok.json");
  j["metrics"]["http_req_failed"]["values"]["fails"] = 10;
  ExpectError(j.dump(), {"metrics.http_req_failed.values", "passes 0 + fails 10 != http_reqs count 600000"});
}

TEST(K6Summary, RejectsFractionalDroppedIterations) {
  Json j = FixtureJson("handle_summary_step_dropped.json");
  j["metrics"]["dropped_iterations"]["values"]["count"] = 0.5;
  ExpectError(j.dump(), {"metrics.dropped_iterations.values.count: 0.5 is not a whole count"});
}

TEST(K6Summary, RejectsNonObjectTopLevel) {
  ExpectError("[1,2]", {"top level is array"});
  ExpectError("{\"root_group\":{}}", {"metrics: missing"});
}

TEST(K6Summary, LegacyRejectsNonBooleanThreshold) {
  Json j = FixtureJson("summary_export_ok.json");
  j["metrics"]["http_req_failed"]["thresholds"]["rate<0.01"] = Json{{"ok", true}};
  ExpectError(j.dump(), {"metrics.http_req_failed.thresholds[\"rate<0.01\"]: expected a boolean"});
}

TEST(K6Summary, LegacyRejectsMissingDurationSource) {
  Json j = FixtureJson("summary_export_ok.json");
  j["metrics"]["http_reqs"].erase("rate");
  ExpectError(j.dump(), {"metrics.http_reqs.rate", "cannot tell the run's duration"});
}

TEST(K6Summary, LegacyRejectsMissingRateValue) {
  Json j = FixtureJson("summary_export_ok.json");
  j["metrics"]["http_req_failed"].erase("value");
  ExpectError(j.dump(), {"metrics.http_req_failed: missing 'value'"});
}

// A summary padded after the document: nlohmann stops at a NUL byte, so it
// is refused by itself; any other content after the document too.
TEST(K6Summary, NulPaddingOrContentAfterTheDocumentIsRefused) {
  const std::string good = ReadFixture("summary_export_ok.json");
  ASSERT_TRUE(ParseK6Summary(good, "/x/lat.json", 1000).ok());
  ExpectError(good + std::string(64, '\0'), {"a NUL byte at byte " + std::to_string(good.size())});
  ExpectError(good + "{}", {"content after the JSON document"});
}

}  // namespace
}  // namespace fvbench::k6_summary_test
