// Small helpers for file names and system errors, one definition each
// (host/, report/ and the fixtures use them); text helpers are in text.h.
// Pure.
#pragma once

#include <string>
#include <string_view>

namespace fvbench::detail {

// The stem of a scenario's phase file names: its id with '.' -> '_'
// ("throughput.simple" -> "throughput_simple"; the runner names phases
// <stem>_s03_bisect, <stem>_warmup, ...).
std::string PhaseFileStem(std::string_view scenario_id);

// A scenario id is part of file names (phase files, plots, flame graphs): 1
// to 100 ASCII letters, digits, '.', '_' or '-', not starting with '.' or
// '-'. Every id of the plan is; a saved result whose id is not is refused.
bool IsScenarioId(std::string_view id);

// The last component of `path`: "/a/b/c.json" -> "c.json", "c" -> "c",
// "/a/" -> "".
std::string Basename(const std::string& path);

// strerror(err): "No such file or directory".
std::string ErrnoText(int err);

}  // namespace fvbench::detail
