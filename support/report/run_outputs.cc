#include "support/report/run_outputs.h"

#include <fmt/format.h>

#include <filesystem>

#include "support/core/json_fields.h"
#include "support/core/run_meta.h"

namespace fvbench {

namespace fs = std::filesystem;

Result<std::vector<std::string>> SetAsideGtestXml(const std::string& xml_dir) {
  std::vector<std::string> moved;
  std::error_code ec;
  if (xml_dir.empty() || !fs::is_directory(xml_dir, ec)) return moved;
  const fs::path stale = fs::path(xml_dir) / "stale";
  for (const auto& f : fs::directory_iterator(xml_dir, ec)) {
    if (!f.is_regular_file() || f.path().extension() != ".xml") continue;
    fs::create_directories(stale, ec);
    fs::rename(f.path(), stale / f.path().filename(), ec);
    if (ec) {
      return Error{fmt::format("cannot move the earlier run's {} to {}: {} (CI would read it as this run's)",
                               f.path().string(), stale.string(), ec.message())};
    }
    moved.push_back(f.path().filename().string());
  }
  if (ec) return Error{fmt::format("cannot list {}: {}", xml_dir, ec.message())};
  return moved;
}

Result<std::vector<std::string>> RemoveReportOutputs(const std::string& report_dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  if (!fs::is_directory(report_dir, ec)) return removed;
  for (const auto& f : fs::directory_iterator(report_dir, ec)) {
    const std::string name = f.path().filename().string();
    const bool output = name == "summary.txt" || name == "results.json" || name == "report.md" ||
                        f.path().extension() == ".svg";
    if (!f.is_regular_file() || !output) continue;
    if (!fs::remove(f.path(), ec) || ec) {
      return Error{fmt::format("cannot remove the earlier run's {}: {}", f.path().string(), ec.message())};
    }
    removed.push_back(name);
  }
  return removed;
}

Result<SetAside> SetAsideEarlierOutputs(const std::string& xml_dir, const std::string& bench_dir, double now_unix) {
  SetAside s;
  auto xml = SetAsideGtestXml(xml_dir);
  if (!xml) return xml.error();
  s.moved = *xml;
  auto report = RemoveReportOutputs(bench_dir + "/report");
  if (!report) return report.error();
  s.removed = *report;
  RunMeta started;
  started.started_unix = now_unix;
  const std::string dir = bench_dir + "/controller-results";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (auto w = detail::WriteTextFile(dir + "/run_meta.json", RunMetaToJson(started)); !w) return w.error();
  return s;
}

}  // namespace fvbench
