// An A/A run as a noise study (docs/ab.md "A/A runs"): when both sides of an
// A/B scenario are the same edge and policy, its 2n runs are 2n measurements
// of one thing, and their scatter is the machine's run-to-run noise. Pure.
//
// IsAaStudy: edge_source, edge_ref, edge_commit and policy_source of the two
// sides (ab_result.h AbSide) are equal, and the commit and the policy source
// are known (not ""). The policy path on the SUT host differs by design
// (policies/ against policies-b/) and is not compared.
//
// NoiseStudy: per metric of AbMetrics() (ab_compare.h), over every run of
// both sides in the order they ran (A1 B1 A2 B2 ...; a side with more runs
// adds its extra ones at the end), skipping runs without a value (NaN):
//   cv     = sample SD (n - 1) / mean
//   spread = (max - min) / median
//   drift  = (mean of the later half - mean of the earlier half) / mean of the
//            earlier half; halves of floor(n / 2) runs, the middle run of an
//            odd count in neither
// all relative (0.05 = 5 %). A value is empty with fewer than 2 runs, or
// when its denominator is 0 (an error rate of 0 in every run).
#pragma once

#include <string>
#include <vector>

#include "support/core/ab_result.h"

namespace fvbench {

bool IsAaStudy(const AbSide& a, const AbSide& b);

// One entry per metric of AbMetrics(), in its order.
std::vector<AaMetricNoise> NoiseStudy(const AbSide& a, const AbSide& b);

// The same over one metric's values in time order.
AaMetricNoise NoiseOf(const std::string& metric, const std::vector<double>& values_in_time_order);

}  // namespace fvbench
