#include "support/history/series.h"

#include <algorithm>
#include <map>
#include <utility>

namespace fvbench {

std::vector<MetricSeries> BuildSeries(const History& history, const ChangePointOptions& options) {
  std::map<int64_t, size_t> order;  // run id -> position in run order
  for (size_t i = 0; i < history.runs.size(); ++i) order[history.runs[i].id] = i;
  std::map<std::pair<std::string, std::string>, MetricSeries> by_key;
  for (const StoredMetric& m : history.metrics) {
    auto run = order.find(m.run_id);
    if (!m.usable || run == order.end()) continue;
    const StoredRun& r = history.runs[run->second];
    MetricSeries& s = by_key[{m.scenario, m.metric}];
    s.scenario = m.scenario;
    s.metric = m.metric;
    s.points.push_back({r.id, r.started_unix, r.edge_commit, m.value});
  }
  std::vector<MetricSeries> out;
  for (auto& [key, s] : by_key) {
    std::stable_sort(s.points.begin(), s.points.end(), [&](const SeriesPoint& a, const SeriesPoint& b) {
      return order[a.run_id] < order[b.run_id];
    });
    std::vector<double> values;
    for (const SeriesPoint& p : s.points) values.push_back(p.value);
    s.change_points = FindChangePoints(values, options);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace fvbench
