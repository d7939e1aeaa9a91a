// Commands that add OpenResty's and Grafana's (k6) official package
// repositories, with their signing keys, and install from them. Pure:
// builds argv, runs nothing. Every step that writes under /etc or
// /usr/share/keyrings runs as root (`sudo -n` when the SSH user is not root).
// A line written to a file (an apt source, which holds the host's
// VERSION_CODENAME) is an argument of the root shell, never part of its text.
//
// Sources (the vendors' documented install steps; curl replaces the docs'
// wget, already needed for the probes, and VERSION_CODENAME from
// /etc/os-release replaces lsb_release, which minimal images lack):
// Every signing key is downloaded and trusted only when its fingerprint is
// the vendor's published one (vendor_keys.h: VerifiedKeyScript); the key
// written is the one exported by that fingerprint, not the downloaded file.
//   OpenResty: https://openresty.org/en/linux-packages.html
//     Ubuntu:  key https://openresty.org/package/pubkey.gpg, verified, to
//              /usr/share/keyrings/openresty.gpg; "deb [arch=<arch>
//              signed-by=...] http://openresty.org/package/[arm64/]ubuntu <codename> main"
//     Debian:  key dearmored to /etc/apt/trusted.gpg.d/openresty.gpg;
//              "deb http://openresty.org/package/[arm64/]debian <codename> openresty"
//     Amazon Linux:      https://openresty.org/package/amazon/openresty.repo
//     RHEL 9 / Rocky 9:  https://openresty.org/package/{rhel,rocky}/openresty2.repo
//              -> /etc/yum.repos.d/openresty.repo (gpgcheck=1: dnf checks the
//              packages against the key the .repo file names), then
//              `dnf install -y openresty`. The key the .repo file names is
//              replaced by the verified one: /etc/pki/rpm-gpg/RPM-GPG-KEY-openresty,
//              `rpm --import`ed, and gpgkey=file://... in the .repo file.
//              EL 9's openresty2.repo uses pubkey2.gpg, whose fingerprint is
//              not published: that step refuses it (vendor_keys.h).
//     Not yet run on real dnf-family hosts: the file names follow the page
//     above and openresty.org/package/<distro>/ listings.
//   k6: https://grafana.com/docs/k6/latest/set-up/install-k6/
//     Debian/Ubuntu: key https://dl.k6.io/key.gpg, verified, to
//              /usr/share/keyrings/k6-archive-keyring.gpg; "deb [signed-by=...]
//              https://dl.k6.io/deb stable main"
//     Fedora/RHEL family: `dnf install https://dl.k6.io/rpm/repo.rpm`; the
//              verified key as /etc/pki/rpm-gpg/RPM-GPG-KEY-k6, imported, and
//              the gpgkey= of the .repo files naming dl.k6.io pointed at it
//     The install is pinned to Config::k6_version: `k6=0.54.0` (apt),
//     `k6-0.54.0` (dnf).
#pragma once

#include <string>
#include <vector>

#include "support/sut/os_release.h"

namespace fvbench {

struct VendorStep {
  std::string step;               // shown in errors: "openresty key", "k6 install", ...
  std::vector<std::string> argv;  // run through Host::Run
};

// Exits 0 and prints "reachable" when the OpenResty package server answers
// from the host (5 s limit). NGINX_RUNTIME=auto treats OpenResty as
// installable only then; an offline host keeps Debian's nginx + Lua module.
std::vector<std::string> OpenRestyReachableArgv();

// Adds the OpenResty repository for `os` and installs `openresty`.
// `uname_m` picks the arm64 repository on aarch64/arm64 hosts. The index
// refresh and the install wait up to lock_wait_s for the package manager's
// lock (os_packages.h, package_lock.h); so do K6RepoInstallSteps'.
std::vector<VendorStep> OpenRestyInstallSteps(const HostOs& os, const std::string& uname_m, bool root,
                                              int lock_wait_s);

// Adds Grafana's k6 repository for `os` and installs k6 `k6_version`
// ("v0.54.0" or "0.54.0").
std::vector<VendorStep> K6RepoInstallSteps(const HostOs& os, const std::string& k6_version, bool root,
                                           int lock_wait_s);

}  // namespace fvbench
