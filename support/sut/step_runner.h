// StepRunner: provisioning's commands on one host, each named by its step
// ("edge clone", "apt-get install git") and the host in every error.
//
// Package steps (argv made by LockWaitArgv, package_lock.h: every install and
// index refresh of os_packages.h and vendor_repos.h) get the lock's wait on
// top of their own time-out (Config::package_lock_wait_s). Before one runs,
// the lock's holders are looked up (kLockHoldersScript; not under DRY_RUN);
// when another process holds it, a line on stderr says so and how long the
// step waits:
//   fvbench provision: host sut: process 812 (unattended-upgr) holding
//   /var/lib/dpkg/lock-frontend: apt-get install git waits up to 300 s for it
//   (FVBENCH_PACKAGE_LOCK_WAIT_S)
// When the wait ends without the lock (kLockWaitExpired) or the step times
// out, the Error names the holders as they are then, or says that the lock
// has just been freed. A failed install is not retried after a lock failure.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/result.h"
#include "support/host/host.h"
#include "support/sut/os_release.h"
#include "support/sut/vendor_repos.h"

namespace fvbench {

class StepRunner {
 public:
  StepRunner(Host& host, const Config& cfg) : host_(host), cfg_(cfg) {}

  // Runs argv; an Error only when it could not be run (the exit status is
  // the caller's to judge).
  Result<ExecResult> Exec(const std::string& step, std::vector<std::string> argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30),
                          std::map<std::string, std::string> env = {});
  // `sh -c script`.
  Result<ExecResult> Sh(const std::string& step, const std::string& script,
                        std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Like Exec, but a non-zero exit is an Error with the command and its
  // stderr's tail (not under DRY_RUN, where nothing runs).
  Result<ExecResult> Must(const std::string& step, std::vector<std::string> argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(30),
                          std::map<std::string, std::string> env = {});

  // Installs pkgs with the family's package manager (os_packages.h; sudo -n
  // when not root); on a failure other than the lock's, refreshes the index
  // once and retries.
  Result<void> Install(const std::string& step, PackageFamily family, const std::vector<std::string>& pkgs,
                       bool root);
  // Runs vendor steps in order; the first failure is the Error.
  Result<void> Steps(const std::vector<VendorStep>& steps);

  Host& host() { return host_; }
  const Config& config() const { return cfg_; }

 private:
  void SayWhoHoldsTheLock(const std::string& step);
  Error LockError(const std::string& step, const std::string& shown, const ExecResult& r);

  Host& host_;
  const Config& cfg_;
};

// The last `n` characters of `s` without surrounding blanks ("..." before a cut).
std::string TailOf(const std::string& s, size_t n = 1500);

namespace detail {
// A provisioning script's "key=value" lines -> map (the first '=' splits;
// blanks around key and value dropped; lines without '=' ignored).
std::map<std::string, std::string> ParseKeyValues(const std::string& text);
}  // namespace detail

}  // namespace fvbench
