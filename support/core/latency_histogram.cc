#include "support/core/latency_histogram.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace fvbench {

uint64_t QuantileRank(double q, uint64_t n) {
  if (n == 0) return 0;
  if (!(q > 0)) return 1;  // also NaN
  if (q >= 1) return n;
  const double r = q * static_cast<double>(n);
  const double f = std::floor(r);
  uint64_t rank = static_cast<uint64_t>(f);
  if (r - f > 1e-9 * std::max(1.0, r)) ++rank;
  return std::clamp<uint64_t>(rank, 1, n);
}

size_t LatencyHistogram::BucketIndex(uint64_t ns) {
  if (ns < 2 * kSubBuckets) return static_cast<size_t>(ns);
  if (ns >> kMaxExponent) return kBuckets - 1;
  const int e = 63 - __builtin_clzll(ns);
  const int s = e - kSubBucketBits;
  return (static_cast<size_t>(s) << kSubBucketBits) + static_cast<size_t>(ns >> s);
}

uint64_t LatencyHistogram::BucketLowestNs(size_t index) {
  if (index < 2 * kSubBuckets) return index;
  const int s = static_cast<int>(index >> kSubBucketBits) - 1;
  const uint64_t sub = index - (static_cast<uint64_t>(s) << kSubBucketBits);
  return sub << s;
}

uint64_t LatencyHistogram::BucketWidthNs(size_t index) {
  if (index < 2 * kSubBuckets) return 1;
  return uint64_t{1} << ((index >> kSubBucketBits) - 1);
}

LatencyHistogram::LatencyHistogram() : counts_(kBuckets, 0) {}

void LatencyHistogram::RecordNs(uint64_t ns, uint64_t count) {
  if (count == 0) return;
  counts_[BucketIndex(ns)] += count;
  recorded_ += count;
  min_ns_ = std::min(min_ns_, ns);
  max_ns_ = std::max(max_ns_, ns);
}

void LatencyHistogram::RecordUs(double us, uint64_t count) {
  uint64_t ns = 0;
  if (us >= 1.8e16) {
    ns = uint64_t{1} << kMaxExponent;  // beyond the layout (and +inf): the top bucket
  } else if (us > 0) {
    ns = static_cast<uint64_t>(std::llround(us * 1000.0));
  }
  RecordNs(ns, count);
}

Result<void> LatencyHistogram::RecordTimeouts(uint64_t count, double timeout_us) {
  if (!(timeout_us > 0) || !std::isfinite(timeout_us)) {
    return Error{fmt::format("latency histogram: timeout {} µs is not a positive number", timeout_us)};
  }
  if (timeouts_ > 0 && timeout_us_ != timeout_us) {
    return Error{fmt::format("latency histogram: timeouts at {} µs and at {} µs cannot be counted together",
                             timeout_us_, timeout_us)};
  }
  if (count == 0) return Ok();
  timeouts_ += count;
  timeout_us_ = timeout_us;
  return Ok();
}

Result<void> LatencyHistogram::Merge(const LatencyHistogram& other) {
  if (timeouts_ > 0 && other.timeouts_ > 0 && timeout_us_ != other.timeout_us_) {
    return Error{fmt::format(
        "latency histogram merge: one side's requests timed out at {} µs, the other's at {} µs (the "
        "load generators must use one request timeout)",
        timeout_us_, other.timeout_us_)};
  }
  for (size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
  recorded_ += other.recorded_;
  if (other.recorded_ > 0) {
    min_ns_ = std::min(min_ns_, other.min_ns_);
    max_ns_ = std::max(max_ns_, other.max_ns_);
  }
  if (other.timeouts_ > 0) {
    timeouts_ += other.timeouts_;
    timeout_us_ = other.timeout_us_;
  }
  return Ok();
}

QuantileValue LatencyHistogram::ValueAtQuantile(double q) const {
  const uint64_t rank = QuantileRank(q, total());
  if (rank == 0) return {};
  if (rank > recorded_) return {timeout_us_, true};
  if (rank == recorded_) return {static_cast<double>(max_ns_) / 1000.0, false};  // the largest is known exactly
  if (rank == 1) return {static_cast<double>(min_ns_) / 1000.0, false};
  uint64_t seen = 0;
  for (size_t i = 0; i < kBuckets; ++i) {
    seen += counts_[i];
    if (seen < rank) continue;
    const double mid = static_cast<double>(BucketLowestNs(i)) +
                       static_cast<double>(BucketWidthNs(i) - 1) / 2.0;
    const double ns = std::clamp(mid, static_cast<double>(min_ns_), static_cast<double>(max_ns_));
    return {ns / 1000.0, false};
  }
  return {static_cast<double>(max_ns_) / 1000.0, false};  // unreachable: counts sum to recorded_
}

LatencyUs LatencyHistogram::ToLatencyUs() const {
  LatencyUs l;
  const struct {
    double q;
    double* value;
  } levels[] = {{0.5, &l.p50}, {0.9, &l.p90}, {0.99, &l.p99}, {0.999, &l.p999}};
  for (const auto& level : levels) *level.value = ValueAtQuantile(level.q).us;
  l.max = static_cast<double>(max_ns_) / 1000.0;
  if (timeouts_ > 0) {
    l.max = timeout_us_;
    l.censored_at_us = timeout_us_;
  }
  return l;
}

void LatencyHistogram::AddToBucket(size_t index, uint64_t count) {
  counts_[index] += count;
  recorded_ += count;
}

void LatencyHistogram::SetExtremes(uint64_t min_ns, uint64_t max_ns) {
  min_ns_ = min_ns;
  max_ns_ = max_ns;
}

void LatencyHistogram::SetTimeouts(uint64_t count, double timeout_us) {
  timeouts_ = count;
  timeout_us_ = timeout_us;
}

}  // namespace fvbench
