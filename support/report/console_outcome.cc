#include "support/report/console_outcome.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "support/core/metric_names.h"
#include "support/core/units_format.h"
#include "support/judge/ab_compare.h"
#include "support/judge/key_sweep_break.h"
#include "support/judge/threshold_headroom.h"
#include "support/judge/thresholds.h"
#include "support/judge/validity.h"

namespace fvbench {
namespace {

std::string SearchHow(const ScenarioResult& r) {
  std::string how = r.engine_limited       ? "engine-limited: the load generator, not the SUT, was the limit; "
                                             "add load generators or cores"
                    : r.search != "bisect" ? "measured at the best passing step"
                    : r.confirmed          ? "measured in the confirmation run"
                                           : "UNCONFIRMED: measured at the best passing step";
  if (r.repeats.size() > 1) how += fmt::format(", median of {} runs", r.repeats.size());
  return how;
}

std::string SearchLine(const ScenarioResult& r) {
  using detail::FormatNumber;
  const bool bound = MeasuredIsLowerBound(r);
  const char* why = r.ceiling_reached              ? " (ceiling reached)"
                    : bound && !r.engine_limited ? " (no step failed)"
                                                 : "";
  std::string s = fmt::format("{}: max sustained {}{} RPS{} ({})", r.id, bound ? "at least " : "",
                              FormatNumber(r.throughput_rps), why, SearchHow(r));
  if (!r.search.empty()) {
    s += fmt::format("; {} search, resolution {}, {} s of load", r.search,
                     r.search_resolution ? fmt::format("{:.1f} %", *r.search_resolution * 100)
                                         : fmt::format("none ({})", NoResolutionReason(r)),
                     FormatNumber(r.search_load_s));
  }
  return s;
}

}  // namespace

std::string MeasuredLine(const ScenarioResult& r) {
  using detail::FormatLatency;
  using detail::FormatNumber;
  using detail::FormatPercent;
  const LoadResult& l = r.load;
  std::string s = fmt::format("{}: p50 {} p90 {} p99 {} p99.9 {} max {}; {} requests, achieved {} RPS of {} "
                              "target, errors {}, non-2xx {}, engine kept up: {}",
                              r.id, FormatLatency(l.latency_us, l.latency_us.p50),
                              FormatLatency(l.latency_us, l.latency_us.p90),
                              FormatLatency(l.latency_us, l.latency_us.p99),
                              FormatLatency(l.latency_us, l.latency_us.p999),
                              FormatLatency(l.latency_us, l.latency_us.max), l.requests,
                              FormatNumber(l.achieved_rps), FormatNumber(l.target_rps),
                              FormatPercent(l.error_rate), l.non_2xx, l.kept_up ? "yes" : "NO");
  if (!r.steps.empty()) s += "\n" + SearchLine(r);
  return s;
}

std::string LimitLine(const LimitRun& run) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  const LimitAccuracy& a = run.accuracy;
  const std::string over =
      a.keys_over == 0 ? "none"
                       : fmt::format("{} ({} keys, worst {})", FormatPercent(a.over_admission), a.keys_over,
                                     a.over_admission_key);
  return fmt::format(
      "limits {} worker{}, {} keys: admitted per key {}/{}/{} of {} allowed (floor {}), over-admission {}, worst 1 s {} of {}, "
      "429 share {} (a correct limiter's least {}), {} log lines before the phase",
      run.workers, run.workers == 1 ? "" : "s", a.keys_planned, FormatNumber(a.admitted_min), FormatNumber(a.admitted_median),
      FormatNumber(a.admitted_max), FormatNumber(a.allowed_per_key), FormatNumber(a.floor_per_key), over,
      a.worst_window_admitted, FormatNumber(a.window_allowed), FormatPercent(a.reject_share),
      FormatPercent(a.expected_reject_share), a.before_window);
}

std::string LimitWorstLine(const ScenarioResult& r, const Reference* comparison) {
  std::string out;
  for (const char* metric : {kMetricOverAdmission, kMetricUnderAdmission, kMetricWindowExcess}) {
    const double v = MetricValue(r, metric);
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", metric,
                       std::isnan(v) ? std::string("—") : detail::FormatPercent(v));
    const std::optional<double> base = comparison != nullptr ? comparison->value(r.id, metric) : std::nullopt;
    if (base) out += fmt::format(" ({} {})", comparison->label(), detail::FormatPercent(*base));
  }
  return out;
}

namespace {

std::string TimesOrNotKnown(double v) { return std::isnan(v) ? "not known" : fmt::format("{:.2f} x", v); }

}  // namespace

std::string RejectCostPhaseLine(const RejectCostPhase& p) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  const LatencyUs& l = p.load.latency_us;
  return fmt::format(
      "reject_cost {}: {} key{} at {} RPS each, achieved {} RPS, 2xx/{}/other {}/{}/{} (429 share {}), p50 {} p99 "
      "{} p99.9 {} (all statuses), edge CPU {}",
      p.name, p.keys, p.keys == 1 ? "" : "s", FormatNumber(p.offered_per_key_rps), FormatNumber(p.load.achieved_rps),
      p.by_status ? "429" : "non-2xx", p.ok, p.rejected, p.other, FormatPercent(p.reject_share),
      detail::FormatLatency(l, l.p50), detail::FormatLatency(l, l.p99), detail::FormatLatency(l, l.p999),
      std::isnan(p.cpu_us_per_request) ? "not sampled"
                                       : FormatNumber(std::round(p.cpu_us_per_request * 10) / 10) + " µs per request");
}

std::string RejectCostRatioLine(const RejectCostRun& run) {
  return fmt::format("reject_cost rejected / admitted: p50 {}, p99 {}, CPU per request {}",
                     TimesOrNotKnown(run.p50_ratio), TimesOrNotKnown(run.p99_ratio), TimesOrNotKnown(run.cpu_ratio));
}

std::string KeySweepLine(const KeySweepPoint& p, const LimitRun& run) {
  using detail::FormatNumber;
  using detail::FormatPercent;
  using detail::FormatUs;
  const auto mib = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f} MiB", *v) : "not sampled"; };
  return fmt::format("keys {}: achieved {} RPS, p50 {} p99 {}, over-admission {} ({} keys over), edge RSS {} (peak {})",
                     p.keys, FormatNumber(run.load.achieved_rps), FormatUs(run.load.latency_us.p50),
                     FormatUs(run.load.latency_us.p99), FormatPercent(run.accuracy.over_admission),
                     run.accuracy.keys_over, mib(p.fv_rss_mib), mib(p.fv_rss_peak_mib));
}

ConsoleOutcome DescribeOutcome(const ScenarioResult& r, const std::string& result_path) {
  ConsoleOutcome o;
  if (r.measured) {
    o.measured = MeasuredLine(r);
    o.text += o.measured + "\n";
  }
  for (const ThresholdCheck& c : r.checks) {
    std::string line = std::string(c.passed ? "pass " : "FAIL ") + DescribeCheck(c);
    if (c.passed) line += ": " + DescribeHeadroom(CheckHeadroom(c));
    o.text += "check: " + line + "\n";
    o.checks += (o.checks.empty() ? "" : "\n") + line;
  }
  for (const std::string& n : r.notes) o.text += "note: " + n + "\n";
  for (const ValidityCheck& v : r.validity) {
    o.text += fmt::format("validity: {} {}\n", v.informational ? "info" : (v.passed ? "pass" : "FAIL"),
                          DescribeValidity(v));
  }
  if (!r.sut_usage.empty()) o.text += "SUT usage: " + DescribeUsage(r.sut_usage) + "\n";
  for (const LimitRun& run : r.limits) o.limits += (o.limits.empty() ? "" : "\n") + LimitLine(run);
  if (!o.limits.empty()) o.text += o.limits + "\n";
  if (r.reject_cost) {
    o.reject_cost = RejectCostPhaseLine(r.reject_cost->admitted) + "\n" + RejectCostPhaseLine(r.reject_cost->rejected) +
                    "\n" + RejectCostRatioLine(*r.reject_cost);
    o.text += o.reject_cost + "\n";
  }
  for (size_t i = 0; i < r.key_sweep.size() && i < r.limits.size(); ++i) {
    o.key_sweep += KeySweepLine(r.key_sweep[i], r.limits[i]) + "\n";
  }
  if (!r.key_sweep.empty()) {
    o.key_sweep += "break: " + KeySweepBreakLine(r);
    o.text += o.key_sweep + "\n";
  }
  if (r.ab) {
    o.ab = "A/B " + r.ab->method;
    for (const AbComparison& c : r.ab->metrics) o.ab += "\nA/B " + DescribeAbMetric(c);
    if (!r.ab->error.empty()) o.ab += "\nA/B stopped early: " + r.ab->error;
    o.text += o.ab + "\n";
  }
  o.text += "result: " + result_path + "\n";
  return o;
}

}  // namespace fvbench
