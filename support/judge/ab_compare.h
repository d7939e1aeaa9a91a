// A/B comparison of two fairvisor edge sides (docs/ab.md "A/B mode"). Pure: no I/O.
//
// Side A is the usual FAIRVISOR_EDGE_SRC / FAIRVISOR_EDGE_REF /
// FVBENCH_POLICY_DIR, side B the *_B variables (config.h). A measured phase
// runs n times per side, alternating A B A B ... (the scenario runner), so run
// i of A and run i of B form pair i, measured seconds apart on the same hosts.
//
// Statistics of one metric over n pairs (CompareAb):
//   ratio scale (latencies µs, achieved RPS, SUT CPU cores; every value > 0):
//     d_i   = ln(B_i / A_i)
//     delta = exp(mean d) - 1              relative change of B against A (0.2 = B is 20 % higher)
//     CI    = exp(mean d -/+ t * s / sqrt n) - 1
//             s: sample standard deviation of d (n - 1), t: the 99.5 % quantile of
//             Student's t with n - 1 degrees of freedom (Boost.Math), i.e. 99 % two-sided
//             (kAbCiLevel)
//     noise = max over the two sides of (max - min) / median of that side's n values
//             (its run-to-run spread; relative): shown beside the verdict, not part of it
//   absolute scale (error rate, fraction 0..1; zeros are ordinary values):
//     d_i = B_i - A_i, delta = mean d, CI = mean d -/+ t * s / sqrt n,
//     noise = max over the sides of (max - min); all three in fraction units.
//   A difference is SIGNIFICANT when the 99 % CI excludes 0. The verdict then
//   says which way, using the metric's direction (lower or higher is better):
//   kBWorse / kBBetter. The pairs' own scatter is in s, so the interval
//   already holds the run-to-run noise that pairing leaves; the sides' min-max
//   spread also holds the slow drift that pairing cancels, and it grows with
//   more pairs, so it is no criterion (docs/ab.md "How it decides" has the
//   A/A and injected-regression runs behind the 99 %).
//   Evidence comes first (n >= 2):
//     - NOT ESTIMABLE (kNotEstimable, no CI; never significant) when the d_i
//       do not vary by more than rounding to the measurement's resolution
//       can make them: max d - min d <= max over the pairs of res / A_i +
//       res / B_i (ratio scale) or 2 x res (absolute scale), with `res` the
//       spec's resolution; with none known (0), when every d_i is the same.
//       A zero-width interval from rounded values (129 µs vs 130 µs in every
//       pair) is not evidence of a difference.
//     - BEYOND THE RESOLUTION: such pairs are significant nevertheless when
//       every pair's difference exceeds the resolution in the same direction,
//       |B_i - A_i| > res > 0 with one sign in all pairs (and, ratio scale,
//       every A_i > res): rounding or truncating both values to res moves
//       their difference by at most res, so its sign is certain whatever the
//       rounding (312.5 against 624.6 µs/req in every pair, res 11 µs/req).
//       delta as above; the interval is not a t interval but the rounding
//       bounds of the pairs: absolute scale [min (B_i - A_i) - res,
//       max (B_i - A_i) + res]; ratio scale the smallest and the largest of
//       (B_i - A_i -/+ res) / (A_i -/+ res) over the pairs (each pair's
//       difference widened by res over A widened by res). The verdict is
//       kBWorse / kBBetter as for a CI that excludes 0 (the A/B gate fails on
//       it alike); detectable is the floor below. Without a known resolution
//       (0) identical differences stay not estimable.
//     - A difference at or below the resolution, |mean (B_i - A_i)| <= res in
//       the metric's unit, is never significant (kNoDifference, the reason
//       says so).
//   Not computed (verdict kNotApplicable, delta/CI empty, reason set):
//     ratio scale with a value <= 0 or not finite in a pair (e.g. a latency of 0:
//     nothing measured), absolute scale with every value 0 on both sides
//     ("no errors on either side").
//   n < 2 pairs: kInsufficient (delta of the one pair shown, no CI; never
//   significant). A and B of different lengths: the first min(len) pairs.
//
// Detectable change (AbComparison::detectable, same unit as delta): the
// smallest |true change| this comparison would call significant with 90 %
// power at the 99 % CI, from its own pairs. It is the usual approximation
// of a paired t test's power, the "minimum detectable difference"
// (t_{1-alpha/2,n-1} + t_{1-beta,n-1}) * s / sqrt(n) of Zar, "Biostatistical
// Analysis", chapter "Paired-sample hypotheses" (as in any text on sample
// size for paired t tests), with alpha = 0.01 and beta = 0.10:
//   ratio:    power = exp((t995 + t90) * s / sqrt n) - 1   (an increase; s: SD of the d_i)
//   absolute: power = (t995 + t90) * s / sqrt n
//   detectable = max(power, floor), floor = the resolution relative to the
//     mean of A (ratio) or the resolution (absolute): a change at or below it
//     is never significant, whatever the pairs say (see above).
// Empty where the CI is empty: n < 2, not applicable, and not estimable
// (the pairs' spread is below what rounding can make, so s estimates
// nothing, and such a comparison calls no change significant). Pairs beyond
// the resolution (above) have the floor as their detectable change.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/core/ab_result.h"
#include "support/core/load_result.h"
#include "support/judge/sample_stats.h"

namespace fvbench {

AbComparison CompareAb(const AbMetricSpec& spec, const std::vector<double>& a, const std::vector<double>& b);

// The two-sided confidence level of every A/B interval and verdict, and as
// reports write it: "99 %".
inline constexpr double kAbCiLevel = 0.99;
std::string CiLevelText();

// Two-sided 95 % quantile of Student's t with `dof` >= 1 degrees of freedom:
// StudentTQuantile(dof, 0.975) (sample_stats.h); NaN for dof < 1.
double StudentT975(int dof);

// The detectable change (see above) of n >= 2 pairs whose differences d_i
// have sample SD `sd` (log scale for kRatio, metric unit for kAbsolute):
// max(power term, floor), in delta's unit. NaN for n < 2.
double DetectableChange(AbScale scale, double sd, int n, double floor);

// The metrics compared per run, in display order: p50_us p90_us p99_us
// p999_us (lower is better; resolution 1 µs), error_rate (absolute, lower),
// achieved_rps (higher), fv_cpu_cores (lower: edge's CPU at the same rate is
// its work), fv_cpu_us_per_request (lower: edge's CPU µs per request,
// fv_cpu_cores * 1e6 / achieved_rps of the run); the last four's resolution
// depends on the runs and is set by CompareAbRuns.
const std::vector<AbMetricSpec>& AbMetrics();

// One side's value of `metric` (AbMetrics) per run, in run order; NaN where
// a run has none (CPU not sampled, no achieved rate).
std::vector<double> AbMetricValues(const AbSide& side, const std::string& metric);

// Every metric of AbMetrics() over the runs of the two sides, each with its
// resolution from the runs (the coarsest: the run with the fewest requests,
// the shortest run; 0 when a run has none): CPU per request one 10 ms clock
// tick over the run's requests.
std::vector<AbComparison> CompareAbRuns(const AbSide& a, const AbSide& b);

// Short texts for reports:
//   AbVerdictText: "no significant difference", "B slower by 12.3 % (CI 8.1..16.6 %)",
//   "B faster by ...", "B uses more CPU by ...", "B has more errors by 0.50 pp (CI ...)",
//   "n/a (no errors on either side)", "not enough pairs (n=1)",
//   "not estimable (every pair differs by the same amount, +1 µs: ...)".
std::string AbVerdictText(const AbComparison& c);
// delta as "+12.3 %" / "−4.0 %" (ratio) or "+0.50 pp" (absolute); "n/a" when empty.
std::string AbDeltaText(const AbComparison& c);
// "+8.1..+16.6 %" / "+0.20..+0.80 pp"; "not estimable" for kNotEstimable;
// "—" when empty.
std::string AbCiText(const AbComparison& c);
// The row label of a metric: "p99" (metric_names.h), "errors", "achieved",
// "edge CPU", "edge CPU/req".
std::string AbMetricLabel(const std::string& metric);
// A median in the metric's unit: "812 µs", "0.50 %", "1234 RPS", "0.42 cores",
// "236.5 µs/req"; "—" when not finite.
std::string AbValueText(const std::string& metric, double value);
// The noise: "6.0 %" (ratio) / "0.20 pp" (absolute); "—" when empty.
std::string AbNoiseText(const AbComparison& c);
// The detectable change, as the noise: "6.0 %" / "0.20 pp"; "—" when empty.
std::string AbDetectableText(const AbComparison& c);
// One metric on one line, for test output and the A/B gate's reasons:
// "p99: A 812 µs, B 1.02 ms, delta +25.6 % (99 % CI +20.1..+31.4 %, noise 6.0 %): B slower by 25.6 % (CI 20.1..31.4 %)".
std::string DescribeAbMetric(const AbComparison& c);
// Stable names for JSON: "ratio"/"absolute", "lower"/"higher",
// "n/a"/"insufficient"/"no_difference"/"b_worse"/"b_better"/"not_estimable";
// and back (nullopt when unknown).
const char* AbScaleName(AbScale s);
const char* AbBetterName(AbBetter b);
const char* AbVerdictName(AbVerdict v);
std::optional<AbScale> AbScaleFromName(const std::string& s);
std::optional<AbBetter> AbBetterFromName(const std::string& s);
std::optional<AbVerdict> AbVerdictFromName(const std::string& s);

}  // namespace fvbench
