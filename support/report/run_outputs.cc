#include "support/report/run_outputs.h"

#include <fmt/format.h>

#include <filesystem>
#include <functional>

#include "support/core/bench_layout.h"
#include "support/core/json_fields.h"
#include "support/core/path_text.h"
#include "support/core/run_meta.h"

namespace fvbench {

namespace fs = std::filesystem;

namespace {

// Moves the regular files of `dir` that `wanted` names into `dir`/`into`/
// (replacing older copies there) and names them; a missing `dir`: nothing.
// `why` ends the error of a file that could not be moved.
Result<std::vector<std::string>> MoveInto(const std::string& dir, const char* into,
                                          const std::function<bool(const fs::path&)>& wanted, const char* why) {
  std::vector<std::string> moved;
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) return moved;
  const fs::path target = fs::path(dir) / into;
  for (const auto& f : fs::directory_iterator(dir, ec)) {
    if (!f.is_regular_file() || !wanted(f.path())) continue;
    fs::create_directories(target, ec);
    fs::rename(f.path(), target / f.path().filename(), ec);
    if (ec) {
      return Error{fmt::format("cannot move the earlier run's {} to {}: {}{}", f.path().string(), target.string(),
                               ec.message(), why)};
    }
    moved.push_back(f.path().filename().string());
  }
  if (ec) return Error{fmt::format("cannot list {}: {}", dir, ec.message())};
  return moved;
}

}  // namespace

Result<std::vector<std::string>> SetAsideGtestXml(const std::string& xml_dir) {
  return MoveInto(
      xml_dir, "stale", [](const fs::path& f) { return f.extension() == ".xml"; },
      " (CI would read it as this run's)");
}

Result<std::vector<std::string>> MoveReportOutputs(const std::string& report_dir) {
  return MoveInto(
      report_dir, layout::kPrevious,
      [](const fs::path& f) {
        const std::string name = f.filename().string();
        return name == "summary.txt" || name == "results.json" || name == "report.md" || name == "report.html" ||
               f.extension() == ".svg" || f.extension() == ".folded";
      },
      "");
}

Result<SetAside> SetAsideEarlierOutputs(const std::string& xml_dir, const std::string& bench_dir, double now_unix) {
  SetAside s;
  auto xml = SetAsideGtestXml(xml_dir);
  if (!xml) return xml.error();
  s.moved = *xml;
  auto report = MoveReportOutputs(layout::ReportDir(bench_dir));
  if (!report) return report.error();
  s.report_moved = *report;
  RunMeta started;
  started.started_unix = now_unix;
  started.provision_incomplete = true;
  const std::string dir = layout::ControllerDir(bench_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (fs::is_regular_file(fs::symlink_status(layout::RunMetaPath(bench_dir), ec))) {
    fs::create_directories(layout::PreviousDir(dir), ec);
    // A copy written as a new file renamed into place (WriteTextFile), never
    // through a link at previous/run_meta.json.
    auto earlier = detail::ReadTextFile(layout::RunMetaPath(bench_dir));
    auto kept = earlier ? detail::WriteTextFile(layout::PreviousDir(dir) + "/run_meta.json", *earlier)
                        : Result<void>(earlier.error());
    if (!kept) {
      return Error{fmt::format("cannot keep the earlier run's {}/run_meta.json in {}/previous/: {}", dir, dir,
                               kept.error().message)};
    }
  }
  if (auto w = detail::WriteTextFile(layout::RunMetaPath(bench_dir), RunMetaToJson(started)); !w) return w.error();
  return s;
}

Result<std::vector<std::string>> MoveScenarioOutputs(const std::string& bench_dir, const std::string& scenario_id) {
  std::vector<std::string> moved;
  auto result = MoveInto(
      layout::ControllerDir(bench_dir), layout::kPrevious, [&](const fs::path& f) { return f.filename().string() == scenario_id + ".json"; },
      "");
  if (!result) return result.error();
  moved = *result;
  const std::string stem = detail::PhaseFileStem(scenario_id);
  const auto scenarios = [&](const fs::path& f) {
    const std::string name = f.filename().string();
    return name.rfind(stem + ".", 0) == 0 || name.rfind(stem + "_", 0) == 0;
  };
  // raw/previous/ keeps one earlier run of the scenario, not a mix: when
  // raw/ has files of it, those of the run before go first (a longer search
  // left steps a shorter one would not replace).
  const std::string raw_dir = layout::RawDir(bench_dir);
  std::error_code ec;
  bool earlier = false;
  for (const auto& f : fs::directory_iterator(raw_dir, ec)) earlier = earlier || scenarios(f.path());
  if (earlier) {
    for (const auto& f : fs::directory_iterator(layout::PreviousDir(raw_dir), ec)) {
      if (scenarios(f.path())) fs::remove(f.path(), ec);
    }
  }
  auto raw = MoveInto(raw_dir, layout::kPrevious, scenarios, "");
  if (!raw) return raw.error();
  for (const std::string& f : *raw) moved.push_back("raw/" + f);
  return moved;
}

}  // namespace fvbench
