#include "support/judge/ratios.h"

#include <cmath>

#include "support/core/metric_names.h"
#include "support/judge/thresholds.h"

namespace fvbench {

std::string RatioBaseOf(const std::string& scenario_id) {
  if (scenario_id == "latency.decision_service" || scenario_id == "latency.reverse_proxy") return "latency.raw_nginx";
  if (scenario_id == "throughput.complex" || scenario_id == "throughput.llm") return "throughput.simple";
  return "";
}

bool FromEarlierRun(const ScenarioResult& r, double run_started_unix) {
  return run_started_unix > 0 && r.started_unix > 0 && r.started_unix < run_started_unix;
}

std::vector<Ratio> SameRunRatios(const std::vector<ScenarioResult>& results, double run_started_unix) {
  std::vector<Ratio> out;
  auto add = [&](const char* id, const std::vector<const char*>& metrics) {
    std::string base_id = RatioBaseOf(id);
    const ScenarioResult* r = FindResult(results, id);
    const ScenarioResult* b = FindResult(results, base_id);
    if (r == nullptr || b == nullptr || !r->measured || !b->measured) return;
    if (FromEarlierRun(*r, run_started_unix) || FromEarlierRun(*b, run_started_unix)) return;
    for (const char* m : metrics) {
      Ratio x;
      x.scenario = id;
      x.base = base_id;
      x.metric = m;
      x.value = MetricValue(*r, m);
      x.base_value = MetricValue(*b, m);
      if (!std::isfinite(x.value) || !std::isfinite(x.base_value) || x.base_value <= 0) continue;
      x.ratio = x.value / x.base_value;
      out.push_back(std::move(x));
    }
  };
  std::vector<const char*> latency;  // the percentiles (metric_names.h)
  for (size_t i = 0; i < kPercentileCount; ++i) latency.push_back(kLatencyMetrics[i].name);
  for (const char* id : kLatencyScenarios) {
    if (!RatioBaseOf(id).empty()) add(id, latency);
  }
  for (const char* id : kThroughputScenarios) {
    if (!RatioBaseOf(id).empty()) add(id, {kMetricRps});
  }
  return out;
}

}  // namespace fvbench
