// BENCH_DIR's layout, on every host: each path a run reads or writes under
// BENCH_DIR is spelled here once. Pure string arithmetic; `bench_dir` is
// absolute and lexically normal (config_paths.cc CheckedDir).
//
//   BENCH_DIR/                            0711 on every host
//     controller-results/                 the controller's, 0700
//       <scenario id>.json                one scenario's result (result_json.h)
//       run_meta.json                     the run's meta (run_meta.h)
//       testbed_state.json                the provisioning later processes reuse
//       loadgen_lead.json                 the last measured loadgen launch lead
//       dry_run_plan.txt                  DRY_RUN=1: the plan, secrets redacted
//       raw/                              raw engine outputs pulled back per phase
//       profile/<scenario id>/            FVBENCH_PROFILE: the profiles fetched from the SUT
//                                         (<service>.perf.txt; run/profile_phase.h)
//       raw/previous/, previous/          the run before this one
//       dry-run/raw/, dry-run/loadgen_lead.json
//                                         DRY_RUN=1: what the engines write on the
//                                         controller (command lines, logs), kept
//                                         apart from a measured run's raw/ and lead
//     report/, report/previous/           summary.txt, results.json, report.md, plots
//     results/                            on each loadgen host: the engine's outputs
//     scripts/                            on each loadgen host: engine scripts shipped
//     policies/, policies-b/              on the SUT host: the policies edge loads (A/B: side B)
//     run/<service>/{conf,logs,tmp}       on the SUT host: one nginx prefix per service
//                                         (baseline, backend, fv)
#pragma once

#include <string>
#include <vector>

#include "support/core/private_dirs.h"

namespace fvbench::layout {

// The folder, inside an output folder (controller-results/, raw/, report/),
// that keeps the run before this one's files.
inline constexpr const char* kPrevious = "previous";
std::string PreviousDir(const std::string& dir);  // dir/previous

// The controller's folders.
std::string ControllerDir(const std::string& bench_dir);  // controller-results
std::string RawDir(const std::string& bench_dir);         // controller-results/raw
std::string ScenarioResultPath(const std::string& bench_dir, const std::string& scenario_id);
std::string RunMetaPath(const std::string& bench_dir);
std::string PlanPath(const std::string& bench_dir);
std::string LeadPath(const std::string& bench_dir);
std::string TestbedStatePath(const std::string& bench_dir);
std::string ProfileDir(const std::string& bench_dir, const std::string& scenario_id);  // controller-results/profile/<id>
std::string DryRunRawDir(const std::string& bench_dir);    // controller-results/dry-run/raw
std::string DryRunLeadPath(const std::string& bench_dir);  // controller-results/dry-run/loadgen_lead.json
std::string ReportDir(const std::string& bench_dir);
std::string ReportResultsPath(const std::string& bench_dir);  // report/results.json

// On the load generator hosts.
std::string LoadgenResultsDir(const std::string& bench_dir);
std::string ScriptsDir(const std::string& bench_dir);

// On the SUT host.
std::string PolicyDir(const std::string& bench_dir, bool side_b);
std::string ServiceRunDir(const std::string& bench_dir, const std::string& service);

// The folders each role's host has under BENCH_DIR, parents first, with the
// modes they are created with (private_dirs.h EnsurePrivateDirs).
// With `dry_run`, the dry-run folders too.
std::vector<BenchFolder> ControllerFolders(bool dry_run = false);
std::vector<BenchFolder> LoadgenFolders();
std::vector<BenchFolder> SutFolders(bool ab);

}  // namespace fvbench::layout
