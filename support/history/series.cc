#include "support/history/series.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "support/core/text.h"
#include "support/history/run_record.h"

namespace fvbench {
namespace {

std::string CommitOnly(const std::string& edge_commit) { return edge_commit.substr(0, edge_commit.find(' ')); }

bool SameCommit(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  return n >= 7 && a.compare(0, n, b, 0, n) == 0;
}

// Position of each run's commit in `order.commits` (run-time order: the run's
// own position); runs without one are absent.
std::map<int64_t, size_t> RunRanks(const History& history, const SeriesOrder& order) {
  std::map<int64_t, size_t> rank;
  if (order.by == SeriesOrder::By::kRunTime) {
    for (size_t i = 0; i < history.runs.size(); ++i) rank[history.runs[i].id] = i;
    return rank;
  }
  std::map<std::string, size_t> by_prefix;  // first 7 hex digits -> first position
  for (size_t i = 0; i < order.commits.size(); ++i) by_prefix.emplace(order.commits[i].substr(0, 7), i);
  for (const StoredRun& r : history.runs) {
    const std::string c = CommitOnly(r.edge_commit);
    if (c.size() < 7) continue;
    auto first = by_prefix.find(c.substr(0, 7));
    if (first == by_prefix.end()) continue;
    for (size_t i = first->second; i < order.commits.size(); ++i) {  // past the first only on a 7-digit clash
      if (SameCommit(order.commits[i], c)) {
        rank[r.id] = i;
        break;
      }
    }
  }
  return rank;
}

}  // namespace

Result<std::vector<std::string>> ParseCommitSequence(std::string_view text, const std::string& source) {
  std::vector<std::string> out;
  std::multimap<std::string, std::pair<std::string, size_t>> seen;  // first 7 hex digits -> commit, its line
  size_t line_no = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string line(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    ++line_no;
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const bool hex = std::all_of(line.begin(), line.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    if (!hex || line.size() < 7 || line.size() > 40) {
      return Error{fmt::format("{}:{}: expected a commit (7-40 hex digits, as git rev-list prints), got '{}'", source,
                               line_no, line)};
    }
    line = detail::AsciiLower(line);
    const auto [from, to] = seen.equal_range(line.substr(0, 7));
    for (auto it = from; it != to; ++it) {
      if (SameCommit(it->second.first, line)) {
        return Error{fmt::format("{}:{}: commit {} is listed twice (also on line {}): a commit sequence names each "
                                 "commit once",
                                 source, line_no, line, it->second.second)};
      }
    }
    seen.emplace(line.substr(0, 7), std::make_pair(line, line_no));
    out.push_back(line);
  }
  return out;
}

std::vector<MetricSeries> BuildSeries(const History& history, const ChangePointOptions& options,
                                      const SeriesOrder& series_order) {
  std::map<int64_t, size_t> position;  // run id -> position in run-time order
  for (size_t i = 0; i < history.runs.size(); ++i) position[history.runs[i].id] = i;
  const std::map<int64_t, size_t> rank = RunRanks(history, series_order);
  std::map<std::pair<std::string, std::string>, MetricSeries> by_key;
  for (const StoredMetric& m : history.metrics) {
    auto run = position.find(m.run_id);
    if (!m.usable || run == position.end()) continue;
    const StoredRun& r = history.runs[run->second];
    MetricSeries& s = by_key[{m.scenario, m.metric}];
    s.scenario = m.scenario;
    s.metric = m.metric;
    if (!rank.count(r.id)) {
      ++s.unordered;
      continue;
    }
    s.points.push_back({r.id, r.started_unix, r.edge_commit, m.value});
  }
  std::vector<MetricSeries> out;
  for (auto& [key, s] : by_key) {
    std::stable_sort(s.points.begin(), s.points.end(), [&](const SeriesPoint& a, const SeriesPoint& b) {
      const size_t ra = rank.at(a.run_id), rb = rank.at(b.run_id);
      return ra != rb ? ra < rb : position[a.run_id] < position[b.run_id];
    });
    std::vector<double> values;
    for (const SeriesPoint& p : s.points) values.push_back(p.value);
    s.change_points = FindChangePoints(values, options);
    out.push_back(std::move(s));
  }
  return out;
}

std::string ChangeText(std::string_view metric, const ChangePoint& cp) {
  if (ChangeIsAbsolute(metric)) return fmt::format("{:+.1f} points", 100 * (cp.mean_after - cp.mean_before));
  return fmt::format("{:+.1f}%", 100 * cp.relative_change);
}

}  // namespace fvbench
