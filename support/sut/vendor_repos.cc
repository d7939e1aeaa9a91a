#include "support/sut/vendor_repos.h"

#include <fmt/format.h>

#include "support/sut/os_packages.h"
#include "support/sut/vendor_keys.h"

namespace fvbench {
namespace {

bool IsArm(const std::string& uname_m) { return uname_m == "aarch64" || uname_m == "arm64"; }

// Root shell for a pipeline or a redirection into a root-owned file.
VendorStep RootSh(std::string step, std::string script, bool root) {
  return {std::move(step), AsRoot({"sh", "-c", std::move(script)}, root)};
}

// The vendor's key, trusted only with its published fingerprint (vendor_keys.h).
VendorStep PinnedKey(std::string step, const VendorKey& key, const std::string& dest, KeyFormat format, bool root) {
  std::string script = VerifiedKeyScript(key, step, dest, format);
  return RootSh(std::move(step), std::move(script), root);
}

// dnf: the verified key imported into rpm, and the repository's .repo files
// pointed at it (gpgkey=file://...), so dnf never fetches another key.
constexpr const char kRpmKeyDir[] = "/etc/pki/rpm-gpg/";

VendorStep RpmImport(std::string step, const std::string& key_file, bool root) {
  return {std::move(step), AsRoot({"rpm", "--import", key_file}, root)};
}

VendorStep PinRepoKey(std::string step, const std::string& repo_match, const std::string& key_file, bool root) {
  return RootSh(std::move(step),
                fmt::format("set -e; set -- $(grep -l {0} /etc/yum.repos.d/*.repo 2>/dev/null); "
                            "[ $# -gt 0 ] || {{ echo 'no /etc/yum.repos.d/*.repo names {0}' >&2; exit 1; }}; "
                            "sed -i 's|^gpgkey=.*|gpgkey=file://{1}|' \"$@\"",
                            repo_match, key_file),
                root);
}

// `line` and `path` are the shell's arguments: data, whatever they hold.
VendorStep WriteFile(std::string step, const std::string& line, const std::string& path, bool root) {
  return {std::move(step), AsRoot({"sh", "-c", "printf '%s\\n' \"$1\" > \"$2\"", "sh", line, path}, root)};
}

std::string Unprefixed(const std::string& k6_version) {
  return !k6_version.empty() && k6_version[0] == 'v' ? k6_version.substr(1) : k6_version;
}

}  // namespace

std::vector<std::string> OpenRestyReachableArgv() {
  return {"sh", "-c", fmt::format("curl -fsS -o /dev/null -I --max-time 5 {} && echo reachable", OpenRestyKey().url)};
}

std::vector<VendorStep> OpenRestyInstallSteps(const HostOs& os, const std::string& uname_m, bool root,
                                              int lock_wait_s) {
  std::vector<VendorStep> s;
  const std::string arm = IsArm(uname_m) ? "arm64/" : "";
  if (os.family == PackageFamily::kApt) {
    if (os.distro == "ubuntu") {
      const std::string keyring = "/usr/share/keyrings/openresty.gpg";
      s.push_back(PinnedKey("openresty key", OpenRestyKey(), keyring, KeyFormat::kBinary, root));
      s.push_back(WriteFile("openresty apt source",
                            fmt::format("deb [arch={} signed-by={}] http://openresty.org/package/{}ubuntu {} main",
                                        IsArm(uname_m) ? "arm64" : "amd64", keyring, arm, os.codename),
                            "/etc/apt/sources.list.d/openresty.list", root));
    } else {
      s.push_back(PinnedKey("openresty key", OpenRestyKey(), "/etc/apt/trusted.gpg.d/openresty.gpg", KeyFormat::kBinary,
                                root));
      s.push_back(WriteFile("openresty apt source",
                            fmt::format("deb http://openresty.org/package/{}debian {} openresty", arm, os.codename),
                            "/etc/apt/sources.list.d/openresty.list", root));
    }
    s.push_back({"openresty apt-get update", RefreshArgv(os.family, root, lock_wait_s)});
  } else {
    // Amazon Linux: one openresty.repo for every version ($releasever picks
    // the directory); EL 9: openresty2.repo (EL 8 and older use openresty.repo).
    // RHEL rebuilds without a directory of their own (almalinux, centos) use RHEL's.
    const std::string file = os.distro == "amzn" ? "amazon/openresty.repo"
                             : os.id == "rocky"  ? "rocky/openresty2.repo"
                                                 : "rhel/openresty2.repo";
    const bool el9 = os.distro != "amzn";  // openresty2.repo names pubkey2.gpg
    const std::string key_file = std::string(kRpmKeyDir) + "RPM-GPG-KEY-openresty";
    s.push_back(PinnedKey("openresty key", el9 ? OpenRestyEl9Key() : OpenRestyKey(), key_file, KeyFormat::kArmored,
                          root));
    s.push_back(RpmImport("openresty key import", key_file, root));
    s.push_back({"openresty dnf repository",
                 AsRoot({"curl", "-fsSL", "--max-time", "60", "-o", "/etc/yum.repos.d/openresty.repo",
                         "https://openresty.org/package/" + file},
                        root)});
    s.push_back(PinRepoKey("openresty dnf repository key", "openresty.org", key_file, root));
  }
  s.push_back({"openresty install", InstallArgv(os.family, {"openresty"}, root, lock_wait_s)});
  return s;
}

std::vector<VendorStep> K6RepoInstallSteps(const HostOs& os, const std::string& k6_version, bool root,
                                           int lock_wait_s) {
  std::vector<VendorStep> s;
  const std::string ver = Unprefixed(k6_version);
  if (os.family == PackageFamily::kApt) {
    const std::string keyring = "/usr/share/keyrings/k6-archive-keyring.gpg";
    s.push_back(PinnedKey("k6 key", K6Key(), keyring, KeyFormat::kBinary, root));
    s.push_back(WriteFile("k6 apt source", fmt::format("deb [signed-by={}] https://dl.k6.io/deb stable main", keyring),
                          "/etc/apt/sources.list.d/k6.list", root));
    s.push_back({"k6 apt-get update", RefreshArgv(os.family, root, lock_wait_s)});
    s.push_back({"k6 install", InstallArgv(os.family, {"k6=" + ver}, root, lock_wait_s)});
  } else {
    const std::string key_file = std::string(kRpmKeyDir) + "RPM-GPG-KEY-k6";
    s.push_back(PinnedKey("k6 key", K6Key(), key_file, KeyFormat::kArmored, root));
    s.push_back(RpmImport("k6 key import", key_file, root));
    s.push_back({"k6 dnf repository", InstallArgv(os.family, {"https://dl.k6.io/rpm/repo.rpm"}, root, lock_wait_s)});
    s.push_back(PinRepoKey("k6 dnf repository key", "dl.k6.io", key_file, root));
    s.push_back({"k6 install", InstallArgv(os.family, {"k6-" + ver}, root, lock_wait_s)});
  }
  return s;
}

}  // namespace fvbench
