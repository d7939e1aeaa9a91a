#include "support/core/interval_latency.h"

#include <fmt/format.h>

#include <algorithm>

namespace fvbench {

LatencyHistogram IntervalHistogram(const IntervalLatency& l) {
  LatencyHistogram h;
  for (const auto& [index, count] : l.buckets) h.AddToBucket(index, count);
  if (l.recorded() > 0) h.SetExtremes(l.min_ns, l.max_ns);
  if (l.timeouts > 0) h.SetTimeouts(l.timeouts, l.timeout_us);
  return h;
}

IntervalLatency IntervalLatencyOf(const LatencyHistogram& h) {
  IntervalLatency l;
  for (size_t i = 0; i < LatencyHistogram::kBuckets; ++i) {
    if (h.CountAt(i) > 0) l.buckets.emplace_back(static_cast<uint32_t>(i), h.CountAt(i));
  }
  l.min_ns = h.min_ns();
  l.max_ns = h.max_ns();
  l.timeouts = h.timeouts();
  l.timeout_us = h.timeouts() > 0 ? h.timeout_us() : 0;
  return l;
}

Result<void> MergeIntervalLatency(IntervalLatency& into, const IntervalLatency& from) {
  if (into.timeouts > 0 && from.timeouts > 0 && into.timeout_us != from.timeout_us) {
    return Error{fmt::format("merging an interval's latencies: timeouts at {} µs and at {} µs", into.timeout_us,
                             from.timeout_us)};
  }
  const bool had = into.recorded() > 0;
  std::vector<std::pair<uint32_t, uint64_t>> out;
  out.reserve(into.buckets.size() + from.buckets.size());
  size_t a = 0, b = 0;
  while (a < into.buckets.size() || b < from.buckets.size()) {
    if (b == from.buckets.size() || (a < into.buckets.size() && into.buckets[a].first < from.buckets[b].first)) {
      out.push_back(into.buckets[a++]);
    } else if (a == into.buckets.size() || from.buckets[b].first < into.buckets[a].first) {
      out.push_back(from.buckets[b++]);
    } else {
      out.emplace_back(into.buckets[a].first, into.buckets[a].second + from.buckets[b].second);
      ++a;
      ++b;
    }
  }
  into.buckets = std::move(out);
  if (from.recorded() > 0) {
    into.min_ns = had ? std::min(into.min_ns, from.min_ns) : from.min_ns;
    into.max_ns = had ? std::max(into.max_ns, from.max_ns) : from.max_ns;
  }
  if (from.timeouts > 0) {
    into.timeouts += from.timeouts;
    into.timeout_us = from.timeout_us;
  }
  return Ok();
}

LatencyUs IntervalLatencyUs(const IntervalLatency& l) { return IntervalHistogram(l).ToLatencyUs(); }

std::vector<LatencyUs> IntervalLatencySummaries(const IntervalSeries& s) {
  if (s.empty()) return {};
  if (s.latency.empty()) return s.latency_read;
  std::vector<LatencyUs> out;
  out.reserve(s.latency.size());
  for (const IntervalLatency& l : s.latency) out.push_back(IntervalLatencyUs(l));
  return out;
}

std::vector<uint64_t> IntervalTimeouts(const IntervalSeries& s) {
  if (s.empty()) return {};
  if (s.latency.empty()) return s.timeouts_read;
  std::vector<uint64_t> out;
  out.reserve(s.latency.size());
  for (const IntervalLatency& l : s.latency) out.push_back(l.timeouts);
  return out;
}

}  // namespace fvbench
