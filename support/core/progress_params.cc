#include "support/core/progress_params.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fvbench {

Result<ProgressParams> ProgressParamsFromEnv(const EnvMap& env) {
  ProgressParams p;
  auto it = env.find("FVBENCH_PROGRESS_S");
  if (it == env.end() || it->second.empty()) return p;
  const std::string& v = it->second;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (end == v.c_str() || *end != '\0' || !std::isfinite(d) || d < 0 || d > 3600) {
    return Error{fmt::format("FVBENCH_PROGRESS_S='{}': expected seconds between progress lines, 0..3600 "
                             "(0 = none; unset = max(5, phase duration / 10))",
                             v)};
  }
  p.period_s = d;
  return p;
}

double TickPeriod(const ProgressParams& p, double duration_s) {
  if (p.period_s) return *p.period_s;
  return std::max(5.0, duration_s / 10);
}

}  // namespace fvbench
