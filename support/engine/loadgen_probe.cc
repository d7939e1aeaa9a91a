// ProbeLoadgenLimits (load_engine.h): kLoadgenLimitsProbe through the Host.
#include <fmt/format.h>

#include "support/engine/load_engine.h"

namespace fvbench {

Result<LoadgenLimits> ProbeLoadgenLimits(Host& loadgen) {
  Command probe;
  probe.argv = {"sh", "-c", kLoadgenLimitsProbe};
  probe.timeout = std::chrono::seconds(30);
  auto r = loadgen.Run(probe);
  if (!r) return Error{fmt::format("load generator {}: probing its limits: {}", loadgen.name(), r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("load generator {}: probing its limits ({}) failed: exit status {}; stderr: {}",
                             loadgen.name(), kLoadgenLimitsProbe, r->exit_code, r->err)};
  }
  auto limits = ParseLoadgenLimits(r->out);
  if (!limits) return Error{fmt::format("load generator {}: {}", loadgen.name(), limits.error().message)};
  return limits;
}

}  // namespace fvbench
