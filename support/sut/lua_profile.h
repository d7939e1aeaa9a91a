// Lua-level CPU profiles of fairvisor edge's nginx workers: LuaJIT's own
// sampling profiler (jit.profile), started and stopped in every worker by
// the suite, off the measured path, in a phase of its own.
//
// Pieces:
//   support/sut/lua/fvbench_lua_profile.lua  the module every worker runs (its
//       header: the shared-dict protocol and the folded file it writes);
//   nginx_conf.h (FairvisorParams::lua_profile)  wires it into edge's config:
//       the `fvbench_profile` shared dict, the module directory on
//       lua_package_path, each worker's init_worker, and three locations on
//       the status listener;
//   this file  places the module on the SUT host and drives a profile through
//       the status socket, with the same curl the progress lines use
//       (progress_ticker.h): `curl -sS --max-time 2 --unix-socket <socket>
//       http://localhost/fvbench_profile/<start|stop|state>`, argv only.
//
// Protocol (all through the status socket; each answer is `key value` lines):
//   /fvbench_profile/start?period_ms=N  every worker starts jit.profile with a
//       sample every N ms of its CPU time (1..1000) within ~0.1 s (each
//       worker polls the dict every 0.1 s); answers `gen <n>` (this
//       profile's generation) and `workers <n>` (ngx.worker.count());
//       409 while a profile runs.
//   /fvbench_profile/stop  every worker stops within ~0.1 s and writes
//       <prefix>/lua_profile/lua_profile.<worker pid>.folded; 409 when none runs.
//   /fvbench_profile/state  gen, running, workers, done (workers that
//       finished this generation), `file <pid> <path>` and `error <pid> <why>`.
//
// The folded file (flamegraph.pl's input): one line per distinct stack, most
// samples first, `<root>;...;<leaf>;[<vmstate>] <samples>`, each frame
// dumpstack's "pF" (module:function, e.g.
// `/srv/edge/src/fairvisor/rule_engine.lua:evaluate`), the VM state as the
// leaf-most frame: [N] compiled, [I] interpreted, [C] C code, [G] GC, [J] JIT
// compiler. At most 4096 distinct stacks; the rest's samples are one
// `[truncated] <n>` line.
//
// Cost outside a profile: with FairvisorParams::lua_profile on, each worker's
// poll timer reads two dict keys every 0.1 s (a timer, not a request: the
// status counters do not count it); jit.profile runs only between start and
// stop. A worker started after a start (respawned) never writes that
// generation's file: the wait then fails with the counts.
//
// The output directory <prefix>/lua_profile is made mode 01777 (like /tmp):
// the workers of an nginx started as root run as another user (nobody) and
// must create their files in it.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/profile_params.h"
#include "support/core/result.h"
#include "support/host/file_caps.h"
#include "support/host/host.h"

namespace fvbench {

inline constexpr char kLuaProfileModuleName[] = "fvbench_lua_profile";          // require() name
inline constexpr char kLuaProfileModuleSource[] = "support/sut/lua/fvbench_lua_profile.lua";  // under the source dir
inline constexpr char kLuaProfileDict[] = "fvbench_profile";
inline constexpr char kLuaProfileDictSize[] = "1m";

// A folded file: at most 4096 stacks of at most 100 frames of a module path
// and a function name (~80 B): 32 MiB.
inline constexpr FileCap kLuaProfileCap{"Lua profile (folded stacks)", 32 * kMiB};

// <prefix>/lua: the module's directory (on lua_package_path).
std::string LuaProfileModuleDir(const std::string& prefix);
// <prefix>/lua_profile: where the workers write their folded files.
std::string LuaProfileOutputDir(const std::string& prefix);

// Writes the module (read from <source_dir>/kLuaProfileModuleSource on this
// machine; source_dir "" = the tree this suite was built from) to LuaProfileModuleDir(prefix) on `host` and makes
// LuaProfileOutputDir(prefix) (mode 01777), removing the files of an earlier
// run from it. Errors name the host and the path.
Result<void> PlaceLuaProfile(Host& host, const std::string& prefix, const std::string& source_dir);

// One answer of the profile locations.
struct LuaProfileState {
  int gen = 0;
  bool running = false;
  int workers = 0;
  int done = 0;
  std::map<int, std::string> files;   // worker pid -> folded file on the SUT host
  std::map<int, std::string> errors;  // worker pid -> why it wrote none
};

// Parses the `key value` lines; unknown keys are skipped; a line without a
// value, or a count that is not a number, is an Error naming the line.
Result<LuaProfileState> ParseLuaProfileState(std::string_view body);

// Each names the host, the socket and the answer when it fails (no listener,
// an HTTP status other than 200, e.g. 409 "a profile is running").
Result<LuaProfileState> StartLuaProfile(Host& sut, const std::string& status_socket,
                                        int period_ms = kLuaProfileDefaultPeriodMs);
Result<LuaProfileState> StopLuaProfile(Host& sut, const std::string& status_socket);

// Polls /fvbench_profile/state every 100 ms until every worker has finished
// generation `gen` (the one StopLuaProfile returned). An Error when a
// worker reports why it wrote nothing (its message), when the generation
// moved on, or after `timeout` ("host local: socket ...: 2 workers, 1
// profile file after 5 s").
Result<LuaProfileState> WaitLuaProfileFiles(Host& sut, const std::string& status_socket, int gen,
                                            std::chrono::milliseconds timeout);

// Fetches each file of `state` to <local_dir>/lua_profile.<pid>.folded
// (kLuaProfileCap); returns the local paths in pid order. local_dir must exist.
// A path that is not absolute, holds "/../" or is not named
// lua_profile.<its pid>.folded is refused (the paths come from the host).
Result<std::vector<std::string>> FetchLuaProfileFiles(Host& sut, const LuaProfileState& state,
                                                      const std::string& local_dir);

}  // namespace fvbench
