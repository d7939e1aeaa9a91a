#include "support/judge/ab_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include "support/core/metric_names.h"
#include "support/core/units_format.h"
#include "support/judge/repeats.h"

namespace fvbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kCpuPerRequest = kMetricFvCpuUsPerRequest;
constexpr const char* kCpuCores = kMetricFvCpuCores;

// (max - min) / median (relative) or max - min (absolute) of one side.
double SideNoise(const std::vector<double>& v, AbScale scale) {
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  double range = *hi - *lo;
  if (scale == AbScale::kAbsolute) return range;
  double med = Median(v);
  return med > 0 ? range / med : kNaN;
}

// Words for a significant difference of each metric: {B worse, B better}.
std::pair<const char*, const char*> Words(const std::string& metric) {
  if (metric == "error_rate") return {"has more errors", "has fewer errors"};
  if (metric == "achieved_rps") return {"achieved less", "achieved more"};
  if (metric == kCpuCores) return {"uses more CPU", "uses less CPU"};
  if (metric == kCpuPerRequest) return {"uses more CPU per request", "uses less CPU per request"};
  return {"slower", "faster"};  // latencies
}

std::string Signed(double v, int decimals) {
  // U+2212 MINUS SIGN, as units_format.h's FormatDeltaFraction.
  std::string s = fmt::format("{:.{}f}", std::fabs(v), decimals);
  if (s == fmt::format("{:.{}f}", 0.0, decimals)) return "+" + s;
  return (v < 0 ? "\u2212" : "+") + s;
}

// A value in a reason: "not measured" for NaN (never "nan" in a report).
std::string Shown(double v) { return std::isnan(v) ? "not measured" : fmt::format("{}", v); }

// An amount in the metric's unit, for reasons: "1 µs", "0.11 pp", "0.33 RPS", "0.0033 cores".
std::string Amount(const std::string& metric, double v) {
  if (metric == "error_rate") return fmt::format("{:.2g} pp", v * 100);
  if (metric == "achieved_rps") return fmt::format("{:.2g} RPS", v);
  if (metric == kCpuCores) return fmt::format("{:.2g} cores", v);
  if (metric == kCpuPerRequest) return fmt::format("{:.2g} µs/req", v);
  return fmt::format("{:.3g} µs", v);
}

// Why the paired differences carry no interval, or "" when they do: they
// vary by no more than rounding to `res` can make them vary (ab_compare.h).
std::string WhyNotEstimable(const AbMetricSpec& spec, const std::vector<double>& a, const std::vector<double>& b,
                            const std::vector<double>& d) {
  auto [lo, hi] = std::minmax_element(d.begin(), d.end());
  const double spread = *hi - *lo;
  double allowance = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    double r = spec.scale == AbScale::kRatio ? spec.resolution / a[i] + spec.resolution / b[i] : 2 * spec.resolution;
    allowance = std::max(allowance, r);
  }
  if (spread > allowance) return "";
  if (spread == 0 && d[0] == 0) return "A and B are identical in every pair: no spread to estimate an interval from";
  if (spread == 0) return "every pair differs by the same amount: no spread to estimate an interval from";
  return fmt::format("the pairs' differences vary by no more than rounding to the measurement's resolution ({}) "
                     "can make them: no interval can be estimated",
                     Amount(spec.name, spec.resolution));
}

// The interval of a comparison whose pairs differ beyond rounding, or
// nullopt when they do not (ab_compare.h "Beyond the resolution"): every
// |B_i - A_i| > res > 0, all of one sign, and for the ratio scale every
// A_i > res. Each pair's change is bounded with its difference widened by
// res (B_i - A_i -/+ res) over A widened by res (A_i -/+ res); the interval
// is the smallest and the largest of those bounds over the pairs.
std::optional<std::pair<double, double>> BeyondResolution(const AbMetricSpec& spec, const std::vector<double>& a,
                                                          const std::vector<double>& b) {
  const double res = spec.resolution;
  if (!(res > 0)) return std::nullopt;
  const bool up = b[0] > a[0];
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (size_t i = 0; i < a.size(); ++i) {
    const double diff = b[i] - a[i];
    if (!(std::fabs(diff) > res) || (diff > 0) != up) return std::nullopt;
    if (spec.scale == AbScale::kAbsolute) {
      lo = std::min(lo, diff - res);
      hi = std::max(hi, diff + res);
      continue;
    }
    if (!(a[i] > res)) return std::nullopt;
    for (double d : {diff - res, diff + res}) {
      for (double base : {a[i] - res, a[i] + res}) {
        lo = std::min(lo, d / base);
        hi = std::max(hi, d / base);
      }
    }
  }
  return std::make_pair(lo, hi);
}

// The upper quantile of the two-sided kAbCiLevel interval (0.995).
double CiQuantile() { return 1 - (1 - kAbCiLevel) / 2; }

}  // namespace

std::string CiLevelText() { return fmt::format("{:g} %", kAbCiLevel * 100); }

double StudentT975(int dof) { return StudentTQuantile(dof, 0.975); }

double DetectableChange(AbScale scale, double sd, int n, double floor) {
  if (n < 2) return kNaN;
  const double shift = (StudentTQuantile(n - 1, CiQuantile()) + StudentTQuantile(n - 1, 0.90)) * sd /
                       std::sqrt(static_cast<double>(n));
  const double power = scale == AbScale::kRatio ? std::exp(shift) - 1 : shift;
  return std::max(power, floor);
}

AbComparison CompareAb(const AbMetricSpec& spec, const std::vector<double>& a_in, const std::vector<double>& b_in) {
  AbComparison c;
  c.metric = spec.name;
  c.scale = spec.scale;
  c.better = spec.better;
  const size_t n = std::min(a_in.size(), b_in.size());
  std::vector<double> a(a_in.begin(), a_in.begin() + n), b(b_in.begin(), b_in.begin() + n);
  c.pairs = static_cast<int>(n);
  c.a_median = Median(a);
  c.b_median = Median(b);
  if (n == 0) {
    c.verdict = AbVerdict::kNotApplicable;
    c.reason = "no pairs measured";
    return c;
  }
  std::vector<double> d(n);
  if (spec.scale == AbScale::kRatio) {
    for (size_t i = 0; i < n; ++i) {
      if (!(a[i] > 0) || !(b[i] > 0) || !std::isfinite(a[i]) || !std::isfinite(b[i])) {
        c.verdict = AbVerdict::kNotApplicable;
        c.reason = fmt::format("pair {} has A={} B={}: a ratio needs values > 0", i + 1, Shown(a[i]), Shown(b[i]));
        return c;
      }
      d[i] = std::log(b[i] / a[i]);
    }
  } else {
    bool all_zero = true;
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
        c.verdict = AbVerdict::kNotApplicable;
        c.reason = fmt::format("pair {} has A={} B={}: not a number", i + 1, Shown(a[i]), Shown(b[i]));
        return c;
      }
      if (a[i] != 0 || b[i] != 0) all_zero = false;
      d[i] = b[i] - a[i];
    }
    if (all_zero) {
      c.verdict = AbVerdict::kNotApplicable;
      c.reason = c.metric == "error_rate" ? "no errors on either side" : "0 on both sides";
      return c;
    }
  }
  const double mean = SampleMean(d);
  auto back = [&](double x) { return spec.scale == AbScale::kRatio ? std::exp(x) - 1 : x; };
  c.delta = back(mean);
  if (n < 2) {
    c.verdict = AbVerdict::kInsufficient;
    c.reason = "one pair: a confidence interval needs at least 2";
    return c;
  }
  double na = SideNoise(a, spec.scale), nb = SideNoise(b, spec.scale);
  c.noise = std::max(std::isnan(na) ? 0.0 : na, std::isnan(nb) ? 0.0 : nb);
  // The difference in the metric's unit, against the resolution.
  std::vector<double> diff(n);
  for (size_t i = 0; i < n; ++i) diff[i] = b[i] - a[i];
  const double mean_diff = SampleMean(diff);
  const bool within_resolution = std::fabs(mean_diff) <= spec.resolution;
  const std::string at_resolution =
      within_resolution && spec.resolution > 0
          ? fmt::format("the difference, {}{}, is within the measurement's resolution ({})", mean_diff < 0 ? "-" : "+",
                        Amount(spec.name, std::fabs(mean_diff)), Amount(spec.name, spec.resolution))
          : "";
  // The resolution as a change of delta's unit: relative to A's mean (ratio).
  const double floor = spec.scale == AbScale::kRatio ? spec.resolution / SampleMean(a) : spec.resolution;
  if (std::string why = WhyNotEstimable(spec, a, b, d); !why.empty()) {
    if (auto bounds = BeyondResolution(spec, a, b)) {
      // Every pair beyond rounding, one way: the sign is certain (ab_compare.h).
      c.ci_low = bounds->first;
      c.ci_high = bounds->second;
      c.detectable = floor;
      const bool worse = (spec.better == AbBetter::kLower) == (*c.ci_low > 0);
      c.verdict = worse ? AbVerdict::kBWorse : AbVerdict::kBBetter;
      return c;
    }
    c.verdict = AbVerdict::kNotEstimable;
    c.reason = at_resolution.empty() ? why : why + "; " + at_resolution;
    return c;
  }
  const double half =
      StudentTQuantile(static_cast<int>(n) - 1, CiQuantile()) * SampleStdDev(d) / std::sqrt(static_cast<double>(n));
  c.ci_low = back(mean - half);
  c.ci_high = back(mean + half);
  c.detectable = DetectableChange(spec.scale, SampleStdDev(d), static_cast<int>(n), floor);
  const bool excludes_zero = *c.ci_low > 0 || *c.ci_high < 0;
  if (within_resolution && spec.resolution > 0) {
    c.verdict = AbVerdict::kNoDifference;
    c.reason = at_resolution;
  } else if (excludes_zero) {
    const bool b_higher = *c.delta > 0;
    const bool worse = (spec.better == AbBetter::kLower) == b_higher;
    c.verdict = worse ? AbVerdict::kBWorse : AbVerdict::kBBetter;
  } else {
    c.verdict = AbVerdict::kNoDifference;
    c.reason = fmt::format("the {} CI includes 0", CiLevelText());
  }
  return c;
}

const std::vector<AbMetricSpec>& AbMetrics() {
  static const std::vector<AbMetricSpec> kMetrics = {
      {kMetricP50, AbScale::kRatio, AbBetter::kLower, 1},
      {kMetricP90, AbScale::kRatio, AbBetter::kLower, 1},
      {kMetricP99, AbScale::kRatio, AbBetter::kLower, 1},
      {kMetricP999, AbScale::kRatio, AbBetter::kLower, 1},
      {kMetricErrorRate, AbScale::kAbsolute, AbBetter::kLower},
      {kMetricAchievedRps, AbScale::kRatio, AbBetter::kHigher},
      {kCpuCores, AbScale::kRatio, AbBetter::kLower},
      {kCpuPerRequest, AbScale::kRatio, AbBetter::kLower},
  };
  return kMetrics;
}

std::vector<double> AbMetricValues(const AbSide& s, const std::string& m) {
  std::vector<double> v;
  for (size_t i = 0; i < s.runs.size(); ++i) {
    const LoadResult& r = s.runs[i];
    const double cores = i < s.fv_cpu_cores.size() ? s.fv_cpu_cores[i] : kNaN;
    if (const LatencyMetric* lm = FindLatencyMetric(m)) v.push_back(r.latency_us.*lm->field);
    else if (m == kMetricErrorRate) v.push_back(r.error_rate);
    else if (m == kMetricAchievedRps) v.push_back(r.achieved_rps);
    else if (m == kCpuCores) v.push_back(cores);
    else if (m == kCpuPerRequest) v.push_back(r.achieved_rps > 0 ? cores * 1e6 / r.achieved_rps : kNaN);
    else v.push_back(kNaN);
  }
  return v;
}

std::vector<AbComparison> CompareAbRuns(const AbSide& a, const AbSide& b) {
  // The coarsest resolution over the runs of both sides (ab_compare.h); 0
  // when a run completed nothing or has no duration.
  uint64_t fewest = UINT64_MAX;
  double shortest = std::numeric_limits<double>::infinity();
  for (const AbSide* s : {&a, &b}) {
    for (const LoadResult& r : s->runs) {
      fewest = std::min(fewest, r.requests);
      shortest = std::min(shortest, r.duration_s);
    }
  }
  const bool counted = fewest > 0 && fewest != UINT64_MAX;
  const bool timed = shortest > 0 && std::isfinite(shortest);
  std::vector<AbComparison> out;
  for (AbMetricSpec m : AbMetrics()) {
    if (m.name == "error_rate") m.resolution = counted ? 1.0 / static_cast<double>(fewest) : 0;
    if (m.name == "achieved_rps") m.resolution = timed ? 1.0 / shortest : 0;
    if (m.name == kCpuCores) m.resolution = timed ? 0.01 / shortest : 0;  // one 10 ms tick (USER_HZ 100)
    if (m.name == kCpuPerRequest) m.resolution = counted ? 0.01 * 1e6 / static_cast<double>(fewest) : 0;  // µs
    out.push_back(CompareAb(m, AbMetricValues(a, m.name), AbMetricValues(b, m.name)));
  }
  return out;
}

std::string AbDeltaText(const AbComparison& c) {
  if (!c.delta) return "n/a";
  if (c.scale == AbScale::kRatio) return Signed(*c.delta * 100, 1) + " %";
  return Signed(*c.delta * 100, 2) + " pp";
}

std::string AbCiText(const AbComparison& c) {
  if (c.verdict == AbVerdict::kNotEstimable) return "not estimable";
  if (!c.ci_low || !c.ci_high) return "\u2014";
  if (c.scale == AbScale::kRatio) return fmt::format("{}..{} %", Signed(*c.ci_low * 100, 1), Signed(*c.ci_high * 100, 1));
  return fmt::format("{}..{} pp", Signed(*c.ci_low * 100, 2), Signed(*c.ci_high * 100, 2));
}

std::string AbVerdictText(const AbComparison& c) {
  switch (c.verdict) {
    case AbVerdict::kNotApplicable:
      return "n/a (" + c.reason + ")";
    case AbVerdict::kInsufficient:
      return fmt::format("not enough pairs (n={})", c.pairs);
    case AbVerdict::kNoDifference:
      return "no significant difference";
    case AbVerdict::kNotEstimable:
      return "not estimable (" + c.reason + ")";
    case AbVerdict::kBWorse:
    case AbVerdict::kBBetter: {
      auto [worse, better] = Words(c.metric);
      const bool ratio = c.scale == AbScale::kRatio;
      const double k = 100;
      const int dec = ratio ? 1 : 2;
      double lo = std::fabs(*c.ci_low) * k, hi = std::fabs(*c.ci_high) * k;
      if (lo > hi) std::swap(lo, hi);
      return fmt::format("B {} by {:.{}f} {} (CI {:.{}f}..{:.{}f} {})", c.verdict == AbVerdict::kBWorse ? worse : better,
                         std::fabs(*c.delta) * k, dec, ratio ? "%" : "pp", lo, dec, hi, dec, ratio ? "%" : "pp");
    }
  }
  return "";
}

const char* AbScaleName(AbScale s) { return s == AbScale::kRatio ? "ratio" : "absolute"; }
const char* AbBetterName(AbBetter b) { return b == AbBetter::kLower ? "lower" : "higher"; }
const char* AbVerdictName(AbVerdict v) {
  switch (v) {
    case AbVerdict::kNotApplicable: return "n/a";
    case AbVerdict::kInsufficient: return "insufficient";
    case AbVerdict::kNoDifference: return "no_difference";
    case AbVerdict::kBWorse: return "b_worse";
    case AbVerdict::kBBetter: return "b_better";
    case AbVerdict::kNotEstimable: return "not_estimable";
  }
  return "n/a";
}
std::optional<AbScale> AbScaleFromName(const std::string& s) {
  if (s == "ratio") return AbScale::kRatio;
  if (s == "absolute") return AbScale::kAbsolute;
  return std::nullopt;
}
std::optional<AbBetter> AbBetterFromName(const std::string& s) {
  if (s == "lower") return AbBetter::kLower;
  if (s == "higher") return AbBetter::kHigher;
  return std::nullopt;
}
std::optional<AbVerdict> AbVerdictFromName(const std::string& s) {
  for (AbVerdict v : {AbVerdict::kNotApplicable, AbVerdict::kInsufficient, AbVerdict::kNoDifference,
                      AbVerdict::kBWorse, AbVerdict::kBBetter, AbVerdict::kNotEstimable}) {
    if (s == AbVerdictName(v)) return v;
  }
  return std::nullopt;
}

std::string AbMetricLabel(const std::string& m) {
  if (m == kMetricErrorRate) return "errors";
  if (m == kMetricAchievedRps) return "achieved";
  if (m == kCpuCores) return "edge CPU";
  if (m == kCpuPerRequest) return "edge CPU/req";
  return MetricLabel(m);
}

std::string AbValueText(const std::string& m, double v) {
  if (!std::isfinite(v)) return "\u2014";
  if (m == "error_rate") return detail::FormatPercent(v);
  if (m == "achieved_rps") return detail::FormatRps(v) + " RPS";
  if (m == kCpuCores) return detail::FormatFixed(v, 2) + " cores";
  if (m == kCpuPerRequest) return detail::FormatFixed(v, 1) + " µs/req";
  return detail::FormatUs(v);
}

std::string AbNoiseText(const AbComparison& c) {
  if (!c.noise) return "\u2014";
  return c.scale == AbScale::kRatio ? detail::FormatFixed(*c.noise * 100, 1) + " %"
                                    : detail::FormatFixed(*c.noise * 100, 2) + " pp";
}

std::string AbDetectableText(const AbComparison& c) {
  if (!c.detectable || !std::isfinite(*c.detectable)) return "\u2014";
  return c.scale == AbScale::kRatio ? detail::FormatFixed(*c.detectable * 100, 1) + " %"
                                    : detail::FormatFixed(*c.detectable * 100, 2) + " pp";
}

std::string DescribeAbMetric(const AbComparison& c) {
  return fmt::format("{}: A {}, B {}, delta {} ({} CI {}, noise {}): {}", AbMetricLabel(c.metric),
                     AbValueText(c.metric, c.a_median), AbValueText(c.metric, c.b_median), AbDeltaText(c),
                     CiLevelText(), AbCiText(c), AbNoiseText(c), AbVerdictText(c));
}

}  // namespace fvbench
