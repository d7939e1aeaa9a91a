// Golden-file comparison for reporter tests (summary table, report.md, SVG
// plots): the fixtures directory and one compare that, under
// FVBENCH_UPDATE_GOLDEN=1, writes the golden file instead of comparing.
// On a difference it names the first differing line (gtest's whole-string
// diff escapes every non-ASCII byte) and leaves the full output in
// ::testing::TempDir() as <name>.actual.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fvbench/source_dir.h"

namespace fvbench::testing_golden {

// FVBENCH_FIXTURES (set by CTest), else the source tree's fixtures/.
inline std::string FixturesDir() {
  const char* env = std::getenv("FVBENCH_FIXTURES");
  return env != nullptr && *env != '\0' ? env : FVBENCH_SOURCE_DIR "/fixtures";
}

// Compares `got` with fixtures/golden/<name>; `hint` ends the failure message.
inline void CompareGolden(const std::string& name, const std::string& got, const std::string& hint = "") {
  std::string path = FixturesDir() + "/golden/" + name;
  const char* update = std::getenv("FVBENCH_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    ASSERT_TRUE(out) << "cannot write " << path;
    out << got;
    std::cout << "FVBENCH_UPDATE_GOLDEN=1: wrote " << path << "\n";
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "cannot read " << path << " (regenerate with FVBENCH_UPDATE_GOLDEN=1)";
  std::stringstream want_stream;
  want_stream << in.rdbuf();
  const std::string want = want_stream.str();
  if (got == want) return;
  std::string actual_path = ::testing::TempDir() + name + ".actual";
  std::ofstream(actual_path, std::ios::binary | std::ios::trunc) << got;
  std::istringstream g(got), w(want);
  std::string gl, wl;
  int line = 0;
  while (true) {
    ++line;
    bool more_g = static_cast<bool>(std::getline(g, gl));
    bool more_w = static_cast<bool>(std::getline(w, wl));
    if (!more_g && !more_w) break;
    if (!more_g) gl = "<end of output>";
    if (!more_w) wl = "<end of golden file>";
    if (gl != wl) break;
  }
  ADD_FAILURE() << name << " differs from " << path << " at line " << line << ":\n  want: " << wl
                << "\n  got:  " << gl << "\nfull output: " << actual_path
                << "\nif the change is intended, regenerate with FVBENCH_UPDATE_GOLDEN=1" << hint;
}

}  // namespace fvbench::testing_golden
