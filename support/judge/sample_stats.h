// Small sample statistics shared by the judges (A/B comparison, A/A noise,
// the history gate's detectable shift). Pure.
#pragma once

#include <span>

namespace fvbench {

// Arithmetic mean; NaN for no values.
double SampleMean(std::span<const double> values);

// Sample standard deviation (n - 1 in the denominator); 0 for fewer than 2
// values.
double SampleStdDev(std::span<const double> values);

// The `p` quantile (0 < p < 1) of Student's t with `dof` >= 1 degrees of
// freedom (boost::math::students_t, quantile(complement(t, 1 - p))); NaN for
// dof < 1 or p outside (0, 1).
double StudentTQuantile(int dof, double p);

}  // namespace fvbench
