#include "support/run/environment_preflight.h"

#include <algorithm>
#include <cmath>

#include "support/engine/k6_engine.h"
#include "support/engine/loadgen_limits.h"
#include "support/engine/wrk_engine.h"

namespace fvbench {

double BusiestPhaseRate(const Config& c, std::optional<ScenarioKind> kind) {
  if (kind == ScenarioKind::kLatency) return c.latency_rps;
  if (kind == ScenarioKind::kThroughput) return c.throughput_search_max;
  return std::max(c.latency_rps, c.throughput_search_max);
}

EnvironmentNeeds EnvironmentNeedsAt(const Config& c, const std::vector<LoadgenHost>& loadgens, double rate_rps) {
  const uint64_t hosts = std::max<size_t>(1, loadgens.size());
  const uint64_t per_host = static_cast<uint64_t>(std::max(1, c.procs_per_host));
  const uint64_t processes = hosts * per_host;
  const double share = rate_rps / static_cast<double>(processes);
  const int connections =
      c.connections > 0 ? static_cast<int>((static_cast<uint64_t>(c.connections) + processes - 1) / processes) : 0;
  EnvironmentNeeds n;
  if (c.nginx_listen_backlog > 0) n.listen_backlog = static_cast<uint64_t>(c.nginx_listen_backlog);
  uint64_t per_process = 0;
  if (c.engine == Engine::kWrk) {
    std::string cpuset;
    if (!loadgens.empty()) {
      const LoadgenHost& lg = loadgens.front();
      cpuset = lg.process_cpusets.empty() ? lg.cpuset : lg.process_cpusets.front();
    }
    auto threads = WrkThreadsFor(cpuset);
    const int t = threads ? *threads : kWrkDefaultThreads;
    per_process = static_cast<uint64_t>(WrkConnectionsFor(share, t, connections));
    n.engine = "wrk";
    n.process_open_files = per_process + static_cast<uint64_t>(t) + kWrkOwnFiles;
  } else {
    per_process = static_cast<uint64_t>(K6VusFor(std::lround(share), connections).max);
    n.engine = "k6";
    n.process_open_files = per_process + kK6OwnFiles;
  }
  n.host_connections = per_process * per_host;
  n.sut_connections = per_process * processes;
  return n;
}

std::vector<EnvironmentFinding> PreflightFindings(const Testbed& tb, std::optional<ScenarioKind> kind) {
  const Config& c = tb.config();
  return LintEnvironments(tb.environments(), EnvironmentNeedsAt(c, tb.loadgens(), BusiestPhaseRate(c, kind)));
}

}  // namespace fvbench
