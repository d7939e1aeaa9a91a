// The contract every parser of outside input keeps, checked by each libFuzzer
// target in this directory: for ANY bytes the parser returns a value, or an
// Error whose message names the source (the file name passed in). It never
// crashes, never throws out (an escaping exception reaches std::terminate,
// which libFuzzer reports as a crash), and ASan/UBSan find nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench::fuzz {

// The source name handed to every parser; an error must contain it.
inline constexpr const char kSource[] = "fuzz/input.json";

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

template <class T>
void CheckContract(const Result<T>& r, const char* parser) {
  if (r.ok()) return;
  if (r.error().message.find(kSource) == std::string::npos) {
    std::fprintf(stderr, "%s: error does not name the source %s: %s\n", parser, kSource,
                 r.error().message.c_str());
    std::abort();
  }
}

}  // namespace fvbench::fuzz
