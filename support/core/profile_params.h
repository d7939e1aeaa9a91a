// ProfileParams: the flame profiles taken after a scenario's verdict
// (run/profile_phase.h), from FVBENCH_PROFILE, FVBENCH_PROFILE_DUR,
// FVBENCH_PROFILE_FRACTION and FVBENCH_PROFILE_HZ (config_profile.cc reads
// them; variables.cc documents them). Pure.
//
//   FVBENCH_PROFILE           cpu | lua | both | 0 or empty (off, the default)
//   FVBENCH_PROFILE_DUR       seconds of each of the two profile phases (without
//                             and with the profiler), default 10; whole seconds with wrk
//   FVBENCH_PROFILE_FRACTION  throughput scenarios: the fraction of the rate the
//                             search confirmed, 0 < x <= 1, default 0.8 (latency
//                             scenarios run at LATENCY_RPS)
//   FVBENCH_PROFILE_HZ        samples per second per CPU, 1..1000, default 99
//
// Why 99 Hz: perf's own default is 4000 Hz, but the profile phase reports
// what the profiler costs, and a low rate keeps that cost small while 10 s
// on one busy worker still gives ~1000 stacks; 99 rather than 100 so the
// samples do not run in lockstep with 100 Hz timers (the kernel tick,
// nginx's timer resolution) and see only what runs at those instants.
// LuaJIT's profiler (jit.profile) takes its period in whole milliseconds:
// the Lua level samples every round(1000 / hz) ms, so 1000 Hz (1 ms) is the
// most both levels can honour.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

namespace fvbench {

inline constexpr int kMaxProfileHz = 1000;
inline constexpr int kLuaProfileDefaultPeriodMs = 10;

// The jit.profile period for a sampling rate: 1000 / hz ms, rounded, within
// 1..1000 (kLuaProfileDefaultPeriodMs for hz <= 0).
inline int LuaProfilePeriodMs(int hz) {
  if (hz <= 0) return kLuaProfileDefaultPeriodMs;
  return std::clamp(static_cast<int>(std::lround(1000.0 / hz)), 1, 1000);
}

// The CPU time one sample stands for, in µs, at level "cpu" or "lua": perf's
// cpu-clock event samples every 1/hz s of a thread's CPU time; jit.profile's
// timer is SIGPROF from setitimer(ITIMER_PROF) (LuaJIT's src/lj_profile.c),
// which counts the process's CPU time, every LuaProfilePeriodMs(hz) ms.
inline double ProfileSampleUs(const std::string& level, int hz) {
  if (level == "lua") return LuaProfilePeriodMs(hz) * 1000.0;
  return hz > 0 ? 1e6 / hz : 0;
}

struct ProfileParams {
  bool cpu = false;        // FVBENCH_PROFILE=cpu or both: perf on the SUT's nginx workers
  bool lua = false;        // FVBENCH_PROFILE=lua or both: LuaJIT's profiler in edge
  double duration_s = 10;  // FVBENCH_PROFILE_DUR, seconds
  double fraction = 0.8;   // FVBENCH_PROFILE_FRACTION, of the confirmed throughput
  int hz = 99;             // FVBENCH_PROFILE_HZ, samples per second
  bool on() const { return cpu || lua; }
  // "cpu" | "lua" | "both" | "0": FVBENCH_PROFILE as it reads.
  std::string Text() const { return cpu && lua ? "both" : cpu ? "cpu" : lua ? "lua" : "0"; }
};

}  // namespace fvbench
