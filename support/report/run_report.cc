#include "support/report/run_report.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "support/core/metric_names.h"
#include "support/judge/environment_drift.h"

namespace fvbench {
namespace {

// (measured − comparison) / |comparison|, when it is a finite number.
std::optional<double> Delta(double measured, double comparison) {
  if (!std::isfinite(measured) || !std::isfinite(comparison) || comparison == 0) return std::nullopt;
  double d = (measured - comparison) / std::fabs(comparison);
  if (!std::isfinite(d * 100)) return std::nullopt;  // e.g. against a comparison of 5e-324
  return d;
}

// Latency scenarios: every metric of kLatencyMetrics the comparison has,
// unless the measured value is censored (a lower bound shows no comparison).
void CompareLatency(const ScenarioResult& r, const Reference& cmp, std::map<std::string, ComparedMetric>& out) {
  for (const LatencyMetric& m : kLatencyMetrics) {
    double us = r.load.latency_us.*m.field;
    if (r.load.latency_us.IsCensored(us)) continue;
    auto rv = cmp.value(r.id, m.name);
    if (!rv) continue;
    out[m.name] = ComparedMetric{*rv, false, Delta(us, *rv)};
  }
}

// Throughput scenarios: the reported rate; a lower bound on either side has
// no delta ("at least 3983" vs 110500 is not 96 % less).
void CompareThroughput(const ScenarioResult& r, const Reference& cmp, std::map<std::string, ComparedMetric>& out) {
  auto rv = cmp.value(r.id, kMetricRps);
  if (!rv) return;
  const bool bound = MeasuredIsLowerBound(r) || cmp.lower_bound(r.id);
  out[kMetricRps] = ComparedMetric{*rv, cmp.lower_bound(r.id), bound ? std::nullopt : Delta(r.throughput_rps, *rv)};
}

// Same-run ratio gates (thresholds.h) need the whole run, so they are
// evaluated here, not in the scenario tests. Only results of this ctest run
// are one run: a ratio check never pairs a result with an earlier run's.
void EvaluateRunRatios(const ThresholdProfile& profile, RunReport& report) {
  const double started = report.meta.started_unix;
  std::vector<ScenarioResult> run;
  for (const ScenarioResult& r : report.results) {
    if (!FromEarlierRun(r, started)) run.push_back(r);
  }
  for (ScenarioResult& r : report.results) {
    if (FromEarlierRun(r, started)) {
      r.notes.push_back("ratio checks not evaluated: from an earlier ctest run");
      continue;
    }
    std::vector<std::string> skipped;
    r.ratio_checks = EvaluateRatios(profile, r, run, &skipped);
    for (const std::string& s : skipped) r.notes.push_back("ratio check " + s);
    for (const RatioCheck& c : r.ratio_checks) {
      if (!c.passed) report.failed_ratio_checks.push_back(r.id + ": " + DescribeRatioCheck(c));
    }
  }
}

}  // namespace

const ScenarioResult* RunReport::Find(const std::string& id) const { return FindResult(results, id); }

const ComparedMetric* RunReport::Compared(const std::string& id, const std::string& metric) const {
  auto s = compared.find(id);
  if (s == compared.end()) return nullptr;
  auto m = s->second.find(metric);
  return m == s->second.end() ? nullptr : &m->second;
}

RunReport BuildRunReport(std::vector<ScenarioResult> results, RunMeta meta, const Reference* comparison,
                         const ThresholdProfile* profile) {
  RunReport report;
  report.meta = std::move(meta);
  report.results = std::move(results);
  if (comparison != nullptr) report.comparison = *comparison;
  if (profile != nullptr) EvaluateRunRatios(*profile, report);
  report.ratios = SameRunRatios(report.results, report.meta.started_unix);
  for (const ScenarioResult& r : report.results) {
    Judgement j = JudgeScenario(r);
    report.verdicts.push_back(VerdictLine{r.id, j.verdict, std::move(j.summary)});
  }
  report.counts = CountVerdicts(report.results);
  if (comparison != nullptr) {
    report.load_mismatch = LatencyLoadMismatch(*comparison, report.meta.latency_rps);
    if (comparison->baseline) {
      const std::vector<std::string> changes = EnvironmentChanges(comparison->environments, report.meta.environments);
      if (!changes.empty()) {
        report.environment_mismatch =
            fmt::format("the baseline ran on other machine facts: {}", fmt::join(changes, "; "));
      }
    }
    for (const ScenarioResult& r : report.results) {
      if (!r.measured) continue;
      std::map<std::string, ComparedMetric> m;
      if (r.id.rfind("latency.", 0) == 0) CompareLatency(r, *comparison, m);
      else if (r.id.rfind("throughput.", 0) == 0) CompareThroughput(r, *comparison, m);
      if (!m.empty()) report.compared[r.id] = std::move(m);
    }
  }
  return report;
}

}  // namespace fvbench
