// The preflight lint: the machine facts of a run's hosts (core/
// host_environment.h) against what its busiest phase needs, before any load.
// Each finding names the host, the value and the fix. Pure.
//
// Rules (a value the host does not expose, "", is never judged):
//   somaxconn, tcp_max_syn_backlog (SUT host)   below the connections the SUT
//       must accept at once, up to its listen backlog (NGINX_LISTEN_BACKLOG;
//       nginx listens with 511 on Linux when the directive sets no backlog=;
//       the accept queue holds min(backlog, somaxconn)): warn. The listen
//       backlog itself below those connections: warn, naming the variable. The engines open their connections at the phase's start; a
//       queue that overflows drops SYNs, which the client retries after 1 s,
//       a tail the phase's kernel counters then show (kernel_counters.h).
//   ip_local_port_range (loadgen host)   fewer ports than the connections that
//       host's engine processes open together to the SUT's one address and
//       port: refuse (the connections beyond it cannot be opened; the phase
//       cannot be right).
//   nofile (loadgen host)   below one engine process's connections plus its
//       own files: wrk refuse (wrk runs on this soft limit and never raises
//       it: its sockets beyond fail as connect errors that look like the
//       SUT's); k6 warn (Go raises the soft limit to the hard one at start,
//       which the recorded `ulimit -n` does not show; the engine's own probe
//       refuses a phase above the hard limit, loadgen_limits.h).
//   thp_enabled "always" (any host)   warn: khugepaged compaction stalls
//       show as latency.
//   cpu_governor other than "performance" (any host, where exposed)   warn:
//       the clock follows the load, so the numbers measure the governor too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/core/host_environment.h"

namespace fvbench {

// nginx's listen backlog on Linux when `listen` sets none (NGX_LISTEN_BACKLOG).
inline constexpr uint64_t kNginxListenBacklog = 511;

struct EnvironmentNeeds {
  std::string engine;                       // "wrk" | "k6": which nofile rule applies
  uint64_t sut_connections = 0;             // every engine process of the busiest phase together
  uint64_t listen_backlog = kNginxListenBacklog;  // the SUT's listen backlog
  uint64_t host_connections = 0;            // the most one loadgen host opens (its processes together)
  uint64_t process_open_files = 0;          // one engine process: its connections + its own files
};

struct EnvironmentFinding {
  enum class Severity { kWarn, kRefuse };
  Severity severity = Severity::kWarn;
  std::string role;   // HostEnvironment::role
  std::string host;   // HostEnvironment::host
  std::string key;    // kEnvironmentKeys
  std::string value;  // as the host gave it
  std::string message;  // "<role> <host>: <key> <value> ...; <the fix>"
};

// The findings, host by host in the order given, rules in the order above.
std::vector<EnvironmentFinding> LintEnvironments(const std::vector<HostEnvironment>& envs,
                                                 const EnvironmentNeeds& needs);

// True when any finding refuses the run.
bool AnyRefusal(const std::vector<EnvironmentFinding>& findings);

// "warning" / "refused" + ": " + message, one line.
std::string DescribeFinding(const EnvironmentFinding& f);

}  // namespace fvbench
