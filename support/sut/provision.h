// Provisioning of the SUT and load-generator hosts. Idempotent: on a host
// that already has everything it runs one probe script plus version commands
// (`command -v`, `-v`/`-V`, `git rev-parse`/`status`, `dpkg-query -W`) and changes
// nothing. Every command goes through the Host interface, so remote mode and
// DRY_RUN reuse it. Root-only steps run with `sudo -n` when the SSH user is
// not root (an ubuntu@ or ec2-user@ host with passwordless sudo).
//
// OS: the probe reads /etc/os-release (else /usr/lib/os-release); the family
// and package names follow from it (os_release.h, os_packages.h). An
// unsupported OS is an Error naming ID, VERSION_ID and ID_LIKE. DRY_RUN on a
// dry-run host, which probes nothing, plans for debian 12 and says so in
// ProvisionInfo::os.
//
// SUT (ProvisionSut):
//   nginx runtime per Config::runtime.
//     openresty: OpenResty; when missing, installed from OpenResty's official
//                repository with its signing key (vendor_repos.h).
//     auto:      OpenResty when `openresty` is on PATH or at
//                /usr/local/openresty/bin/openresty, or installable: the host
//                reaches https://openresty.org/package/, and then OpenResty is
//                installed from OpenResty's repository, on Debian and Ubuntu
//                too (an online Debian host gets OpenResty, not Debian's nginx);
//                else, on the apt family, Debian's nginx with its Lua module
//                (the offline path). On the dnf family OpenResty is the only
//                runtime. ProvisionInfo::runtime_choice says which case held.
//     nginx:     Debian's nginx + libnginx-mod-http-lua
//                (/usr/lib/nginx/modules/ngx_http_lua_module.so + ndk_http_module.so)
//                with lua-cjson and lua-resty-core; apt family only.
//   Tools (os_packages.h): curl, ss, taskset; git only when edge is cloned;
//   gnupg + ca-certificates before a vendor key is checked and added.
//   fairvisor edge from Config::edge_src at Config::edge_ref (edge_checkout.h):
//     local path, no ref   -> used in place (edge_dir = that path, edge_in_place)
//     URL, or path + ref   -> `git clone --no-checkout` into Config::fv_dir,
//                             `git sparse-checkout set src docker data` (cone mode
//                             keeps top-level files such as asn_type.map),
//                             `git checkout <ref>` (default branch when no ref).
//                             Sparse because snapshots may lack large blobs.
//                             An existing clone of the same origin at the wanted
//                             commit (or any commit when no ref) is left alone.
//     git runs with the repository's own programs off and never overrides
//     safe.directory: a checkout owned by another user is refused, naming
//     the owner and git's own opt-in.
// Loadgen (ProvisionLoadgen): taskset, and the engine per Config::engine.
//   wrk -> the Debian/Ubuntu package wrk (apt family only).
//   k6  -> on PATH, else k6 Config::k6_version (pinned; `k6 version` is
//          recorded as engine_version) from Grafana's repository
//          (K6_SOURCE=repo, vendor_repos.h) or from the release archive with
//          its published SHA-256 verified before anything is extracted or run
//          (K6_SOURCE=archive, k6_archive.h). A failure says LOADGEN_ENGINE=wrk
//          is the offline engine.
// Both: the usable CPUs (affinity within the cgroup cpuset), `taskset`
// presence, `ulimit -n`, the kernel's boot_id.
//
// Package installs: apt-get / dnf (os_packages.h), each waiting up to
// Config::package_lock_wait_s for the package manager's lock that another
// process holds, saying so, and naming that process when the wait ends
// (package_lock.h, step_runner.h); a failed install that is not the lock's
// refreshes the index once and retries. Errors name the step, the host and
// the command's stderr. A program the probe names is used only by its
// absolute path.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/host/host.h"
#include "support/core/result.h"

namespace fvbench {

struct ProvisionInfo {
  std::string host;  // Host::name()
  std::string os;    // HostOs::Describe(), e.g. "ubuntu 24.04 (noble)"

  // SUT role (empty on the loadgen's info).
  std::string runtime;             // "openresty" | "nginx" (distro nginx + Lua module)
  std::string runtime_choice;      // why, e.g. "NGINX_RUNTIME=auto: OpenResty not installed, openresty.org
                                   // reachable: installed from OpenResty's repository"
  std::string nginx_bin;           // absolute path of openresty / nginx
  std::string runtime_version;     // first line of `<bin> -v`, e.g. "nginx version: nginx/1.22.1"
  std::string lua_module_version;  // dpkg version of libnginx-mod-http-lua, or ngx_lua-x.y.z from
                                   // `openresty -V`; empty when not findable
  bool load_lua_modules = false;   // distro nginx: configs need the load_module lines
  std::string module_dir;          // where those modules are
  std::string edge_dir;            // FV_DIR actually used
  bool edge_in_place = false;      // a local checkout used as is (no clone)
  std::string edge_commit;         // `git rev-parse HEAD`; empty when not a git checkout
  bool edge_dirty = false;         // tracked files modified
  std::string asn_map_path;        // <edge_dir>/asn_type.map or data/asn_type.map; empty if neither

  // Loadgen role (empty on the SUT's info).
  std::string engine;          // "k6" | "wrk"
  std::string engine_bin;      // absolute path
  std::string engine_version;  // first line of `k6 version` / `wrk -v`

  // Both.
  // The CPUs this host's processes may use: their affinity within their
  // cgroup's cpuset (host/usable_cpus.h), not the online count; cores is
  // their number (0 = unknown).
  std::vector<int> cpus;
  int cores = 0;
  bool have_taskset = false;  // `taskset` on PATH
  // /proc/sys/kernel/random/boot_id: the running kernel's id. Two hosts with
  // the same one are one machine (containers, network namespaces): they
  // share its CPUs and its clock. "" = not known.
  std::string boot_id;
  int nofile = 1024;          // `ulimit -n` of the host's shell
  std::vector<std::string> installed;  // what this call installed (packages, "k6 <ver>", "edge clone")
  double seconds = 0;         // wall time of this provisioning call
};

Result<ProvisionInfo> ProvisionSut(Host& host, const Config& config);
Result<ProvisionInfo> ProvisionLoadgen(Host& host, const Config& config);

// A POSIX sh script whose output on a host stays the same as long as what
// provisioning found or installed there (`info`) is unchanged: the probe's
// facts (tools on PATH, the OS, the usable CPUs, `ulimit -n`, the user), the
// boot (/proc/sys/kernel/random/boot_id), the size, mtime and inode of the
// binaries it recorded (nginx or openresty and the Lua modules, the engine),
// the edge checkout's commit and dirtiness (read by provisioning's own git
// commands, edge_checkout.h: no program the repository names runs, and a
// checkout git refuses as someone else's shows that refusal), and the
// SHA-256 of `files` (what was shipped to the host). One command: one round
// trip. Testbed runs it
// after provisioning and in each later process of the run, which reuses the
// provisioning when the output is the same (testbed_state.h).
std::string ProvisionFingerprintScript(const ProvisionInfo& info, const std::vector<std::string>& files);

namespace detail {
// dpkg-query -W -f='${Package}\t${Status}\t${Version}\n' output -> package -> version,
// only for packages whose status is "install ok installed".
std::map<std::string, std::string> ParseDpkgInstalled(const std::string& text);
// "ngx_lua-0.10.26" from `openresty -V` output; empty when absent.
std::string LuaModuleFromNginxV(const std::string& text);
// A boot_id as the kernel writes it (36 characters of lower-case hex and
// '-', 8-4-4-4-12), else "" (a host's answer is data: nothing else is kept).
std::string CheckedBootId(const std::string& text);
// k6 release asset arch for `uname -m`: x86_64/amd64 -> amd64, aarch64/arm64 -> arm64, else "".
std::string K6Arch(const std::string& uname_m);
}  // namespace detail

}  // namespace fvbench
