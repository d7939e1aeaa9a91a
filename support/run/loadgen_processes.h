// The load engine a testbed drives its phases with: one engine process on
// the loadgen host, or several sharing each phase (engine/multi_loadgen.h):
// LOADGEN_PROCS_PER_HOST on each of LOADGEN_REMOTE's hosts (run/
// loadgen_hosts.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/result.h"
#include "support/engine/load_engine.h"
#include "support/host/host.h"
#include "support/run/loadgen_hosts.h"

namespace fvbench {

// A further connection to a loadgen host (SSH: one command at a time per
// session, so each process needs its own); local mode returns a new LocalHost.
using LoadgenConnector = std::function<Result<std::unique_ptr<Host>>()>;

// One loadgen host: its entry (with its processes' cpusets,
// SplitProcessCpusets) and how to open more connections to it.
struct LoadgenHostSlot {
  const LoadgenHost* host = nullptr;
  LoadgenConnector connect;
};

// One process in all (one host, config.procs_per_host == 1): the engine on
// that host, pinned by the spec (the host's cpuset). More: a multi-loadgen
// engine of hosts x procs_per_host engines of LOADGEN_ENGINE (wrk or k6)
// ("<host>#<i>"), each host's first on its entry's connection, the others on
// connections from its connector (kept in `owned`), each pinned to its
// process cpuset; each host's clock read through its first connection; the
// run's last launch kept in `lead_file`; run in parallel, except in a dry run
// (the plan is recorded in order).
Result<std::unique_ptr<LoadEngine>> MakeLoadgenEngine(const Config& config, const std::vector<LoadgenHostSlot>& hosts,
                                                      const std::string& scripts_dir, const std::string& lead_file,
                                                      std::vector<std::unique_ptr<Host>>& owned);

}  // namespace fvbench
