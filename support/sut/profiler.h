// Profiler: one level of the flame profiles (FVBENCH_PROFILE, core/
// profile_params.h) taken on the SUT host while a profile phase runs
// (run/profile_phase.h drives it). Implementations:
//   "cpu"  PerfProfiler (perf_capture.h): perf on each service's nginx workers
//   "lua"  the Lua-level profiler in edge
//
// Life of one profiler, per scenario:
//   Prepare()        before the phases: can it run here (tools, permissions,
//                    the processes to attach to)? An Error names the fix;
//                    the phase then runs without this profiler.
//   Start(seconds)   right before the profiled phase's load starts; returns
//                    at once, sampling for `seconds` in the background.
//   Finish(dir)      after that load: waits for the sampling to end, fetches
//                    what it wrote into the controller's folder `dir` (created
//                    when missing) and removes its files on the SUT host. The
//                    files fetched, each with its absolute local path, and an
//                    error for each file it could not give (the others are kept).
// Errors name the host, the command or file, and what to change.
#pragma once

#include <string>
#include <vector>

#include "support/core/profile_result.h"
#include "support/core/result.h"

namespace fvbench {

struct ProfileFetch {
  std::vector<ProfileFile> files;   // path: absolute, on the controller
  std::vector<std::string> errors;  // one per file not fetched, naming host, command and fix
};

class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual std::string name() const = 0;  // "cpu" | "lua": ProfileFile::level
  virtual Result<void> Prepare() = 0;
  virtual Result<void> Start(double seconds) = 0;
  virtual ProfileFetch Finish(const std::string& local_dir) = 0;
};

}  // namespace fvbench
