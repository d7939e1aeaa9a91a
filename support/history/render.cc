#include "support/history/render.h"

#include <set>

#include <fmt/format.h>

#include "support/core/run_meta.h"
#include "support/core/text.h"
#include "support/history/environment_history.h"
#include "support/history/quoting.h"

namespace fvbench {
namespace {

// "2026-11-30T10:11:41Z" -> "2026-11-30 10:11:41 +0000" (Otava parses either; this is its sample's shape).
std::string OtavaTime(double unix_seconds) {
  std::string t = FormatUtc(unix_seconds);
  if (t.size() != 20) return t;
  return t.substr(0, 10) + " " + t.substr(11, 8) + " +0000";
}

std::map<std::string, std::set<std::string>> MetricsByScenario(const History& h) {
  std::map<std::string, std::set<std::string>> out;
  for (const StoredMetric& m : h.metrics) {
    if (m.usable) out[m.scenario].insert(m.metric);
  }
  return out;
}

}  // namespace

std::string ShowSeries(const std::vector<MetricSeries>& series, size_t last_points, const History* history) {
  std::string out;
  for (const MetricSeries& s : series) {
    const size_t n = s.points.size();
    out += fmt::format("{} {}: {} runs, {} change point(s)\n", s.scenario, s.metric, n, s.change_points.size());
    for (const ChangePoint& cp : s.change_points) {
      out += fmt::format("  change at #{} (run {}, edge {} -> {}): {:.6g} -> {:.6g} ({}), p = {:.3g}\n",
                         cp.index, s.points[cp.index].run_id, detail::ShortCommit(s.points[cp.index - 1].edge_commit),
                         detail::ShortCommit(s.points[cp.index].edge_commit), cp.mean_before, cp.mean_after,
                         ChangeText(s.metric, cp), cp.p_value);
      if (history != nullptr) {
        const std::string note =
            EnvironmentChangeNote(*history, s.points[cp.index - 1].run_id, s.points[cp.index].run_id);
        if (!note.empty()) out += "    " + note + "\n";
      }
    }
    size_t from = n > last_points ? n - last_points : 0;
    size_t next_cp = 0;
    while (next_cp < s.change_points.size() && s.change_points[next_cp].index < from) ++next_cp;
    for (size_t i = from; i < n; ++i) {
      bool mark = next_cp < s.change_points.size() && s.change_points[next_cp].index == i;
      if (mark) ++next_cp;
      const SeriesPoint& p = s.points[i];
      out += fmt::format("  {} #{:<5} run {:<6} {} {:<12} {:.6g}\n", mark ? ">>" : "  ", i, p.run_id,
                         FormatUtc(p.started_unix), detail::ShortCommit(p.edge_commit), p.value);
    }
  }
  return out;
}

std::map<std::string, std::string> OtavaCsvFiles(const History& h) {
  std::map<std::string, std::string> files;
  for (const auto& [scenario, metrics] : MetricsByScenario(h)) {
    std::map<int64_t, std::map<std::string, double>> values;  // run -> metric -> value
    for (const StoredMetric& m : h.metrics) {
      if (m.usable && m.scenario == scenario) values[m.run_id][m.metric] = m.value;
    }
    std::string csv = "time,commit,run_id";
    for (const std::string& m : metrics) csv += "," + CsvField(m);
    csv += "\n";
    for (const StoredRun& r : h.runs) {
      auto v = values.find(r.id);
      if (v == values.end()) continue;
      csv += fmt::format("{},{},{}", CsvField(OtavaTime(r.started_unix)), CsvField(r.edge_commit), r.id);
      for (const std::string& m : metrics) {
        auto x = v->second.find(m);
        csv += x == v->second.end() ? "," : fmt::format(",{:.17g}", x->second);
      }
      csv += "\n";
    }
    files[scenario] = csv;
  }
  return files;
}

Result<std::string> OtavaConfig(const History& h, const std::string& dir) {
  std::string yaml = "# Apache Otava test definitions for fvbench's history export (otava analyze <test>)\ntests:\n";
  for (const auto& [scenario, metrics] : MetricsByScenario(h)) {
    auto name = YamlQuoted("fvbench." + scenario);
    auto file = YamlQuoted(dir + "/" + scenario + ".csv");
    if (!file.ok()) return Error{fmt::format("{}: {}", dir, file.error().message)};
    if (!name.ok()) return Error{fmt::format("scenario {}: {}", scenario, name.error().message)};
    std::vector<std::string> quoted;
    for (const std::string& m : metrics) {
      auto q = YamlQuoted(m);
      if (!q.ok()) return Error{fmt::format("metric {}: {}", m, q.error().message)};
      quoted.push_back(*q);
    }
    yaml += fmt::format("  {}:\n    type: csv\n    file: {}\n    time_column: time\n"
                        "    attributes: [commit, run_id]\n    metrics: [{}]\n",
                        *name, *file, fmt::join(quoted, ", "));
  }
  return yaml;
}

}  // namespace fvbench
