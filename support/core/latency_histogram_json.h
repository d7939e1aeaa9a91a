// The stored form of a LatencyHistogram (latency_histogram.h): sparse JSON,
// only the non-empty buckets, so one load generator's phase crosses the
// network in kilobytes whatever its request count. Pure.
//
//   {"schema_version": 1, "layout": "log-linear-ns-1024",
//    "recorded": <n>, "min_ns": <ns>, "max_ns": <ns>,
//    "timeouts": <n>, "timeout_us": <µs>,
//    "buckets": [<index>, <count>, <index>, <count>, ...]}
//
// `buckets` is a flat list of (index, count) pairs, indices strictly
// increasing, counts > 0; their counts sum to `recorded`. pace.lua writes the
// same shape (its `histogram` member).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "support/core/latency_histogram.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr int kHistogramSchemaVersion = 1;
inline constexpr std::string_view kHistogramLayout = "log-linear-ns-1024";

nlohmann::json HistogramToJson(const LatencyHistogram& h);

// Errors name `source` and the field: "<source>: buckets[6]: index 40000 is
// outside the layout (0..31743)", "...: buckets: counts sum to 10, recorded says 11".
Result<LatencyHistogram> HistogramFromJson(const nlohmann::json& doc, const std::string& source);
Result<LatencyHistogram> ParseHistogramJson(std::string_view text, const std::string& source);

}  // namespace fvbench
