#include "support/core/config.h"

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

}  // namespace fvbench
