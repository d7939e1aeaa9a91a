// The bounds of the validity checks (support/judge/validity.h), read once
// from the environment by LoadConfig into Config::validity. The defaults are
// the member initialisers below and nowhere else.
//
// Variables (each Err names the variable and the value):
//   VALIDITY=fail|warn          fail (default): a failed check fails the
//                               scenario; warn: recorded as INVALID, not failed
//   VALIDITY_MIN_EVIDENCE       fraction 0..1 of responses with RateLimit evidence
//   VALIDITY_MIN_REQUESTS       fraction 0..1 of target x duration
//   VALIDITY_MIN_ACHIEVED       fraction 0..1 of the target rate
//   LOADGEN_MAX_BUSY            busy fraction 0..1 of the engine's cpuset
//   QUIET_LOAD_PER_CORE         busy fraction 0..1 per core
//   QUIET_TIMEOUT               seconds 0..3600 (0: do not wait)
//   ERROR_LOG_MAX_RATE          error.log lines/s >= 0
#pragma once

#include <string>

#include "support/core/env_map.h"
#include "support/core/load_result.h"
#include "support/core/result.h"

namespace fvbench {

enum class ValidityMode { kFail, kWarn };

struct ValidityParams {
  ValidityMode mode = ValidityMode::kFail;
  double min_evidence_share = 0.99;
  double min_success_fraction = 0.99;
  double min_achieved_fraction = kMinAchievedFraction;
  double max_loadgen_busy = 0.80;
  double quiet_max_per_core = 0.5;
  double quiet_timeout_s = 30;
  double max_log_lines_per_s = 10;
};

// `names_read`: as EnvReader's.
Result<ValidityParams> ValidityParamsFromEnv(const EnvMap& env, EnvNamesRead* names_read = nullptr);

}  // namespace fvbench
