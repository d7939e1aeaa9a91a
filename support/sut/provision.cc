#include "support/sut/provision.h"

#include <fmt/format.h>

#include <chrono>
#include <regex>
#include <sstream>

#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr const char kOpenRestyDefault[] = "/usr/local/openresty/bin/openresty";
constexpr const char kModuleDir[] = "/usr/lib/nginx/modules";
const std::vector<std::string> kDistroPackages = {"nginx", "libnginx-mod-http-lua", "lua-cjson",
                                                  "lua-resty-core"};

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string FirstLine(const std::string& s) {
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (!line.empty()) return line;
  }
  return "";
}

std::string Tail(const std::string& s, size_t n = 1500) {
  std::string t = Trim(s);
  return t.size() <= n ? t : "..." + t.substr(t.size() - n);
}

// A Host with the step name attached to every failure.
class Runner {
 public:
  Runner(Host& host, const Config& cfg) : host_(host), cfg_(cfg) {}

  Result<ExecResult> Exec(const std::string& step, std::vector<std::string> argv,
                          milliseconds timeout = seconds(30),
                          std::map<std::string, std::string> env = {}) {
    Command c;
    c.argv = std::move(argv);
    c.env = std::move(env);
    c.timeout = timeout;
    auto r = host_.run(c);
    if (!r) {
      return Error{fmt::format("provision {} on host {}: could not run `{}`: {}", step, host_.name(),
                               ShellJoin(c.argv), r.error().message)};
    }
    return r;
  }
  Result<ExecResult> Sh(const std::string& step, const std::string& script,
                        milliseconds timeout = seconds(30)) {
    return Exec(step, {"sh", "-c", script}, timeout);
  }
  // Like Exec but a non-zero exit is an Error with stderr.
  Result<ExecResult> Must(const std::string& step, std::vector<std::string> argv,
                          milliseconds timeout = seconds(30),
                          std::map<std::string, std::string> env = {}) {
    std::string shown = ShellJoin(argv);
    auto r = Exec(step, std::move(argv), timeout, std::move(env));
    if (!r) return r;
    if (!r->success() && !cfg_.dry_run) {
      return Error{fmt::format("provision {} on host {}: `{}` {} : {}", step, host_.name(), shown,
                               r->timed_out ? "timed out"
                                            : fmt::format("exited {}", r->exit_code),
                               Tail(r->err.empty() ? r->out : r->err))};
    }
    return r;
  }

  // apt-get install -y pkgs (sudo -n when not root), one update + retry.
  Result<void> AptInstall(const std::string& step, const std::vector<std::string>& pkgs, bool root) {
    auto argv = [&](std::vector<std::string> tail) {
      std::vector<std::string> a;
      if (!root) a = {"sudo", "-n"};
      a.insert(a.end(), {"env", "DEBIAN_FRONTEND=noninteractive"});
      a.insert(a.end(), tail.begin(), tail.end());
      return a;
    };
    std::vector<std::string> install = {"apt-get", "install", "-y", "--no-install-recommends"};
    install.insert(install.end(), pkgs.begin(), pkgs.end());
    auto first = Exec(step, argv(install), minutes(10));
    if (!first) return first.error();
    if (first->success() || cfg_.dry_run) return Ok();
    auto upd = Must(step + " (apt-get update)", argv({"apt-get", "update"}), minutes(5));
    if (!upd) {
      return Error{fmt::format("{}; the install before it said: {}", upd.error().message,
                               Tail(first->err))};
    }
    auto second = Must(step, argv(install), minutes(10));
    if (!second) return second.error();
    return Ok();
  }

  Host& host() { return host_; }

 private:
  Host& host_;
  const Config& cfg_;
};

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
p dpkg "$(w dpkg-query /usr/bin/dpkg-query)"
p nproc "$(nproc 2>/dev/null)"
p nofile "$(ulimit -n 2>/dev/null)"
p uid "$(id -u 2>/dev/null)"
p arch "$(uname -m 2>/dev/null)"
)SH";

struct Probe {
  std::map<std::string, std::string> kv;
  std::string get(const std::string& k) const {
    auto it = kv.find(k);
    return it == kv.end() ? "" : it->second;
  }
  bool has(const std::string& k) const { return !get(k).empty(); }
};

Result<Probe> RunProbe(Runner& r) {
  auto e = r.Sh("probe", kProbeScript);
  if (!e) return e.error();
  Probe p;
  p.kv = detail::ParseKeyValues(e->out);
  return p;
}

void FillCommon(const Probe& p, ProvisionInfo* info) {
  info->cores = std::atoi(p.get("nproc").c_str());
  info->have_taskset = p.has("taskset");
  int nofile = std::atoi(p.get("nofile").c_str());
  if (p.get("nofile") == "unlimited") nofile = 1 << 20;
  if (nofile > 0) info->nofile = nofile;
}

bool IsUrl(const std::string& src) {
  return src.find("://") != std::string::npos || src.rfind("git@", 0) == 0;
}

std::vector<std::string> Git(const std::string& dir, std::vector<std::string> args) {
  std::vector<std::string> a = {"git", "-c", "safe.directory=" + dir, "-C", dir};
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

// Resolves `ref` in the clone to a commit ("" when unknown).
std::string ResolveRef(Runner& r, const std::string& dir, const std::string& ref) {
  for (const std::string& cand : {"origin/" + ref, ref}) {
    auto e = r.Exec("edge ref", Git(dir, {"rev-parse", "--verify", "--quiet", cand + "^{commit}"}));
    if (e && e->success() && !Trim(e->out).empty()) return Trim(e->out);
  }
  return "";
}

Result<void> CloneEdge(Runner& r, const Config& cfg, ProvisionInfo* info) {
  const std::string& dir = cfg.fv_dir;
  const std::string& ref = cfg.edge_ref;
  auto state = r.Sh("edge checkout",
                    fmt::format("if [ -d {0}/.git ]; then echo git; elif [ -e {0} ] && [ -n \"$(ls -A {0} 2>/dev/null)\" ]; "
                                "then echo occupied; else echo empty; fi",
                                ShellQuote(dir)));
  if (!state) return state.error();
  std::string st = Trim(state->out);
  if (st == "occupied") {
    return Error{fmt::format("provision edge checkout on host {}: FV_DIR={} exists, is not empty and is not a git "
                             "clone; refusing to clone over it",
                             r.host().name(), dir)};
  }
  if (st == "git") {
    auto url = r.Exec("edge checkout", Git(dir, {"remote", "get-url", "origin"}));
    if (!url) return url.error();
    if (url->success() && Trim(url->out) != cfg.edge_src) {
      return Error{fmt::format("provision edge checkout on host {}: FV_DIR={} is a clone of '{}', not of "
                               "FAIRVISOR_EDGE_SRC='{}'; set FV_DIR elsewhere",
                               r.host().name(), dir, Trim(url->out), cfg.edge_src)};
    }
    if (ref.empty()) return Ok();  // existing clone, no ref asked: left alone
    auto head = r.Exec("edge checkout", Git(dir, {"rev-parse", "HEAD"}));
    std::string want = ResolveRef(r, dir, ref);
    if (head && head->success() && !want.empty() && Trim(head->out) == want) return Ok();
    auto f = r.Must("edge fetch", Git(dir, {"fetch", "--quiet", "--tags", "origin"}), minutes(5));
    if (!f) return f.error();
  } else {
    auto c = r.Must("edge clone", {"git", "clone", "--quiet", "--no-checkout", cfg.edge_src, dir}, minutes(10));
    if (!c) return c.error();
    auto s = r.Must("edge sparse-checkout", Git(dir, {"sparse-checkout", "set", "src", "docker", "data"}));
    if (!s) return s.error();
    info->installed.push_back("edge clone " + cfg.edge_src);
  }
  std::string target;
  if (ref.empty()) {
    auto b = r.Must("edge checkout", Git(dir, {"symbolic-ref", "--short", "HEAD"}));
    if (!b) return b.error();
    target = Trim(b->out);
  } else {
    target = ResolveRef(r, dir, ref);
    if (target.empty() && !cfg.dry_run) {
      return Error{fmt::format("provision edge checkout on host {}: FAIRVISOR_EDGE_REF='{}' is not a branch, tag or "
                               "commit of {}",
                               r.host().name(), ref, cfg.edge_src)};
    }
  }
  std::vector<std::string> co = {"checkout", "--quiet"};
  if (!ref.empty()) co.push_back("--detach");
  co.push_back(target.empty() ? ref : target);
  auto c = r.Must("edge checkout", Git(dir, co), minutes(5));
  if (!c) return c.error();
  return Ok();
}

}  // namespace

namespace detail {

std::map<std::string, std::string> ParseKeyValues(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    kv[Trim(line.substr(0, eq))] = Trim(line.substr(eq + 1));
  }
  return kv;
}

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
    std::string version = t2 == std::string::npos ? "" : Trim(line.substr(t2 + 1));
    if (Trim(status) == "install ok installed") out[pkg] = version;
  }
  return out;
}

std::string LuaModuleFromNginxV(const std::string& text) {
  std::smatch m;
  static const std::regex re(R"(ngx_lua-([0-9][0-9A-Za-z.\-]*))");
  if (std::regex_search(text, m, re)) return "ngx_lua-" + m[1].str();
  return "";
}

std::string K6Arch(const std::string& uname_m) {
  if (uname_m == "x86_64" || uname_m == "amd64") return "amd64";
  if (uname_m == "aarch64" || uname_m == "arm64") return "arm64";
  return "";
}

}  // namespace detail

Result<ProvisionInfo> ProvisionSut(Host& host, const Config& cfg) {
  auto t0 = std::chrono::steady_clock::now();
  Runner r(host, cfg);
  ProvisionInfo info;
  info.host = host.name();
  auto probe = RunProbe(r);
  if (!probe) return probe.error();
  bool root = probe->get("uid") == "0";

  // Runtime.
  bool want_openresty = cfg.runtime == NginxRuntime::kOpenResty ||
                        (cfg.runtime == NginxRuntime::kAuto && probe->has("openresty"));
  if (cfg.runtime == NginxRuntime::kOpenResty && !probe->has("openresty") && !cfg.dry_run) {
    return Error{fmt::format("provision nginx runtime on host {}: NGINX_RUNTIME=openresty but no openresty on "
                             "PATH or at {}; install OpenResty or use NGINX_RUNTIME=nginx (Debian nginx + "
                             "libnginx-mod-http-lua)",
                             host.name(), kOpenRestyDefault)};
  }
  std::vector<std::string> missing;
  std::map<std::string, std::string> dpkg;
  if (!want_openresty && probe->has("dpkg")) {
    std::vector<std::string> q = {"dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n"};
    q.insert(q.end(), kDistroPackages.begin(), kDistroPackages.end());
    auto d = r.Exec("dpkg-query", q);  // exits 1 when a package is unknown; its output still counts
    if (!d) return d.error();
    dpkg = detail::ParseDpkgInstalled(d->out);
    for (const std::string& p : kDistroPackages) {
      if (!dpkg.count(p)) missing.push_back(p);
    }
  } else if (!want_openresty && !(probe->has("nginx") && probe->get("lua_so") == "yes") && !cfg.dry_run) {
    return Error{fmt::format("provision nginx runtime on host {}: neither OpenResty nor nginx with the Lua module "
                             "({}/ngx_http_lua_module.so) found, and no dpkg-query to install Debian's; install "
                             "OpenResty",
                             host.name(), kModuleDir)};
  }
  if (!probe->has("curl")) missing.push_back("curl");
  if (!probe->has("git")) missing.push_back("git");
  if (!missing.empty()) {
    if (!probe->has("dpkg") && !cfg.dry_run) {
      return Error{fmt::format("provision packages on host {}: missing {} and no apt/dpkg on the host; install them",
                               host.name(), ShellJoin(missing))};
    }
    if (auto a = r.AptInstall("apt-get install " + ShellJoin(missing), missing, root); !a) return a.error();
    info.installed.insert(info.installed.end(), missing.begin(), missing.end());
    auto again = RunProbe(r);
    if (!again) return again.error();
    probe = std::move(again);
    if (!want_openresty && probe->has("dpkg")) {
      std::vector<std::string> q = {"dpkg-query", "-W", "-f=${Package}\t${Status}\t${Version}\n"};
      q.insert(q.end(), kDistroPackages.begin(), kDistroPackages.end());
      if (auto d = r.Exec("dpkg-query", q); d) dpkg = detail::ParseDpkgInstalled(d->out);
    }
  }
  if (want_openresty) {
    info.runtime = "openresty";
    info.nginx_bin = probe->get("openresty");
    if (!info.nginx_bin.empty()) {
      auto v = r.Exec("openresty -V", {info.nginx_bin, "-V"});
      if (!v) return v.error();
      info.runtime_version = FirstLine(v->err + v->out);
      info.lua_module_version = detail::LuaModuleFromNginxV(v->err + v->out);
    }
  } else {
    info.runtime = "nginx";
    info.nginx_bin = probe->get("nginx");
    info.load_lua_modules = true;
    info.module_dir = kModuleDir;
    if ((info.nginx_bin.empty() || probe->get("lua_so") != "yes") && !cfg.dry_run) {
      return Error{fmt::format("provision nginx runtime on host {}: after installing {}, nginx='{}' and the Lua "
                               "module in {} {}",
                               host.name(), ShellJoin(kDistroPackages), info.nginx_bin, kModuleDir,
                               probe->get("lua_so") == "yes" ? "present" : "absent")};
    }
    if (!info.nginx_bin.empty()) {
      auto v = r.Exec("nginx -v", {info.nginx_bin, "-v"});
      if (!v) return v.error();
      info.runtime_version = FirstLine(v->err + v->out);
    }
    if (auto it = dpkg.find("libnginx-mod-http-lua"); it != dpkg.end()) {
      info.lua_module_version = "libnginx-mod-http-lua " + it->second;
    }
  }

  // fairvisor edge (not at all when the self-test preset runs without one).
  if (cfg.edge_skipped) {
    FillCommon(*probe, &info);
    info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return info;
  }
  if (!IsUrl(cfg.edge_src) && cfg.edge_ref.empty()) {
    info.edge_dir = cfg.edge_src;
    info.edge_in_place = true;
  } else {
    info.edge_dir = cfg.fv_dir;
    if (auto c = CloneEdge(r, cfg, &info); !c) return c.error();
  }
  const std::string q = ShellQuote(info.edge_dir);
  auto edge = r.Sh("edge checkout",
                   fmt::format("cd {0} 2>/dev/null || {{ echo missing=yes; exit 0; }}; "
                               "[ -f docker/nginx.conf.template ] && echo template=yes; "
                               "[ -f src/nginx/init_worker.lua ] && echo init_worker=yes; "
                               "if [ -f asn_type.map ]; then echo asn={0}/asn_type.map; "
                               "elif [ -f data/asn_type.map ]; then echo asn={0}/data/asn_type.map; fi; "
                               "echo commit=$(git -c safe.directory={0} rev-parse HEAD 2>/dev/null); "
                               "echo dirty=$(git -c safe.directory={0} status --porcelain --untracked-files=no "
                               "2>/dev/null | head -1)",
                               q));
  if (!edge) return edge.error();
  auto kv = detail::ParseKeyValues(edge->out);
  if (kv["missing"] == "yes" && info.edge_in_place && !cfg.dry_run) {
    return Error{fmt::format("provision edge checkout on host {}: FAIRVISOR_EDGE_SRC={} does not exist on that host. "
                             "A path names a checkout on the SUT host (in remote mode the suite never copies a "
                             "checkout from the controller): put the checkout there, or give a git URL the SUT "
                             "host can clone",
                             host.name(), info.edge_dir)};
  }
  if ((kv["template"] != "yes" || kv["init_worker"] != "yes") && !cfg.dry_run) {
    return Error{fmt::format("provision edge checkout on host {}: {} is not a fairvisor edge checkout "
                             "(docker/nginx.conf.template {}, src/nginx/init_worker.lua {})",
                             host.name(), info.edge_dir, kv["template"] == "yes" ? "present" : "missing",
                             kv["init_worker"] == "yes" ? "present" : "missing")};
  }
  info.asn_map_path = kv["asn"];
  info.edge_commit = kv["commit"];
  info.edge_dirty = !kv["dirty"].empty();

  FillCommon(*probe, &info);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

Result<ProvisionInfo> ProvisionLoadgen(Host& host, const Config& cfg) {
  auto t0 = std::chrono::steady_clock::now();
  Runner r(host, cfg);
  ProvisionInfo info;
  info.host = host.name();
  info.engine = EngineName(cfg.engine);
  auto probe = RunProbe(r);
  if (!probe) return probe.error();
  bool root = probe->get("uid") == "0";

  if (cfg.engine == Engine::kWrk) {
    if (!probe->has("wrk")) {
      if (!probe->has("dpkg") && !cfg.dry_run) {
        return Error{fmt::format("provision wrk on host {}: wrk not on PATH and no apt/dpkg to install it",
                                 host.name())};
      }
      if (auto a = r.AptInstall("apt-get install wrk", {"wrk"}, root); !a) return a.error();
      info.installed.push_back("wrk");
      auto again = RunProbe(r);
      if (!again) return again.error();
      probe = std::move(again);
    }
    info.engine_bin = probe->get("wrk");
    if (!info.engine_bin.empty()) {
      auto v = r.Exec("wrk -v", {info.engine_bin, "-v"});  // prints its banner and exits 1
      if (!v) return v.error();
      info.engine_version = FirstLine(v->out + v->err);
    }
  } else {
    if (!probe->has("k6")) {
      std::string arch = detail::K6Arch(probe->get("arch"));
      const std::string& ver = cfg.k6_version;
      std::string why;
      if (arch.empty()) {
        why = fmt::format("no k6 release for architecture '{}'", probe->get("arch"));
      } else if (!probe->has("curl")) {
        why = "curl is not installed";
      } else {
        std::string url = fmt::format("https://github.com/grafana/k6/releases/download/{0}/k6-{0}-linux-{1}.tar.gz",
                                      ver, arch);
        std::string script = fmt::format(
            "set -e; curl -fsSL --connect-timeout 10 --max-time 180 {} | {}tar xz -C /usr/local/bin "
            "--strip-components=1 {}",
            ShellQuote(url), root ? "" : "sudo -n ", ShellQuote(fmt::format("k6-{}-linux-{}/k6", ver, arch)));
        auto e = r.Sh("k6 install", script, minutes(4));
        if (!e) return e.error();
        if (!e->success() && !cfg.dry_run) why = fmt::format("`{}` failed: {}", script, Tail(e->err));
      }
      if (!why.empty() && !cfg.dry_run) {
        return Error{fmt::format("provision k6 on host {}: k6 is not installed and could not be installed ({}). "
                                 "LOADGEN_ENGINE=wrk is the offline engine (Debian package wrk).",
                                 host.name(), why)};
      }
      info.installed.push_back("k6 " + ver);
      auto again = RunProbe(r);
      if (!again) return again.error();
      probe = std::move(again);
    }
    info.engine_bin = probe->get("k6");
    if (!info.engine_bin.empty()) {
      auto v = r.Exec("k6 version", {info.engine_bin, "version"});
      if (!v) return v.error();
      info.engine_version = FirstLine(v->out + v->err);
    }
  }
  FillCommon(*probe, &info);
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return info;
}

}  // namespace fvbench
