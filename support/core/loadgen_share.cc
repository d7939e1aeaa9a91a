#include "support/core/loadgen_share.h"

#include <fmt/format.h>

#include <cmath>

namespace fvbench {

Result<void> CheckShareSize(double rate_rps, double duration_s, size_t processes, const std::string& what) {
  if (processes < 2) return Ok();
  const double total = rate_rps * duration_s;
  const double each = total / static_cast<double>(processes);
  if (each >= kMinRequestsPerLoadgenProcess) return Ok();
  const auto most = static_cast<long>(std::floor(total / kMinRequestsPerLoadgenProcess));
  const std::string could = most >= 2 ? fmt::format("at most {} processes could share it", most)
                                      : std::string("it is too small to share: run it on one process");
  return Error{fmt::format("{} split over {} engine processes gives each {} requests in its window; each needs at "
                           "least {} (one request more or less then moves its achieved rate by at most 1 %): {}, or "
                           "raise the rate or the duration",
                           what, processes, each < 10 ? fmt::format("{:.2g}", each) : fmt::format("{:.0f}", each),
                           kMinRequestsPerLoadgenProcess, could)};
}

}  // namespace fvbench
