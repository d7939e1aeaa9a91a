// The packages that give fvbench its tools, by package family, and the
// commands that install them. Pure: builds argv, runs nothing.
//
// Which role needs which tool (provision.cc asks only for those):
//   SUT:     curl (health and validity probes), ss (port checks), taskset
//            (ORESTY_CPUSET), git (cloning edge, only when it is cloned),
//            and on the Debian-nginx path the Lua libraries lua-cjson and
//            lua-resty-core (OpenResty bundles both).
//   loadgen: curl (k6 downloads), taskset (K6_CPUSET).
//   both, before adding a vendor repository: gnupg, ca-certificates (its key check).
//
// Package names (checked against the distributions' package indexes):
//   tool      apt (Ubuntu, Debian)   dnf (Amazon Linux 2023, RHEL 9)
//   curl      curl                   curl-minimal (the default curl there;
//                                    `curl` itself conflicts with it)
//   ss        iproute2               iproute
//   taskset   util-linux             util-linux
//   git       git                    git
//   gpg       gnupg                  gnupg2
//   CA certs  ca-certificates        ca-certificates
#pragma once

#include <string>
#include <vector>

#include "support/sut/os_release.h"

namespace fvbench {

enum class Tool { kCurl, kSs, kTaskset, kGit, kGpg, kCaCertificates };

// The package providing `tool` on `family`.
std::string PackageFor(Tool tool, PackageFamily family);

// `[sudo -n] env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y
// --no-install-recommends <pkgs>` or `[sudo -n] env LC_ALL=C dnf install -y
// --setopt=exit_on_lock=True <pkgs>`, inside LockWaitArgv (package_lock.h:
// waits up to lock_wait_s for the package manager's lock); sudo -n when the
// SSH user is not root (-n: fail instead of prompting for a password).
// LC_ALL=C: the lock's messages are matched in English.
std::vector<std::string> InstallArgv(PackageFamily family, const std::vector<std::string>& pkgs, bool root,
                                     int lock_wait_s);

// "apt-get" | "dnf": how steps and errors name the package manager.
std::string PackageManager(PackageFamily family);

// Refreshes the package index: `apt-get update` / `dnf makecache`, the same
// way (LC_ALL=C, LockWaitArgv).
std::vector<std::string> RefreshArgv(PackageFamily family, bool root, int lock_wait_s);

// argv prefixed with `sudo -n` unless root.
std::vector<std::string> AsRoot(std::vector<std::string> argv, bool root);

}  // namespace fvbench
