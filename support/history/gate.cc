#include "support/history/gate.h"

#include <algorithm>
#include <cmath>

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

namespace {

SeriesSensitivity SensitivityOf(const MetricSeries& s, const GateOptions& options, const ChangePointOptions& detector) {
  SeriesSensitivity out{s.scenario, s.metric, s.points.size(), 0, false, 0, {}};
  DetectableShiftOptions o;
  o.max_p_value = detector.max_p_value;
  o.min_effect = options.min_effect;
  o.relative = !ChangeIsAbsolute(s.metric);
  o.min_recent_runs = static_cast<size_t>(std::max(detector.min_segment, 2));
  const size_t n = s.points.size();
  const size_t k = n > o.min_reference_runs ? std::min(options.recent_runs, n - o.min_reference_runs) : 0;
  const size_t end = n - k;
  const size_t window = static_cast<size_t>(std::max(detector.window, 4 * std::max(detector.min_segment, 2)));
  const size_t span = std::max(window > k ? window - k : 0, o.min_reference_runs);
  size_t from = end > span ? end - span : 0;
  for (const ChangePoint& cp : s.change_points) {
    if (cp.index < end && cp.index > from) {
      from = cp.index;
      out.since_change = true;
      out.change_run_id = s.points[cp.index].run_id;
    }
  }
  out.reference_from = from;
  std::vector<double> reference;
  for (size_t i = from; i < end; ++i) reference.push_back(s.points[i].value);
  out.shift = SmallestDetectableShift(reference, k, o);
  return out;
}

std::string Percent(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }

// The shift in the series' own terms: "14.2%" or "3.0 points".
std::string ShiftText(const SeriesSensitivity& s, double value) {
  return ChangeIsAbsolute(s.metric) ? fmt::format("{:.1f} points", 100 * value) : Percent(value);
}

std::string TooFewText(const SeriesSensitivity& s) {
  if (s.since_change) {
    return fmt::format("n={} since the change at run {}", s.shift.reference_runs, s.change_run_id);
  }
  return fmt::format("n={}", s.runs);
}

}  // namespace

std::vector<SeriesSensitivity> GateSensitivity(const std::vector<MetricSeries>& series, const GateOptions& options,
                                               const ChangePointOptions& detector) {
  std::vector<SeriesSensitivity> out;
  for (const MetricSeries& s : series) out.push_back(SensitivityOf(s, options, detector));
  return out;
}

std::string DescribeSensitivity(const SeriesSensitivity& s) {
  const DetectableShift& d = s.shift;
  const std::string name = s.scenario + " " + s.metric;
  switch (d.status) {
    case DetectableShift::Status::kTooFewRuns:
      return fmt::format("{}: not enough runs to tell ({})", name, TooFewText(s));
    case DetectableShift::Status::kZeroMean:
      return fmt::format("{}: cannot detect a relative change: mean 0 over {} runs", name, d.reference_runs);
    case DetectableShift::Status::kOk:
      break;
  }
  const bool absolute = ChangeIsAbsolute(s.metric);
  std::string out = fmt::format("{}: could detect a {} of {} or more", name, absolute ? "change" : "shift",
                                ShiftText(s, d.shift));
  if (d.unfloored < d.shift) out += fmt::format(" (the --min-effect floor; the noise alone: {})", ShiftText(s, d.unfloored));
  out += fmt::format(" in the newest {} runs (noise ", d.recent_runs);
  out += absolute ? fmt::format("SD {:.1f} points", 100 * d.noise)
                  : fmt::format("CV {}", Percent(d.noise / std::fabs(d.reference_mean)));
  out += fmt::format(" over {} runs{}{})", d.reference_runs,
                     s.since_change ? fmt::format(" since the change at run {}", s.change_run_id) : "",
                     d.noise_is_sd ? "; sample SD, most runs equal" : "");
  return out;
}

std::string SummarizeSensitivity(const std::vector<SeriesSensitivity>& all) {
  std::string out;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].scenario == all[i].scenario) ++j;
    size_t k = 0;
    bool same_k = true;
    for (size_t x = i; x < j; ++x) {
      if (all[x].shift.status == DetectableShift::Status::kTooFewRuns) continue;
      if (k != 0 && all[x].shift.recent_runs != k) same_k = false;
      k = all[x].shift.recent_runs;
    }
    out += all[i].scenario;
    if (k != 0 && same_k) out += fmt::format(" (newest {} runs)", k);
    out += ":";
    for (size_t x = i; x < j; ++x) {
      const SeriesSensitivity& s = all[x];
      out += fmt::format("{} {} ", x == i ? "" : ",", s.metric);
      switch (s.shift.status) {
        case DetectableShift::Status::kTooFewRuns: out += fmt::format("too few runs ({})", TooFewText(s)); break;
        case DetectableShift::Status::kZeroMean: out += "n/a (mean 0)"; break;
        case DetectableShift::Status::kOk:
          out += ShiftText(s, s.shift.shift);
          if (!same_k) out += fmt::format(" in {} runs", s.shift.recent_runs);
          break;
      }
    }
    out += "\n";
    i = j;
  }
  return out;
}

}  // namespace fvbench
