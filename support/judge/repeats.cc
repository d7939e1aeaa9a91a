#include "support/judge/repeats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/core/metric_names.h"

namespace fvbench {

double Median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Spread SpreadOf(const std::vector<double>& values) {
  if (values.empty()) {
    double nan = std::numeric_limits<double>::quiet_NaN();
    return {nan, nan, nan};
  }
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return {*lo, Median(values), *hi};
}

RepeatSummary SummarizeRepeats(const std::vector<LoadResult>& runs) {
  RepeatSummary out;
  if (runs.empty()) return out;
  auto collect = [&](auto get) {
    std::vector<double> v;
    v.reserve(runs.size());
    for (const LoadResult& r : runs) v.push_back(static_cast<double>(get(r)));
    return v;
  };
  LoadResult& m = out.median;
  m.engine = runs.front().engine;
  m.engine_version = runs.front().engine_version;
  m.target_rps = runs.front().target_rps;
  struct Metric {
    const char* name;
    double (*get)(const LoadResult&);
    double* into;
  };
  // The latency metrics of metric_names.h, then the rates.
  for (const LatencyMetric& lm : kLatencyMetrics) {
    Spread s = SpreadOf(collect([&](const LoadResult& r) { return r.latency_us.*lm.field; }));
    m.latency_us.*lm.field = s.median;
    out.spread[lm.name] = s;
  }
  const Metric metrics[] = {
      {kMetricErrorRate, [](const LoadResult& r) { return r.error_rate; }, &m.error_rate},
      {kMetricAchievedRps, [](const LoadResult& r) { return r.achieved_rps; }, &m.achieved_rps},
  };
  for (const Metric& x : metrics) {
    Spread s = SpreadOf(collect(x.get));
    *x.into = s.median;
    out.spread[x.name] = s;
  }
  m.duration_s = Median(collect([](const LoadResult& r) { return r.duration_s; }));
  m.requests = static_cast<uint64_t>(std::llround(Median(collect([](const LoadResult& r) { return r.requests; }))));
  m.failed = static_cast<uint64_t>(std::llround(Median(collect([](const LoadResult& r) { return r.failed; }))));
  m.non_2xx = static_cast<uint64_t>(std::llround(Median(collect([](const LoadResult& r) { return r.non_2xx; }))));
  bool all_evidence = true;
  for (const LoadResult& r : runs) {
    m.kept_up = m.kept_up && r.kept_up;
    m.dropped_iterations = std::max(m.dropped_iterations, r.dropped_iterations);
    m.max_send_lag_us = std::max(m.max_send_lag_us, r.max_send_lag_us);
    m.late_send_share = std::max(m.late_send_share, r.late_send_share);
    all_evidence = all_evidence && r.ratelimit_evidence.has_value();
  }
  if (all_evidence) {
    m.ratelimit_evidence = static_cast<uint64_t>(
        std::llround(Median(collect([](const LoadResult& r) { return *r.ratelimit_evidence; }))));
  }
  return out;
}

}  // namespace fvbench
