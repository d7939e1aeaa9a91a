#include "support/core/progress_params.h"

#include "support/core/env_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace fvbench {

Result<ProgressParams> ProgressParamsFromEnv(const EnvMap& env, EnvNamesRead* names_read) {
  ProgressParams p;
  const EnvReader r(env, names_read);
  if (!r.has("FVBENCH_PROGRESS_S")) return p;
  auto d = r.Number("FVBENCH_PROGRESS_S", 0, NumRange{0, 3600},
                    "seconds between progress lines, 0..3600 (0 = none; unset = max(5, phase duration / 10))");
  if (!d) return d.error();
  p.period_s = *d;
  return p;
}

double TickPeriod(const ProgressParams& p, double duration_s) {
  if (p.period_s) return *p.period_s;
  return std::max(5.0, duration_s / 10);
}

}  // namespace fvbench
