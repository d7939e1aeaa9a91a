#include "support/core/config.h"

#include "support/core/config_parts.h"

extern char** environ;

namespace fvbench {

const char* EngineName(Engine e) { return e == Engine::kK6 ? "k6" : "wrk"; }

EnvMap CurrentEnvironment() {
  EnvMap env;
  for (char** p = environ; p && *p; ++p) {
    std::string kv(*p);
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

// The pieces run in dependency order: the search's checks need the durations,
// the cpusets need remote mode, A/B needs the edge source and REPEAT, the
// ctest TIMEOUT check needs every duration.
Result<Config> LoadConfig(const ConfigInputs& in) {
  Config c;
  c.source_dir = in.source_dir;
  const EnvReader r(in.env);
  auto validity = ValidityParamsFromEnv(in.env);  // before the TIMEOUT check, which counts QUIET_TIMEOUT
  if (!validity) return validity.error();
  c.validity = *validity;
  auto progress = ProgressParamsFromEnv(in.env);
  if (!progress) return progress.error();
  c.progress = *progress;
  using Piece = Result<void> (*)(const ConfigInputs&, const EnvReader&, Config&);
  const Piece pieces[] = {
      detail::LoadDirs,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadK6Install(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadPorts(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadLatency(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadSearch(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadCounts(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadRemote(r, c); },
      detail::LoadCpusets,
      detail::LoadEdgeSource,
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadSut(r, c); },
      [](const ConfigInputs&, const EnvReader& r, Config& c) { return detail::LoadEngine(r, c); },
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
