#include "support/run/loadgen_processes.h"

#include <fmt/format.h>

#include "support/engine/multi_loadgen.h"

namespace fvbench {

Result<std::unique_ptr<LoadEngine>> MakeLoadgenEngine(const Config& config, const std::vector<LoadgenHostSlot>& hosts,
                                                      const std::string& scripts_dir, const std::string& lead_file,
                                                      std::vector<std::unique_ptr<Host>>& owned) {
  auto make = [&](Host& h) {
    return config.engine == Engine::kK6 ? MakeK6Engine(h, scripts_dir) : MakeWrkEngine(h, scripts_dir);
  };
  if (hosts.empty()) return Error{"no loadgen host"};
  const auto per_host = static_cast<size_t>(std::max(config.procs_per_host, 1));
  if (hosts.size() == 1 && per_host == 1) return make(*hosts.front().host->host);
  std::vector<LoadgenProcess> processes;
  MultiLoadgenOptions options;
  for (size_t h = 0; h < hosts.size(); ++h) {
    const LoadgenHost& lg = *hosts[h].host;
    options.clock_hosts.push_back(lg.host);
    for (size_t i = 0; i < per_host; ++i) {
      Host* host = lg.host;
      if (i > 0) {
        auto c = hosts[h].connect();
        if (!c) {
          return Error{fmt::format("LOADGEN_PROCS_PER_HOST={}: opening connection {} to the loadgen host {}: {}",
                                   per_host, i + 1, lg.target, c.error().message)};
        }
        owned.push_back(std::move(*c));
        host = owned.back().get();
      }
      const std::string cpuset = i < lg.process_cpusets.size() ? lg.process_cpusets[i] : "";
      processes.push_back({fmt::format("{}#{}", lg.host->name(), i + 1), make(*host), cpuset, h});
    }
  }
  options.validity = config.validity;
  options.parallel = !config.dry_run;
  options.lead_file = lead_file;
  return MakeMultiLoadgenEngine(std::move(processes), std::move(options));
}

}  // namespace fvbench
