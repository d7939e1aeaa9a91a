#include "support/judge/p99_drift.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "support/core/interval_latency.h"
#include "support/core/units_format.h"
#include "support/judge/judged_intervals.h"

namespace fvbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Why a half's p99 proves nothing against the other's ("" when it does).
std::string Unjudged(const char* half, uint64_t samples, const LatencyUs& p99) {
  if (samples < kMinP99DriftSamples) {
    return fmt::format("the {} half holds {} recorded samples, fewer than {} (its p99 at rank {} from the top)", half,
                       samples, kMinP99DriftSamples, samples / 100);
  }
  if (p99.IsCensored(p99.p99)) {
    return fmt::format("the {} half's p99 fell among its timed-out requests (>= {})", half,
                       detail::FormatUs(p99.censored_at_us));
  }
  return "";
}

}  // namespace

bool HasIntervalLatency(const LoadResult& load) {
  const IntervalSeries& s = load.intervals;
  return s.has_latency() && s.latency.size() == s.size();
}

P99Drift MeasureP99Drift(const LoadResult& load) {
  P99Drift d;
  d.drift = kNaN;
  if (!HasIntervalLatency(load)) {
    d.why = "no latency per interval (wrk: pace.lua has no per-request timing)";
    return d;
  }
  const JudgedIntervals j = JudgeIntervals(load);
  const size_t n = j.index.size();
  d.half_intervals = n / 2;
  if (d.half_intervals == 0) {
    d.why = fmt::format("{} judged interval{} ({}): two halves need 2", n, n == 1 ? "" : "s", j.rule);
    return d;
  }
  IntervalLatency first, second;
  auto add = [&](IntervalLatency& half, size_t at) {
    auto m = MergeIntervalLatency(half, load.intervals.latency[at]);
    if (!m) d.why = fmt::format("interval {}: {}", at, m.error().message);
    return m.ok();
  };
  for (size_t k = 0; k < d.half_intervals; ++k) {
    if (!add(first, j.index[k]) || !add(second, j.index[n - 1 - k])) return d;
  }
  d.first_samples = first.recorded();
  d.second_samples = second.recorded();
  if (d.first_samples == 0 || d.second_samples == 0) {
    d.why = Unjudged(d.first_samples == 0 ? "first" : "second", 0, LatencyUs{});
    return d;
  }
  const LatencyUs a = IntervalLatencyUs(first), b = IntervalLatencyUs(second);
  d.first_p99_us = a.p99;
  d.second_p99_us = b.p99;
  d.drift = a.p99 > 0 ? std::fabs(b.p99 / a.p99 - 1) : (b.p99 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
  d.why = Unjudged("first", d.first_samples, a);
  if (d.why.empty()) d.why = Unjudged("second", d.second_samples, b);
  d.judged = d.why.empty();
  return d;
}

}  // namespace fvbench
