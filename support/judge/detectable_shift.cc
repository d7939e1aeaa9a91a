#include "support/judge/detectable_shift.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

namespace fvbench {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h), v.end());
  const double upper = v[h];
  if (v.size() % 2) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(h));
  return (lower + upper) / 2;
}

double SampleSd(std::span<const double> x, double mean) {
  if (x.size() < 2) return 0;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

}  // namespace

double MadSd(std::span<const double> x) {
  if (x.empty()) return 0;
  const double med = Median({x.begin(), x.end()});
  std::vector<double> dev;
  dev.reserve(x.size());
  for (double v : x) dev.push_back(std::fabs(v - med));
  return 1.4826 * Median(std::move(dev));
}

DetectableShift SmallestDetectableShift(std::span<const double> reference, size_t recent_runs,
                                        const DetectableShiftOptions& options) {
  DetectableShift r;
  r.reference_runs = reference.size();
  r.recent_runs = recent_runs;
  if (r.reference_runs < std::max<size_t>(options.min_reference_runs, 2) ||
      recent_runs < std::max<size_t>(options.min_recent_runs, 1)) {
    return r;
  }
  double sum = 0;
  for (double v : reference) sum += v;
  const double m = static_cast<double>(r.reference_runs), k = static_cast<double>(recent_runs);
  r.reference_mean = sum / m;
  r.noise = MadSd(reference);
  if (r.noise == 0) {
    r.noise = SampleSd(reference, r.reference_mean);
    r.noise_is_sd = true;
  }
  const boost::math::students_t t(m + k - 2);
  r.factor = boost::math::quantile(t, 1 - options.max_p_value / 2) + boost::math::quantile(t, options.power);
  const double delta = r.factor * r.noise * std::sqrt(1 / m + 1 / k);
  if (options.relative && r.reference_mean == 0) {
    r.status = DetectableShift::Status::kZeroMean;
    return r;
  }
  r.unfloored = options.relative ? delta / std::fabs(r.reference_mean) : delta;
  r.shift = std::max(r.unfloored, options.min_effect);
  r.status = DetectableShift::Status::kOk;
  return r;
}

}  // namespace fvbench
