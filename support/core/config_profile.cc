// LoadConfig's FVBENCH_PROFILE* (config_parts.h, profile_params.h).
#include <fmt/format.h>

#include "support/core/config_parts.h"

namespace fvbench::detail {

Result<void> LoadProfile(const EnvReader& r, Config& c) {
  auto kind = r.OneOf("FVBENCH_PROFILE", "0", {"0", "cpu", "lua", "both"},
                      "cpu, lua, both, or 0 / empty for no profiles");
  if (!kind) return kind.error();
  c.profile.cpu = *kind == "cpu" || *kind == "both";
  c.profile.lua = *kind == "lua" || *kind == "both";
  auto dur = r.Seconds("FVBENCH_PROFILE_DUR", c.profile.duration_s);
  if (!dur) return dur.error();
  c.profile.duration_s = *dur;
  auto fraction = r.Number("FVBENCH_PROFILE_FRACTION", c.profile.fraction, NumRange{0, 1, true},
                           "a fraction of the confirmed throughput, 0 < x <= 1");
  if (!fraction) return fraction.error();
  c.profile.fraction = *fraction;
  auto hz = r.Integer("FVBENCH_PROFILE_HZ", c.profile.hz, 1, kMaxProfileHz,
                      "samples per second 1..1000 (LuaJIT's profiler period is whole milliseconds)");
  if (!hz) return hz.error();
  c.profile.hz = static_cast<int>(*hz);
  return Ok();
}

}  // namespace fvbench::detail
