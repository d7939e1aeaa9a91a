// ProfileResult: what a scenario's profile phases (run/profile_phase.h) ran
// and wrote, in ScenarioResult::profile and in results.json under "profile"
// (report/profile_json.h); absent when FVBENCH_PROFILE is off.
//
// The two phases run at the same rate for the same length, after the
// scenario's measured phases, and never change its result or verdict:
//   without  no profiler attached: the reference
//   with     every profiler of FVBENCH_PROFILE attached
// Their p99 and CPU per request side by side are the profilers' cost.
//
// Units: latencies in µs, CPU in µs of CPU time per answered request
// (the cores the service under load used, from the phase monitor, x 1e6 /
// its achieved rate), rates in requests/s, durations in s. A figure not
// known is NaN (null in JSON).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fvbench {

struct ProfilePhaseFigures {
  double p99_us = std::numeric_limits<double>::quiet_NaN();
  double cpu_us_per_request = std::numeric_limits<double>::quiet_NaN();
  uint64_t requests = 0;  // completed requests (any status)
  bool measured = false;  // the phase ran and returned a load
};

// One file a profiler fetched to the controller.
struct ProfileFile {
  std::string service;  // the SUT service profiled: fv | backend | baseline
  std::string level;    // the profiler: "cpu" (perf script text) | "lua"
  std::string path;     // relative to the controller's results dir: profile/<scenario id>/<file>
};

// One flame graph: the folded stacks of one service at one level (the perf
// text collapsed, or every worker's Lua file merged), drawn as an SVG.
struct ProfileFrameShare {
  std::string frame;
  double self_share = 0;   // of the graph's samples, 0..1
  double total_share = 0;  // of the graph's samples, 0..1 (a frame once per stack)
};
struct ProfileFlame {
  std::string service;      // fv | backend | baseline
  std::string level;        // cpu | lua
  uint64_t samples = 0;
  std::string folded_path;  // relative to the controller's results dir
  std::string svg_path;     // relative to the controller's results dir
  std::vector<ProfileFrameShare> top;  // the frames with the most self samples, most first
};

struct ProfileResult {
  std::string profilers;       // FVBENCH_PROFILE as run: cpu | lua | both
  double rate_rps = 0;         // the rate both phases ran at
  double duration_s = 0;       // each phase's length
  int hz = 0;                  // samples per second (FVBENCH_PROFILE_HZ)
  std::string cpu_service;     // whose CPU cpu_us_per_request counts (fv, or baseline for raw nginx)
  ProfilePhaseFigures without;
  ProfilePhaseFigures with;
  std::vector<ProfileFile> files;
  std::vector<ProfileFlame> flames;
  // Each failure, naming the fix (perf missing, perf_event_paranoid, a
  // phase's error); the profile phases never fail the scenario.
  std::vector<std::string> errors;
};

}  // namespace fvbench
