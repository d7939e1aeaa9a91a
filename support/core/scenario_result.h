// The one result model every reporter formats (console table, results.json,
// JUnit messages). Written per scenario to
//   BENCH_DIR/controller-results/<scenario id>.json
// by the scenario test, read back by the report step at the end of the run.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/ab_result.h"
#include "support/core/limit_figures.h"
#include "support/core/load_result.h"
#include "support/core/profile_result.h"
#include "support/core/reject_cost_figures.h"
#include "support/core/sut_timeline.h"
#include "support/core/validity_check.h"

namespace fvbench {

// Scenario ids. The first part is the kind (and the CTest label), the second
// the key used in reference.json.
inline constexpr const char* kLatencyScenarios[] = {"latency.raw_nginx", "latency.decision_service",
                                                    "latency.reverse_proxy"};
inline constexpr const char* kThroughputScenarios[] = {"throughput.simple", "throughput.complex",
                                                       "throughput.llm"};
// The limiter's own scenarios (finite limits, many keys): run after the six.
inline constexpr const char* kLimitsScenarios[] = {"limits.accuracy", "limits.llm", "limits.reject_cost", "limits.keys"};

// CPU and memory of one SUT service's nginx processes (the master's
// descendants) during a measured phase (support/run/phase_monitor.h).
struct ServiceUsage {
  std::string service;      // baseline | backend | fv
  int processes = 0;        // nginx workers (and helper processes) sampled
  double cpu_cores = 0;     // (utime+stime) delta / phase wall time, in cores (1.0 = one core busy)
  double rss_mib = 0;       // summed RSS at the phase's last sample, MiB
  double rss_peak_mib = 0;  // highest summed RSS seen in any sample, MiB
};

// One measured phase (a latency run, a search step, a confirmation run, an
// A/B run) as the scenario runner hands it on: what the engine measured, the
// phase's validity checks (judge/validity.h CheckPhase, the hops', the load
// generators' own LoadResult::loadgen_checks), and what the SUT's processes
// used meanwhile. Checks and usage are empty when the phase was not monitored
// (DRY_RUN).
struct MeasuredPhase {
  LoadResult load;
  std::vector<ValidityCheck> validity = {};  // (initialisers: MeasuredPhase{load} is a phase not monitored)
  std::vector<ServiceUsage> sut_usage = {};
  SutTimeline sut_timeline = {};  // the same per sample interval (core/sut_timeline.h)
};

struct StepResult {
  double target_rps = 0;
  bool passed = false;
  std::string verdict;  // why it passed / failed, e.g. "error_rate 2.1% >= 1%"
  LoadResult load;
  std::vector<ValidityCheck> validity;  // checks of this step's phase (empty when not monitored)
  std::vector<ServiceUsage> sut_usage;  // SUT processes during this step
  SutTimeline sut_timeline;             // the same per sample interval (core/sut_timeline.h)
  // Which part of the search ran it (throughput_search.h): "bracket",
  // "bisect", "confirm"; "" for the seed's fixed steps.
  std::string role;
  // The load generator, not the SUT, was this failed step's limit
  // (step_search.h EngineLimitedReason, whose reason closes `verdict` as
  // "; engine-limited: ..."). Set by the search; not in results.json.
  bool engine_limited = false;
};

// The pass rule a throughput search judged its steps by (judge/step_search.h
// SearchParams, JudgeStep), carried by the search's outcome into the result
// so the reports (the plots' limit lines) show the rule the search used, not
// the one of the run that formats them.
struct StepPassRule {
  // Defaults: the seed's rule (fairvisor/benchmark run-all.sh: p99 < 1000 ms,
  // errors < 1 %) and fvbench's achieved >= 97 % of the target.
  double slo_p99_us = 1e6;             // p99 < this, µs (THROUGHPUT_SLO_P99_MS x 1000)
  double max_error_rate = 0.01;        // error_rate < this, fraction
  double min_achieved_fraction = kMinAchievedFraction;  // achieved_rps >= this x target
  bool require_kept_up = false;        // the engine kept up with its schedule
};

// REPEAT=n: one metric over the n runs of a measured phase.
struct Spread {
  double min = 0;
  double median = 0;
  double max = 0;
};

struct ThresholdCheck {
  std::string metric;   // "p99_us", "error_rate", "rps"
  std::string op;       // "<=", ">=", "<"
  double measured = 0;
  double limit = 0;
  std::optional<double> reference;  // reference.json value for the same metric, when it has one
  bool passed = false;
  // measured is a lower bound: the percentile fell among requests that timed
  // out (LatencyUs::censored_at_us). An upper limit (<, <=) then fails.
  bool censored = false;
};

// A same-run ratio check (thresholds.h), evaluated by the report step (the
// scenario test has only its own result): measured <op> factor x the same
// metric of scenario `ratio_to` in this run.
struct RatioCheck {
  std::string metric;    // e.g. "p99_us"
  std::string op;        // "<=", "<", ">=", ">"
  double measured = 0;   // this scenario's value (NaN: not measured)
  std::string ratio_to;  // e.g. "latency.raw_nginx"
  double factor = 0;
  double base = 0;       // ratio_to's value in this run (NaN: not measured)
  double limit = 0;      // factor x base
  bool passed = false;
};

// One measured phase of a limits scenario: edge with `workers` nginx workers,
// the load rotating over the keys at a multiple of their limit, and what the
// SUT's access log says it admitted (limit_figures.h). Its validity checks
// (the access log's among them) are the scenario's `validity`, each detail
// naming the phase.
struct LimitRun {
  int workers = 0;         // edge's worker_processes in this phase
  std::string phase;       // the phase's file-safe name (its raw output's stem)
  LimitAccuracy accuracy;
  LoadResult load;         // what the engine measured, all statuses together
};

// One point of the limits.keys sweep (core/key_sweep.h): edge's limiter
// state at `keys` keys. Its accuracy and load are the LimitRun at the same
// index of ScenarioResult::limits.
struct KeySweepPoint {
  int keys = 0;
  double duration_s = 0;  // measured seconds planned (SweepPointDuration)
  // Edge's nginx processes' summed RSS at the phase's last sample and its
  // peak, MiB (the phase's ServiceUsage "fv"); absent when not sampled.
  std::optional<double> fv_rss_mib;
  std::optional<double> fv_rss_peak_mib;
};

struct ScenarioResult {
  std::string id;                 // e.g. "latency.decision_service"
  bool measured = false;          // false: the scenario failed before it produced a number
  std::string error;              // why it failed before measuring (edge's own message, engine stderr...)
  // The run was stopped by a signal while this scenario ran: the interrupt
  // cleanup saved this result in its place (measured false, `error` says
  // which signal). In results.json only when true.
  bool interrupted = false;
  LoadResult load;                // latency: the measured phase; throughput: the reported step
  double throughput_rps = 0;      // throughput: reported max sustained rate (measured, not target)
  bool ceiling_reached = false;   // throughput: the highest step passed; the value is a lower bound
  std::vector<StepResult> steps;  // throughput: every step, in the order run
  // Throughput search (throughput_search.h): "bisect" or "seed"; "" for latency.
  std::string search;
  bool confirmed = false;           // bisect: throughput_rps comes from a passing confirmation run
  std::optional<double> search_resolution;  // (lowest failing target - reported target) / reported target; none at a ceiling
  double search_load_s = 0;         // seconds of load the search used (warmup excluded)
  std::string search_stop;          // why the search stopped early (budget, engine error), "" when it completed
  // The pass rule the search used; absent in results written before it was
  // recorded (they were judged by the defaults of StepPassRule).
  std::optional<StepPassRule> search_rule;
  // The load generator, not the SUT, was the limit (step_search.h
  // EngineLimitedReason): throughput_rps is a lower bound, "at least N RPS
  // (engine-limited ...)". In results.json only when true.
  bool engine_limited = false;
  // REPEAT=n > 1: the n runs of the measured phase (latency: n phases back to
  // back; throughput: n confirmation runs at the found rate). `load` (and
  // throughput_rps) then hold the per-metric MEDIAN, which thresholds gate;
  // `spread` maps a threshold metric name (p50_us ... max_us, error_rate,
  // achieved_rps, rps) to its min / median / max over the runs.
  std::vector<LoadResult> repeats;
  std::map<std::string, Spread> spread;
  std::vector<ThresholdCheck> checks;
  std::vector<RatioCheck> ratio_checks;  // added by the report step (fvbench.report)
  std::vector<std::string> notes; // validity notes: pinning, policy evidence, engine lag...
  // Validity checks of the reported phase (latency: the measured phase;
  // throughput: the reported step) plus scenario-wide entries (pinning).
  // Any failed non-informational entry makes the number invalid.
  std::vector<ValidityCheck> validity;
  std::vector<ServiceUsage> sut_usage;  // SUT processes during the reported phase
  // The same per sample interval (core/sut_timeline.h), of the phase
  // sut_usage is of; drawn under the timeline of `load`'s intervals where
  // their times overlap.
  SutTimeline sut_timeline;
  std::string policy;             // policy file used (fairvisor scenarios)
  // A/B mode (ab_result.h): side B's runs beside side A's and the per-metric
  // comparison. The fields above describe side A (the usual variables); the
  // thresholds gate A. Absent outside A/B mode and for raw nginx (the control).
  std::optional<AbResult> ab;
  // Limits scenarios (kLimitsScenarios): each measured phase's accuracy, in
  // the order run (all of edge's workers first, then one worker). `load` is
  // the first one's. Empty for the other scenarios.
  std::vector<LimitRun> limits;
  // limits.reject_cost (reject_cost_figures.h): its two phases and the
  // rejected / admitted ratios; `load` is the admitted phase's. Absent for
  // the other scenarios.
  std::optional<RejectCostRun> reject_cost;
  // limits.keys: one entry per point, index for index with `limits` (the
  // points' phases, in ascending key count). Empty for the other scenarios.
  std::vector<KeySweepPoint> key_sweep;
  // FVBENCH_PROFILE on (profile_result.h): the profile phases run after the
  // measured ones; absent when off. In A/B mode `profile` is side A's and
  // `profile_b` side B's (with the differential graphs); profile_b is absent
  // otherwise.
  std::optional<ProfileResult> profile;
  std::optional<ProfileResult> profile_b;
  double started_unix = 0;
  double finished_unix = 0;
  // Set by the scenario runner (absent in older results and DRY_RUN): the
  // configured load the scenario ran (warmups + measured phases, planned
  // seconds) and the rest of its wall time, finished - started - load_s: SUT
  // start and stop, quiet waits, probes, fetches, engine start-up.
  std::optional<double> load_s;
  std::optional<double> fixed_cost_s;
  // fixed_cost_s split by where it went, in seconds (empty in older results
  // and DRY_RUN); the parts sum to fixed_cost_s:
  //   sut_start     starting the SUT's services and proving the policy live
  //   quiet_wait    waiting for a quiet SUT before each measured phase
  //   phase_setup   before each phase's load: the monitor's first samples,
  //                 the hop counters, the progress ticker
  //   engine        each engine command's wall time beyond its configured
  //                 duration (start-up, the schedule's tail, fetch, parse)
  //   phase_checks  after each phase's load: the monitor's last samples, the
  //                 hop counters, liveness and validity checks
  //   after_load    after the last phase: the policy re-check, rule evidence,
  //                 stopping the SUT
  //   other         the rest (search decisions, progress lines, A/B restarts)
  std::map<std::string, double> fixed_cost_parts_s;
};

// The part names fixed_cost_parts_s may hold (a results.json with another
// name, or a value that is not a finite number >= 0, is refused on read).
inline constexpr std::string_view kFixedCostPartNames[] = {
    "sut_start", "quiet_wait", "phase_setup", "engine", "phase_checks", "after_load", "other"};

// The throughput value is a lower bound, not a maximum: the highest step
// passed (ceiling_reached), the engine was the limit (engine_limited), or a bisect search in which no step failed (no
// search_resolution). The reports print it as "at least N" and show no delta
// against a reference or baseline for it.
inline bool MeasuredIsLowerBound(const ScenarioResult& r) {
  return r.ceiling_reached || r.engine_limited || (r.search == "bisect" && !r.search_resolution);
}

// Why a search has no resolution, for the reports ("no resolution (...)"):
// "engine-limited", "ceiling" (the cap passed), "no step passed", "no rate
// held" (steps passed but the search has no number: a run at or below every
// pass failed, throughput_search.h NoResultReason), else "no step failed".
inline const char* NoResolutionReason(const ScenarioResult& r) {
  if (r.engine_limited) return "engine-limited";
  if (r.ceiling_reached) return "ceiling";
  bool passed = false;
  for (const StepResult& s : r.steps) passed = passed || s.passed;
  if (!passed) return "no step passed";
  return r.throughput_rps > 0 ? "no step failed" : "no rate held";
}

// The result of scenario `id` in `results` (the first, ids are unique);
// nullptr when it is not there.
inline const ScenarioResult* FindResult(const std::vector<ScenarioResult>& results, std::string_view id) {
  for (const ScenarioResult& r : results) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

}  // namespace fvbench
