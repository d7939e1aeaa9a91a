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

// The last component of `path`: "/a/b/c.json" -> "c.json", "c" -> "c",
// "/a/" -> "".
std::string Basename(const std::string& path);

// strerror(err): "No such file or directory".
std::string ErrnoText(int err);

}  // namespace fvbench::detail
