#include "support/sut/lua_profile.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "support/core/text.h"
#include "support/host/shell_quote.h"
#include "fvbench/source_dir.h"

namespace fvbench {
namespace {

using detail::TrimSpace;

// `s` on one line, for a message.
std::string OneLine(std::string_view s) {
  std::string out(TrimSpace(s));
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

std::string Describe(const Host& host, const std::string& socket) {
  return fmt::format("host {}: status socket {}", host.name(), socket);
}

// GET http://localhost/fvbench_profile/<what> over the socket; the body when
// nginx answered 200, else an Error with the status and the body.
Result<std::string> Get(Host& sut, const std::string& socket, const std::string& what) {
  Command c;
  c.argv = {"curl", "-sS", "--max-time", "2", "--unix-socket", socket, "-w", "\n%{http_code}",
            "http://localhost/fvbench_profile/" + what};
  c.timeout = std::chrono::seconds(4);
  auto r = sut.Run(c);
  if (!r) return Error{fmt::format("{}: {}: {}", Describe(sut, socket), what, r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("{}: `{}` {}: {}", Describe(sut, socket), ShellJoin(c.argv),
                             r->timed_out ? "timed out" : fmt::format("exit {}", r->exit_code), TrimSpace(r->err))};
  }
  const size_t nl = r->out.rfind('\n');
  const std::string code = nl == std::string::npos ? r->out : r->out.substr(nl + 1);
  std::string body = nl == std::string::npos ? "" : r->out.substr(0, nl);
  if (code != "200") {
    return Error{fmt::format("{}: /fvbench_profile/{} answered HTTP {}: {}", Describe(sut, socket), what, code,
                             OneLine(body))};
  }
  return body;
}

Result<LuaProfileState> GetState(Host& sut, const std::string& socket, const std::string& what) {
  auto body = Get(sut, socket, what);
  if (!body) return body.error();
  auto st = ParseLuaProfileState(*body);
  if (!st) return Error{fmt::format("{}: /fvbench_profile/{}: {}", Describe(sut, socket), what, st.error().message)};
  return st;
}

Result<int> ParseCount(const std::string& line, const std::string& value) {
  try {
    size_t used = 0;
    int n = std::stoi(value, &used);
    if (used == value.size() && n >= 0) return n;
  } catch (const std::exception&) {
  }
  return Error{fmt::format("'{}': not a count", line)};
}

}  // namespace

std::string LuaProfileModuleDir(const std::string& prefix) { return prefix + "/lua"; }
std::string LuaProfileOutputDir(const std::string& prefix) { return prefix + "/lua_profile"; }

Result<void> PlaceLuaProfile(Host& host, const std::string& prefix, const std::string& source_dir) {
  const std::string src = (source_dir.empty() ? std::string(FVBENCH_SOURCE_DIR) : source_dir) + "/" +
                          kLuaProfileModuleSource;
  std::ifstream in(src, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) return Error{fmt::format("reading the Lua profiler module {}: not readable", src)};
  const std::string out_dir = LuaProfileOutputDir(prefix);
  const std::string module = LuaProfileModuleDir(prefix) + "/" + kLuaProfileModuleName + ".lua";
  for (const std::vector<std::string>& argv : std::vector<std::vector<std::string>>{
           {"mkdir", "-p", "--", LuaProfileModuleDir(prefix), out_dir},
           {"chmod", "01777", "--", out_dir},
           {"find", out_dir, "-mindepth", "1", "-maxdepth", "1", "-name", "lua_profile.*", "-delete"}}) {
    Command c;
    c.argv = argv;
    c.timeout = std::chrono::seconds(30);
    auto r = host.Run(c);
    if (!r || !r->success()) {
      return Error{fmt::format("host {}: `{}` failed: {}", host.name(), ShellJoin(c.argv),
                               r ? TrimSpace(r->err) : r.error().message)};
    }
  }
  if (auto w = host.WriteFile(module, text.str()); !w) {
    return Error{fmt::format("host {}: writing {}: {}", host.name(), module, w.error().message)};
  }
  return Ok();
}

Result<LuaProfileState> ParseLuaProfileState(std::string_view body) {
  LuaProfileState st;
  std::istringstream in{std::string(body)};
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (TrimSpace(line).empty()) continue;
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) return Error{fmt::format("'{}': a key without a value", line)};
    const std::string key = line.substr(0, sp);
    const std::string value = line.substr(sp + 1);
    if (key == "file" || key == "error") {
      const size_t sp2 = value.find(' ');
      auto pid = ParseCount(line, value.substr(0, sp2));
      if (!pid || sp2 == std::string::npos) return Error{fmt::format("'{}': expected '{} <pid> <text>'", line, key)};
      (key == "file" ? st.files : st.errors)[*pid] = value.substr(sp2 + 1);
      continue;
    }
    int* count = key == "gen" ? &st.gen : key == "workers" ? &st.workers : key == "done" ? &st.done : nullptr;
    if (key == "running") {
      auto n = ParseCount(line, value);
      if (!n) return n.error();
      st.running = *n != 0;
    } else if (count) {
      auto n = ParseCount(line, value);
      if (!n) return n.error();
      *count = *n;
    }
  }
  return st;
}

Result<LuaProfileState> StartLuaProfile(Host& sut, const std::string& status_socket, int period_ms) {
  if (period_ms < 1 || period_ms > 1000) {
    return Error{fmt::format("StartLuaProfile: period {} ms (expected 1 to 1000)", period_ms)};
  }
  return GetState(sut, status_socket, fmt::format("start?period_ms={}", period_ms));
}

Result<LuaProfileState> StopLuaProfile(Host& sut, const std::string& status_socket) {
  return GetState(sut, status_socket, "stop");
}

Result<LuaProfileState> WaitLuaProfileFiles(Host& sut, const std::string& status_socket, int gen,
                                            std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto st = GetState(sut, status_socket, "state");
    if (!st) return st.error();
    if (st->gen != gen) {
      return Error{fmt::format("{}: the profile's generation is {}, expected {} (another start?)",
                               Describe(sut, status_socket), st->gen, gen)};
    }
    if (!st->errors.empty()) {
      std::string why;
      for (const auto& [pid, msg] : st->errors) why += fmt::format("\n  worker {}: {}", pid, msg);
      return Error{fmt::format("{}: {} of {} workers wrote no Lua profile:{}", Describe(sut, status_socket),
                               st->errors.size(), st->workers, why)};
    }
    if (st->workers > 0 && st->done >= st->workers && static_cast<int>(st->files.size()) >= st->workers) return st;
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{fmt::format("{}: {} workers, {} Lua profile file(s) after {:g} s (generation {})",
                               Describe(sut, status_socket), st->workers, st->files.size(),
                               std::chrono::duration<double>(timeout).count(), gen)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

Result<std::vector<std::string>> FetchLuaProfileFiles(Host& sut, const LuaProfileState& state,
                                                      const std::string& local_dir) {
  std::vector<std::string> out;
  for (const auto& [pid, remote] : state.files) {
    // The path comes from the host: only a worker's own file name is fetched.
    const std::string name = fmt::format("lua_profile.{}.folded", pid);
    const size_t slash = remote.rfind('/');
    if (remote.empty() || remote[0] != '/' || remote.find("/../") != std::string::npos ||
        remote.substr(slash + 1) != name) {
      return Error{fmt::format("host {}: worker {} names '{}' as its Lua profile (expected an absolute path "
                               "ending in /{})",
                               sut.name(), pid, remote, name)};
    }
    const std::string local = local_dir + "/" + name;
    if (auto f = sut.Fetch(remote, local, kLuaProfileCap); !f) {
      return Error{fmt::format("host {}: fetching the Lua profile of worker {} ({}) to {}: {}", sut.name(), pid,
                               remote, local, f.error().message)};
    }
    out.push_back(local);
  }
  return out;
}

}  // namespace fvbench
