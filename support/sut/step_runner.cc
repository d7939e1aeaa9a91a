#include "support/sut/step_runner.h"

#include <fmt/format.h>

#include <sstream>

#include "support/core/path_text.h"
#include "support/host/shell_quote.h"
#include "support/sut/os_packages.h"

namespace fvbench {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::string TailOf(const std::string& s, size_t n) {
  std::string t(detail::TrimSpace(s));
  return t.size() <= n ? t : "..." + t.substr(t.size() - n);
}

namespace detail {

std::map<std::string, std::string> ParseKeyValues(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    kv[std::string(TrimSpace(line.substr(0, eq)))] = std::string(TrimSpace(line.substr(eq + 1)));
  }
  return kv;
}

}  // namespace detail

Result<ExecResult> StepRunner::Exec(const std::string& step, std::vector<std::string> argv, milliseconds timeout,
                                    std::map<std::string, std::string> env) {
  Command c;
  c.argv = std::move(argv);
  c.env = std::move(env);
  c.timeout = timeout;
  auto r = host_.run(c);
  if (!r) {
    return Error{fmt::format("provision {} on host {}: could not run `{}`: {}", step, host_.name(),
                             ShellJoin(c.argv), r.error().message)};
  }
  return r;
}

Result<ExecResult> StepRunner::Sh(const std::string& step, const std::string& script, milliseconds timeout) {
  return Exec(step, {"sh", "-c", script}, timeout);
}

Result<ExecResult> StepRunner::Must(const std::string& step, std::vector<std::string> argv, milliseconds timeout,
                                    std::map<std::string, std::string> env) {
  const std::string shown = ShellJoin(argv);
  auto r = Exec(step, std::move(argv), timeout, std::move(env));
  if (!r || r->success() || cfg_.dry_run) return r;
  return Error{fmt::format("provision {} on host {}: `{}` {} : {}", step, host_.name(), shown,
                           r->timed_out ? "timed out" : fmt::format("exited {}", r->exit_code),
                           TailOf(r->err.empty() ? r->out : r->err))};
}

Result<void> StepRunner::Install(const std::string& step, PackageFamily family, const std::vector<std::string>& pkgs,
                                 bool root) {
  std::vector<std::string> install = InstallArgv(family, pkgs, root);
  auto first = Exec(step, install, minutes(10));
  if (!first) return first.error();
  if (first->success() || cfg_.dry_run) return Ok();
  auto upd = Must(step + " (refresh the package index)", RefreshArgv(family, root), minutes(5));
  if (!upd) {
    return Error{fmt::format("{}; the install before it said: {}", upd.error().message, TailOf(first->err))};
  }
  auto second = Must(step, install, minutes(10));
  if (!second) return second.error();
  return Ok();
}

Result<void> StepRunner::Steps(const std::vector<VendorStep>& steps) {
  for (const VendorStep& v : steps) {
    if (auto e = Must(v.step, v.argv, minutes(10)); !e) return e.error();
  }
  return Ok();
}

}  // namespace fvbench
