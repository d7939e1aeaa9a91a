#include "support/core/bench_layout.h"

namespace fvbench::layout {

namespace {

// Each folder's name relative to BENCH_DIR, written once for the paths and
// the folder lists below.
constexpr const char* kController = "controller-results";
constexpr const char* kRaw = "controller-results/raw";
constexpr const char* kDryRun = "controller-results/dry-run";
constexpr const char* kDryRunRaw = "controller-results/dry-run/raw";
constexpr const char* kReport = "report";
constexpr const char* kLoadgenResults = "results";
constexpr const char* kScripts = "scripts";
constexpr const char* kPolicies = "policies";
constexpr const char* kPoliciesB = "policies-b";
constexpr const char* kServiceRuns = "run";
constexpr const char* kServices[] = {"baseline", "backend", "fv"};

std::string Under(const std::string& bench_dir, const char* folder) { return bench_dir + "/" + folder; }

}  // namespace

std::string PreviousDir(const std::string& dir) { return dir + "/" + kPrevious; }
std::string ControllerDir(const std::string& bench_dir) { return Under(bench_dir, kController); }
std::string RawDir(const std::string& bench_dir) { return Under(bench_dir, kRaw); }
std::string ScenarioResultPath(const std::string& bench_dir, const std::string& scenario_id) {
  return ControllerDir(bench_dir) + "/" + scenario_id + ".json";
}
std::string ProfileDir(const std::string& bench_dir, const std::string& scenario_id) {
  return ControllerDir(bench_dir) + "/profile/" + scenario_id;
}
std::string RunMetaPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/run_meta.json"; }
std::string PlanPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/dry_run_plan.txt"; }
std::string LeadPath(const std::string& bench_dir) { return ControllerDir(bench_dir) + "/loadgen_lead.json"; }
std::string TestbedStatePath(const std::string& bench_dir) {
  return ControllerDir(bench_dir) + "/testbed_state.json";
}
std::string DryRunRawDir(const std::string& bench_dir) { return Under(bench_dir, kDryRunRaw); }
std::string DryRunLeadPath(const std::string& bench_dir) { return Under(bench_dir, kDryRun) + "/loadgen_lead.json"; }
std::string ReportDir(const std::string& bench_dir) { return Under(bench_dir, kReport); }
std::string ReportResultsPath(const std::string& bench_dir) { return ReportDir(bench_dir) + "/results.json"; }

std::string LoadgenResultsDir(const std::string& bench_dir) { return Under(bench_dir, kLoadgenResults); }
std::string ScriptsDir(const std::string& bench_dir) { return Under(bench_dir, kScripts); }

std::string PolicyDir(const std::string& bench_dir, bool side_b) {
  return Under(bench_dir, side_b ? kPoliciesB : kPolicies);
}
std::string ServiceRunDir(const std::string& bench_dir, const std::string& service) {
  return Under(bench_dir, kServiceRuns) + "/" + service;
}

std::vector<BenchFolder> ControllerFolders(bool dry_run) {
  std::vector<BenchFolder> f = {{"", 0711},
                                {kController, 0700},
                                {kRaw, 0700},
                                {PreviousDir(kRaw), 0700},
                                {PreviousDir(kController), 0700},
                                {kReport, 0700},
                                {PreviousDir(kReport), 0700}};
  if (dry_run) {
    f.push_back({kDryRun, 0700});
    f.push_back({kDryRunRaw, 0700});
  }
  return f;
}

std::vector<BenchFolder> LoadgenFolders() { return {{"", 0711}, {kLoadgenResults, 0700}, {kScripts, 0700}}; }

std::vector<BenchFolder> SutFolders(bool ab) {
  std::vector<BenchFolder> f = {{"", 0711}, {kPolicies, 0711}};
  if (ab) f.push_back({kPoliciesB, 0711});
  f.push_back({kServiceRuns, 0711});
  for (const char* svc : kServices) {
    const std::string dir = std::string(kServiceRuns) + "/" + svc;
    f.push_back({dir, 0711});
    f.push_back({dir + "/conf", 0700});
    f.push_back({dir + "/logs", 0700});
    f.push_back({dir + "/tmp", 0711});  // nginx makes its temp folders here for its workers
  }
  return f;
}

}  // namespace fvbench::layout
