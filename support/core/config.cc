#include "support/core/config.h"

#include <algorithm>

extern char** environ;

namespace fvbench {

const char* EngineName(Engine e) { return e == Engine::kK6 ? "k6" : "wrk"; }

std::string Config::LoadgenRemoteText() const {
  std::string out;
  for (const std::string& t : loadgen_remotes) out += (out.empty() ? "" : ",") + t;
  return out;
}

size_t Config::LoadgenProcesses() const {
  return std::max<size_t>(loadgen_remotes.size(), 1) * static_cast<size_t>(std::max(procs_per_host, 1));
}

EnvMap CurrentEnvironment() {
  EnvMap env;
  for (char** p = environ; p && *p; ++p) {
    std::string kv(*p);
    auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

}  // namespace fvbench
