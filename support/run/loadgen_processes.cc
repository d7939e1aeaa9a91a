#include "support/run/loadgen_processes.h"

#include <fmt/format.h>

#include <algorithm>

#include "support/core/cpu_list.h"
#include "support/engine/multi_loadgen.h"

namespace fvbench {

Result<std::vector<std::string>> ProcessCpusets(const Config& config) {
  const auto n = static_cast<size_t>(config.procs_per_host);
  if (config.k6_cpuset.empty()) return std::vector<std::string>(n);
  auto cpus = ParseCpuList(config.k6_cpuset);
  if (!cpus) return Error{fmt::format("K6_CPUSET='{}': {}", config.k6_cpuset, cpus.error().message)};
  if (n == 1) return std::vector<std::string>{config.k6_cpuset};
  auto parts = SplitCpuList(*cpus, n);
  if (parts.empty()) {
    return Error{fmt::format("LOADGEN_PROCS_PER_HOST={} but K6_CPUSET={} has {} CPU(s): each engine process needs "
                             "at least one of its own",
                             n, config.k6_cpuset, cpus->size())};
  }
  std::vector<std::string> out;
  for (const auto& p : parts) out.push_back(FormatCpuList(p));
  return out;
}

Result<std::unique_ptr<LoadEngine>> MakeLoadgenEngine(const Config& config, const std::vector<LoadgenHostSlot>& hosts,
                                                      const std::string& scripts_dir,
                                                      std::vector<std::unique_ptr<Host>>& owned) {
  auto make = [&](Host& h) {
    return config.engine == Engine::kK6 ? MakeK6Engine(h, scripts_dir) : MakeWrkEngine(h, scripts_dir);
  };
  if (hosts.empty()) return Error{"no loadgen host"};
  auto cpusets = ProcessCpusets(config);
  if (!cpusets) return cpusets.error();
  if (hosts.size() == 1 && cpusets->size() == 1) return make(*hosts.front().host);
  std::vector<LoadgenProcess> processes;
  for (const LoadgenHostSlot& slot : hosts) {
    for (size_t i = 0; i < cpusets->size(); ++i) {
      Host* host = slot.host;
      if (i > 0) {
        auto c = slot.connect();
        if (!c) {
          return Error{fmt::format("LOADGEN_PROCS_PER_HOST={}: opening connection {} to the loadgen host {}: {}",
                                   cpusets->size(), i + 1, slot.host->name(), c.error().message)};
        }
        owned.push_back(std::move(*c));
        host = owned.back().get();
      }
      processes.push_back({fmt::format("{}#{}", slot.host->name(), i + 1), make(*host), (*cpusets)[i]});
    }
  }
  MultiLoadgenOptions options;
  options.validity = config.validity;
  options.parallel = !config.dry_run;
  return MakeMultiLoadgenEngine(std::move(processes), std::move(options));
}

}  // namespace fvbench
