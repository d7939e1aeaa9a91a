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
  std::string folded_path;  // relative to the report directory
  std::string svg_path;     // relative to the report directory
  std::vector<ProfileFrameShare> top;  // the frames with the most self samples, most first
  // The samples the service's CPU time in the phase with the profiler gives
  // at one per sampling period (cpu_us_per_request x requests / the period;
  // ProfileSampleUs): far more than `samples` means the profiler missed
  // samples. Known for cpu_service only; NaN otherwise.
  double expected_samples = std::numeric_limits<double>::quiet_NaN();
};

// A/B mode: how one frame's cost per request changed from side A's profile
// to side B's, both taken at the same rate, ranked by its own code's growth
// (self) with its callees' beside it (total), in CPU µs per request: a
// frame's samples / requests x what a sample stands for (the measured CPU
// time of the phase divided among its samples; report/profile_flames.h
// SampleUs).
struct ProfileFrameGrowth {
  std::string frame;
  double a_self_us = 0, b_self_us = 0;    // CPU µs per request with the frame as the leaf (its own code)
  double a_total_us = 0, b_total_us = 0;  // CPU µs per request with the frame anywhere on the stack
  double share_of_a = 0;  // (b_self - a_self) / all of A's µs per request: +0.05 = its own code added 5 % of A's cost
  bool new_in_b = false;  // the leaf of no stack of A
};
// The differential flame graph of one service and level (B's shape,
// coloured by the change per request from A) and the frames that grew most.
struct ProfileDiff {
  // What this profile is drawn against: "A" (side B against side A), or a
  // scenario id ("throughput.simple": the same setup with the one-rule policy).
  std::string against;
  std::string service;  // fv | backend | baseline
  std::string level;    // cpu | lua
  uint64_t requests_a = 0, requests_b = 0;      // each side's "with" phase: what the samples are divided by
  double a_us_per_request = 0, b_us_per_request = 0;  // all samples of the graph; NaN with no requests
  std::string svg_path;                         // relative to the report directory
  std::vector<ProfileFrameGrowth> top;          // by growth of self µs per request, most first; shrinking last
  std::string not_compared;  // why there are no frames ("A has no samples"); "" when compared
};

struct ProfileResult {
  // "" outside A/B mode; in A/B mode "A" (ScenarioResult::profile) or "B"
  // (ScenarioResult::profile_b): each side's edge started afresh for its
  // profile phases, at the same rate.
  std::string side;
  std::string profilers;       // FVBENCH_PROFILE as run: cpu | lua | both
  double rate_rps = 0;         // the rate both phases ran at
  double duration_s = 0;       // each phase's length
  int hz = 0;                  // samples per second (FVBENCH_PROFILE_HZ)
  std::string cpu_service;     // whose CPU cpu_us_per_request counts (fv, or baseline for raw nginx)
  // The SUT's edge tree (FV_DIR as provisioned, this side's in A/B mode);
  // the report shows Lua frames under it relative to it ("src/fairvisor/
  // rule_engine.lua:evaluate"), so both sides' frames compare. "" keeps them.
  std::string edge_dir;
  ProfilePhaseFigures without;
  ProfilePhaseFigures with;
  std::vector<ProfileFile> files;
  std::vector<ProfileFlame> flames;
  // Per service and level both profiled: side B's against side A's, or a
  // scenario's against another scenario's of the run (profile_flames.h).
  std::vector<ProfileDiff> diffs;
  // Each failure, naming the fix (perf missing, perf_event_paranoid, a
  // phase's error); the profile phases never fail the scenario.
  std::vector<std::string> errors;
};

}  // namespace fvbench
