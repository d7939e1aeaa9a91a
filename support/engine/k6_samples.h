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
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "support/core/latency_histogram.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr std::string_view kK6TimeoutErrorCode = "1050";

// Reduces one file's samples chunk by chunk (a chunk may end mid-line; the
// tail is kept for the next). Errors name `source` and the 1-based line.
class K6SampleReducer {
 public:
  enum class Format { kCsv, kJson };
  K6SampleReducer(Format format, std::string source);

  Result<void> Feed(std::string_view chunk);
  // Feeds everything `in` holds, 1 MiB at a time (a k6 CSV holds ~10 lines
  // per request); a read error names the source. Used by fvbench_k6_reduce
  // on the loadgen host and by the k6 engine on the controller.
  Result<void> FeedFile(std::FILE* in);
  // The last line (without a trailing newline) and the result. Error when a
  // CSV file had no header, a JSON file no line; a JSON line that is not an
  // object is an Error as it is fed.
  Result<LatencyHistogram> Finish();

  uint64_t lines() const { return line_; }
  uint64_t samples() const { return samples_; }  // http_req_duration samples

 private:
  Result<void> Line(std::string_view line);
  Result<void> CsvHeader(std::string_view line);
  Result<void> CsvLine(std::string_view line);
  Result<void> JsonLine(std::string_view line);
  Result<void> Add(std::string_view value_ms, std::string_view error_code);

  Format format_;
  std::string source_;
  std::string pending_;
  uint64_t line_ = 0;
  uint64_t samples_ = 0;
  bool have_header_ = false;
  uint64_t json_objects_ = 0;  // JSON lines seen (each an object)
  int col_name_ = -1, col_value_ = -1, col_error_code_ = -1;
  LatencyHistogram hist_;
};

// Whole text at once (tests, small files).
Result<LatencyHistogram> ReduceK6Samples(std::string_view text, K6SampleReducer::Format format,
                                         const std::string& source);

}  // namespace fvbench
