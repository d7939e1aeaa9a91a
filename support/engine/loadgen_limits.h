// The load generator's own limits against what a phase needs, checked before
// the phase's load: a phase the host cannot carry is
// refused naming the host and both numbers, instead of failing during the
// load as connect errors that look like the SUT's.
//
// The probe (kLoadgenLimitsProbe) runs through the Host, so it sees the limits
// of the shell the engine runs in, over SSH too. It prints four lines:
//   ulimit -Sn   soft RLIMIT_NOFILE (a number, or "unlimited")
//   ulimit -Hn   hard RLIMIT_NOFILE
//   /proc/sys/net/ipv4/ip_local_port_range   "<low> <high>" (ip-sysctl.rst)
//   nproc        CPUs the shell may run on (its affinity; coreutils nproc)
// Pure: parsing and checking only.
//
// What a phase needs (LoadgenNeeds):
//   open files  one socket per connection, plus the engine's own files:
//               wrk: connections + threads (one epoll fd each) + kWrkOwnFiles,
//               against the SOFT limit (wrk never raises it);
//               k6: maxVUs + kK6OwnFiles against the HARD limit (Go >= 1.19
//               raises the soft limit to the hard one at start, Go 1.19
//               release notes, "os" package).
//   local ports every connection to the one SUT address holds an ephemeral
//               port: connections <= high - low + 1. A connection the engine
//               closes keeps its port in TIME_WAIT for 60 s (Linux
//               TCP_TIMEWAIT_LEN), so an engine that had to reconnect for
//               every request would need rate x 60 ports; both engines keep
//               connections alive, so that bound is not enforced (a
//               reconnecting engine shows as connect errors and late sends).
//   CPUs        a pinned engine (cpuset) needs its cpus: the cpuset's count
//               <= nproc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench {

inline constexpr const char* kLoadgenLimitsProbe =
    "ulimit -Sn; ulimit -Hn; cat /proc/sys/net/ipv4/ip_local_port_range; nproc";
inline constexpr uint64_t kWrkOwnFiles = 16;  // stdio, the script, FVBENCH_OUT, body, libraries
inline constexpr uint64_t kK6OwnFiles = 64;   // Go runtime, scripts, summary, logs

struct LoadgenLimits {
  uint64_t open_files_soft = 0;  // UINT64_MAX = unlimited
  uint64_t open_files_hard = 0;
  uint32_t port_low = 0, port_high = 0;
  int cpus = 0;
  uint64_t ports() const { return port_high >= port_low ? port_high - port_low + 1 : 0; }
};

struct LoadgenNeeds {
  std::string engine;        // "wrk" | "k6": which open-files limit applies
  uint64_t open_files = 0;   // sockets + the engine's own files
  uint64_t connections = 0;  // concurrent connections to the SUT (wrk -c, k6 maxVUs)
  int pinned_cpus = 0;       // cpus in the engine's cpuset; 0 = unpinned
};

// The probe's output; an Error naming the line that is not what was expected.
Result<LoadgenLimits> ParseLoadgenLimits(std::string_view probe_output);

// Ok, or an Error naming `host`, what runs short, the need and the limit,
// and how to raise it.
Result<void> CheckLoadgenLimits(const std::string& host, const LoadgenNeeds& needs, const LoadgenLimits& limits);

}  // namespace fvbench
