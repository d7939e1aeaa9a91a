#include "support/sut/step_runner.h"

#include <fmt/format.h>

#include <cstdio>
#include <sstream>

#include "support/core/text.h"
#include "support/host/shell_quote.h"
#include "support/sut/os_packages.h"
#include "support/sut/package_lock.h"

namespace fvbench {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

std::string TailOf(const std::string& s, size_t n) {
  return detail::TailBytes(detail::TrimSpace(s), n);
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
  const bool package_step = IsLockWaitArgv(argv);
  c.argv = std::move(argv);
  c.env = std::move(env);
  c.timeout = package_step ? timeout + seconds(cfg_.package_lock_wait_s) : timeout;
  if (package_step && !cfg_.dry_run) SayWhoHoldsTheLock(step);
  auto r = host_.Run(c);
  if (!r) {
    return Error{fmt::format("provision {} on host {}: could not run `{}`: {}", step, host_.name(),
                             ShellJoin(LockWaitedCommand(c.argv)), r.error().message)};
  }
  return r;
}

Result<ExecResult> StepRunner::Sh(const std::string& step, const std::string& script, milliseconds timeout) {
  return Exec(step, {"sh", "-c", script}, timeout);
}

Result<ExecResult> StepRunner::Must(const std::string& step, std::vector<std::string> argv, milliseconds timeout,
                                    std::map<std::string, std::string> env) {
  const std::string shown = ShellJoin(LockWaitedCommand(argv));
  const bool package_step = IsLockWaitArgv(argv);
  auto r = Exec(step, std::move(argv), timeout, std::move(env));
  if (!r || r->success() || cfg_.dry_run) return r;
  if (package_step && (r->exit_code == kLockWaitExpired || r->timed_out)) return LockError(step, shown, *r);
  return Error{fmt::format("provision {} on host {}: `{}` {} : {}", step, host_.name(), shown,
                           r->timed_out ? "timed out" : fmt::format("exited {}", r->exit_code),
                           TailOf(r->err.empty() ? r->out : r->err))};
}

Result<void> StepRunner::Install(const std::string& step, PackageFamily family, const std::vector<std::string>& pkgs,
                                 bool root) {
  std::vector<std::string> install = InstallArgv(family, pkgs, root, cfg_.package_lock_wait_s);
  auto first = Exec(step, install, minutes(10));
  if (!first) return first.error();
  if (first->success() || cfg_.dry_run) return Ok();
  if (first->exit_code == kLockWaitExpired || first->timed_out) return LockError(step, ShellJoin(LockWaitedCommand(install)), *first);
  auto upd = Must(step + " (refresh the package index)", RefreshArgv(family, root, cfg_.package_lock_wait_s),
                  minutes(5));
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

void StepRunner::SayWhoHoldsTheLock(const std::string& step) {
  Command c;
  c.argv = {"sh", "-c", kLockHoldersScript};
  c.timeout = seconds(30);
  auto r = host_.Run(c);
  if (!r || !r->success()) return;  // only a courtesy: the step itself waits and says what went wrong
  const auto holders = ParseLockHolders(r->out);
  if (holders.empty()) return;
  std::fprintf(stderr, "fvbench provision: host %s: %s: %s waits up to %d s for it (FVBENCH_PACKAGE_LOCK_WAIT_S)\n",
               host_.name().c_str(), DescribeLockHolders(holders).c_str(), step.c_str(), cfg_.package_lock_wait_s);
  std::fflush(stderr);
}

Error StepRunner::LockError(const std::string& step, const std::string& shown, const ExecResult& r) {
  Command c;
  c.argv = {"sh", "-c", kLockHoldersScript};
  c.timeout = seconds(30);
  auto h = host_.Run(c);
  const auto holders = h && h->success() ? ParseLockHolders(h->out) : std::vector<LockHolder>{};
  const std::string what =
      r.timed_out ? fmt::format("timed out after waiting up to {} s for the package manager's lock and then for the "
                                "step itself",
                                cfg_.package_lock_wait_s)
                  : fmt::format("the package manager's lock was still held after {} s (FVBENCH_PACKAGE_LOCK_WAIT_S)",
                                cfg_.package_lock_wait_s);
  const std::string who =
      !holders.empty()
          ? fmt::format("held now by {}: wait for it to finish (on a fresh VM unattended-upgrades, apt-daily or "
                        "dnf-automatic run for minutes after boot), or raise FVBENCH_PACKAGE_LOCK_WAIT_S",
                        DescribeLockHolders(holders))
      : h && h->success() ? std::string("no process holds it now: run again")
                          : fmt::format("its holder could not be looked up: {}",
                                        h ? TailOf(h->err, 200) : h.error().message);
  return Error{fmt::format("provision {} on host {}: {}; {}. `{}` said: {}", step, host_.name(), what, who,
                           shown, TailOf(r.err.empty() ? r.out : r.err, 600))};
}

}  // namespace fvbench
