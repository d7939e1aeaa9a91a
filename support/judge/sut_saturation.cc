#include "support/judge/sut_saturation.h"

#include <algorithm>

namespace fvbench {

std::optional<double> SutCpuShare(const PhaseObservation& obs, bool shares_cpus) {
  if (!obs.quiet || obs.quiet->cpus <= 0 || obs.sut_usage.empty()) return std::nullopt;
  double cores = 0;
  for (const ServiceUsage& u : obs.sut_usage) cores += u.cpu_cores;
  double share = cores / obs.quiet->cpus;
  if (obs.sut_busy) share = std::max(share, *obs.sut_busy);
  if (shares_cpus && obs.loadgen_busy) share = std::max(share, *obs.loadgen_busy);
  return share;
}

double SharedCpusSaturatedFrom(int cpus) {
  if (cpus <= 1) return 0;
  return static_cast<double>(cpus - 1) / cpus;
}

}  // namespace fvbench
