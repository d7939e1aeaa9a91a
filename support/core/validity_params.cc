#include "support/core/validity_params.h"

#include "support/core/env_reader.h"

namespace fvbench {
Result<ValidityParams> ValidityParamsFromEnv(const EnvMap& env, EnvNamesRead* names_read) {
  ValidityParams p;
  const EnvReader r(env, names_read);
  auto mode = r.OneOf("VALIDITY", "fail", {"fail", "warn"},
                      "fail (a failed validity check fails the scenario) or warn (the result is marked INVALID in "
                      "the report, the test passes)");
  if (!mode) return mode.error();
  p.mode = *mode == "warn" ? ValidityMode::kWarn : ValidityMode::kFail;
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
    auto v = r.Number(k.name, *k.field, NumRange{k.lo, k.hi}, k.what);
    if (!v) return v.error();
    *k.field = *v;
  }
  return p;
}

}  // namespace fvbench
