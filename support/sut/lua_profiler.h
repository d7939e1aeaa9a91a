// LuaProfiler: the "lua" level of the flame profiles (profiler.h), LuaJIT's
// jit.profile in every worker of edge, driven over edge's status socket
// (lua_profile.h). Edge must have been started with
// FairvisorOptions::lua_profile (the shared dict, the module and the
// profile locations); Prepare() refuses a service without a status socket.
//   Start(seconds)  asks every worker to sample its Lua stacks every
//                   period_ms (1..1000 ms); the profile runs until Finish.
//   Finish(dir)     stops it, waits up to 5 s for every worker's folded
//                   file, fetches them as <dir>/lua_profile.<pid>.folded
//                   (service "fv", level "lua").
// Under DRY_RUN nothing is sent and Finish returns no files.
#pragma once

#include <string>

#include "support/core/profile_params.h"
#include "support/host/host.h"
#include "support/sut/profiler.h"

namespace fvbench {

class LuaProfiler : public Profiler {
 public:
  LuaProfiler(Host& sut, std::string status_socket, int period_ms, bool dry_run)
      : sut_(sut), socket_(std::move(status_socket)), period_ms_(period_ms), dry_run_(dry_run) {}

  std::string name() const override { return "lua"; }
  Result<void> Prepare() override;
  Result<void> Start(double seconds) override;
  ProfileFetch Finish(const std::string& local_dir) override;

 private:
  Host& sut_;
  std::string socket_;
  int period_ms_;
  bool dry_run_;
  bool started_ = false;
};

}  // namespace fvbench
