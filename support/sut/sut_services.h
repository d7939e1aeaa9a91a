// SutServices: the nginx processes on the SUT host for one scenario: the raw
// nginx baseline (NGINX_PORT), the backend behind reverse_proxy
// (BACKEND_PORT) and fairvisor edge (FV_PORT).
//
// Each service lives in BENCH_DIR/run/<baseline|backend|fv>/{conf,logs,tmp}:
// conf/nginx.conf (support/sut/nginx_conf.h), logs/error.log, logs/stdout.log,
// logs/stderr.log, logs/nginx.pid. Logs are kept across starts (appended);
// each start remembers the error.log offset it began at, so checks and
// failure messages only quote that start's lines.
//
// Start*: refuses an occupied port (`ss -ltnH 'sport = :PORT'`: an Error
// naming the port and the listener ss shows; nothing is killed), renders and
// writes the config, runs `nginx -t` (Error with its output), starts nginx
// (`-g 'daemon off;'`, under `taskset -c` with its cpuset when set) through
// Host::StartService, then polls `curl -sS -o /dev/null -w '%{http_code}' -m 2`
// on the SUT host for /livez (and /readyz for fairvisor: edge answers 200 once
// a policy bundle is loaded) until Config::health_timeout_s. A failed wait is
// an Error with the tail of that service's error.log. Services listen on
// 127.0.0.1 in local mode and 0.0.0.0 in remote mode.
//
// StopAll stops only the handles this object recorded, in reverse start
// order (Host::StopService: SIGTERM to the process group, then SIGKILL); the
// destructor does the same, ignoring errors. Nothing is ever stopped by name.
//
// CheckPolicyLive (fairvisor only): the policy is really loaded and enforced.
//   1. edge's error.log since the start must not contain any of
//      validation_error, standalone_reload_failed, standalone_read_failed,
//      env_config_invalid, hot_reload_failed, [emerg], [alert]
//      (bundle_loader.lua / init_worker.lua log these at error level and
//      still serve the valid rest of the bundle, so /readyz alone proves nothing);
//   2. one probe request (curl -sS -i) must answer 2xx with a `RateLimit`
//      header naming the policy id ("<id>";r=<remaining>;t=<reset>, edge's
//      rule_engine._apply_limit_headers). Its headers reach curl in
//      BENCH_DIR/run/fv/probe.headers (mode 0600, removed after the request;
//      a failed removal is an Error), never on its command line.
// Errors quote edge's own log lines.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/core/config.h"
#include "support/host/host.h"
#include "support/engine/load_engine.h"
#include "support/sut/nginx_conf.h"
#include "support/sut/provision.h"
#include "support/core/result.h"

namespace fvbench {

struct ProbeRequest {
  std::string method = "GET";
  std::string path = "/";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent with --data-binary when non-empty
};

// The probe matching a load shape (load_engine.h RequestKind): kDecision is a
// POST of "{}" with X-Original-Method: POST, X-Original-URI:
// /v1/chat/completions, X-Forwarded-For: 203.0.113.1; kGet a GET; kPostJson a
// POST of `body` as application/json. `jwt` non-empty adds
// `Authorization: Bearer <jwt>`.
ProbeRequest ProbeFor(RequestKind kind, const std::string& path, const std::string& jwt,
                      const std::string& body = "");

struct PolicyEvidence {
  std::string policy_id;
  int status = 0;                             // HTTP status of the probe
  std::vector<std::string> ratelimit_headers;  // "RateLimit: ..." and RateLimit-* lines, as received
  std::string summary() const;                // "HTTP 200; RateLimit: \"bench-simple\";r=...; ..."
};

// One edge start's choices beyond the Config (StartFairvisor).
struct FairvisorOptions {
  // Edge writes the limits log (nginx_conf.h: `$msec $status
  // $http_x_bench_key`, one line per request) at limits_log_path() instead of
  // logs/access.log; the start removes an earlier one.
  bool limits_log = false;
  // > 0: edge's worker_processes for this start; 0: FV_WORKER_PROCESSES,
  // whose `auto` is one worker per CPU of the cpuset, else of the usable CPUs.
  int worker_processes = 0;
  // Lua profiles can be taken (lua_profile.h; FairvisorParams::lua_profile):
  // the profiler module is placed under run_dir("fv") and edge's config
  // wired to it. Needs the status listener (an Error naming why there is
  // none); ignored under DRY_RUN, which has none.
  bool lua_profile = false;
};

class SutServices {
 public:
  // `cpuset`: the CPUs its nginx processes are pinned to (taskset -c), ""
  // unpinned: Testbed::sut_cpuset(), what ORESTY_CPUSET resolved to.
  SutServices(Host& host, const Config& config, const ProvisionInfo& info, std::string cpuset);
  ~SutServices();
  SutServices(const SutServices&) = delete;
  SutServices& operator=(const SutServices&) = delete;

  Result<void> StartBaseline();
  Result<void> StartBackend();
  // mode: "decision_service" | "reverse_proxy" (FAIRVISOR_MODE). policy_path is
  // a file on the SUT host, readable by nginx's worker user (edge's workers read it).
  // options: FairvisorOptions (a negative worker count is an Error).
  Result<void> StartFairvisor(const std::string& mode, const std::string& policy_path,
                              const FairvisorOptions& options = {});
  Result<void> StopAll();
  // Leftovers of an earlier run that was killed before it could stop its
  // services (e.g. a ctest timeout): "<service> pid <n>" for each stopped.
  const std::vector<std::string>& leftovers_stopped() const { return leftovers_; }

  Result<PolicyEvidence> CheckPolicyLive(const std::string& policy_id, const ProbeRequest& probe);
  // Edge's GET /metrics (Prometheus text; judge/rule_evidence.h reads it),
  // from the SUT host. Err naming the command when it fails or is not 200.
  Result<std::string> ReadEdgeMetrics();

  // What <service>'s error.log gained since its last start, at most its last
  // kErrorLogTailBytes (file_caps.h; "" when unreadable); for after-load
  // checks (edge errors) and the tails quoted in errors.
  std::string ErrorLogSince(const std::string& service);

  std::string run_dir(const std::string& service) const;  // BENCH_DIR/run/<service>
  // Edge's limits log: run_dir("fv")/logs/limits.log (FairvisorOptions::limits_log).
  std::string limits_log_path() const;
  // The worker_processes edge's config got at the last StartFairvisor ("" before).
  const std::string& fv_worker_processes() const { return fv_workers_; }
  // FV_LISTEN_ADDR when set, else 127.0.0.1 locally / 0.0.0.0 remotely.
  std::string listen_addr() const;
  // Where the SUT host itself reaches the services (health, probes, edge's
  // backend): listen_addr(), or 127.0.0.1 for 0.0.0.0.
  std::string local_addr() const;
  const std::vector<ServiceHandle>& handles() const { return handles_; }

  // The status listener of a running service (nginx_conf.h, for the
  // progress lines of progress_ticker.h): the unix socket path on this host,
  // or "" with status_unavailable() saying why (no stub_status in `nginx -V`,
  // the path is longer than a unix socket allows, FVBENCH_PROGRESS_S=0,
  // DRY_RUN). Each Start* adds it when possible (removing a stale socket
  // file first); its absence never fails a start.
  std::string status_socket(const std::string& service) const;
  const std::string& status_unavailable() const { return status_why_; }

 private:
  struct Spec {
    std::string name;  // baseline | backend | fv
    int port = 0;
    std::string conf;
    std::map<std::string, std::string> env;
    bool readyz = false;
    std::string status_socket;  // "" = none
  };
  // The socket path the service's config should listen on, or "" (status_why_ set).
  std::string StatusSocketFor(const std::string& service);
  NginxParams PlainNginx(const std::string& service, int port);
  Result<void> Start(const Spec& spec);
  // Every file the rendered config refers to (ReferencedFiles) exists on the
  // host; the error lists each missing one with its line and directive.
  Result<void> CheckReferencedFiles(const std::string& service, const std::string& conf_path,
                                    const std::string& conf_text);
  Result<void> CheckPortFree(int port);
  // A master recorded in <run>/logs/nginx.pid whose command line names this
  // suite's config file <run>/conf/nginx.conf was started by the suite in an
  // earlier run: TERM it (KILL after 10 s). Any other process is left alone.
  Result<void> StopLeftover(const std::string& service);
  Result<int> HttpStatus(int port, const std::string& path);
  std::vector<std::string> NginxArgv(const std::string& service) const;
  int WorkerConnections() const;

  Host& host_;
  Config cfg_;  // a copy: callers may pass a scenario-local Config
  ProvisionInfo info_;
  std::string cpuset_;
  std::vector<ServiceHandle> handles_;
  std::map<std::string, uint64_t> log_offset_;
  std::vector<std::string> leftovers_;
  int cleanup_id_ = 0;  // support/host/interrupts.h registration  // service -> error.log size at start
  std::optional<bool> stub_status_;               // `nginx -V` lists the module (asked once)
  std::string status_why_;
  std::map<std::string, std::string> status_sockets_;  // running service -> socket
  std::string fv_workers_;                              // edge's worker_processes, last start
};

namespace detail {
struct HttpHead {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // in order received
};
// The last response head in `curl -i` output (skips 100 Continue); status 0 if none.
HttpHead ParseHttpHead(const std::string& curl_i_output);
// Lines of an edge error.log that mean the policy did not (fully) load.
std::vector<std::string> PolicyFailureLines(const std::string& error_log);
// The probe's curl command. Its headers (the bench JWT among them) are read
// from `header_file` (`-H @file`, one "Name: value" line each, curl >=
// 7.55: Debian 10+, Ubuntu 18.04+, Amazon Linux 2+), never put in argv,
// which every user of the host can read; ProbeHeaderLines is that file.
Command ProbeCommand(const ProbeRequest& probe, const std::string& url, const std::string& header_file);
std::string ProbeHeaderLines(const ProbeRequest& probe);
// "Content-Type: application/json; Authorization: <redacted>" for messages.
std::string DescribeProbeHeaders(const ProbeRequest& probe);
}  // namespace detail

}  // namespace fvbench
