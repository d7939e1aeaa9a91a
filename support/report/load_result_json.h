// The JSON object of one LoadResult (load_result.h) and of its latency block,
// shared by a scenario's result (results_io.h) and an A/B side's runs
// (ab_json.h). Field names as in the struct; "latency_us": {p50, p90, p99,
// p999, max} in µs; "intervals" (core/interval_series.h) only when the
// engine wrote counts per interval (absent: an empty series, as in older
// files), with, for a series that has latency per interval (k6), each
// interval's percentiles, timeouts and non_2xx, read back into
// IntervalSeries::latency_read, timeouts_read and non_2xx (the histograms are
// not written); non-finite numbers are written as null and read as NaN
// (per-interval latencies refuse null).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/load_result.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h

// p50..p999 in µs (reference.json's shape); a LoadResult adds its max.
void WriteLatencyUs(JsonWriter& w, const LatencyUs& l, bool with_max);
void WriteLoadResult(JsonWriter& w, const LoadResult& r);
// Throws detail::JsonFieldError (json_fields.h) naming `path`.
LoadResult LoadResultFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench::detail
