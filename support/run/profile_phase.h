// The profile phases: flame profiles of the SUT under load, taken after a
// scenario's measured phases and checks (FVBENCH_PROFILE, core/
// profile_params.h), while its services still run. They never run inside a
// measured phase, never touch the scenario's result beyond
// ScenarioResult::profile, and never fail the scenario.
//
//   Prepare() of each profiler (profiler.h); those that fail are named in
//     ProfileResult::errors and left out; with none left, nothing runs
//   -> warmup: warmup_s at rate_rps (none when 0), unmeasured
//   -> "profile: without profiler": duration_s at rate_rps, measured as
//      every phase is (quiet SUT, phase monitor, validity), no profiler
//   -> "profile: with <profilers>": the same, each profiler Started right
//      before the engine's load (the hook `at_load_start`), for duration_s
//   -> Finish() of each started profiler into local_dir (the controller)
// ProfileResult: both phases' p99 and CPU per request of cpu_service (the
// nginx under load) side by side, the files (relative to results_dir) and
// every error.
//
// The runner calls RunProfilePhases once, from ScenarioRun::AfterLoad
// (scenario_runner.cc), with hooks over its own warmup and MeasurePhase.
// The pure parts (figures of a phase, the profiled rate) are functions below.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/profile_result.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"
#include "support/engine/load_engine.h"
#include "support/sut/profiler.h"

namespace fvbench {

struct ProfileSetup {
  std::string scenario_id;
  LoadSpec base;              // the scenario's base spec; phase, rate and duration are set here
  std::string phase_stem;     // the phases' file stem: <stem>_profile_{warmup,without,with}
  double rate_rps = 0;
  double duration_s = 10;     // FVBENCH_PROFILE_DUR
  double warmup_s = 0;        // WARMUP_DUR
  int hz = 99;
  std::string profilers;      // FVBENCH_PROFILE's text: cpu | lua | both
  std::string cpu_service;    // fv | baseline: whose CPU per request is reported
  std::string edge_dir;       // the SUT's edge tree (ProfileResult::edge_dir); "" for raw nginx
  std::string local_dir;      // layout::ProfileDir: where the profilers fetch to (emptied first)
  std::string results_dir;    // layout::ControllerDir: ProfileFile::path is relative to it
};

struct ProfileHooks {
  // An unmeasured warmup; an Error is recorded, the phases still run.
  std::function<Result<void>(const LoadSpec&)> warmup;
  // One measured phase (the runner's MeasurePhase); at_load_start runs
  // right before the engine's load.
  std::function<Result<MeasuredPhase>(const LoadSpec&, const std::string& label,
                                      const std::function<void()>& at_load_start)>
      measure;
  std::function<void(const std::string&)> progress;
};

ProfileResult RunProfilePhases(const ProfileSetup& setup, std::vector<std::unique_ptr<Profiler>> profilers,
                               const ProfileHooks& hooks);

// Throughput: fraction x the rate the search confirmed (the reported
// phase's target, else its achieved rate); latency: LATENCY_RPS. 0 when
// there is no rate to profile at.
double ProfileRate(const Config& c, bool throughput, const ScenarioResult& r);

// A phase's figures: p99, requests, and the CPU of `service` (its cores in
// the phase monitor's usage) x 1e6 / the achieved rate, NaN when unknown.
ProfilePhaseFigures FiguresOf(const MeasuredPhase& phase, const std::string& service);

}  // namespace fvbench
