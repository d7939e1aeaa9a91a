// k6's raw per-request samples -> LatencyHistogram (core/latency_histogram.h),
// so that each k6 instance of a multi-loadgen phase ships kilobytes, not its
// samples, and the controller merges exact percentiles. Pure: text
// in, value out. The tool fvbench_k6_reduce (k6_reduce_main.cc) runs this on
// the loadgen host.
//
// Accepted shapes (grafana/k6 output/csv and output/json; k6 docs "Results
// output > CSV / JSON"):
//   CSV  (`--out csv=<file>`; `.gz` is decompressed by the caller): a header
//        line naming the columns, e.g.
//          metric_name,timestamp,metric_value,check,error,error_code,
//          expected_response,group,method,name,proto,scenario,service,status,
//          subproto,tls_version,url,extra_tags,metadata
//        (older k6 lacks expected_response/service/metadata): columns are
//        found by name; metric_name, metric_value are required, error_code
//        optional. Fields with quotes are read as CSV quotes them.
//   JSON (`--out json=<file>`): one object per line,
//          {"type":"Point","data":{"time":"...","value":1.23,"tags":{...}},"metric":"http_req_duration"}
//        and {"type":"Metric",...} definitions (skipped). The line is read by
//        key search, not a full parse (the speed target is 5 M samples/s/core):
//        "metric":"<name>" anywhere, the first "value": after "data":{ (k6
//        writes time, value, tags in that order), and "error_code":"<n>" .
// Only http_req_duration samples count (milliseconds, converted to µs here).
// A sample whose error_code is 1050 (k6 "request timeout", k6 docs "Error
// codes") is a timeout: counted as censored at kK6RequestTimeoutUs.
//
// Per interval (when given a K6IntervalGrid: the phase's common start on the
// loadgen host's clock, µs since the Unix epoch, and the interval width, both
// whole µs): each http_req_duration sample also goes into the histogram of
// the interval its timestamp falls in (k6 stamps a sample when its request
// ends), with per-interval counts: completed (responses), non_2xx (the
// `status` column or tag is not 2xx; "0" and absent included) and timeouts
// (error_code 1050, censored as above). Same buckets as the phase histogram;
// a sample stamped before the origin goes to interval 0 (counted in
// before_origin), so the intervals' histograms sum to the phase histogram
// exactly. Memory grows with the intervals (each holds the span of buckets
// its samples touch), not with the requests. More than kMaxK6Intervals
// intervals (a timestamp far after the origin) is an error.
//
// Timestamps. CSV: the `timestamp` column, in the format k6's csv output
// was given (grafana/k6 internal/output/csv config.go: option timeFormat,
// env K6_CSV_TIME_FORMAT, read from k6's environment through envconfig;
// output.go SampleToRow):
//   unix          whole seconds            (the default; k6 >= v0.39 has the option)
//   unix_milli    ms, unix_micro µs, unix_nano ns since the epoch (k6 >= v0.44)
//   rfc3339       "2024-12-01T05:13:20Z" (seconds) / rfc3339_nano (Go's
//                 RFC3339Nano: up to 9 fraction digits, trailing zeros
//                 trimmed; offset Z or +hh:mm)                (k6 >= v0.44)
// Unix forms are told apart by their digits (<= 11 s, 12-14 ms, 15-17 µs,
// 18-20 ns: right for any date after 2001); mixing them in one file is an
// error. JSON: data.time, Go's time.Time JSON form (RFC3339Nano). An RFC 3339
// file in which no timestamp has a fraction is read as whole seconds.
// Resolution r: 1 s, 1 ms, 1 µs, 1 ns; rfc3339 1 s, rfc3339_nano 1 ns.
// k6 truncates to r, so the binning is exact only when the origin and the
// width are multiples of r; otherwise the per-interval series is ABSENT
// (K6Reduction::intervals empty, intervals_absent saying why), never binned
// approximately: e.g. `unix` (1 s) timestamps with 1 s intervals on an origin
// that is not a whole second. The phase histogram is unaffected.
// A timestamp that is none of these is an error naming the source and line.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/core/interval_series.h"
#include "support/core/latency_histogram.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr std::string_view kK6TimeoutErrorCode = "1050";

inline constexpr size_t kMaxK6Intervals = size_t{1} << 20;

// Where interval 0 starts and how wide each is (whole µs; width >= 1).
struct K6IntervalGrid {
  double origin_epoch_us = 0;
  double width_us = 0;
};

struct K6Reduction {
  LatencyHistogram histogram;     // the phase's
  IntervalSeries intervals;       // per interval (interval_series.h; sends_counted false); empty() when absent
  std::string intervals_absent;   // why the series is absent when a grid was given; "" otherwise
  uint64_t before_origin = 0;     // samples stamped before the origin (in interval 0)
  std::string time_format;        // as recognised: unix, unix_milli, ..., rfc3339_nano; "" when none read
  uint64_t time_resolution_ns = 0;
};

// Reduces one file's samples chunk by chunk (a chunk may end mid-line; the
// tail is kept for the next). Errors name `source` and the 1-based line.
class K6SampleReducer {
 public:
  enum class Format { kCsv, kJson };
  // Without a grid: the phase histogram only (timestamps are not read).
  K6SampleReducer(Format format, std::string source, std::optional<K6IntervalGrid> grid = std::nullopt);

  Result<void> Feed(std::string_view chunk);
  // Feeds everything `in` holds, 1 MiB at a time (a k6 CSV holds ~10 lines
  // per request); a read error names the source. Used by fvbench_k6_reduce
  // on the loadgen host and by the k6 engine on the controller.
  Result<void> FeedFile(std::FILE* in);
  // The last line (without a trailing newline) and the result. Error when a
  // CSV file had no header, a JSON file no line; a JSON line that is not an
  // object is an Error as it is fed.
  Result<LatencyHistogram> Finish();
  // The same, with the per-interval series (or why it is absent). Error also
  // when the grid is not whole µs with width >= 1 and origin > 0, or a CSV
  // header lacks the timestamp or status column a grid needs.
  Result<K6Reduction> FinishReduction();

  uint64_t lines() const { return line_; }
  uint64_t samples() const { return samples_; }  // http_req_duration samples

 private:
  Result<void> Line(std::string_view line);
  Result<void> CsvHeader(std::string_view line);
  Result<void> CsvLine(std::string_view line);
  Result<void> JsonLine(std::string_view line);
  Result<void> Add(std::string_view value_ms, std::string_view error_code, std::string_view time,
                   std::string_view status);
  Result<size_t> IntervalOf(std::string_view time);
  Result<void> CheckGrid() const;

  // One interval's buckets from `base` on, grown as samples arrive.
  struct Window {
    size_t base = 0;
    std::vector<uint64_t> counts;
    uint64_t min_ns = UINT64_MAX, max_ns = 0, recorded = 0, timeouts = 0, non_2xx = 0;
    void Record(uint64_t ns);
  };
  enum class TimeKind { kNone, kUnixS, kUnixMs, kUnixUs, kUnixNs, kRfc3339 };

  Format format_;
  std::string source_;
  std::string pending_;
  uint64_t line_ = 0;
  uint64_t samples_ = 0;
  bool have_header_ = false;
  uint64_t json_objects_ = 0;  // JSON lines seen (each an object)
  int col_name_ = -1, col_value_ = -1, col_error_code_ = -1, col_time_ = -1, col_status_ = -1;
  LatencyHistogram hist_;
  std::optional<K6IntervalGrid> grid_;
  int64_t origin_ns_ = 0, width_ns_ = 0;
  std::vector<Window> windows_;
  uint64_t before_origin_ = 0;
  TimeKind time_kind_ = TimeKind::kNone;
  bool time_fraction_ = false;  // an RFC 3339 timestamp had a fraction
};

// Whole text at once (tests, small files).
Result<LatencyHistogram> ReduceK6Samples(std::string_view text, K6SampleReducer::Format format,
                                         const std::string& source);
Result<K6Reduction> ReduceK6SamplesPerInterval(std::string_view text, K6SampleReducer::Format format,
                                               const std::string& source, const K6IntervalGrid& grid);

// The reduction's stored form (what fvbench_k6_reduce writes, and the k6
// engine keeps in <phase>.instance.json): the histogram's JSON
// (latency_histogram_json.h) plus, when a grid was given, either
//   "intervals": {"start_epoch_us", "width_us", "completed": [...],
//                 "non_2xx": [...], "latency": [<histogram JSON>, ...]}
// or "intervals_absent": "<why>"; and "before_origin", "time_format".
// Parsing checks one length for the series and completed[i] == the
// interval's recorded samples; errors name `source` and the field.
nlohmann::json K6ReductionToJson(const K6Reduction& r);
Result<K6Reduction> K6ReductionFromJson(const nlohmann::json& doc, const std::string& source);
Result<K6Reduction> ParseK6ReductionJson(std::string_view text, const std::string& source);

}  // namespace fvbench
