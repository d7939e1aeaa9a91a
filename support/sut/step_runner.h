// StepRunner: provisioning's commands on one host, each named by its step
// ("edge clone", "apt-get install git") and the host in every error.
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
  // when not root); on failure refreshes the index once and retries.
  Result<void> Install(const std::string& step, PackageFamily family, const std::vector<std::string>& pkgs,
                       bool root);
  // Runs vendor steps in order; the first failure is the Error.
  Result<void> Steps(const std::vector<VendorStep>& steps);

  Host& host() { return host_; }
  const Config& config() const { return cfg_; }

 private:
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
