// nginx configurations for the SUT host, rendered as text. Pure: no I/O; the
// caller writes the result (SutServices) and runs `nginx -t` on it.
//
// Baseline and backend are the seed's two plain nginx servers (run-all.sh
// start_baseline / start_backend): access_log off, keepalive_requests 100000,
// /livez. Baseline answers `ok\n` on every path; the backend answers a fixed
// OpenAI-style chat.completion JSON on every path except /livez.
//
// fairvisor edge's config is its own docker/nginx.conf.template, rendered the
// way its docker/entrypoint.sh does (envsubst of exactly
//   ${FAIRVISOR_SHARED_DICT_SIZE} ${FAIRVISOR_LOG_LEVEL} ${FAIRVISOR_MODE}
//   ${FAIRVISOR_BACKEND_URL} ${FAIRVISOR_WORKER_PROCESSES}
// in both $NAME and ${NAME} forms, every other `$` left alone), then moved out
// of Docker:
//   error_log <any path>        -> <prefix>/logs/error.log (level kept)
//   pid <any path>              -> <prefix>/logs/nginx.pid
//   listen <x>                  -> listen <listen_addr>:<port> (other listen params kept;
//                                  exactly one listen directive expected), then
//                                  ` backlog=<listen_backlog>` when that is set
//   include .../tor_exits.geo   -> include <tor_geo_path>
//   include .../asn_type.map    -> include <asn_map_path>
//   /opt/fairvisor/ in the path of a `*_by_lua_file`, lua_package_path or
//   lua_package_cpath directive -> <fv_dir>/ (the Docker image's edge tree;
//                                  rewritten by directive, so FV_DIR may be
//                                  /opt/fairvisor itself, the seed's default)
//   worker_connections <n>      -> worker_connections <worker_connections>
//   resolver ...                -> `resolver <resolver>` or commented out when empty
//                                  (127.0.0.11 is Docker's embedded DNS; optional)
//   http {                      -> followed by client_body_temp_path and proxy_temp_path
//                                  under <prefix>/tmp (Debian's nginx has absolute
//                                  compiled-in temp paths under /var/lib/nginx)
//   http {                      -> also followed by the status server below, when
//                                  status_socket is set
//   http {                      -> also followed by `access_log <prefix>/logs/access.log;`,
//                                  or, when limits_log is set, instead by
//                                    log_format fvbench_limits '$msec $status $http_x_bench_key';
//                                    access_log <prefix>/logs/limits.log fvbench_limits;
//                                  (the limits log: one line per request, the truth of
//                                  the limits scenarios; run/limits_log.h reduces it)
// and, for distro nginx, `load_module <module_dir>/ndk_http_module.so;` and
// `load_module <module_dir>/ngx_http_lua_module.so;` prepended (OpenResty has
// Lua built in).
//
// Errors: a rewrite that finds nothing to rewrite (edge's template changed)
// names the directive and what was expected; a `${...}` left after envsubst
// names the variable and line; a directive that names a file
// (IsFileDirective, nginx_files.h) and that no rewrite above placed names the
// line and the directive: it would point into the Docker image's file system.
// Whether the placed files exist is checked on the SUT host (SutServices:
// every ReferencedFiles path, then `nginx -t`), not here.
//
// Status listener (all three configs, when status_socket is set): one more
// server block, off the measured path, for the progress lines
// (progress_ticker.h):
//   server { listen unix:<status_socket>; access_log off;
//            location = /fvbench_status { stub_status; } location / { return 404; } }
// stub_status is ngx_http_stub_status_module (--with-http_stub_status_module
// in `nginx -V`; the caller checks). A unix socket takes no port and is not
// reachable from the network; nginx removes it on a clean stop, not after a
// crash (the caller removes a stale one: bind() fails on an existing path).
// Its path must fit sockaddr_un (at most kMaxUnixSocketPath bytes).
//
// Lua profiles (FairvisorParams::lua_profile; lua_profile.h the protocol, the
// module support/sut/lua/fvbench_lua_profile.lua): off, the config is the
// one above, byte for byte. On, four more changes, and status_socket must be set
// (the profile is driven through it):
//   http {                      -> also followed by `lua_shared_dict fvbench_profile 1m;`
//   lua_package_path "...";     -> "<prefix>/lua/?.lua;..." (exactly one expected: nginx
//                                  takes one per http block, so the module's directory
//                                  goes first in edge's own)
//   init_worker_by_lua_file <f>;  -> # fvbench: ... (an nginx comment line)
//                                    init_worker_by_lua_block {
//                                      require("fvbench_lua_profile").init_worker("<prefix>/lua_profile")
//                                      dofile("<f>")
//                                    }
//   the status server           -> also location = /fvbench_profile/{start,stop,state},
//                                  each `content_by_lua_block` calling the module
// Why init_worker: jit.profile profiles one Lua VM, i.e. one worker, and its
// interval timer does not survive fork, so it cannot start in the master
// (init_by_lua); a request cannot start it either, since a request reaches
// one worker only. nginx takes one init_worker_by_lua* per http block and
// edge's template has its own (a file), so that directive becomes a block
// that starts the module's control timer first and then runs edge's file
// with dofile, unchanged (its top-level `return`s end the chunk as before;
// an error in it is logged by nginx as an init_worker error as before).
// A template without init_worker gets the block with the module's line only;
// an init_worker_by_lua_block or init_worker_by_lua in it is an Error (it
// cannot be wrapped line by line). ReferencedFiles (nginx_files.h) no longer
// lists edge's init_worker file (it is an argument of dofile now): a wrong
// path shows as /readyz never turning 200, with the error.log line.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

// Modules of Debian's libnginx-mod-http-lua (and its dependency libnginx-mod-http-ndk).
inline constexpr const char kDebianNginxModuleDir[] = "/usr/lib/nginx/modules";

// worker_processes of every nginx the suite starts on the SUT (raw, backend,
// edge with FAIRVISOR_WORKER_PROCESSES=auto): one worker per CPU the process
// may use, i.e. the CPUs of ORESTY_CPUSET when pinned, else the host's usable
// CPUs (ProvisionInfo::cpus: affinity within the cgroup cpuset). nginx's own
// `auto` counts online CPUs (ngx_ncpu from sysconf(_SC_NPROCESSORS_ONLN)), so
// a 1-CPU cpuset on a 2-core host got 2 workers.
// "auto" only when neither is known (usable_cpus <= 0 and no cpuset).
std::string NginxWorkerProcesses(const std::string& cpuset, int usable_cpus);

struct NginxParams {
  std::string prefix;                  // run dir: <prefix>/logs/error.log, <prefix>/logs/nginx.pid
  std::string listen_addr = "127.0.0.1";
  int port = 0;
  std::string worker_processes = "auto";
  int worker_connections = 4096;
  int keepalive_requests = 100000;     // seed: 100000
  std::string log_level = "warn";      // error_log level
  std::string status_socket;           // "" = no status listener
  int listen_backlog = 0;              // `backlog=` of the listen directive; 0 = none (nginx's own, 511 on Linux)
};

// sun_path is 108 bytes with the terminating NUL.
inline constexpr size_t kMaxUnixSocketPath = 107;

// The status server block, indented for the http block; "" when socket is "".
// lua_profile adds the three /fvbench_profile/ locations.
std::string RenderStatusServer(const std::string& socket, const std::string& indent = "  ",
                               bool lua_profile = false);

// Baseline and backend listen on `<listen_addr>:<port>`, with
// ` backlog=<listen_backlog>` when that is set (the status listener never).

// ` backlog=<n>` for a listen directive; "" when n is 0 (nginx's own).
std::string ListenBacklogParam(int backlog);

// Raw nginx: `return 200 "ok\n"` on / and /livez.
std::string RenderBaselineConf(const NginxParams& p);

// The body the backend returns on every path but /livez (seed's JSON + "\n").
extern const char kBackendChatCompletionJson[];

// Backend behind fairvisor's reverse_proxy mode.
std::string RenderBackendConf(const NginxParams& p);

struct FairvisorParams {
  std::string prefix;                  // run dir (BENCH_DIR/run/fv)
  std::string listen_addr = "127.0.0.1";
  int port = 0;                        // FV_PORT
  std::string worker_processes = "auto";  // FAIRVISOR_WORKER_PROCESSES
  int worker_connections = 4096;
  std::string log_level = "error";     // FAIRVISOR_LOG_LEVEL
  std::string mode = "decision_service";  // FAIRVISOR_MODE: decision_service | reverse_proxy
  std::string backend_url;             // FAIRVISOR_BACKEND_URL, e.g. http://127.0.0.1:8081
  std::string shared_dict_size = "256m";  // FAIRVISOR_SHARED_DICT_SIZE (seed: 256m)
  std::string fv_dir;                  // edge checkout: <fv_dir>/src/... (no trailing slash)
  std::string asn_map_path;            // <fv_dir>/asn_type.map or <fv_dir>/data/asn_type.map
  std::string tor_geo_path;            // an empty file in the run dir
  std::string resolver;                // empty = drop the resolver directive
  bool load_lua_modules = false;       // distro nginx: prepend the load_module lines
  std::string module_dir = kDebianNginxModuleDir;
  std::string status_socket;           // "" = no status listener
  int listen_backlog = 0;              // as NginxParams::listen_backlog
  bool limits_log = false;             // access log in kLimitsLogFormat at LimitsLogPath(prefix)
  bool lua_profile = false;            // Lua profiles (above; lua_profile.h); needs status_socket
};

// The limits log's format: `$msec $status $http_x_bench_key` (nginx writes
// `-` for an absent header, and escapes `"`, `\` and bytes outside 0x20-0x7e
// as \xHH; a space in the header is written as is).
inline constexpr const char kLimitsLogFormatName[] = "fvbench_limits";
inline constexpr const char kLimitsLogFormat[] = "$msec $status $http_x_bench_key";
// <prefix>/logs/limits.log
std::string LimitsLogPath(const std::string& prefix);

// The five variables envsubst substitutes, by name. They must also be in the
// nginx process's environment (the template's `env` directives pass FAIRVISOR_*
// through to the workers), together with FAIRVISOR_CONFIG_FILE.
std::map<std::string, std::string> FairvisorTemplateVars(const FairvisorParams& p);

Result<std::string> RenderFairvisorConf(std::string_view template_text, const FairvisorParams& p);

namespace detail {
// envsubst with an explicit variable list: replaces $NAME and ${NAME} for the
// names in `vars` only; every other `$` is copied as is.
std::string EnvSubst(std::string_view text, const std::map<std::string, std::string>& vars);
}  // namespace detail

}  // namespace fvbench
