#include "support/engine/k6_samples.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/core/latency_histogram_json.h"

namespace fvbench::k6_samples_test {
namespace {

using Format = K6SampleReducer::Format;
using ::testing::HasSubstr;

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::ifstream in(std::string(dir ? dir : "fixtures") + "/k6/raw/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// fixtures/k6/raw/out_csv.csv and out_json.json: the same four requests in the
// shapes k6 writes (`--out csv=` with k6 >= 0.5x's columns, `--out json=`):
// 0.812345 ms (200), 1.25 ms (429), a request timeout (error_code 1050), 2 ms.
void ExpectTheFourRequests(const LatencyHistogram& h) {
  EXPECT_EQ(h.recorded(), 3u);
  EXPECT_EQ(h.timeouts(), 1u);
  EXPECT_EQ(h.timeout_us(), kK6RequestTimeoutUs);
  EXPECT_EQ(h.ValueAtQuantile(0).us, 812.345);   // min, exact
  EXPECT_NEAR(h.ValueAtQuantile(0.5).us, 1250, 1250.0 / 2048);
  EXPECT_EQ(h.ValueAtQuantile(0.75).us, 2000);   // max recorded, exact
  EXPECT_TRUE(h.ValueAtQuantile(1).censored);    // the timeout
  EXPECT_EQ(h.ToLatencyUs().max, kK6RequestTimeoutUs);
}

TEST(K6Samples, CsvOfK6sShape) {
  const std::string text = Fixture("out_csv.csv");
  ASSERT_FALSE(text.empty());
  auto h = ReduceK6Samples(text, Format::kCsv, "out_csv.csv");
  ASSERT_TRUE(h.ok()) << h.error().message;
  ExpectTheFourRequests(*h);
}

TEST(K6Samples, JsonOfK6sShape) {
  const std::string text = Fixture("out_json.json");
  ASSERT_FALSE(text.empty());
  auto h = ReduceK6Samples(text, Format::kJson, "out_json.json");
  ASSERT_TRUE(h.ok()) << h.error().message;
  ExpectTheFourRequests(*h);
}

// Chunks may split a line anywhere: every split gives the same histogram.
TEST(K6Samples, ChunkBoundariesDoNotMatter) {
  for (const auto& [name, format] : {std::pair{"out_csv.csv", Format::kCsv}, std::pair{"out_json.json", Format::kJson}}) {
    const std::string text = Fixture(name);
    const std::string whole = HistogramToJson(*ReduceK6Samples(text, format, name)).dump();
    for (size_t size : {1u, 2u, 7u, 64u, 333u}) {
      K6SampleReducer r(format, name);
      for (size_t at = 0; at < text.size(); at += size) ASSERT_TRUE(r.Feed(std::string_view(text).substr(at, size)).ok());
      auto h = r.Finish();
      ASSERT_TRUE(h.ok()) << h.error().message;
      EXPECT_EQ(HistogramToJson(*h).dump(), whole) << name << " chunk " << size;
    }
  }
}

// Older k6 (the k6 docs example: no expected_response, service or metadata columns): columns are found by name.
TEST(K6Samples, OlderCsvColumnsAndNoTrailingNewline) {
  const std::string text =
      "metric_name,timestamp,metric_value,check,error,error_code,group,method,name,proto,scenario,status,subproto,"
      "tls_version,url,extra_tags\n"
      "http_reqs,1595325560,1.000000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,\n"
      "http_req_duration,1595325560,221.899000,,,,,GET,http://test.k6.io,HTTP/1.1,default,200,,,http://test.k6.io,";
  auto h = ReduceK6Samples(text, Format::kCsv, "old.csv");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->recorded(), 1u);
  EXPECT_EQ(h->ValueAtQuantile(0.5).us, 221899);
}

TEST(K6Samples, BadInputNamesFileAndLine) {
  const std::string header = "metric_name,timestamp,metric_value,error_code\n";
  const struct {
    std::string text;
    Format format;
    std::string expected;
  } cases[] = {
      {"", Format::kCsv, "old.csv: empty: no k6 CSV header"},
      {"a,b,c\n", Format::kCsv, "old.csv:1: not a k6 CSV header"},
      {header + "http_req_duration,1,abc,\n", Format::kCsv, "old.csv:2: http_req_duration value \"abc\""},
      {header + "http_req_duration,1,-3,\n", Format::kCsv, "old.csv:2: http_req_duration value \"-3\""},
      {header + "http_req_duration,1\n", Format::kCsv, "old.csv:2: 2 fields"},
      {header + "http_req_duration,1,\"2,\n", Format::kCsv, "old.csv:2: unterminated quote"},
      {"{}\n{\"type\":\"Point\",\"data\":{\"value\":\"x\"},\"metric\":\"http_req_duration\"}\n", Format::kJson,
       "old.csv:2: http_req_duration value \"\"x\"\""},
      {"{\"type\":\"Point\",\"metric\":\"http_req_duration\"}", Format::kJson, "old.csv:1: http_req_duration point without data.value"},
      // Not k6's JSON output at all: was reduced to an empty histogram, exit 0.
      {"", Format::kJson, "old.csv: empty: no k6 JSON line"},
      {"\n\n", Format::kJson, "old.csv: empty: no k6 JSON line"},
      {"garbage\n", Format::kJson, "old.csv:1: not a k6 JSON line (k6 --out json writes one object per line): \"garbage\""},
      {"{}\n[1,2]\n", Format::kJson, "old.csv:2: not a k6 JSON line"},
  };
  for (const auto& c : cases) {
    auto h = ReduceK6Samples(c.text, c.format, "old.csv");
    ASSERT_FALSE(h.ok()) << c.text;
    EXPECT_NE(h.error().message.find(c.expected), std::string::npos) << h.error().message;
  }
}

// k6 writes text: a NUL byte (a file padded after the fact) is refused,
// naming the file and line, in whichever chunk it arrives.
TEST(K6Samples, NulByteIsRefusedNamingTheLine) {
  const std::string text = Fixture("out_csv.csv") + std::string(10, '\0');
  auto whole = ReduceK6Samples(text, Format::kCsv, "lg1.samples.csv");
  ASSERT_FALSE(whole.ok());
  EXPECT_THAT(whole.error().message, HasSubstr("lg1.samples.csv:"));
  EXPECT_THAT(whole.error().message, HasSubstr("a NUL byte"));
  K6SampleReducer r(Format::kJson, "lg1.samples.json");
  ASSERT_TRUE(r.Feed(Fixture("out_json.json")).ok());
  EXPECT_FALSE(r.Feed(std::string("\0", 1)).ok());
}

}  // namespace
}  // namespace fvbench::k6_samples_test
