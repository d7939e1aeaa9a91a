// The A/B part of a scenario's result (docs/ab.md "A/B mode"): both sides' runs
// and the per-metric comparison. Data only; the statistics that fill
// `metrics` are in support/judge/ab_compare.h, those that fill `aa` in
// support/judge/noise_study.h.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/sut_timeline.h"

namespace fvbench {

enum class AbScale { kRatio, kAbsolute };
enum class AbBetter { kLower, kHigher };
enum class AbVerdict { kNotApplicable, kInsufficient, kNoDifference, kBWorse, kBBetter, kNotEstimable };

struct AbMetricSpec {
  std::string name;  // "p50_us", "error_rate", "achieved_rps", "fv_cpu_cores", "fv_cpu_us_per_request", ...
  AbScale scale = AbScale::kRatio;
  AbBetter better = AbBetter::kLower;
  // The smallest step the metric is measured in, in its unit: 1 µs for
  // latencies (wrk reports whole µs), one request / the run's requests for
  // the error rate, one request / the run's seconds for the achieved rate,
  // one 10 ms clock tick / the run's seconds for CPU cores, one tick / the
  // run's requests for CPU per request (in µs). 0 = not known
  // (then only exact ties count as no spread).
  double resolution = 0;
};

struct AbComparison {
  std::string metric;
  AbScale scale = AbScale::kRatio;
  AbBetter better = AbBetter::kLower;
  int pairs = 0;                  // pairs used
  double a_median = 0;            // median of A's values (metric unit); NaN when none
  double b_median = 0;
  std::optional<double> delta;    // ratio: relative (0.2 = +20 %); absolute: metric unit
  // 99 % CI of delta (kAbCiLevel), same unit, or the rounding bounds of pairs
  // that all differ beyond the resolution one way (ab_compare.h); empty for
  // n < 2, n/a or not estimable.
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  std::optional<double> noise;    // run-to-run noise, same unit as delta; empty for n < 2 or n/a
  // The smallest |change| this comparison would call significant with 90 %
  // power (ab_compare.h "Detectable change"), same unit as delta; empty
  // where the CI is empty (n < 2, n/a, not estimable).
  std::optional<double> detectable;
  AbVerdict verdict = AbVerdict::kNotApplicable;
  std::string reason;             // why n/a / insufficient / not significant ("" when significant)
};

// One side of an A/B scenario: what ran and the runs it measured, in order.
struct AbSide {
  std::string edge_source;             // FAIRVISOR_EDGE_SRC(_B)
  std::string edge_ref;                // FAIRVISOR_EDGE_REF(_B), "" = as checked out / default branch
  std::string edge_commit;             // commit of the tree used ("" unknown; " (dirty)" appended)
  std::string policy;                  // policy file on the SUT host
  std::string policy_source;           // the controller's file shipped there (FVBENCH_POLICY_DIR(_B)/file);
                                       // "" when not recorded
  std::vector<LoadResult> runs;        // run i pairs with the other side's run i
  std::vector<double> fv_cpu_cores;    // edge's CPU per run (cores, phase_monitor.h); NaN when not sampled
  // The SUT per sample window of each run (the phase monitor's, index for
  // index with `runs`; empty where not sampled: DRY_RUN, older files).
  std::vector<SutTimeline> sut_timelines;
};

// One metric's run-to-run noise over every run of both sides of an A/A run
// (noise_study.h), each relative (0.05 = 5 %); empty when not computable.
struct AaMetricNoise {
  std::string metric;            // as AbMetricSpec::name
  int runs = 0;                  // runs with a value
  std::optional<double> cv;      // SD (n - 1) / mean
  std::optional<double> spread;  // (max - min) / median
  std::optional<double> drift;   // (mean of the later half - mean of the earlier half) / mean of the earlier half
};

struct AbResult {
  // How the pairs were measured, e.g. "latency: 500 RPS for 4 s per run" or
  // "throughput: fixed rate 80 % of A's searched maximum 1234 RPS = 987 RPS, 3 s per run".
  std::string method;
  double rate_rps = 0;     // target rate of every A/B run
  double duration_s = 0;   // seconds per run
  AbSide a;
  AbSide b;
  std::vector<AbComparison> metrics;  // CompareAbRuns(a, b)
  // Both sides identical (IsAaStudy): the noise of every metric over all
  // the runs in time order (NoiseStudy); empty otherwise.
  std::vector<AaMetricNoise> aa;
  std::string error;       // why the A/B part stopped early ("" when all pairs ran)
  // AB_GATE=1 was set for this scenario: a gated metric whose verdict is
  // kBWorse fails it (verdict.h). Recorded with the result so a report of
  // saved results judges it as the run did. In JSON only when true.
  bool gate = false;
  // AB_GATE_METRICS: the metrics the gate is on (names of
  // metric_names.h kAbMetricNames, each once); empty = every metric. A
  // metric outside the list where B is worse is reported, never failed. In
  // JSON only when not empty.
  std::vector<std::string> gate_metrics;

  // True when the gate is on and covers `metric`.
  bool Gates(const std::string& metric) const {
    if (!gate) return false;
    if (gate_metrics.empty()) return true;
    for (const std::string& m : gate_metrics) {
      if (m == metric) return true;
    }
    return false;
  }
};

}  // namespace fvbench
