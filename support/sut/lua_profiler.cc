#include "support/sut/lua_profiler.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "support/sut/lua_profile.h"

namespace fvbench {

Result<void> LuaProfiler::Prepare() {
  if (socket_.empty()) {
    return Error{fmt::format("host {}: edge has no status socket, so its Lua profile cannot be started", sut_.name())};
  }
  return {};
}

Result<void> LuaProfiler::Start(double /*seconds: the profile runs until Finish*/) {
  if (dry_run_) return {};
  auto s = StartLuaProfile(sut_, socket_, period_ms_);
  if (!s) return s.error();
  started_ = true;
  return {};
}

ProfileFetch LuaProfiler::Finish(const std::string& local_dir) {
  ProfileFetch out;
  if (dry_run_ || !started_) return out;
  started_ = false;
  auto stopped = StopLuaProfile(sut_, socket_);
  if (!stopped) {
    out.errors.push_back(stopped.error().message);
    return out;
  }
  auto state = WaitLuaProfileFiles(sut_, socket_, stopped->gen, std::chrono::seconds(5));
  if (!state) {
    out.errors.push_back(state.error().message);
    return out;
  }
  std::error_code ec;
  std::filesystem::create_directories(local_dir, ec);
  auto files = FetchLuaProfileFiles(sut_, *state, local_dir);
  if (!files) {
    out.errors.push_back(files.error().message);
    return out;
  }
  for (const std::string& f : *files) out.files.push_back({"fv", "lua", f});
  return out;
}

}  // namespace fvbench
