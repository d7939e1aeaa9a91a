#include "support/sut/os_packages.h"

#include "support/sut/package_lock.h"

namespace fvbench {

std::string PackageFor(Tool tool, PackageFamily family) {
  const bool apt = family == PackageFamily::kApt;
  switch (tool) {
    case Tool::kCurl: return apt ? "curl" : "curl-minimal";
    case Tool::kSs: return apt ? "iproute2" : "iproute";
    case Tool::kTaskset: return "util-linux";
    case Tool::kGit: return "git";
    case Tool::kGpg: return apt ? "gnupg" : "gnupg2";
    case Tool::kCaCertificates: return "ca-certificates";
  }
  return "";
}

std::vector<std::string> AsRoot(std::vector<std::string> argv, bool root) {
  if (!root) argv.insert(argv.begin(), {"sudo", "-n"});
  return argv;
}

std::vector<std::string> InstallArgv(PackageFamily family, const std::vector<std::string>& pkgs, bool root,
                                     int lock_wait_s) {
  std::vector<std::string> a;
  if (family == PackageFamily::kApt) {
    a = {"env", "LC_ALL=C", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "--no-install-recommends"};
  } else {
    a = {"env", "LC_ALL=C", "dnf", "install", "-y", "--setopt=exit_on_lock=True"};
  }
  a.insert(a.end(), pkgs.begin(), pkgs.end());
  return LockWaitArgv(family, AsRoot(std::move(a), root), lock_wait_s);
}

std::string PackageManager(PackageFamily family) { return family == PackageFamily::kApt ? "apt-get" : "dnf"; }

std::vector<std::string> RefreshArgv(PackageFamily family, bool root, int lock_wait_s) {
  std::vector<std::string> a = family == PackageFamily::kApt
                                   ? std::vector<std::string>{"env", "LC_ALL=C", "DEBIAN_FRONTEND=noninteractive",
                                                              "apt-get", "update"}
                                   : std::vector<std::string>{"env", "LC_ALL=C", "dnf", "makecache",
                                                              "--setopt=exit_on_lock=True"};
  return LockWaitArgv(family, AsRoot(std::move(a), root), lock_wait_s);
}

}  // namespace fvbench
