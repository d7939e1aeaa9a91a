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

// `[sudo -n] env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends <pkgs>`
// or `[sudo -n] dnf install -y <pkgs>`; sudo -n when the SSH user is not root
// (-n: fail instead of prompting for a password).
std::vector<std::string> InstallArgv(PackageFamily family, const std::vector<std::string>& pkgs, bool root);

// "apt-get" | "dnf": how steps and errors name the package manager.
std::string PackageManager(PackageFamily family);

// Refreshes the package index: `apt-get update` / `dnf makecache`.
std::vector<std::string> RefreshArgv(PackageFamily family, bool root);

// argv prefixed with `sudo -n` unless root.
std::vector<std::string> AsRoot(std::vector<std::string> argv, bool root);

}  // namespace fvbench
