// A mergeable latency distribution: log-linear (HDR-style) buckets with one
// fixed layout, so histograms from several load generators merge by adding
// counts and the merge's percentiles are those of the union of their samples
// within the layout's precision. Percentiles never average (DESIGN.md).
//
// Layout (fixed; every producer must use it: pace.lua, the k6 reducer):
//   values are integer NANOSECONDS v (µs inputs are rounded to the nearest ns)
//   v < 2048                  bucket index v (exact)
//   v >= 2048, e = floor(log2 v), s = e - 10:
//                             index (s << 10) + (v >> s)
//   i.e. 1024 buckets per power of two, each 2^s ns wide; values at or above
//   2^40 ns (~1100 s) go to the last bucket (index kBuckets - 1).
// A bucket is reported by the midpoint of the values it holds (clamped to the
// exact minimum and maximum recorded), so the relative error of a reported
// value is at most 2^(s-1) / 2^(s+10) = 1/2048 (0.049 %), below the 0.1 %
// a merged percentile may be off by.
//
// Timeouts are censored samples (latency_us.h LatencyUs, outcomes.h): they
// are counted beside the buckets as `timeouts` at `timeout_us`; a quantile
// whose rank falls among them reads timeout_us and is flagged censored.
//
// Quantile q of n samples (recorded + timeouts): the sample of rank
// QuantileRank(q, n) = max(1, ceil(q x n)) in ascending order (nearest rank;
// q x n within 1e-9 of an integer counts as that integer, so 0.99 x 100 is
// rank 99). Pure; no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/result.h"

namespace fvbench {

// The nearest rank (1-based) of quantile q (0..1, clamped) among n samples; 0 when n is 0.
uint64_t QuantileRank(double q, uint64_t n);

struct QuantileValue {
  double us = 0;          // the value (µs); timeout_us when censored; 0 when the histogram is empty
  bool censored = false;  // the rank fell among the timeouts: a lower bound
};

class LatencyHistogram {
 public:
  static constexpr int kSubBucketBits = 10;
  static constexpr uint64_t kSubBuckets = uint64_t{1} << kSubBucketBits;  // per power of two
  static constexpr int kMaxExponent = 40;                                  // values < 2^40 ns
  static constexpr size_t kBuckets = static_cast<size_t>((kMaxExponent - kSubBucketBits + 1) << kSubBucketBits);

  // The layout: index of a value (ns), and the range [lowest, lowest + width) of a bucket.
  static size_t BucketIndex(uint64_t ns);
  static uint64_t BucketLowestNs(size_t index);
  static uint64_t BucketWidthNs(size_t index);

  LatencyHistogram();

  // A response latency (µs; negative and NaN count as 0, +inf as the top bucket).
  void RecordUs(double us, uint64_t count = 1);
  void RecordNs(uint64_t ns, uint64_t count = 1);
  // `count` requests that timed out after timeout_us (censored). Error when
  // timeout_us is not positive, or differs from a timeout already recorded.
  Result<void> RecordTimeouts(uint64_t count, double timeout_us);

  // Adds `other`'s counts. Error (and nothing changed) when both carry
  // timeouts at different timeout_us.
  Result<void> Merge(const LatencyHistogram& other);

  uint64_t recorded() const { return recorded_; }  // samples in the buckets
  uint64_t timeouts() const { return timeouts_; }
  uint64_t total() const { return recorded_ + timeouts_; }
  double timeout_us() const { return timeout_us_; }
  uint64_t min_ns() const { return recorded_ == 0 ? 0 : min_ns_; }
  uint64_t max_ns() const { return max_ns_; }
  uint64_t CountAt(size_t index) const { return counts_[index]; }

  // Quantile q (0..1) of recorded + timeouts (nearest rank, see above).
  QuantileValue ValueAtQuantile(double q) const;
  // p50/p90/p99/p99.9/max in µs, censored as LatencyUs documents (max is
  // timeout_us when any request timed out).
  LatencyUs ToLatencyUs() const;

  // Restores one bucket from a stored form (latency_histogram_json.h); the
  // caller checks the index. Keeps min/max as given by SetExtremes.
  void AddToBucket(size_t index, uint64_t count);
  void SetExtremes(uint64_t min_ns, uint64_t max_ns);
  // Restores timeouts without the consistency check (decoder only).
  void SetTimeouts(uint64_t count, double timeout_us);

 private:
  std::vector<uint64_t> counts_;
  uint64_t recorded_ = 0;
  uint64_t timeouts_ = 0;
  double timeout_us_ = 0;
  uint64_t min_ns_ = UINT64_MAX;
  uint64_t max_ns_ = 0;
};

}  // namespace fvbench
