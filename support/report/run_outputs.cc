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

Result<std::vector<std::string>> MoveReportOutputs(const std::string& report_dir) {
  std::vector<std::string> moved;
  std::error_code ec;
  if (!fs::is_directory(report_dir, ec)) return moved;
  const fs::path previous = fs::path(report_dir) / "previous";
  for (const auto& f : fs::directory_iterator(report_dir, ec)) {
    const std::string name = f.path().filename().string();
    const bool output = name == "summary.txt" || name == "results.json" || name == "report.md" ||
                        f.path().extension() == ".svg";
    if (!f.is_regular_file() || !output) continue;
    fs::create_directories(previous, ec);
    fs::rename(f.path(), previous / name, ec);
    if (ec) {
      return Error{fmt::format("cannot move the earlier run's {} to {}: {}", f.path().string(), previous.string(),
                               ec.message())};
    }
    moved.push_back(name);
  }
  if (ec) return Error{fmt::format("cannot list {}: {}", report_dir, ec.message())};
  return moved;
}

Result<SetAside> SetAsideEarlierOutputs(const std::string& xml_dir, const std::string& bench_dir, double now_unix) {
  SetAside s;
  auto xml = SetAsideGtestXml(xml_dir);
  if (!xml) return xml.error();
  s.moved = *xml;
  auto report = MoveReportOutputs(bench_dir + "/report");
  if (!report) return report.error();
  s.report_moved = *report;
  RunMeta started;
  started.started_unix = now_unix;
  started.provision_incomplete = true;
  const std::string dir = bench_dir + "/controller-results";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::is_regular_file(dir + "/run_meta.json", ec)) {
    fs::create_directories(dir + "/previous", ec);
    fs::copy_file(dir + "/run_meta.json", dir + "/previous/run_meta.json", fs::copy_options::overwrite_existing, ec);
    if (ec) return Error{fmt::format("cannot keep the earlier run's {}/run_meta.json in {}/previous/: {}", dir, dir, ec.message())};
  }
  if (auto w = detail::WriteTextFile(dir + "/run_meta.json", RunMetaToJson(started)); !w) return w.error();
  return s;
}

}  // namespace fvbench
