#include "support/history/gate.h"

#include <fmt/format.h>

#include "support/history/environment_history.h"
#include "support/history/run_record.h"

namespace fvbench {

std::vector<Regression> FindRegressions(const std::vector<MetricSeries>& series, const GateOptions& options) {
  std::vector<Regression> out;
  for (const MetricSeries& s : series) {
    if (s.change_points.empty()) continue;
    const ChangePoint& cp = s.change_points.back();
    const size_t n = s.points.size();
    if (cp.index + options.recent_runs < n || cp.index == 0) continue;
    const double change = ChangeIsAbsolute(s.metric) ? cp.mean_after - cp.mean_before : cp.relative_change;
    const double worse = HigherIsWorse(s.metric) ? change : -change;
    if (worse < options.min_effect) continue;
    out.push_back({s.scenario, s.metric, cp, s.points[cp.index - 1], s.points[cp.index]});
  }
  return out;
}

std::string DescribeRegression(const Regression& r, const MetricSeries& s, const History* history) {
  const size_t n = s.points.size();
  const size_t prev = s.change_points.size() >= 2 ? s.change_points[s.change_points.size() - 2].index : 0;
  auto commit = [](const std::string& c) { return c.empty() ? std::string("unknown") : c; };
  std::string out = fmt::format(
      "{} {}: {} (mean {:.6g} over {} runs -> mean {:.6g} over {} runs), p = {:.3g}; "
      "from run {} (edge commit {}) to run {} (edge commit {})",
      r.scenario, r.metric, ChangeText(r.metric, r.change), r.change.mean_before, r.change.index - prev,
      r.change.mean_after, n - r.change.index, r.change.p_value, r.before.run_id, commit(r.before.edge_commit),
      r.after.run_id, commit(r.after.edge_commit));
  if (history != nullptr) {
    const std::string note = EnvironmentChangeNote(*history, r.before.run_id, r.after.run_id);
    if (!note.empty()) out += "; " + note;
  }
  return out;
}

}  // namespace fvbench
