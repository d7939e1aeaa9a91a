// Small text helpers for file names and system errors, one definition each
// (host/, report/ and the fixtures use them). Pure.
#pragma once

#include <string>

namespace fvbench::detail {

// The last component of `path`: "/a/b/c.json" -> "c.json", "c" -> "c",
// "/a/" -> "".
std::string Basename(const std::string& path);

// strerror(err): "No such file or directory".
std::string ErrnoText(int err);

}  // namespace fvbench::detail
