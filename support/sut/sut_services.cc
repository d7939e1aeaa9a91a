#include "support/sut/sut_services.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>
#include <utility>

#include <signal.h>
#include <unistd.h>

#include "support/core/bench_layout.h"
#include "support/core/text.h"
#include "support/engine/jwt.h"
#include "support/host/interrupts.h"
#include "support/sut/lua_profile.h"
#include "support/sut/nginx_conf.h"
#include "support/sut/nginx_files.h"
#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

using detail::AsciiLower;
using detail::TailLines;
using detail::TrimSpace;

// DRY_RUN stands in for edge's docker/nginx.conf.template (which a dry run
// does not read): the directives RenderFairvisorConf rewrites, so the planned
// write has the shape of the real one.
constexpr char kDryRunTemplate[] = R"(# DRY_RUN placeholder: on a real run this file is rendered from edge's
# docker/nginx.conf.template read on the SUT host.
worker_processes ${FAIRVISOR_WORKER_PROCESSES};
error_log /dev/stderr warn;
pid /tmp/nginx.pid;
events {
  worker_connections 1024;
}
http {
  include /etc/nginx/iplists/tor_exits.geo;
  include /opt/fairvisor/asn_type.map;
  lua_package_path "/opt/fairvisor/src/?.lua;;";
  init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;
  server {
    listen 8080;
  }
}
)";

}  // namespace

namespace detail {

HttpHead ParseHttpHead(const std::string& text) {
  HttpHead last;
  std::istringstream in(text);
  std::string line;
  bool in_head = false;
  HttpHead cur;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!in_head) {
      if (line.rfind("HTTP/", 0) == 0) {
        cur = HttpHead{};
        size_t sp = line.find(' ');
        if (sp != std::string::npos) cur.status = std::atoi(line.c_str() + sp + 1);
        in_head = true;
      }
      continue;
    }
    if (line.empty()) {
      in_head = false;
      if (cur.status != 100) last = cur;
      continue;
    }
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      cur.headers.emplace_back(line.substr(0, colon), TrimSpace(line.substr(colon + 1)));
    }
  }
  if (in_head && cur.status != 100) last = cur;  // head without body separator
  return last;
}

std::vector<std::string> PolicyFailureLines(const std::string& error_log) {
  static const char* kMarks[] = {"validation_error",     "standalone_reload_failed", "standalone_read_failed",
                                 "env_config_invalid",   "hot_reload_failed",        "[emerg]",
                                 "[alert]"};
  std::vector<std::string> out;
  std::istringstream in(error_log);
  for (std::string l; std::getline(in, l);) {
    for (const char* m : kMarks) {
      if (l.find(m) != std::string::npos) {
        out.push_back(l);
        break;
      }
    }
  }
  return out;
}

std::string ProbeHeaderLines(const ProbeRequest& probe) {
  std::string lines;
  for (const auto& [k, v] : probe.headers) lines += k + ": " + v + "\n";
  return lines;
}

Command ProbeCommand(const ProbeRequest& probe, const std::string& url, const std::string& header_file) {
  Command c;
  c.argv = {"curl", "-sS", "-i", "-m", "5", "-X", probe.method};
  if (!probe.headers.empty()) c.argv.insert(c.argv.end(), {"-H", "@" + header_file});
  if (!probe.body.empty()) c.argv.insert(c.argv.end(), {"--data-binary", probe.body});
  c.argv.push_back(url);
  c.timeout = seconds(10);
  return c;
}

std::string DescribeProbeHeaders(const ProbeRequest& probe) {
  std::string out;
  for (const auto& [k, v] : probe.headers) {
    out += (out.empty() ? "" : "; ") + k + ": " + (AsciiLower(k) == "authorization" ? "<redacted>" : v);
  }
  return out.empty() ? "none" : out;
}

}  // namespace detail

ProbeRequest ProbeFor(RequestKind kind, const std::string& path, const std::string& jwt,
                      const std::string& body) {
  ProbeRequest p;
  p.path = path;
  switch (kind) {
    case RequestKind::kGet:
      p.method = "GET";
      break;
    case RequestKind::kDecision:
      p.method = "POST";
      p.body = "{}";
      p.headers = {{"Content-Type", "application/json"},
                   {"X-Original-Method", "POST"},
                   {"X-Original-URI", "/v1/chat/completions"},
                   {"X-Forwarded-For", "203.0.113.1"}};
      break;
    case RequestKind::kPostJson:
      p.method = "POST";
      p.body = body;
      p.headers = {{"Content-Type", "application/json"}};
      break;
  }
  if (!jwt.empty()) p.headers.emplace_back("Authorization", "Bearer " + jwt);
  return p;
}

std::string PolicyEvidence::summary() const {
  std::string s = fmt::format("HTTP {}", status);
  for (const std::string& h : ratelimit_headers) s += "; " + h;
  return s;
}

SutServices::SutServices(Host& host, const Config& config, const ProvisionInfo& info, std::string cpuset)
    : host_(host), cfg_(config), info_(info), cpuset_(std::move(cpuset)) {
  // On SIGINT/SIGTERM mid-run the services are stopped by their pids.
  cleanup_id_ = RegisterCleanup([this] { (void)StopAll(); });
}

SutServices::~SutServices() {
  UnregisterCleanup(cleanup_id_);
  (void)StopAll();
}

std::string SutServices::run_dir(const std::string& service) const {
  return layout::ServiceRunDir(cfg_.bench_dir, service);
}

std::string SutServices::limits_log_path() const { return LimitsLogPath(run_dir("fv")); }

std::string SutServices::listen_addr() const {
  if (!cfg_.listen_addr.empty()) return cfg_.listen_addr;  // FV_LISTEN_ADDR (config.h)
  return cfg_.fairvisor_remote.empty() ? "127.0.0.1" : "0.0.0.0";
}

std::string SutServices::local_addr() const {
  std::string a = listen_addr();
  return a == "0.0.0.0" ? "127.0.0.1" : a;
}

int SutServices::WorkerConnections() const {
  // Seed: min(4096, ulimit -n - 1).
  return std::max(64, std::min(4096, info_.nofile - 1));
}

std::vector<std::string> SutServices::NginxArgv(const std::string& service) const {
  std::string pfx = run_dir(service);
  std::vector<std::string> argv;
  if (!cpuset_.empty()) argv = {"taskset", "-c", cpuset_};
  argv.insert(argv.end(), {info_.nginx_bin.empty() ? "nginx" : info_.nginx_bin, "-p", pfx, "-c",
                           pfx + "/conf/nginx.conf", "-e", pfx + "/logs/error.log"});
  return argv;
}

namespace {
std::string ControllerHostname() {
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}
}  // namespace

Result<void> SutServices::StopLeftover(const std::string& service) {
  const std::string dir = run_dir(service);
  auto pidtext = host_.ReadFile(dir + "/logs/nginx.pid", kPidFileCap);
  if (!pidtext) return Ok();  // nothing recorded
  int pid = std::atoi(std::string(TrimSpace(*pidtext)).c_str());
  if (pid <= 1) return Ok();
  // The controller process that started it: "<hostname> <pid>". While that
  // process lives, the service belongs to a live run (maybe another
  // SutServices of this very process) and is left alone.
  if (auto owner = host_.ReadFile(dir + "/logs/owner", kOwnerFileCap); owner) {
    std::istringstream in(*owner);
    std::string host;
    long owner_pid = 0;
    in >> host >> owner_pid;
    if (host == ControllerHostname() && owner_pid > 1 && (owner_pid == getpid() || kill(owner_pid, 0) == 0)) {
      return Ok();
    }
  }
  auto cmdline = host_.ReadFile(fmt::format("/proc/{}/cmdline", pid), kProcFileCap);
  if (!cmdline) return Ok();  // not running
  std::string args = *cmdline;
  std::replace(args.begin(), args.end(), '\0', ' ');
  if (args.find(dir + "/conf/nginx.conf") == std::string::npos) return Ok();  // pid reused by someone else
  auto signal = [&](const char* sig) {
    Command k;
    k.argv = {"kill", sig, std::to_string(pid)};
    k.timeout = seconds(5);
    return host_.Run(k);
  };
  // Gone = no /proc entry, or a zombie waiting to be reaped by its parent.
  auto gone = [&]() {
    auto stat = host_.ReadFile(fmt::format("/proc/{}/stat", pid), kProcFileCap);
    if (!stat) return true;
    auto close = stat->rfind(')');
    return close != std::string::npos && close + 2 < stat->size() && (*stat)[close + 2] == 'Z';
  };
  (void)signal("-TERM");
  for (int i = 0; i < 100 && !gone(); ++i) std::this_thread::sleep_for(milliseconds(100));
  if (!gone()) {
    (void)signal("-KILL");
    for (int i = 0; i < 20 && !gone(); ++i) std::this_thread::sleep_for(milliseconds(100));
  }
  if (!gone()) {
    return Error{fmt::format("host {}: a leftover {} (pid {}, `{}`) from an earlier run did not stop",
                             host_.name(), service, pid, TrimSpace(args))};
  }
  leftovers_.push_back(fmt::format("{} pid {}", service, pid));
  return Ok();
}

Result<void> SutServices::CheckPortFree(int port) {
  Command c;
  c.argv = {"ss", "-ltnH", fmt::format("sport = :{}", port)};
  c.timeout = seconds(10);
  auto r = host_.Run(c);
  if (!r) return Error{fmt::format("host {}: could not run `{}` to check port {}: {}", host_.name(),
                                   ShellJoin(c.argv), port, r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("host {}: `{}` exited {} checking port {}: {}", host_.name(), ShellJoin(c.argv),
                             r->exit_code, port, TrimSpace(r->err))};
  }
  if (!TrimSpace(r->out).empty()) {
    return Error{fmt::format("host {}: port {} is already in use (ss: {}); the suite stops only what it "
                             "started: free the port or choose another (FV_PORT / BACKEND_PORT / NGINX_PORT)",
                             host_.name(), port, TrimSpace(r->out))};
  }
  return Ok();
}

Result<int> SutServices::HttpStatus(int port, const std::string& path) {
  Command c;
  c.argv = {"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-m", "2",
            fmt::format("http://{}:{}{}", local_addr(), port, path)};
  c.timeout = seconds(5);
  auto r = host_.Run(c);
  if (!r) return r.error();
  return std::atoi(std::string(TrimSpace(r->out)).c_str());
}

namespace {

// The bytes of a log on the host from byte `from` on (0-based), at most the
// last `max_bytes` of them: a log appended to across runs, or flooded, never
// crosses the link whole. "" when it cannot be read.
std::string LogTail(Host& host, const std::string& path, uint64_t from, uint64_t max_bytes) {
  Command c;
  c.argv = {"sh", "-c", "tail -c +\"$1\" -- \"$2\" 2>/dev/null | tail -c \"$3\"", "sh", std::to_string(from + 1),
            path, std::to_string(max_bytes)};
  c.timeout = seconds(30);
  auto r = host.Run(c);
  return r && r->success() ? r->out : "";
}

// The size of a log on the host, 0 when it does not exist (or in a dry run).
uint64_t LogSize(Host& host, const std::string& path) {
  Command c;
  c.argv = {"sh", "-c", "[ -f \"$1\" ] && stat -c %s -- \"$1\" || echo 0", "sh", path};
  c.timeout = seconds(30);
  auto r = host.Run(c);
  if (!r || !r->success()) return 0;
  return std::strtoull(r->out.c_str(), nullptr, 10);
}

}  // namespace

std::string SutServices::ErrorLogSince(const std::string& service) {
  const uint64_t off = log_offset_.count(service) ? log_offset_[service] : 0;
  return LogTail(host_, run_dir(service) + "/logs/error.log", off, kErrorLogTailBytes);
}

Result<void> SutServices::Start(const Spec& spec) {
  const std::string dir = run_dir(spec.name);
  for (const ServiceHandle& h : handles_) {
    if (h.name == spec.name) {
      return Error{fmt::format("host {}: {} is already started (pid {}); StopAll first", host_.name(), spec.name,
                               h.pid)};
    }
  }
  if (!cpuset_.empty() && !info_.have_taskset) {
    return Error{fmt::format("host {}: ORESTY_CPUSET={} but taskset is not installed", host_.name(),
                             cpuset_)};
  }
  if (!cfg_.dry_run) {
    if (auto l = StopLeftover(spec.name); !l) return l.error();
    if (auto p = CheckPortFree(spec.port); !p) return p.error();
  }
  Command mk;
  mk.argv = {"mkdir", "-p", "--", dir + "/conf", dir + "/logs", dir + "/tmp"};
  auto m = host_.Run(mk);
  if (!m || !m->success()) {
    return Error{fmt::format("host {}: `{}` failed: {}", host_.name(), ShellJoin(mk.argv),
                             m ? TrimSpace(m->err) : m.error().message)};
  }
  {
    // A socket file left by a crashed nginx would make bind() fail; an access
    // log (or limits log) of an earlier start would only grow.
    Command rm;
    rm.argv = {"rm", "-f", "--", dir + "/logs/access.log", LimitsLogPath(dir)};
    if (!spec.status_socket.empty()) rm.argv.push_back(spec.status_socket);
    (void)host_.Run(rm);
  }
  const std::string conf = dir + "/conf/nginx.conf";
  if (auto w = host_.WriteFile(conf, spec.conf); !w) {
    return Error{fmt::format("host {}: writing {}: {}", host_.name(), conf, w.error().message)};
  }
  const std::string errlog = dir + "/logs/error.log";
  log_offset_[spec.name] = LogSize(host_, errlog);

  if (auto f = CheckReferencedFiles(spec.name, conf, spec.conf); !f) return f.error();

  Command test;
  test.argv = NginxArgv(spec.name);
  test.argv.push_back("-t");
  test.env = spec.env;
  test.timeout = seconds(30);
  auto t = host_.Run(test);
  if (!t) return Error{fmt::format("host {}: could not run `{}`: {}", host_.name(), ShellJoin(test.argv),
                                   t.error().message)};
  if (!t->success() && !cfg_.dry_run) {
    return Error{fmt::format("host {}: {} config {} rejected by `{}` (exit {}):\n{}", host_.name(), spec.name,
                             conf, ShellJoin(test.argv), t->exit_code, TrimSpace(t->err + t->out))};
  }

  Command run;
  run.argv = NginxArgv(spec.name);
  run.argv.insert(run.argv.end(), {"-g", "daemon off;"});
  run.env = spec.env;
  run.timeout = milliseconds(0);
  auto h = host_.StartService(spec.name, run, dir + "/logs/stdout.log", dir + "/logs/stderr.log");
  if (!h) return Error{fmt::format("host {}: starting {} (`{}`): {}", host_.name(), spec.name,
                                   ShellJoin(run.argv), h.error().message)};
  handles_.push_back(*h);
  if (!spec.status_socket.empty()) status_sockets_[spec.name] = spec.status_socket;
  if (cfg_.dry_run) return Ok();
  (void)host_.WriteFile(dir + "/logs/owner", fmt::format("{} {}\n", ControllerHostname(), getpid()));

  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration_cast<milliseconds>(std::chrono::duration<double>(cfg_.health_timeout_s));
  std::vector<std::string> paths = {"/livez"};
  if (spec.readyz) paths.push_back("/readyz");
  size_t next = 0;
  int last = 0;
  while (next < paths.size()) {
    if (!host_.IsAlive(*h)) {
      const std::string stderr_text = LogTail(host_, dir + "/logs/stderr.log", 0, kErrorLogTailBytes);
      return Error{fmt::format("host {}: {} (pid {}) exited during startup; error.log tail:\n{}stderr tail:\n{}",
                               host_.name(), spec.name, h->pid, TailLines(ErrorLogSince(spec.name), 20),
                               TailLines(stderr_text, 10))};
    }
    auto st = HttpStatus(spec.port, paths[next]);
    last = st ? *st : 0;
    if (last == 200) {
      ++next;
      continue;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Error{fmt::format("host {}: {} on port {} did not answer 200 on {} within {} s (HEALTH_TIMEOUT; "
                               "last status {}); error.log tail:\n{}",
                               host_.name(), spec.name, spec.port, paths[next], cfg_.health_timeout_s, last,
                               TailLines(ErrorLogSince(spec.name), 20))};
    }
    std::this_thread::sleep_for(milliseconds(100));
  }
  return Ok();
}

// The parameters every plain nginx of the SUT shares (baseline, backend):
// its directory, one worker per CPU of the cpuset, its port and status socket.
NginxParams SutServices::PlainNginx(const std::string& service, int port) {
  NginxParams p;
  p.prefix = run_dir(service);
  p.worker_processes = NginxWorkerProcesses(cpuset_, info_.cores);
  p.listen_addr = listen_addr();
  p.port = port;
  p.worker_connections = WorkerConnections();
  p.status_socket = StatusSocketFor(service);
  p.listen_backlog = cfg_.nginx_listen_backlog;
  return p;
}

Result<void> SutServices::StartBaseline() {
  NginxParams p = PlainNginx("baseline", cfg_.nginx_port);
  return Start({"baseline", cfg_.nginx_port, RenderBaselineConf(p), {}, false, p.status_socket});
}

Result<void> SutServices::StartBackend() {
  NginxParams p = PlainNginx("backend", cfg_.backend_port);
  return Start({"backend", cfg_.backend_port, RenderBackendConf(p), {}, false, p.status_socket});
}

// nginx -t reads include and load_module files, but Lua files and package
// directories only when a worker starts or a request needs them: a wrong
// path would surface as 500s under load. One command lists what is missing.
Result<void> SutServices::CheckReferencedFiles(const std::string& service, const std::string& conf_path,
                                               const std::string& conf_text) {
  std::vector<FileReference> refs = ReferencedFiles(conf_text);
  if (refs.empty()) return Ok();
  Command check;
  check.argv = {"sh", "-c", "for f; do [ -e \"$f\" ] || printf '%s\\n' \"$f\"; done", "fvbench-check-files"};
  for (const FileReference& r : refs) check.argv.push_back(r.path);
  check.timeout = seconds(30);
  auto c = host_.Run(check);
  if (!c || !c->success()) {
    return Error{fmt::format("host {}: could not check the files {} config {} refers to: {}", host_.name(), service,
                             conf_path, c ? TrimSpace(c->err) : c.error().message)};
  }
  if (cfg_.dry_run || TrimSpace(c->out).empty()) return Ok();
  std::string missing;
  std::istringstream in(c->out);
  for (std::string path; std::getline(in, path);) {
    for (const FileReference& r : refs) {
      if (r.path != path) continue;
      missing += fmt::format("\n  line {}: {} {}", r.line, r.directive, r.path);
      break;
    }
  }
  return Error{fmt::format("host {}: {} config {} refers to files that do not exist on that host:{}", host_.name(),
                           service, conf_path, missing)};
}

Result<void> SutServices::StartFairvisor(const std::string& mode, const std::string& policy_path,
                                         const FairvisorOptions& options) {
  if (mode != "decision_service" && mode != "reverse_proxy") {
    return Error{fmt::format("StartFairvisor: mode '{}' (expected decision_service or reverse_proxy)", mode)};
  }
  if (options.worker_processes < 0) {
    return Error{fmt::format("StartFairvisor: worker_processes {} (expected > 0, or 0 for FV_WORKER_PROCESSES)",
                             options.worker_processes)};
  }
  const std::string dir = run_dir("fv");
  const std::string tmpl_path = info_.edge_dir + "/docker/nginx.conf.template";
  auto tmpl = host_.ReadFile(tmpl_path, kEdgeTemplateCap);
  if (!tmpl && cfg_.dry_run) {
    // DRY_RUN: the read is in the plan; the config written is a placeholder.
    tmpl = std::string(kDryRunTemplate);
  }
  if (!tmpl) return Error{fmt::format("host {}: reading edge's template {}: {}", host_.name(), tmpl_path,
                                      tmpl.error().message)};
  FairvisorParams p;
  p.prefix = dir;
  p.listen_addr = listen_addr();
  p.port = cfg_.fv_port;
  p.worker_processes = options.worker_processes > 0 ? std::to_string(options.worker_processes)
                       : cfg_.fv_worker_processes == "auto" ? NginxWorkerProcesses(cpuset_, info_.cores)
                                                            : cfg_.fv_worker_processes;
  p.limits_log = options.limits_log;
  p.shared_dict_size = cfg_.fv_shared_dict_size;
  p.worker_connections = WorkerConnections();
  p.log_level = cfg_.fv_log_level;
  p.mode = mode;
  p.backend_url = fmt::format("http://{}:{}", local_addr(), cfg_.backend_port);
  p.fv_dir = info_.edge_dir;
  p.tor_geo_path = dir + "/conf/tor_exits.geo";
  p.asn_map_path = info_.asn_map_path.empty() ? dir + "/conf/asn_type.map" : info_.asn_map_path;
  p.load_lua_modules = info_.load_lua_modules;
  if (!info_.module_dir.empty()) p.module_dir = info_.module_dir;
  p.status_socket = StatusSocketFor("fv");
  p.listen_backlog = cfg_.nginx_listen_backlog;
  if (options.lua_profile && !cfg_.dry_run) {
    if (p.status_socket.empty()) {
      return Error{fmt::format("host {}: Lua profile: edge gets no status listener to drive it: {}", host_.name(),
                               status_why_)};
    }
    p.lua_profile = true;
    if (auto placed = PlaceLuaProfile(host_, dir, cfg_.source_dir); !placed) return placed.error();
  }
  auto conf = RenderFairvisorConf(*tmpl, p);
  if (!conf) return Error{fmt::format("{} (read from {} on host {})", conf.error().message, tmpl_path,
                                      host_.name())};
  if (auto w = host_.WriteFile(p.tor_geo_path, ""); !w) {
    return Error{fmt::format("host {}: writing {}: {}", host_.name(), p.tor_geo_path, w.error().message)};
  }
  if (info_.asn_map_path.empty()) {
    if (auto w = host_.WriteFile(p.asn_map_path, ""); !w) {
      return Error{fmt::format("host {}: writing {}: {}", host_.name(), p.asn_map_path, w.error().message)};
    }
  }
  fv_workers_ = p.worker_processes;
  Spec spec{"fv", cfg_.fv_port, *conf, FairvisorTemplateVars(p), true, p.status_socket};
  spec.env["FAIRVISOR_CONFIG_FILE"] = policy_path;
  spec.env["FAIRVISOR_SAAS_URL"] = "";  // standalone mode even if the caller's environment has one
  return Start(spec);
}

std::string SutServices::StatusSocketFor(const std::string& service) {
  if (cfg_.dry_run) {
    status_why_ = "DRY_RUN";
    return "";
  }
  if (cfg_.progress.period_s && *cfg_.progress.period_s == 0) {
    status_why_ = "FVBENCH_PROGRESS_S=0";
    return "";
  }
  if (!stub_status_) {
    Command v;
    v.argv = {info_.nginx_bin.empty() ? "nginx" : info_.nginx_bin, "-V"};
    v.timeout = std::chrono::seconds(10);
    auto r = host_.Run(v);
    stub_status_ = r && r->success() && (r->err + r->out).find("--with-http_stub_status_module") != std::string::npos;
    if (!*stub_status_) {
      status_why_ = fmt::format("host {}: `{}` does not list --with-http_stub_status_module", host_.name(),
                                ShellJoin(v.argv));
    }
  }
  if (!*stub_status_) return "";
  std::string path = run_dir(service) + "/logs/status.sock";
  if (path.size() > kMaxUnixSocketPath) {
    status_why_ = fmt::format("status socket {} is longer than {} bytes (shorten BENCH_DIR)", path,
                              kMaxUnixSocketPath);
    return "";
  }
  return path;
}

std::string SutServices::status_socket(const std::string& service) const {
  auto it = status_sockets_.find(service);
  return it == status_sockets_.end() ? "" : it->second;
}

Result<void> SutServices::StopAll() {
  std::string errors;
  for (auto it = handles_.rbegin(); it != handles_.rend(); ++it) {
    if (auto s = host_.StopService(*it); !s) {
      errors += fmt::format("{}{} (pid {}): {}", errors.empty() ? "" : "; ", it->name, it->pid,
                            s.error().message);
    }
  }
  handles_.clear();
  status_sockets_.clear();
  if (!errors.empty()) return Error{fmt::format("host {}: stopping services: {}", host_.name(), errors)};
  return Ok();
}

Result<std::string> SutServices::ReadEdgeMetrics() {
  Command c;
  c.argv = {"curl", "-sS", "-f", "-m", "5", fmt::format("http://{}:{}/metrics", local_addr(), cfg_.fv_port)};
  c.timeout = std::chrono::seconds(10);
  auto r = host_.Run(c);
  if (!r) return Error{fmt::format("`{}` on host {}: {}", ShellJoin(c.argv), host_.name(), r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("`{}` on host {} exited {}: {}", ShellJoin(c.argv), host_.name(), r->exit_code,
                             r->err.substr(0, 300))};
  }
  return r->out;
}

Result<PolicyEvidence> SutServices::CheckPolicyLive(const std::string& policy_id, const ProbeRequest& probe) {
  const std::string where = fmt::format("policy '{}' on host {}", policy_id, host_.name());
  if (cfg_.dry_run) return PolicyEvidence{policy_id, 0, {"(dry run: not probed)"}};
  std::string log = ErrorLogSince("fv");
  auto bad = detail::PolicyFailureLines(log);
  if (!bad.empty()) {
    std::string quoted;
    for (size_t i = 0; i < bad.size() && i < 10; ++i) quoted += "  " + bad[i] + "\n";
    return Error{fmt::format("{} did not load cleanly; edge's error.log ({}/logs/error.log) says:\n{}", where,
                             run_dir("fv"), quoted)};
  }
  // The headers (the bench JWT among them) go to curl in a 0600 file, never
  // on its command line, which every user of the SUT host can read.
  const std::string header_file = run_dir("fv") + "/probe.headers";
  const Command c = detail::ProbeCommand(probe, fmt::format("http://{}:{}{}", local_addr(), cfg_.fv_port, probe.path),
                                         header_file);
  const std::string shown = fmt::format("`{}` (headers: {})", ShellJoin(c.argv), detail::DescribeProbeHeaders(probe));
  if (!probe.headers.empty()) {
    if (auto w = host_.WriteFile(header_file, detail::ProbeHeaderLines(probe), 0600); !w)
      return Error{RedactSecrets(fmt::format("{}: could not write the probe's headers: {}", where, w.error().message))};
  }
  auto r = host_.Run(c);
  if (!probe.headers.empty()) {
    Command rm;
    rm.argv = {"rm", "-f", "--", header_file};
    rm.timeout = seconds(30);
    auto removed = host_.Run(rm);
    if (!removed || !removed->success()) {
      return Error{fmt::format("{}: could not remove {} (it holds the probe's Authorization header): {}", where,
                               header_file, removed ? TrimSpace(removed->err) : removed.error().message)};
    }
  }
  // The probe carries the bench JWT (Authorization: Bearer): never quote it.
  if (!r) return Error{RedactSecrets(fmt::format("{}: could not run probe {}: {}", where, shown, r.error().message))};
  detail::HttpHead head = detail::ParseHttpHead(r->out);
  PolicyEvidence ev;
  ev.policy_id = policy_id;
  ev.status = head.status;
  bool named = false;
  for (const auto& [k, v] : head.headers) {
    std::string lk = AsciiLower(k);
    if (lk.rfind("ratelimit", 0) == 0) ev.ratelimit_headers.push_back(k + ": " + v);
    if (lk == "ratelimit" && v.find("\"" + policy_id + "\"") != std::string::npos) named = true;
  }
  if (head.status < 200 || head.status > 299 || !named) {
    std::string headers;
    for (const auto& [k, v] : head.headers) headers += "  " + k + ": " + v + "\n";
    return Error{RedactSecrets(fmt::format(
        "{}: probe {} answered {} {}; expected 2xx with a RateLimit header naming \"{}\".\n"
        "response headers:\n{}curl stderr: {}\nedge error.log since start:\n{}",
        where, shown, head.status == 0 ? "no HTTP response" : "HTTP " + std::to_string(head.status),
        named ? "" : "(no RateLimit header naming the policy)", policy_id, headers.empty() ? "  (none)\n" : headers,
        TrimSpace(r->err).empty() ? "(none)" : TrimSpace(r->err), TailLines(ErrorLogSince("fv"), 15)))};
  }
  return ev;
}

}  // namespace fvbench
