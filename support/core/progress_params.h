// How often a running phase prints a progress line (support/run/progress.h),
// read once from the environment by LoadConfig into Config::progress.
//
// FVBENCH_PROGRESS_S: seconds between tick lines. Unset or empty = auto
// (max(5, phase duration / 10)); 0 = no tick lines; else a number > 0 and
// <= 3600. Err names the variable and the value.
#pragma once

#include <optional>
#include <string>

#include "support/core/env_map.h"
#include "support/core/result.h"

namespace fvbench {

struct ProgressParams {
  std::optional<double> period_s;  // nullopt = auto
};
// `names_read`: as EnvReader's.
Result<ProgressParams> ProgressParamsFromEnv(const EnvMap& env, EnvNamesRead* names_read = nullptr);

// Seconds between ticks for a phase of duration_s; 0 = off.
double TickPeriod(const ProgressParams& p, double duration_s);

}  // namespace fvbench
