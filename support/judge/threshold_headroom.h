// Headroom of one threshold check: the change of its measured value, in this
// run, at which the check would fail. A smaller change passes, so the
// headroom is the smallest regression the check can catch in this run.
// Pure.
//
// Takes one absolute or x_reference check (ThresholdCheck) or one same-run
// ratio check (RatioCheck, its yardstick held at the value measured in the
// run) through its metric, operator, measured value, limit and pass flag.
//
//   upper limit ("<=" L, "<" L), measured v > 0:  a rise of  L / v - 1
//   lower limit (">=" L, ">" L), measured v > 0:  a fall of  1 - L / v
// both relative to v (0.25 = 25 %). At exactly that change a "<=" / ">="
// check still passes and a "<" / ">" one fails: the headroom is the boundary.
//
// Fraction metrics (error_rate, over_admission, under_admission,
// window_excess, p99_drift; 0.01 = 1 %; metric_names.h IsFractionMetric) are often measured as exactly 0, where no
// relative change exists; their headroom is in the metric's own unit
// (percentage points when printed): a rise of L - v, a fall of v - L.
//
// The other outcomes:
//   - the check fails now (over its limit, a NaN measured value, a limit
//     that is not finite, a censored latency under an upper limit: whatever
//     made it fail): kFailsNow, size 0;
//   - no value the metric can take fails it: kNever ("> L" or ">= L" with
//     L < 0, ">= 0": a rate, latency or fraction is never below 0; error_rate "<= L"
//     with L >= 1 or "< L" with L > 1: an error rate is at most 1). It
//     catches nothing;
//   - "> 0" on a relative metric (achieved_rps > 0, rps > 0): a fall of
//     exactly 1 (100 %), i.e. it catches only a total loss;
//   - a relative metric measured as 0 (or below) under an upper limit (no
//     relative change of 0 exists), an unknown operator, a non-finite value
//     on a passing check, a check flagged passed whose numbers are over its
//     limit (made by hand, not by Evaluate): kUndefined, size NaN.
#pragma once

#include <limits>
#include <string>
#include <string_view>

#include "support/core/scenario_result.h"

namespace fvbench {

enum class HeadroomKind {
  kRise,       // fails after a rise of `size`
  kFall,       // fails after a fall of `size`
  kFailsNow,   // fails already; size 0
  kNever,      // no value of the metric fails it; size NaN
  kUndefined,  // no relative change defined (measured 0), or an odd input; size NaN
};

struct Headroom {
  HeadroomKind kind = HeadroomKind::kUndefined;
  // kRise / kFall: >= 0, relative to the measured value, or in the metric's
  // own unit when `points`; kFailsNow: 0; else NaN.
  double size = std::numeric_limits<double>::quiet_NaN();
  bool points = false;  // size in the metric's unit (fraction metrics), not relative

  // A fall of the whole measured value: "> 0" on a rate, which catches only a total loss.
  bool total_loss_only() const { return kind == HeadroomKind::kFall && !points && size == 1; }
};

// True for the fraction metrics whose headroom is in points (see above).
bool HeadroomInPoints(std::string_view metric);

Headroom ComputeHeadroom(std::string_view metric, std::string_view op, double measured, double limit, bool passed);
Headroom CheckHeadroom(const ThresholdCheck& c);
Headroom RatioCheckHeadroom(const RatioCheck& c);

// For console lines, after a check's description:
//   "catches a rise of +18481.2 % or more"
//   "catches a fall of −15.0 % or more"
//   "catches only a total loss (a fall of −100 %)"
//   "catches a rise of +1 percentage point or more"   (+0.5 percentage points, ...)
//   "catches any rise"   (a size of 0: the value sits on a "<=" limit)
//   "fails now"   "catches no change"   "headroom not defined"
std::string DescribeHeadroom(const Headroom& h);
// The same, short, for a table cell: "rise of +18481.2 %", "fall of −15.0 %",
// "total loss only", "rise of +1 point", "any rise", "fails now", "no change", "—".
std::string HeadroomCell(const Headroom& h);
// results.json's name of a kind: "rise", "fall", "fails_now", "never", "undefined".
const char* HeadroomKindName(HeadroomKind k);

}  // namespace fvbench
