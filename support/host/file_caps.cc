#include "support/host/file_caps.h"

#include <algorithm>
#include <cmath>

namespace fvbench {

FileCap K6SamplesCap(double rate_rps, double duration_s) {
  constexpr double kMaxBytes = 1e18;  // far above any disk; keeps the conversion defined
  const double requests = std::max(0.0, rate_rps) * (std::max(0.0, duration_s) + 60.0);
  const double bytes = requests * static_cast<double>(kK6SampleLinesPerRequest * kK6SampleLineBytes);
  const double capped = std::isfinite(bytes) ? std::min(bytes, kMaxBytes) : kMaxBytes;
  return {"k6 samples CSV", std::max<uint64_t>(1 * kMiB, static_cast<uint64_t>(std::ceil(capped)))};
}

FileCap PerfScriptCap(int hz, double seconds, size_t pids) {
  constexpr double kMaxBytes = 1e18;
  const double samples = std::max(0, hz) * (std::max(0.0, seconds) + 5.0) * static_cast<double>(pids);
  const double bytes = samples * static_cast<double>(kPerfSampleBytes);
  const double capped = std::isfinite(bytes) ? std::min(bytes, kMaxBytes) : kMaxBytes;
  return {"perf script text", std::max<uint64_t>(1 * kMiB, static_cast<uint64_t>(std::ceil(capped)))};
}

}  // namespace fvbench
