#include "support/core/latency_histogram_json.h"

#include <fmt/format.h>

#include "support/core/json_fields.h"

namespace fvbench {

nlohmann::json HistogramToJson(const LatencyHistogram& h) {
  nlohmann::json buckets = nlohmann::json::array();
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    if (h.CountAt(i) == 0) continue;
    buckets.push_back(i);
    buckets.push_back(h.CountAt(i));
  }
  nlohmann::json doc = {{"schema_version", kHistogramSchemaVersion},
                        {"layout", kHistogramLayout},
                        {"recorded", h.recorded()},
                        {"min_ns", h.min_ns()},
                        {"max_ns", h.max_ns()},
                        {"timeouts", h.timeouts()},
                        {"timeout_us", h.timeout_us()}};
  doc["buckets"] = std::move(buckets);
  return doc;
}

namespace {

using detail::JsonFieldError;

uint64_t PairValue(const nlohmann::json& v, size_t at) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    throw JsonFieldError{fmt::format("buckets[{}]: expected a non-negative integer, got {}", at, v.dump())};
  }
  return v.get<uint64_t>();
}

void ReadBuckets(const nlohmann::json& list, LatencyHistogram& h) {
  if (list.size() % 2 != 0) {
    throw JsonFieldError{fmt::format("buckets: {} numbers, expected (index, count) pairs", list.size())};
  }
  uint64_t previous = 0;
  for (size_t at = 0; at < list.size(); at += 2) {
    const uint64_t index = PairValue(list[at], at);
    const uint64_t count = PairValue(list[at + 1], at + 1);
    if (index >= LatencyHistogram::kBuckets) {
      throw JsonFieldError{fmt::format("buckets[{}]: index {} is outside the layout (0..{})", at, index,
                                       LatencyHistogram::kBuckets - 1)};
    }
    if (at > 0 && index <= previous) {
      throw JsonFieldError{fmt::format("buckets[{}]: index {} does not follow {} (indices must increase)", at,
                                       index, previous)};
    }
    if (count == 0) throw JsonFieldError{fmt::format("buckets[{}]: count 0 (only non-empty buckets are listed)", at + 1)};
    h.AddToBucket(static_cast<size_t>(index), count);
    previous = index;
  }
}

LatencyHistogram Decode(const nlohmann::json& doc) {
  if (!doc.is_object()) throw JsonFieldError{fmt::format("expected an object, got {}", doc.type_name())};
  detail::CheckSchemaVersion(doc, kHistogramSchemaVersion, /*required=*/true);
  const std::string layout = detail::GetString(doc, "layout", "");
  if (layout != kHistogramLayout) {
    throw JsonFieldError{fmt::format("layout: \"{}\", expected \"{}\"", layout, kHistogramLayout)};
  }
  LatencyHistogram h;
  ReadBuckets(detail::GetArray(doc, "buckets", ""), h);
  const uint64_t recorded = detail::GetUint(doc, "recorded", "");
  if (recorded != h.recorded()) {
    throw JsonFieldError{fmt::format("buckets: counts sum to {}, recorded says {}", h.recorded(), recorded)};
  }
  const uint64_t min_ns = detail::GetUint(doc, "min_ns", ""), max_ns = detail::GetUint(doc, "max_ns", "");
  if (recorded > 0 && (min_ns > max_ns || LatencyHistogram::BucketIndex(min_ns) > LatencyHistogram::BucketIndex(max_ns))) {
    throw JsonFieldError{fmt::format("min_ns {} is above max_ns {}", min_ns, max_ns)};
  }
  h.SetExtremes(recorded > 0 ? min_ns : UINT64_MAX, recorded > 0 ? max_ns : 0);
  const uint64_t timeouts = detail::OptUint(doc, "timeouts", "", 0);
  const double timeout_us = detail::OptNumber(doc, "timeout_us", "", 0);
  if (timeouts > 0 && !(timeout_us > 0)) {
    throw JsonFieldError{fmt::format("timeouts: {} requests timed out but timeout_us is {}", timeouts, timeout_us)};
  }
  h.SetTimeouts(timeouts, timeout_us);
  return h;
}

}  // namespace

Result<LatencyHistogram> HistogramFromJson(const nlohmann::json& doc, const std::string& source) {
  try {
    return Decode(doc);
  } catch (const JsonFieldError& e) {
    return Error{fmt::format("{}: histogram: {}", source, e.message)};
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("{}: histogram: {}", source, e.what())};
  }
}

Result<LatencyHistogram> ParseHistogramJson(std::string_view text, const std::string& source) {
  auto doc = detail::ParseJsonText(text, source);
  if (!doc.ok()) return doc.error();
  return HistogramFromJson(*doc, source);
}

}  // namespace fvbench
