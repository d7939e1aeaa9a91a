#include "support/core/validity_params.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "support/core/units_format.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

Result<double> EnvFraction(const EnvMap& env, const char* name, double def, double lo, double hi,
                           const char* what) {
  auto it = env.find(name);
  if (it == env.end() || it->second.empty()) return def;
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) {
    return Error{fmt::format("{}='{}': expected {} in [{}, {}]", name, it->second, what, FormatNumber(lo),
                             FormatNumber(hi))};
  }
  return v;
}

}  // namespace

Result<ValidityParams> ValidityParamsFromEnv(const EnvMap& env) {
  ValidityParams p;
  if (auto it = env.find("VALIDITY"); it != env.end() && !it->second.empty()) {
    if (it->second == "fail") {
      p.mode = ValidityMode::kFail;
    } else if (it->second == "warn") {
      p.mode = ValidityMode::kWarn;
    } else {
      return Error{fmt::format("VALIDITY='{}': expected fail (a failed validity check fails the scenario) or "
                               "warn (the result is marked INVALID in the report, the test passes)",
                               it->second)};
    }
  }
  struct Knob {
    const char* name;
    double* field;
    double lo, hi;
    const char* what;
  };
  const Knob knobs[] = {
      {"VALIDITY_MIN_EVIDENCE", &p.min_evidence_share, 0, 1, "a fraction of responses"},
      {"VALIDITY_MIN_REQUESTS", &p.min_success_fraction, 0, 1, "a fraction of target rate x duration"},
      {"VALIDITY_MIN_ACHIEVED", &p.min_achieved_fraction, 0, 1, "a fraction of the target rate"},
      {"LOADGEN_MAX_BUSY", &p.max_loadgen_busy, 0, 1, "a busy fraction of the engine's cpuset"},
      {"QUIET_LOAD_PER_CORE", &p.quiet_max_per_core, 0, 1, "a busy fraction per core"},
      {"QUIET_TIMEOUT", &p.quiet_timeout_s, 0, 3600, "seconds"},
      {"ERROR_LOG_MAX_RATE", &p.max_log_lines_per_s, 0, 1e9, "error.log lines per second"},
  };
  for (const Knob& k : knobs) {
    auto v = EnvFraction(env, k.name, *k.field, k.lo, k.hi, k.what);
    if (!v) return v.error();
    *k.field = *v;
  }
  return p;
}

}  // namespace fvbench
