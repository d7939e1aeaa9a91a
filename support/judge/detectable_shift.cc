#include "support/judge/detectable_shift.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/judge/repeats.h"
#include "support/judge/sample_stats.h"

namespace fvbench {

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
  const double m = static_cast<double>(r.reference_runs), k = static_cast<double>(recent_runs);
  r.reference_mean = SampleMean(reference);
  r.noise = MadSd(reference);
  if (r.noise == 0) {
    r.noise = SampleStdDev(reference);
    r.noise_is_sd = true;
  }
  const int dof = static_cast<int>(r.reference_runs + recent_runs - 2);
  r.factor = StudentTQuantile(dof, 1 - options.max_p_value / 2) + StudentTQuantile(dof, options.power);
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
