// Which OS a host runs, read from its os-release file, and whether fvbench
// can provision it.
//
// os-release format (KEY=value, values optionally "double" or 'single'
// quoted, '#' comments): os-release(5),
// https://www.freedesktop.org/software/systemd/man/latest/os-release.html
//
// Supported (the hosts the seed targets; the OpenResty and k6 vendor
// repositories publish packages for all of them):
//   apt family: ubuntu 22.04 (jammy), ubuntu 24.04 (noble), debian 12 (bookworm)
//   dnf family: amzn 2023 (Amazon Linux 2023), RHEL-compatible 9.x
//               (ID or ID_LIKE rhel: rhel, rocky, almalinux, centos stream)
// Anything else is an Error naming ID, VERSION_ID and ID_LIKE as found; so is
// a VERSION_CODENAME that is not a plain lower-case name (it goes into apt
// source lines).
#pragma once

#include <string>

#include "support/core/result.h"

namespace fvbench {

struct OsRelease {
  std::string id;          // ID, lower case ("ubuntu", "debian", "amzn", "rocky")
  std::string id_like;     // ID_LIKE, space-separated ("debian", "rhel centos fedora")
  std::string version_id;  // VERSION_ID ("24.04", "12", "2023", "9.4")
  std::string codename;    // VERSION_CODENAME ("noble", "bookworm"); may be empty
  bool empty() const { return id.empty() && version_id.empty(); }
};

// Parses os-release text. Unknown keys, blank lines and comments are ignored.
OsRelease ParseOsRelease(const std::string& text);

enum class PackageFamily { kApt, kDnf };

// A supported OS.
struct HostOs {
  PackageFamily family = PackageFamily::kApt;
  std::string distro;    // "ubuntu" | "debian" | "amzn" | "rhel" (any RHEL-compatible)
  std::string id;        // ID as found ("rocky" for a Rocky host whose distro is "rhel")
  std::string version;   // VERSION_ID as found
  std::string codename;  // apt family: the suite name the vendor repositories use
  // "ubuntu 24.04 (noble)", "amzn 2023", "rocky 9.4 (rhel 9)".
  std::string Describe() const;
};

// The supported OS `os` is, or an Error "<where>: unsupported OS ID=... VERSION_ID=...
// ID_LIKE=...; supported: ..." (where = e.g. "host ubuntu@sut /etc/os-release").
Result<HostOs> ClassifyOs(const OsRelease& os, const std::string& where);

}  // namespace fvbench
