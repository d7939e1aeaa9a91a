// EnvMap: a snapshot of the environment (name -> value), the input of every
// parser of variables (config.h, validity_params.h, progress_params.h).
// CurrentEnvironment() (config.h) takes it from ::environ.
#pragma once

#include <map>
#include <set>
#include <string>

namespace fvbench {

using EnvMap = std::map<std::string, std::string>;

// The names of the variables a parser asked for, set or not (EnvReader adds
// each): what the variables table (variables.h) is checked against.
using EnvNamesRead = std::set<std::string>;

}  // namespace fvbench
