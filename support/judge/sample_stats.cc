#include "support/judge/sample_stats.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>

namespace fvbench {

double SampleMean(std::span<const double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double s = 0;
  for (double x : values) s += x;
  return s / static_cast<double>(values.size());
}

double SampleStdDev(std::span<const double> values) {
  if (values.size() < 2) return 0;
  const double m = SampleMean(values);
  double s = 0;
  for (double x : values) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(values.size() - 1));
}

double StudentTQuantile(int dof, double p) {
  if (dof < 1 || !(p > 0 && p < 1)) return std::numeric_limits<double>::quiet_NaN();
  boost::math::students_t dist(static_cast<double>(dof));
  return boost::math::quantile(boost::math::complement(dist, 1 - p));
}

}  // namespace fvbench
