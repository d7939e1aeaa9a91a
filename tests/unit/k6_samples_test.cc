#include "support/engine/k6_samples.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <ctime>
#include <vector>

#include <fmt/format.h>

#include "support/core/interval_latency.h"
#include "support/core/latency_histogram_json.h"
#include "support/judge/loadgen_merge.h"

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


// ---- per interval ----

// One http_req_duration sample: its timestamp (ns since the epoch, when the
// request ended), latency, status, and whether it timed out.
struct Sample {
  int64_t t_ns = 0;
  double ms = 0;
  int status = 200;
  bool timeout = false;
};

constexpr int64_t kOriginUs = 1733030000123456;  // not a whole second, nor a whole ms
constexpr int64_t kWidthUs = 1000000;

// 600 samples over ~5.9 s from 25 ms before `origin_us`: latencies 0.2..60 ms, every 7th
// a 429, every 50th a timeout, three stamped before the origin, one exactly
// on an interval's edge; ns parts so that finer formats carry them.
std::vector<Sample> Samples(int64_t origin_us = kOriginUs) {
  std::vector<Sample> out;
  for (int k = 0; k < 600; ++k) {
    Sample s;
    s.t_ns = (origin_us - 25000) * 1000 + static_cast<int64_t>(k) * 9'870'123 + (k % 10) * 101;
    s.ms = 0.2 + (k * 37 % 600) / 10.0;
    s.status = k % 7 == 3 ? 429 : 200;
    s.timeout = k % 50 == 49;
    out.push_back(s);
  }
  out.push_back({(origin_us + 2 * kWidthUs) * 1000, 5.5, 200, false});  // on the edge of interval 2
  return out;
}

std::string Rfc3339(int64_t ns, bool fraction, int offset_min = 0) {
  const int64_t local = ns + static_cast<int64_t>(offset_min) * 60'000'000'000;
  const std::time_t secs = static_cast<std::time_t>(local / 1'000'000'000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                                tm.tm_hour, tm.tm_min, tm.tm_sec);
  if (fraction && local % 1'000'000'000 != 0) {
    std::string f = fmt::format("{:09}", local % 1'000'000'000);
    while (f.back() == '0') f.pop_back();  // Go's RFC3339Nano trims trailing zeros
    out += "." + f;
  }
  if (offset_min == 0) return out + "Z";
  return out + fmt::format("{}{:02}:{:02}", offset_min > 0 ? '+' : '-', std::abs(offset_min) / 60,
                           std::abs(offset_min) % 60);
}

// The timestamp as k6's csv output writes it in `format` (k6 truncates).
std::string Stamp(int64_t ns, const std::string& format) {
  if (format == "unix") return std::to_string(ns / 1'000'000'000);
  if (format == "unix_milli") return std::to_string(ns / 1'000'000);
  if (format == "unix_micro") return std::to_string(ns / 1'000);
  if (format == "unix_nano") return std::to_string(ns);
  if (format == "rfc3339") return Rfc3339(ns / 1'000'000'000 * 1'000'000'000, false);
  return Rfc3339(ns, true, format == "rfc3339_nano+01" ? 60 : 0);
}

const char kCsvHeader[] =
    "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,"
    "scenario,service,status,subproto,tls_version,url,extra_tags,metadata\n";

std::string Csv(const std::vector<Sample>& samples, const std::string& format) {
  std::string s = kCsvHeader;
  for (const Sample& x : samples) {
    const std::string t = Stamp(x.t_ns, format);
    // check, error, error_code, expected_response, group, method, name, proto, scenario, service, status, ...
    const std::string tail = fmt::format(",,,{},true,,GET,http://h/,HTTP/1.1,measured,,{},,,http://h/,,",
                                         x.timeout ? "1050" : "", x.timeout ? 0 : x.status);
    s += fmt::format("http_reqs,{},1.000000{}\n", t, tail);
    s += fmt::format("http_req_duration,{},{:.6f}{}\n", t, x.timeout ? 60000.0 : x.ms, tail);
  }
  return s;
}

std::string Json(const std::vector<Sample>& samples) {
  std::string s = R"({"type":"Metric","data":{"name":"http_req_duration","type":"trend"},"metric":"http_req_duration"})"
                  "\n";
  for (const Sample& x : samples) {
    const std::string err = x.timeout ? R"("error_code":"1050",)" : "";
    s += fmt::format(R"({{"type":"Point","data":{{"time":"{}","value":{:.6f},"tags":{{{}"method":"GET","status":"{}"}}}},"metric":"http_req_duration"}})"
                     "\n",
                     Rfc3339(x.t_ns, true, 60), x.timeout ? 60000.0 : x.ms, err, x.timeout ? 0 : x.status);
  }
  return s;
}

// What the intervals must hold, computed here: interval = floor((t - origin)
// / width) of the truncated timestamp, before the origin -> 0.
struct Expected {
  std::vector<LatencyHistogram> hist;
  std::vector<uint64_t> non_2xx;
  uint64_t before = 0;
};
Expected Bin(const std::vector<Sample>& samples, int64_t origin_us, int64_t width_us, int64_t resolution_ns) {
  Expected e;
  for (const Sample& x : samples) {
    const int64_t t = x.t_ns / resolution_ns * resolution_ns;
    size_t i = 0;
    if (t < origin_us * 1000) {
      ++e.before;
    } else {
      i = static_cast<size_t>((t - origin_us * 1000) / (width_us * 1000));
    }
    if (e.hist.size() <= i) {
      e.hist.resize(i + 1);
      e.non_2xx.resize(i + 1, 0);
    }
    if (x.timeout) {
      EXPECT_TRUE(e.hist[i].RecordTimeouts(1, kK6RequestTimeoutUs).ok());
    } else {
      e.hist[i].RecordUs(x.ms * 1000.0);
      if (x.status / 100 != 2) ++e.non_2xx[i];
    }
  }
  return e;
}

std::string Dump(const LatencyHistogram& h) { return HistogramToJson(h).dump(); }

void ExpectIntervals(const K6Reduction& r, const Expected& want, const std::string& what) {
  const IntervalSeries& s = r.intervals;
  ASSERT_FALSE(s.empty()) << what << ": " << r.intervals_absent;
  ASSERT_EQ(s.latency.size(), want.hist.size()) << what;
  ASSERT_EQ(s.size(), want.hist.size()) << what;
  EXPECT_FALSE(s.sends_counted) << what;
  EXPECT_EQ(r.before_origin, want.before) << what;
  LatencyHistogram sum;
  for (size_t i = 0; i < want.hist.size(); ++i) {
    EXPECT_EQ(Dump(IntervalHistogram(s.latency[i])), Dump(want.hist[i])) << what << ", interval " << i;
    EXPECT_EQ(s.completed[i], want.hist[i].recorded()) << what << ", interval " << i;
    EXPECT_EQ(s.latency[i].timeouts, want.hist[i].timeouts()) << what << ", interval " << i;
    EXPECT_EQ(s.non_2xx[i], want.non_2xx[i]) << what << ", interval " << i;
    ASSERT_TRUE(sum.Merge(IntervalHistogram(s.latency[i])).ok());
  }
  // The intervals' histograms sum to the phase's, bucket for bucket.
  EXPECT_EQ(Dump(sum), Dump(r.histogram)) << what;
}

TEST(K6SamplesPerInterval, EachCsvTimeFormatLandsInItsInterval) {
  const std::vector<Sample> samples = Samples();
  // Formats finer than the grid: exact on the origin kOriginUs (whole µs).
  for (const auto& [format, resolution] : {std::pair{"unix_micro", 1000}, std::pair{"unix_nano", 1},
                                           std::pair{"rfc3339_nano", 1}, std::pair{"rfc3339_nano+01", 1}}) {
    auto r = ReduceK6SamplesPerInterval(Csv(samples, format), Format::kCsv, format, {kOriginUs, kWidthUs});
    ASSERT_TRUE(r.ok()) << format << ": " << r.error().message;
    EXPECT_EQ(r->time_resolution_ns, static_cast<uint64_t>(resolution)) << format;
    ExpectIntervals(*r, Bin(samples, kOriginUs, kWidthUs, resolution), format);
    EXPECT_EQ(r->before_origin, 3u) << format;
    EXPECT_EQ(r->intervals.start_epoch_us, kOriginUs);
    EXPECT_EQ(r->intervals.width_us, kWidthUs);
  }
  // Coarser formats: exact when the origin and width are multiples of their resolution.
  const int64_t whole_s = kOriginUs / 1000000 * 1000000, whole_ms = kOriginUs / 1000 * 1000;
  for (const auto& [format, origin, resolution] :
       {std::tuple{"unix_milli", whole_ms, 1'000'000}, std::tuple{"unix", whole_s, 1'000'000'000},
        std::tuple{"rfc3339", whole_s, 1'000'000'000}}) {
    const std::vector<Sample> on = Samples(origin);
    auto r = ReduceK6SamplesPerInterval(Csv(on, format), Format::kCsv, format, {double(origin), kWidthUs});
    ASSERT_TRUE(r.ok()) << format << ": " << r.error().message;
    EXPECT_EQ(r->time_format, format);
    ExpectIntervals(*r, Bin(on, origin, kWidthUs, resolution), format);
  }
}

TEST(K6SamplesPerInterval, JsonTimesLandInTheirIntervals) {
  const std::vector<Sample> samples = Samples();
  auto r = ReduceK6SamplesPerInterval(Json(samples), Format::kJson, "out.json", {kOriginUs, 500000});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->time_format, "rfc3339_nano");
  ExpectIntervals(*r, Bin(samples, kOriginUs, 500000, 1), "json");
  // p50/p99/max readable per interval, from the interval's histogram
  const LatencyUs l = IntervalLatencyUs(r->intervals.latency[3]);
  EXPECT_EQ(l.p99, IntervalHistogram(r->intervals.latency[3]).ToLatencyUs().p99);
  EXPECT_GT(l.max, 0);
}

// Chunked feeding (a timestamp split across chunks) gives the same intervals.
TEST(K6SamplesPerInterval, ChunkBoundariesDoNotMatter) {
  const std::string text = Csv(Samples(), "unix_micro");
  auto whole = ReduceK6SamplesPerInterval(text, Format::kCsv, "x", {kOriginUs, kWidthUs});
  ASSERT_TRUE(whole.ok());
  K6SampleReducer r(Format::kCsv, "x", K6IntervalGrid{kOriginUs, kWidthUs});
  for (size_t at = 0; at < text.size(); at += 13) ASSERT_TRUE(r.Feed(text.substr(at, 13)).ok());
  auto chunked = r.FinishReduction();
  ASSERT_TRUE(chunked.ok()) << chunked.error().message;
  EXPECT_EQ(K6ReductionToJson(*chunked).dump(), K6ReductionToJson(*whole).dump());
}

// Samples split across 2 and 4 reducers (the instances of one phase, one
// clock): their series merged per interval equal one reducer fed them all,
// bucket for bucket, and sum to the merged phase histogram. Through the
// stored form, as the controller receives them.
TEST(K6SamplesPerInterval, SplitAcrossReducersMergesToOneReducersIntervals) {
  const std::vector<Sample> samples = Samples();
  auto all = ReduceK6SamplesPerInterval(Csv(samples, "unix_micro"), Format::kCsv, "all", {kOriginUs, kWidthUs});
  ASSERT_TRUE(all.ok()) << all.error().message;
  for (size_t n : {2u, 4u}) {
    std::vector<std::vector<Sample>> parts(n);
    for (size_t k = 0; k < samples.size(); ++k) parts[(k * 7 + k / 3) % n].push_back(samples[k]);
    std::vector<IntervalSeries> series;
    LatencyHistogram phase;
    for (size_t i = 0; i < n; ++i) {
      auto r = ReduceK6SamplesPerInterval(Csv(parts[i], "unix_micro"), Format::kCsv, "part", {kOriginUs, kWidthUs});
      ASSERT_TRUE(r.ok()) << r.error().message;
      auto stored = ParseK6ReductionJson(K6ReductionToJson(*r).dump(), "part");
      ASSERT_TRUE(stored.ok()) << stored.error().message;
      series.push_back(stored->intervals);
      ASSERT_TRUE(phase.Merge(stored->histogram).ok());
    }
    auto merged = MergeIntervalSeries(series);
    ASSERT_TRUE(merged.ok()) << merged.error().message;
    ASSERT_TRUE(merged->has_latency()) << n;
    ASSERT_EQ(merged->latency.size(), all->intervals.latency.size()) << n;
    EXPECT_FALSE(merged->sends_counted);
    LatencyHistogram sum;
    for (size_t i = 0; i < merged->latency.size(); ++i) {
      EXPECT_EQ(Dump(IntervalHistogram(merged->latency[i])), Dump(IntervalHistogram(all->intervals.latency[i])))
          << n << " reducers, interval " << i;
      EXPECT_EQ(merged->completed[i], all->intervals.completed[i]) << n << " reducers, interval " << i;
      EXPECT_EQ(merged->non_2xx[i], all->intervals.non_2xx[i]) << n << " reducers, interval " << i;
      ASSERT_TRUE(sum.Merge(IntervalHistogram(merged->latency[i])).ok());
    }
    EXPECT_EQ(Dump(phase), Dump(all->histogram)) << n;
    EXPECT_EQ(Dump(sum), Dump(phase)) << n;
  }
}

// Timestamps coarser than the grid: the series is absent, saying why; the
// phase histogram is still the whole.
TEST(K6SamplesPerInterval, CoarseTimestampsLeaveTheSeriesAbsent) {
  const std::vector<Sample> samples = Samples();
  for (const auto& [format, says] : {std::pair{"unix", "resolution of 1 s"}, std::pair{"rfc3339", "resolution of 1 s"},
                                     std::pair{"unix_milli", "resolution of 1 ms"}}) {
    auto r = ReduceK6SamplesPerInterval(Csv(samples, format), Format::kCsv, "coarse.csv", {kOriginUs, kWidthUs});
    ASSERT_TRUE(r.ok()) << format << ": " << r.error().message;
    EXPECT_TRUE(r->intervals.empty()) << format;
    EXPECT_THAT(r->intervals_absent, HasSubstr(says)) << format;
    EXPECT_THAT(r->intervals_absent, HasSubstr("coarse.csv")) << format;
    EXPECT_EQ(r->histogram.total(), samples.size()) << format;
    // and so in the stored form
    const nlohmann::json doc = K6ReductionToJson(*r);
    EXPECT_FALSE(doc.contains("intervals"));
    auto back = K6ReductionFromJson(doc, "coarse");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->intervals_absent, r->intervals_absent);
  }
  // Whole seconds on whole-second intervals that start off a whole second: absent too.
  auto half = ReduceK6SamplesPerInterval(Csv(samples, "unix"), Format::kCsv, "x", {kOriginUs / 1000000 * 1000000.0, 500000});
  ASSERT_TRUE(half.ok());
  EXPECT_TRUE(half->intervals.empty());
}

TEST(K6SamplesPerInterval, BeforeTheOriginGoesToIntervalZero) {
  const std::string text = std::string(kCsvHeader) +
                           "http_req_duration,1733030000000001,3.000000,,,,true,,GET,u,HTTP/1.1,m,,200,,,u,,\n"
                           "http_req_duration,1733030000999999,4.000000,,,,true,,GET,u,HTTP/1.1,m,,503,,,u,,\n"
                           "http_req_duration,1733030001000000,5.000000,,,,true,,GET,u,HTTP/1.1,m,,200,,,u,,\n";
  auto r = ReduceK6SamplesPerInterval(text, Format::kCsv, "x", {1733030000500000, 500000});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->before_origin, 1u);
  EXPECT_EQ(r->intervals.completed, (std::vector<uint64_t>{2, 1}));
  EXPECT_EQ(r->intervals.non_2xx, (std::vector<uint64_t>{1, 0}));
  EXPECT_EQ(r->intervals.latency[0].min_ns, 3000000u);
  EXPECT_EQ(r->intervals.latency[1].max_ns, 5000000u);
}

TEST(K6SamplesPerInterval, OddTimestampsNameSourceAndLine) {
  const std::string head = std::string(kCsvHeader) +
                           "http_req_duration,1733030000000001,3.000000,,,,true,,GET,u,HTTP/1.1,m,,200,,,u,,\n";
  const K6IntervalGrid grid{1733030000000000, 1000000};
  for (const auto& [stamp, says] : {
           std::pair{"17330300x0", "neither unix"},
           std::pair{"", "neither unix"},
           std::pair{"2024-13-01T00:00:00Z", "neither unix"},
           std::pair{"2024-12-01T05:13:20.1234567891Z", "neither unix"},
           std::pair{"2024-12-01T05:13:20", "neither unix"},
           std::pair{"2024-12-01T05:13:20.Z", "neither unix"},
           std::pair{"99999999999999999999", "beyond the year 2262"},
           std::pair{"1733030000000", "is unix_milli, earlier ones were unix_micro"},
           std::pair{"2024-12-01T05:13:20.5Z", "is rfc3339_nano, earlier ones were unix_micro"},
           std::pair{"1733030000000001000", "is unix_nano"},
           std::pair{"3733030000000001", "intervals of 1000000 µs after the origin"},
       }) {
    const std::string text = head + "http_req_duration," + stamp + ",1.000000,,,,true,,GET,u,HTTP/1.1,m,,200,,,u,,\n";
    auto r = ReduceK6SamplesPerInterval(text, Format::kCsv, "odd.csv", grid);
    ASSERT_FALSE(r.ok()) << stamp;
    EXPECT_THAT(r.error().message, HasSubstr("odd.csv:3: timestamp")) << stamp;
    EXPECT_THAT(r.error().message, HasSubstr(says)) << stamp << ": " << r.error().message;
  }
  // JSON: the line of the bad time
  auto j = ReduceK6SamplesPerInterval(
      "{\"type\":\"Point\",\"data\":{\"time\":\"yesterday\",\"value\":1.5,\"tags\":{}},\"metric\":\"http_req_duration\"}\n",
      Format::kJson, "odd.json", grid);
  ASSERT_FALSE(j.ok());
  EXPECT_THAT(j.error().message, HasSubstr("odd.json:1: timestamp \"yesterday\""));
  // A grid needs the timestamp and status columns, and whole µs.
  auto cols = ReduceK6SamplesPerInterval("metric_name,metric_value\nhttp_req_duration,1.0\n", Format::kCsv, "c.csv", grid);
  ASSERT_FALSE(cols.ok());
  EXPECT_THAT(cols.error().message, HasSubstr("c.csv:1: the counts per interval need the timestamp and status"));
  auto bad_grid = ReduceK6SamplesPerInterval(head, Format::kCsv, "g.csv", {1733030000000000.5, 1000000});
  ASSERT_FALSE(bad_grid.ok());
  EXPECT_THAT(bad_grid.error().message, HasSubstr("g.csv: interval grid"));
  // Without a grid the timestamps are not read: the phase histogram as before.
  EXPECT_TRUE(ReduceK6Samples(head + "http_req_duration,yesterday,1.0,,,,,,,,,,,200,,,,,\n", Format::kCsv, "x").ok());
}

TEST(K6SamplesPerInterval, StoredFormIsCheckedOnRead) {
  auto r = ReduceK6SamplesPerInterval(Csv(Samples(), "unix_micro"), Format::kCsv, "x", {kOriginUs, kWidthUs});
  ASSERT_TRUE(r.ok());
  nlohmann::json doc = K6ReductionToJson(*r);
  doc["intervals"]["completed"][1] = uint64_t{9999};
  auto bad = K6ReductionFromJson(doc, "h.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("h.json: intervals.latency[1]:"));
  doc = K6ReductionToJson(*r);
  doc["intervals"]["non_2xx"].erase(0);
  bad = K6ReductionFromJson(doc, "h.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("series of different lengths"));
}

}  // namespace
}  // namespace fvbench::k6_samples_test
