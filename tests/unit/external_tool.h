// Runs an independent reader of what fvbench writes (jq for JSON, cmark-gfm
// for report.md) as a subprocess: the input goes through a temporary file,
// stdout and stderr come back separately. Both programs are Debian packages
// installed by support/setup-debian.sh; a missing one fails the test that
// needs it, naming the package (never a silent skip).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace fvbench::testing_tools {

struct ToolRun {
  int exit_code = -1;  // -1: not run, or killed by a signal
  std::string out;
  std::string err;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// True when `program` is on PATH.
inline bool HaveTool(const std::string& program) {
  return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

// `command_line` (a shell command, e.g. "jq -e ." or "cmark-gfm -e table -t xml")
// with `input` on its stdin.
inline ToolRun RunTool(const std::string& command_line, const std::string& input) {
  ToolRun r;
  const std::string base = ::testing::TempDir() + "fvbench_tool_" + std::to_string(::getpid());
  const std::string in = base + ".in", out = base + ".out", err = base + ".err";
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f << input;
  }
  int status = std::system((command_line + " <'" + in + "' >'" + out + "' 2>'" + err + "'").c_str());
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = ReadWholeFile(out);
  r.err = ReadWholeFile(err);
  std::remove(in.c_str());
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

}  // namespace fvbench::testing_tools
