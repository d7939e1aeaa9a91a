#include "support/history/environment_history.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/judge/environment_drift.h"

namespace fvbench {

std::string EnvironmentDigest(const std::vector<HostEnvironment>& envs) {
  return envs.empty() ? "" : Sha256Hex(EnvironmentCanonicalText(envs));
}

std::vector<int64_t> ChangePointRuns(const std::vector<MetricSeries>& series) {
  std::vector<int64_t> out;
  for (const MetricSeries& s : series) {
    for (const ChangePoint& cp : s.change_points) {
      if (cp.index == 0 || cp.index >= s.points.size()) continue;
      out.push_back(s.points[cp.index - 1].run_id);
      out.push_back(s.points[cp.index].run_id);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<void> LoadRunEnvironments(SqlConnection& db, const std::vector<int64_t>& run_ids, History& history) {
  for (int64_t id : run_ids) {
    if (history.environments.count(id)) continue;
    auto rows = db.Query("SELECT results_json FROM runs WHERE id = $1", {std::to_string(id)});
    if (!rows.ok()) return rows.error();
    if (rows->empty() || !(*rows)[0][0]) continue;
    const std::string source = fmt::format("{}: run {}: results.json", db.Where(), id);
    auto doc = detail::ParseJsonText(*(*rows)[0][0], source);
    if (!doc.ok()) return doc.error();
    std::vector<HostEnvironment> envs;
    if (doc->is_object() && doc->contains("meta") && (*doc)["meta"].is_object() &&
        (*doc)["meta"].contains("environment")) {
      auto read = EnvironmentsFromJsonValue((*doc)["meta"]["environment"], "meta.environment");
      if (!read.ok()) return Error{fmt::format("{}: {}", source, read.error().message)};
      envs = std::move(*read);
    }
    history.environments[id] = std::move(envs);
  }
  return Ok();
}

std::string EnvironmentChangeNote(const History& history, int64_t before, int64_t after) {
  auto a = history.environments.find(before);
  auto b = history.environments.find(after);
  if (a == history.environments.end() || b == history.environments.end()) return "";
  const std::vector<std::string> changes = EnvironmentChanges(a->second, b->second);
  if (changes.empty()) return "";
  return fmt::format("environment changed between runs {} and {}: {}", before, after, fmt::join(changes, "; "));
}

}  // namespace fvbench
