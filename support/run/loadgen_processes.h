// The load engine a testbed drives its phases with: one engine process on
// the loadgen host, or LOADGEN_PROCS_PER_HOST of them sharing each phase
// (engine/multi_loadgen.h; issue 14).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/result.h"
#include "support/engine/load_engine.h"
#include "support/host/host.h"

namespace fvbench {

// A further connection to the loadgen host (SSH: one command at a time per
// session, so each process needs its own); local mode returns a new LocalHost.
using LoadgenConnector = std::function<Result<std::unique_ptr<Host>>()>;

// Engine processes and their CPUs: config.procs_per_host processes, each
// pinned to its part of K6_CPUSET (SplitCpuList) when that is set, else
// unpinned (the same on every loadgen host). Error when K6_CPUSET has fewer
// CPUs than processes.
Result<std::vector<std::string>> ProcessCpusets(const Config& config);

// One loadgen host: its first connection, and how to open more.
struct LoadgenHostSlot {
  Host* host = nullptr;
  LoadgenConnector connect;
};

// One process in all (one host, config.procs_per_host == 1): the engine on
// that host. More: a multi-loadgen engine of hosts x procs_per_host engines
// of LOADGEN_ENGINE (wrk or k6) ("<host>#<i>"), each host's first on its slot's connection, the
// others on connections from its connector (kept in `owned`), pinned per
// ProcessCpusets; run in parallel, except in a dry run (the plan is
// recorded in order).
Result<std::unique_ptr<LoadEngine>> MakeLoadgenEngine(const Config& config, const std::vector<LoadgenHostSlot>& hosts,
                                                      const std::string& scripts_dir,
                                                      std::vector<std::unique_ptr<Host>>& owned);

}  // namespace fvbench
