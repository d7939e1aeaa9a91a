// EnvMap: a snapshot of the environment (name -> value), the input of every
// parser of variables (config.h, validity_params.h, progress_params.h).
// CurrentEnvironment() (config.h) takes it from ::environ.
#pragma once

#include <map>
#include <string>

namespace fvbench {

using EnvMap = std::map<std::string, std::string>;

}  // namespace fvbench
