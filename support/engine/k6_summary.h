// k6 end-of-test summary -> LoadResult. Pure: text in, value out, no I/O.
//
// Accepted shapes (k6 0.4x .. 1.x):
//
//  1. handleSummary `data`, as k6/constant_rate.js writes it with
//     JSON.stringify(data) (grafana/k6 js/summary.go summarizeMetricsToObject):
//       { "options": {"summaryTrendStats": [...], "summaryTimeUnit": ""},
//         "state":   {"testRunDurationMs": 60012.3},
//         "metrics": { "<name>": {"type": "trend|counter|rate|gauge",
//                                 "contains": "time|default|data",
//                                 "values": {...},
//                                 "thresholds": {"p(99)<5": {"ok": true}}}}}
//  2. legacy `k6 run --summary-export` (grafana/k6 js/summary-wrapper.js
//     oldJSONSummary): no options/state; metrics.<name> IS the values object;
//     a rate's `rate` is renamed `value`; thresholds are {"expr": <bool>} where
//     true means the threshold FAILED (grafana/k6 issue #1498).
//
// Facts the parser relies on:
//  - Trend values are milliseconds, keyed by the literal summaryTrendStats
//    strings; percentiles are matched by number, so "p(99.9)" == "p(99.90)".
//    p50 falls back to "med" when no p(50) key exists. Converted to µs here,
//    once. A non-empty summaryTimeUnit other than "ms" is rejected.
//  - http_req_failed is a rate whose `passes` counts FAILED requests (the
//    sample is true when the request failed); passes + fails must equal
//    http_reqs.count. A rate with no samples is null (NaN in JSON.stringify).
//  - dropped_iterations (counter) is absent when nothing was dropped.
//  - Custom counters from k6/constant_rate.js: non_2xx (status outside
//    200..299, one sample per response) and ratelimit_evidence (responses
//    carrying a RateLimit header; only with COUNT_RATELIMIT=1).
//
// LoadResult mapping: engine "k6"; requests = http_reqs.count; failed =
// http_req_failed.passes; error_rate = failed / requests; achieved_rps =
// http_reqs.rate (else requests / duration_s); duration_s =
// state.testRunDurationMs / 1000 (else requests / rate); dropped_iterations;
// kept_up = dropped_iterations == 0; latency_us.mean = http_req_duration's
// `avg` when present (0 otherwise); non_2xx = the non_2xx counter when
// present, else failed; ratelimit_evidence when the counter is present;
// target_rps as given; raw_path = source_name.
//
// Every failure is an Error naming source_name and the field path, e.g.
//   "/x/lat.json: metrics.http_req_duration.values: missing percentile p(99.9)
//    (summaryTrendStats must include it)".
// Empty input, broken JSON, wrong types, missing metrics and a run with zero
// requests are all errors; nothing defaults silently to 0.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/result.h"

namespace fvbench {

enum class K6SummaryShape { kHandleSummary, kSummaryExport };

struct K6Summary {
  K6SummaryShape shape = K6SummaryShape::kHandleSummary;
  LoadResult load;
  // Thresholds k6 evaluated as failed, as "metric: expression" (both shapes,
  // polarity normalised). Empty when none were declared or all held.
  std::vector<std::string> failed_thresholds;
};

Result<K6Summary> ParseK6SummaryDetailed(std::string_view text, const std::string& source_name,
                                         double target_rps);

// ParseK6SummaryDetailed(...).load.
Result<LoadResult> ParseK6Summary(std::string_view text, const std::string& source_name,
                                  double target_rps);

const char* K6SummaryShapeName(K6SummaryShape shape);

}  // namespace fvbench
