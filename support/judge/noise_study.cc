#include "support/judge/noise_study.h"

#include <algorithm>
#include <cmath>

#include "support/judge/ab_compare.h"
#include "support/judge/repeats.h"
#include "support/judge/sample_stats.h"

namespace fvbench {
namespace {

std::optional<double> Relative(double num, double den) {
  if (den == 0 || !std::isfinite(num) || !std::isfinite(den)) return std::nullopt;
  return num / den;
}

}  // namespace

bool IsAaStudy(const AbSide& a, const AbSide& b) {
  return !a.edge_commit.empty() && !a.policy_source.empty() && a.edge_source == b.edge_source &&
         a.edge_ref == b.edge_ref && a.edge_commit == b.edge_commit && a.policy_source == b.policy_source;
}

AaMetricNoise NoiseOf(const std::string& metric, const std::vector<double>& in) {
  AaMetricNoise out;
  out.metric = metric;
  std::vector<double> v;
  for (double x : in) {
    if (std::isfinite(x)) v.push_back(x);
  }
  out.runs = static_cast<int>(v.size());
  if (v.size() < 2) return out;
  const double* b = v.data();
  const double* e = b + v.size();
  out.cv = Relative(SampleStdDev(v), SampleMean(v));
  auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  out.spread = Relative(*hi - *lo, Median(v));
  const size_t half = v.size() / 2;
  const double first = SampleMean({b, half}), last = SampleMean({e - half, half});
  out.drift = Relative(last - first, first);
  return out;
}

std::vector<AaMetricNoise> NoiseStudy(const AbSide& a, const AbSide& b) {
  std::vector<AaMetricNoise> out;
  for (const AbMetricSpec& m : AbMetrics()) {
    const std::vector<double> va = AbMetricValues(a, m.name), vb = AbMetricValues(b, m.name);
    std::vector<double> timed;
    for (size_t i = 0; i < std::max(va.size(), vb.size()); ++i) {
      if (i < va.size()) timed.push_back(va[i]);
      if (i < vb.size()) timed.push_back(vb[i]);
    }
    out.push_back(NoiseOf(m.name, timed));
  }
  return out;
}

}  // namespace fvbench
