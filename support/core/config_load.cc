// LoadConfig (config.h): its pieces (config_parts.h) in order. A file of its
// own so that config_parts.h, which includes config.h, forms no include cycle.
#include "support/core/config.h"
#include "support/core/config_parts.h"

namespace fvbench {

// The pieces run in dependency order: the search's checks need the durations,
// the cpusets need remote mode, A/B needs the edge source and REPEAT, the
// ctest TIMEOUT check needs every duration.
Result<Config> LoadConfig(const ConfigInputs& in) {
  Config c;
  c.source_dir = in.source_dir;
  const EnvReader r(in.env, in.names_read);
  auto validity = ValidityParamsFromEnv(in.env, in.names_read);  // before the TIMEOUT check, which counts QUIET_TIMEOUT
  if (!validity) return validity.error();
  c.validity = *validity;
  auto progress = ProgressParamsFromEnv(in.env, in.names_read);
  if (!progress) return progress.error();
  c.progress = *progress;
  using Piece = Result<void> (*)(const ConfigInputs&, const EnvReader&, Config&);
  const Piece pieces[] = {
      detail::LoadDirs,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadInstalls(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadPorts(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadLatency(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadProfile(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadSearch(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadCounts(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadRemote(r, c); },
      detail::LoadCpusets,
      detail::LoadEdgeSource,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadSut(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadEngine(r, c); },
      [](const ConfigInputs&, const EnvReader&, Config& c) { return detail::CheckLoadgenShares(c); },
      detail::LoadInputFiles,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadJwtSecret(r, c); },
      detail::LoadAbConfig,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadScenarioTimeout(r, c); },
  };
  for (Piece p : pieces) {
    if (auto ok = p(in, r, c); !ok) return ok.error();
  }
  return c;
}

}  // namespace fvbench
