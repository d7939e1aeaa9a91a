#include "support/core/bench_layout.h"

namespace fvbench::layout {

std::string ControllerDir(const std::string& bench_dir) { return bench_dir + "/controller-results"; }
std::string RawDir(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/raw"; }
std::string ScenarioResultPath(const std::string& bench_dir, const std::string& scenario_id) {
  return ControllerDir(bench_dir) + "/" + scenario_id + ".json";
}
std::string RunMetaPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/run_meta.json"; }
std::string PlanPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/dry_run_plan.txt"; }
std::string LeadPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/loadgen_lead.json"; }
std::string TestbedStatePath(const std::string& bench_dir) {
  return ControllerDir(bench_dir) + "/testbed_state.json";
}
std::string ReportDir(const std::string& bench_dir) { return bench_dir + "/report"; }
std::string ReportResultsPath(const std::string& bench_dir) { return ReportDir(bench_dir) + "/results.json"; }

std::string LoadgenResultsDir(const std::string& bench_dir) { return bench_dir + "/results"; }
std::string ScriptsDir(const std::string& bench_dir) { return bench_dir + "/scripts"; }

std::string PolicyDir(const std::string& bench_dir, bool side_b) {
  return bench_dir + (side_b ? "/policies-b" : "/policies");
}
std::string ServiceRunDir(const std::string& bench_dir, const std::string& service) {
  return bench_dir + "/run/" + service;
}

std::vector<BenchFolder> ControllerFolders() {
  return {{"", 0711},
          {"controller-results", 0700},
          {"controller-results/raw", 0700},
          {"controller-results/raw/previous", 0700},
          {"controller-results/previous", 0700},
          {"report", 0700},
          {"report/previous", 0700}};
}

std::vector<BenchFolder> LoadgenFolders() { return {{"", 0711}, {"results", 0700}, {"scripts", 0700}}; }

std::vector<BenchFolder> SutFolders(bool ab) {
  std::vector<BenchFolder> f = {{"", 0711}, {"policies", 0711}};
  if (ab) f.push_back({"policies-b", 0711});
  f.push_back({"run", 0711});
  for (const char* svc : {"baseline", "backend", "fv"}) {
    const std::string dir = std::string("run/") + svc;
    f.push_back({dir, 0711});
    f.push_back({dir + "/conf", 0700});
    f.push_back({dir + "/logs", 0700});
    f.push_back({dir + "/tmp", 0711});  // nginx makes its temp folders here for its workers
  }
  return f;
}

}  // namespace fvbench::layout
