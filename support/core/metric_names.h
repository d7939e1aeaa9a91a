// The one table of metric names: the keys a threshold profile, reference.json,
// results.json, REPEAT spreads, A/B comparisons and the reports use for a
// scenario's numbers, with the short label a report shows. Units are in the
// name: *_us microseconds, *_rps requests per second, error_rate a fraction
// 0..1. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "support/core/load_result.h"

namespace fvbench {

// Latency metrics of a LoadResult (LatencyUs), in report order: the four
// percentiles, then the maximum (not a percentile).
struct LatencyMetric {
  const char* name;   // "p50_us" ...
  const char* label;  // "p50", "p99.9", "max"
  double LatencyUs::*field;
};
inline constexpr LatencyMetric kLatencyMetrics[] = {{"p50_us", "p50", &LatencyUs::p50},
                                                    {"p90_us", "p90", &LatencyUs::p90},
                                                    {"p99_us", "p99", &LatencyUs::p99},
                                                    {"p999_us", "p99.9", &LatencyUs::p999},
                                                    {"max_us", "max", &LatencyUs::max}};
// The first kPercentileCount entries of kLatencyMetrics are percentiles.
inline constexpr size_t kPercentileCount = 4;

inline constexpr const char kMetricP50[] = "p50_us";
inline constexpr const char kMetricP90[] = "p90_us";
inline constexpr const char kMetricP99[] = "p99_us";
inline constexpr const char kMetricP999[] = "p999_us";
inline constexpr const char kMetricMax[] = "max_us";
inline constexpr const char kMetricErrorRate[] = "error_rate";      // fraction 0..1 of scheduled requests
inline constexpr const char kMetricAchievedRps[] = "achieved_rps";  // the engine's measured rate
inline constexpr const char kMetricRps[] = "rps";                   // throughput: the reported max sustained rate
// Latency scenarios with latency per interval (k6 series), a fraction:
// |p99 of the second half of the phase's intervals / the first half's - 1|
// (judge/p99_drift.h); not measured (NaN) without per-interval latency (wrk)
// or with too few samples per half.
inline constexpr const char kMetricP99Drift[] = "p99_drift";
// Limits scenarios (limit_figures.h), the worst of the scenario's phases, fractions:
inline constexpr const char kMetricOverAdmission[] = "over_admission";    // (admitted - allowed) / allowed, worst key
inline constexpr const char kMetricUnderAdmission[] = "under_admission";  // (floor - admitted) / floor, worst key
inline constexpr const char kMetricWindowExcess[] = "window_excess";      // worst 1 s window / (rate + burst) - 1
// limits.reject_cost (reject_cost_figures.h), rejected phase / admitted phase, plain ratios:
inline constexpr const char kMetricRejectP50Ratio[] = "reject_p50_ratio";  // p50, all statuses
inline constexpr const char kMetricRejectP99Ratio[] = "reject_p99_ratio";  // p99, all statuses
inline constexpr const char kMetricRejectCpuRatio[] = "reject_cpu_ratio";  // edge CPU µs per request
// A/B comparisons only (ab_compare.h), edge's CPU per run of a side:
inline constexpr const char kMetricFvCpuCores[] = "fv_cpu_cores";                  // cores busy
inline constexpr const char kMetricFvCpuUsPerRequest[] = "fv_cpu_us_per_request";  // µs per request

// The metrics an A/B comparison compares, in display order: the keys of
// results.json's ab.metrics[].metric and the names AB_GATE_METRICS takes
// (judge/ab_compare.h AbMetrics() holds their statistics, in this order).
inline constexpr const char* kAbMetricNames[] = {kMetricP50,        kMetricP90,         kMetricP99,
                                                 kMetricP999,       kMetricErrorRate,   kMetricAchievedRps,
                                                 kMetricFvCpuCores, kMetricFvCpuUsPerRequest};

// True when `name` is one of kAbMetricNames.
inline bool IsAbMetricName(const std::string& name) {
  for (const char* m : kAbMetricNames) {
    if (name == m) return true;
  }
  return false;
}

// Metrics that are fractions (0.01 = 1 %): shown as percentages, their
// headroom in points (judge/threshold_headroom.h).
inline bool IsFractionMetric(const std::string& name) {
  return name == kMetricErrorRate || name == kMetricOverAdmission || name == kMetricUnderAdmission ||
         name == kMetricWindowExcess || name == kMetricP99Drift;
}

// The latency metric named `name`, or null.
inline const LatencyMetric* FindLatencyMetric(const std::string& name) {
  for (const LatencyMetric& m : kLatencyMetrics) {
    if (name == m.name) return &m;
  }
  return nullptr;
}

// The short label of a metric: "p99.9" for p999_us, "p50" for p50_us, the
// name itself for the others ("rps", "error_rate").
inline std::string MetricLabel(const std::string& name) {
  const LatencyMetric* m = FindLatencyMetric(name);
  return m != nullptr ? m->label : name;
}

}  // namespace fvbench
