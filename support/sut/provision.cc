#include "support/sut/provision.h"

#include <fmt/format.h>

#include <chrono>
#include <regex>
#include <sstream>

#include "support/core/command_values.h"
#include "support/core/text.h"
#include "support/host/shell_quote.h"
#include "support/host/usable_cpus.h"
#include "support/sut/edge_checkout.h"
#include "support/sut/k6_archive.h"
#include "support/sut/os_packages.h"
#include "support/sut/os_release.h"
#include "support/sut/perf_capture.h"
#include "support/sut/step_runner.h"
#include "support/sut/vendor_repos.h"

namespace fvbench {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr const char kOpenRestyDefault[] = "/usr/local/openresty/bin/openresty";
constexpr const char kModuleDir[] = "/usr/lib/nginx/modules";
const std::vector<std::string> kDistroPackages = {"nginx", "libnginx-mod-http-lua", "lua-cjson",
                                                  "lua-resty-core"};

std::string FirstLine(const std::string& s) {
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    line = std::string(detail::TrimSpace(line));
    if (!line.empty()) return line;
  }
  return "";
}

// One round trip for everything that is only looked up.
const char kProbeScript[] = R"SH(
p() { printf '%s=%s\n' "$1" "$2"; }
w() { command -v "$1" 2>/dev/null || { [ -x "$2" ] && echo "$2"; } || true; }
p openresty "$(w openresty /usr/local/openresty/bin/openresty)"
p nginx "$(w nginx /usr/sbin/nginx)"
p lua_so "$( [ -f /usr/lib/nginx/modules/ngx_http_lua_module.so ] && [ -f /usr/lib/nginx/modules/ndk_http_module.so ] && echo yes)"
p curl "$(w curl /usr/bin/curl)"
p git "$(w git /usr/bin/git)"
p taskset "$(w taskset /usr/bin/taskset)"
p wrk "$(w wrk /usr/bin/wrk)"
p k6 "$(w k6 /usr/local/bin/k6)"
p ss "$(w ss /usr/sbin/ss)"
p gpg "$(w gpg /usr/bin/gpg)"
p cacerts "$( [ -s /etc/ssl/certs/ca-certificates.crt ] || [ -s /etc/pki/tls/certs/ca-bundle.crt ] && echo yes)"
p dpkg "$(w dpkg-query /usr/bin/dpkg-query)"
p nproc "$(nproc 2>/dev/null)"
p nofile "$(ulimit -n 2>/dev/null)"
p uid "$(id -u 2>/dev/null)"
p arch "$(uname -m 2>/dev/null)"
p boot_id "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"
{ cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null; } | sed 's/^/os_release./'
)SH";

// With FVBENCH_PROFILE=cpu or both, on the SUT: does perf run (perf_capture.h:
// Ubuntu's `perf` is a wrapper that fails without the kernel's tools), and
// the kernel release Ubuntu's package is named by.
const char kPerfProbeScript[] = R"SH(
perf --version >/dev/null 2>&1; p perf_rc "$?"
p uname_r "$(uname -r 2>/dev/null)"
)SH";

struct Probe {
  std::map<std::string, std::string> kv;
  std::string get(const std::string& k) const {
    auto it = kv.find(k);
    return it == kv.end() ? "" : it->second;
  }
  bool has(const std::string& k) const { return !get(k).empty(); }
  std::vector<int> cpus;  // usable_cpus.h: the affinity within the cgroup's cpuset
};

Result<Probe> RunProbe(StepRunner& r, bool perf = false) {
  auto e = r.Sh("probe", std::string(kProbeScript) + (perf ? kPerfProbeScript : "") + kUsableCpusScript);
  if (!e) return e.error();
  Probe p;
  p.kv = detail::ParseKeyValues(e->out);
  p.cpus = ParseUsableCpusProbe(e->out);
  // The host's answer names programs fvbench runs by that name: only an
  // absolute path counts (anything else is taken as missing).
  for (const char* k : {"openresty", "nginx", "curl", "git", "taskset", "wrk", "k6", "ss", "gpg", "dpkg"}) {
    auto it = p.kv.find(k);
    if (it != p.kv.end() && !it->second.empty() && it->second[0] != '/') it->second.clear();
  }
  return p;
}

// The host's OS from the probe's os_release.* lines (os_release.h). DRY_RUN
// on a dry-run host probes nothing: it plans for debian 12, the offline path,
// and says so in ProvisionInfo::os.
struct DetectedOs {
  HostOs os;
  bool assumed = false;
};

Result<DetectedOs> DetectOs(const Probe& p, const Host& host, bool dry_run) {
  std::string text;
  for (const auto& [k, v] : p.kv) {
    if (k.rfind("os_release.", 0) == 0) text += k.substr(11) + "=" + v + "\n";
  }
  OsRelease rel = ParseOsRelease(text);
  DetectedOs d;
  if (rel.empty() && dry_run) {
    d.os.family = PackageFamily::kApt;
    d.os.distro = d.os.id = "debian";
    d.os.version = "12";
    d.os.codename = "bookworm";
    d.assumed = true;
    return d;
  }
  if (rel.empty()) {
    return Error{fmt::format("provision on host {}: neither /etc/os-release nor /usr/lib/os-release gives an ID "
                             "and VERSION_ID; fvbench chooses packages by them",
                             host.name())};
  }
  auto os = ClassifyOs(rel, fmt::format("provision on host {}: /etc/os-release", host.name()));
  if (!os) return os.error();
  d.os = *os;
  return d;
}

std::string Describe(const DetectedOs& d) {
  return d.assumed ? d.os.Describe() + " (assumed: DRY_RUN probed nothing)" : d.os.Describe();
}

// NGINX_RUNTIME decided for this host: openresty = OpenResty (installed, or
// installable: a supported OS whose host reaches openresty.org's package
// server), false = Debian's nginx + Lua module (apt family only); `why` says
// which case held (ProvisionInfo::runtime_choice).
struct RuntimeChoice {
  bool openresty = false;
  std::string why;
};

Result<RuntimeChoice> ChooseRuntime(StepRunner& r, const Config& cfg, const DetectedOs& os, bool have_openresty) {
  const bool dnf = os.os.family == PackageFamily::kDnf;
  if (cfg.runtime == NginxRuntime::kDistro && dnf) {
    return Error{fmt::format("provision nginx runtime on host {}: NGINX_RUNTIME=nginx means Debian's nginx with "
                             "libnginx-mod-http-lua, which {} does not package; use NGINX_RUNTIME=openresty or auto",
                             r.host().name(), os.os.Describe())};
  }
  const char* installed = have_openresty ? "installed" : "not installed: installed from OpenResty's repository";
  if (cfg.runtime == NginxRuntime::kOpenResty) {
    return RuntimeChoice{true, fmt::format("NGINX_RUNTIME=openresty ({})", installed)};
  }
  if (cfg.runtime == NginxRuntime::kDistro) {
    return RuntimeChoice{false, "NGINX_RUNTIME=nginx: Debian's nginx + Lua module"};
  }
  if (have_openresty) return RuntimeChoice{true, "NGINX_RUNTIME=auto: OpenResty installed"};
  if (os.assumed) {
    return RuntimeChoice{false, "NGINX_RUNTIME=auto: nothing probed (DRY_RUN): Debian's nginx + Lua module"};
  }
  auto e = r.Exec("openresty.org reachable", OpenRestyReachableArgv(), seconds(15));
  if (!e) return e.error();
  if (detail::TrimSpace(e->out) == "reachable") {
    return RuntimeChoice{true, "NGINX_RUNTIME=auto: OpenResty not installed, openresty.org reachable: installed from "
                               "OpenResty's repository"};
  }
  if (dnf) {
    return Error{fmt::format("provision nginx runtime on host {}: NGINX_RUNTIME=auto on {}: OpenResty is not "
                             "installed and https://openresty.org/package/ does not answer from this host ({}); "
                             "dnf-family hosts have no nginx Lua module package, so OpenResty is the only runtime",
                             r.host().name(), os.os.Describe(), TailOf(e->err))};
  }
  return RuntimeChoice{false, "NGINX_RUNTIME=auto: OpenResty not installed, openresty.org unreachable (offline): "
                              "Debian's nginx + Lua module"};
}

// The packages of the tools in `tools` that the probe did not find.
std::vector<std::string> MissingTools(const Probe& p, PackageFamily family, const std::vector<Tool>& tools) {
  std::vector<std::string> out;
  for (Tool t : tools) {
    const char* key = t == Tool::kCurl ? "curl" : t == Tool::kSs ? "ss" : t == Tool::kTaskset ? "taskset"
                      : t == Tool::kGit ? "git" : t == Tool::kGpg ? "gpg" : "cacerts";
    if (!p.has(key)) out.push_back(PackageFor(t, family));
  }
  return out;
}

// k6 Config::k6_version from Grafana's repository (K6_SOURCE=repo) or the
// checksum-verified release archive (K6_SOURCE=archive).
Result<void> InstallK6(StepRunner& r, const Config& cfg, const HostOs& os, const std::string& uname_m, bool root) {
  Result<void> done = Ok();
  if (cfg.k6_source == "repo") {
    done = r.Steps(K6RepoInstallSteps(os, cfg.k6_version, root, cfg.package_lock_wait_s));
  } else {
    K6Archive a;
    a.version = cfg.k6_version;
    a.arch = detail::K6Arch(uname_m);
    a.base_url = cfg.k6_release_url;
    if (a.arch.empty() && !cfg.dry_run) {
      done = Error{fmt::format("no k6 release for architecture '{}'", uname_m)};
    } else {
      if (a.arch.empty()) a.arch = "<arch>";
      auto e = r.Must("k6 install", {"sh", "-c", K6ArchiveInstallScript(a, root)}, minutes(4));
      if (!e) done = e.error();
    }
  }
  if (done) return done;
  return Error{fmt::format("provision k6 on host {}: k6 is not installed and could not be installed: {}. "
                           "LOADGEN_ENGINE=wrk is the offline engine (Debian package wrk).",
                           r.host().name(), done.error().message)};
}

void FillCommon(const Probe& p, ProvisionInfo* info) {
  // The CPUs this host's processes may use, not the online count (usable_cpus.h).
  info->cpus = p.cpus;
  info->cores = !p.cpus.empty() ? static_cast<int>(p.cpus.size()) : std::atoi(p.get("nproc").c_str());
  info->have_taskset = p.has("taskset");
  info->boot_id = detail::CheckedBootId(p.get("boot_id"));
  int nofile = std::atoi(p.get("nofile").c_str());
  if (p.get("nofile") == "unlimited") nofile = 1 << 20;
  if (nofile > 0) info->nofile = nofile;
}

}  // namespace

namespace detail {

std::map<std::string, std::string> ParseDpkgInstalled(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t t1 = line.find('\t');
    if (t1 == std::string::npos) continue;
    size_t t2 = line.find('\t', t1 + 1);
    std::string pkg = line.substr(0, t1);
    if (auto colon = pkg.find(':'); colon != std::string::npos) pkg = pkg.substr(0, colon);  // lua-cjson:amd64
    std::string status = line.substr(t1 + 1, t2 == std::string::npos ? std::string::npos : t2 - t1 - 1);
    std::string version = t2 == std::string::npos ? "" : std::string(detail::TrimSpace(line.substr(t2 + 1)));
    if (detail::TrimSpace(status) == "install ok installed") out[pkg] = version;
  }
  return out;
}

std::string LuaModuleFromNginxV(const std::string& text) {
  std::smatch m;
  static const std::regex re(R"(ngx_lua-([0-9][0-9A-Za-z.\-]*))");
  if (std::regex_search(text, m, re)) return "ngx_lua-" + m[1].str();
  return "";
}

std::string CheckedBootId(const std::string& text) {
  if (text.size() != 36) return "";
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return "";
  }
  return text;
}

std::string K6Arch(const std::string& uname_m) {
  if (uname_m == "x86_64" || uname_m == "amd64") return "amd64";
  if (uname_m == "aarch64" || uname_m == "arm64") return "arm64";
  return "";
}

}  // namespace detail

namespace {

// A host's probe and OS (both refused when unusable), whether it runs as root;
// info.os set.
struct ProbedHost {
  Probe probe;
  DetectedOs os;
  bool root = false;
};
Result<ProbedHost> ProbeHost(StepRunner& r, Host& host, const Config& cfg, ProvisionInfo& info, bool perf = false) {
  auto probe = RunProbe(r, perf);
  if (!probe) return probe.error();
  auto os = DetectOs(*probe, host, cfg.dry_run);
  if (!os) return os.error();
  info.os = Describe(*os);
  ProbedHost p{std::move(*probe), std::move(*os), false};
  p.root = p.probe.get("uid") == "0";
  return p;
}

// The distro packages of the nginx runtime dpkg knows as installed (package
// -> version). dpkg-query exits 1 when a package is unknown; its output still counts.
Result<std::map<std::string, std::string>> QueryDistroPackages(StepRunner& r) {
  std::vector<std::string> q = {"dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n"};
  q.insert(q.end(), kDistroPackages.begin(), kDistroPackages.end());
  auto d = r.Exec("dpkg-query", q);
  if (!d) return d.error();
  return detail::ParseDpkgInstalled(d->out);
}

// What the SUT host lacks: Debian's nginx packages (when that is the runtime)
// and the tools the run uses. `dpkg` gets the installed distro packages.
Result<std::vector<std::string>> MissingOnSut(StepRunner& r, Host& host, const Config& cfg, const Probe& probe,
                                              const HostOs& os, bool want_openresty, bool install_openresty,
                                              std::map<std::string, std::string>& dpkg) {
  const PackageFamily family = os.family;
  std::vector<std::string> missing;
  if (!want_openresty && probe.has("dpkg")) {
    auto d = QueryDistroPackages(r);
    if (!d) return d.error();
    dpkg = std::move(*d);
    for (const std::string& p : kDistroPackages) {
      if (!dpkg.count(p)) missing.push_back(p);
    }
  } else if (!want_openresty && !(probe.has("nginx") && probe.get("lua_so") == "yes") && !cfg.dry_run) {
    return Error{fmt::format("provision nginx runtime on host {}: neither OpenResty nor nginx with the Lua module "
                             "({}/ngx_http_lua_module.so) found, and no dpkg-query to install Debian's; install "
                             "OpenResty",
                             host.name(), kModuleDir)};
  }
  std::vector<Tool> tools = {Tool::kCurl, Tool::kSs, Tool::kTaskset};
  if (!cfg.edge_skipped && (IsGitUrl(cfg.edge_src) || !cfg.edge_ref.empty())) tools.push_back(Tool::kGit);
  if (install_openresty) {
    tools.insert(tools.end(), {Tool::kGpg, Tool::kCaCertificates});  // the signing key's check
  }
  for (const std::string& p : MissingTools(probe, family, tools)) missing.push_back(p);
  if (cfg.profile.cpu && probe.get("perf_rc") != "0") {  // FVBENCH_PROFILE: perf (perf_capture.h)
    auto perf = detail::PerfPackages(os, probe.get("uname_r"));
    if (!perf) return Error{fmt::format("provision on host {}: {}", host.name(), perf.error().message)};
    missing.insert(missing.end(), perf->begin(), perf->end());
  }
  return missing;
}

// Installs what is missing and OpenResty when wanted; probes again after.
Result<void> InstallOnSut(StepRunner& r, const DetectedOs& os, bool root, const std::vector<std::string>& missing,
                          bool want_openresty, bool install_openresty, Probe& probe,
                          std::map<std::string, std::string>& dpkg, ProvisionInfo& info) {
  const PackageFamily family = os.os.family;
  if (!missing.empty()) {
    if (auto a = r.Install(PackageManager(family) + " install " + ShellJoin(missing), family, missing, root); !a) {
      return a.error();
    }
    info.installed.insert(info.installed.end(), missing.begin(), missing.end());
  }
  if (install_openresty) {
    if (auto s = r.Steps(OpenRestyInstallSteps(os.os, probe.get("arch"), root, r.config().package_lock_wait_s)); !s) {
      return Error{fmt::format("{} (OpenResty from its official repository, "
                               "https://openresty.org/en/linux-packages.html; NGINX_RUNTIME=nginx is the offline "
                               "path on Debian/Ubuntu)",
                               s.error().message)};
    }
    info.installed.push_back("openresty (openresty.org package repository)");
  }
  if (missing.empty() && !install_openresty) return Ok();
  auto again = RunProbe(r);
  if (!again) return again.error();
  probe = std::move(*again);
  if (!want_openresty && probe.has("dpkg")) {
    if (auto d = QueryDistroPackages(r); d) dpkg = std::move(*d);
  }
  return Ok();
}

// OpenResty: its binary and `openresty -V`'s version and Lua module.
Result<void> DescribeOpenResty(StepRunner& r, Host& host, const Config& cfg, const Probe& probe, bool installed_now,
                               ProvisionInfo& info) {
  info.runtime = "openresty";
  info.nginx_bin = probe.get("openresty");
  if (info.nginx_bin.empty() && !cfg.dry_run) {
    return Error{fmt::format("provision nginx runtime on host {}: no openresty on PATH or at {} after {}",
                             host.name(), kOpenRestyDefault,
                             installed_now ? "installing it from openresty.org" : "the probe")};
  }
  if (info.nginx_bin.empty()) return Ok();
  auto v = r.Exec("openresty -V", {info.nginx_bin, "-V"});
  if (!v) return v.error();
  info.runtime_version = FirstLine(v->err + v->out);
  info.lua_module_version = detail::LuaModuleFromNginxV(v->err + v->out);
  return Ok();
}

// Debian's nginx with libnginx-mod-http-lua: binary, version, the module's package version.
Result<void> DescribeDistroNginx(StepRunner& r, Host& host, const Config& cfg, const Probe& probe,
                                 const std::map<std::string, std::string>& dpkg, ProvisionInfo& info) {
  info.runtime = "nginx";
  info.nginx_bin = probe.get("nginx");
  info.load_lua_modules = true;
  info.module_dir = kModuleDir;
  if ((info.nginx_bin.empty() || probe.get("lua_so") != "yes") && !cfg.dry_run) {
    return Error{fmt::format("provision nginx runtime on host {}: after installing {}, nginx='{}' and the Lua "
                             "module in {} {}",
                             host.name(), ShellJoin(kDistroPackages), info.nginx_bin, kModuleDir,
                             probe.get("lua_so") == "yes" ? "present" : "absent")};
  }
  if (!info.nginx_bin.empty()) {
    auto v = r.Exec("nginx -v", {info.nginx_bin, "-v"});
    if (!v) return v.error();
    info.runtime_version = FirstLine(v->err + v->out);
  }
  if (auto it = dpkg.find("libnginx-mod-http-lua"); it != dpkg.end()) {
    info.lua_module_version = "libnginx-mod-http-lua " + it->second;
  }
  return Ok();
}

// The edge checkout (edge_checkout.h) into info.
Result<void> ProvisionEdge(StepRunner& r, bool root, bool have_git, ProvisionInfo& info) {
  auto e = ProvisionEdgeCheckout(r, root, have_git);
  if (!e) return e.error();
  info.edge_dir = e->edge_dir;
  info.edge_in_place = e->edge_in_place;
  info.edge_commit = e->edge_commit;
  info.edge_dirty = e->edge_dirty;
  info.asn_map_path = e->asn_map_path;
  if (e->cloned) info.installed.push_back("edge clone " + r.config().edge_src);
  return Ok();
}

}  // namespace

std::string ProvisionFingerprintScript(const ProvisionInfo& info, const std::vector<std::string>& files) {
  std::string s = "printf 'boot=%s\\n' \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)\"\n";
  s += kProbeScript;
  s += kUsableCpusScript;
  std::vector<std::string> bins;
  for (const std::string* b : {&info.nginx_bin, &info.engine_bin})
    if (!b->empty()) bins.push_back(*b);
  if (info.load_lua_modules && !info.module_dir.empty()) {
    bins.push_back(info.module_dir + "/ngx_http_lua_module.so");
    bins.push_back(info.module_dir + "/ndk_http_module.so");
  }
  for (const std::string& b : bins) s += "printf 'bin=%s\\n' \"$(stat -L -c '%n %s %Y %i' -- " + ShellQuote(b) + " 2>&1)\"\n";
  if (!info.edge_dir.empty()) {
    // Provisioning's own git commands (edge_checkout.h): repository programs
    // off, safe.directory never overridden (a checkout git refuses shows
    // git's refusal here, never the commit).
    std::string env;
    for (const auto& [k, v] : detail::GitEnv(info.edge_dir)) env += k + "=" + ShellQuote(v) + " ";
    const std::string head = env + ShellJoin(detail::GitArgv(info.edge_dir, {"rev-parse", "--verify", "HEAD"}));
    const std::string status =
        env + ShellJoin(detail::GitArgv(info.edge_dir, {"status", "--porcelain", "--untracked-files=no"}));
    s += "printf 'edge=%s %s\\n' \"$(" + head + " 2>&1)\" \"$(" + status + " 2>&1 | head -1)\"\n";
  }
  for (const std::string& f : files) s += "printf 'file=%s\\n' \"$(sha256sum -- " + ShellQuote(f) + " 2>&1)\"\n";
  return s;
}

Result<ProvisionInfo> ProvisionSut(Host& host, const Config& cfg) {
  auto t0 = std::chrono::steady_clock::now();
  StepRunner r(host, cfg);
  ProvisionInfo info;
  info.host = host.name();
  auto probed = ProbeHost(r, host, cfg, info, cfg.profile.cpu);
  if (!probed) return probed.error();
  Probe* probe = &probed->probe;
  const DetectedOs* os = &probed->os;
  const bool root = probed->root;
  // Runtime: OpenResty where installed or installable, else Debian's nginx.
  auto runtime = ChooseRuntime(r, cfg, *os, probe->has("openresty"));
  if (!runtime) return runtime.error();
  const bool want_openresty = runtime->openresty;
  info.runtime_choice = runtime->why;
  const bool install_openresty = want_openresty && !probe->has("openresty");
  std::map<std::string, std::string> dpkg;
  auto missing = MissingOnSut(r, host, cfg, *probe, os->os, want_openresty, install_openresty, dpkg);
  if (!missing) return missing.error();
  if (auto i = InstallOnSut(r, *os, root, *missing, want_openresty, install_openresty, *probe, dpkg, info); !i) {
    return i.error();
  }
  auto described = want_openresty ? DescribeOpenResty(r, host, cfg, *probe, install_openresty, info)
                                  : DescribeDistroNginx(r, host, cfg, *probe, dpkg, info);
  if (!described) return described.error();
  // fairvisor edge (not at all when the self-test preset runs without one).
  if (!cfg.edge_skipped) {
    // DRY_RUN probes nothing: the plan shows the commit being read as on a host with git.
    if (auto e = ProvisionEdge(r, root, probe->has("git") || cfg.dry_run, info); !e) return e.error();
  }
  FillCommon(*probe, &info);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

Result<ProvisionInfo> ProvisionLoadgen(Host& host, const Config& cfg) {
  auto t0 = std::chrono::steady_clock::now();
  StepRunner r(host, cfg);
  ProvisionInfo info;
  info.host = host.name();
  info.engine = EngineName(cfg.engine);
  auto probed = ProbeHost(r, host, cfg, info);
  if (!probed) return probed.error();
  Probe* probe = &probed->probe;
  const DetectedOs* os = &probed->os;
  const bool root = probed->root;
  const PackageFamily family = os->os.family;
  const bool wrk = cfg.engine == Engine::kWrk;
  const bool install_k6 = !wrk && !probe->has("k6");
  const bool k6_from_repo = cfg.k6_source == "repo";

  // Packages first: the tools, and wrk (a Debian/Ubuntu package).
  std::vector<Tool> tools = {Tool::kTaskset};
  if (install_k6) tools.push_back(Tool::kCurl);
  if (install_k6 && k6_from_repo) {
    tools.insert(tools.end(), {Tool::kGpg, Tool::kCaCertificates});  // the signing key's check
  }
  std::vector<std::string> missing = MissingTools(*probe, family, tools);
  if (wrk && !probe->has("wrk")) {
    if (family != PackageFamily::kApt) {
      return Error{fmt::format("provision wrk on host {}: wrk is not on PATH and {} does not package it (wrk is "
                               "the Debian/Ubuntu offline engine); use LOADGEN_ENGINE=k6",
                               host.name(), os->os.Describe())};
    }
    missing.push_back("wrk");
  }
  if (!missing.empty()) {
    if (auto a = r.Install(PackageManager(family) + " install " + ShellJoin(missing), family, missing, root); !a) return a.error();
    info.installed.insert(info.installed.end(), missing.begin(), missing.end());
  }
  if (install_k6) {
    if (auto k = InstallK6(r, cfg, os->os, probe->get("arch"), root); !k) return k.error();
    info.installed.push_back(fmt::format("k6 {} ({})", cfg.k6_version,
                                         k6_from_repo ? "dl.k6.io package repository" : "release archive, SHA-256 verified"));
  }
  if (!missing.empty() || install_k6) {
    auto again = RunProbe(r);
    if (!again) return again.error();
    *probe = std::move(*again);
  }

  info.engine_bin = probe->get(wrk ? "wrk" : "k6");
  if (info.engine_bin.empty() && !cfg.dry_run) {
    return Error{fmt::format("provision {0} on host {1}: no {0} on PATH after installing it", info.engine,
                             host.name())};
  }
  if (!info.engine_bin.empty()) {
    // `wrk -v` prints its banner and exits 1.
    auto v = r.Exec(info.engine + " version",
                    wrk ? std::vector<std::string>{info.engine_bin, "-v"}
                        : std::vector<std::string>{info.engine_bin, "version"});
    if (!v) return v.error();
    info.engine_version = FirstLine(v->out + v->err);
  }
  // `k6 version` prints "k6 v0.54.0 (commit/..., go1.23.1, linux/amd64)".
  if (install_k6 && !cfg.dry_run && info.engine_version.find(cfg.k6_version + " ") == std::string::npos) {
    return Error{fmt::format("provision k6 on host {}: installed k6 {} but `{} version` says '{}'", host.name(),
                             cfg.k6_version, info.engine_bin, info.engine_version)};
  }
  FillCommon(*probe, &info);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

}  // namespace fvbench
