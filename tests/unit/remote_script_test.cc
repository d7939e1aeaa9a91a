// The bootstrap SshHost sends as every exec request (support/host/
// remote_script.h), run here by the POSIX shells of this machine exactly as
// a login shell runs an exec request (`<shell> -c <request>`), with the
// framed script and more data on its stdin.
#include "support/host/remote_script.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::remote_script_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

struct Ran {
  int exit_code = -1;
  int pid = 0;
  std::string out;
};

// `shell -c kRemoteBootstrap` with `input` on stdin; stdout captured.
Ran RunBootstrap(const std::string& shell, const std::string& input) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    ::execlp(shell.c_str(), shell.c_str(), "-c", kRemoteBootstrap, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  std::thread writer([&] {
    size_t off = 0;
    while (off < input.size()) {
      ssize_t n = ::write(in[1], input.data() + off, input.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    ::close(in[1]);
  });
  Ran r;
  r.pid = pid;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0) r.out.append(buf, static_cast<size_t>(n));
  ::close(out[0]);
  writer.join();
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<std::string> Shells() {
  std::vector<std::string> found;
  for (const char* s : {"sh", "bash", "dash", "ksh", "mksh", "zsh"}) {
    for (const char* dir : {"/bin/", "/usr/bin/"}) {
      if (::access((std::string(dir) + s).c_str(), X_OK) == 0) {
        found.push_back(std::string(dir) + s);
        break;
      }
    }
  }
  return found;
}

std::string Framed(const std::string& script) {
  auto f = FramedScript(script);
  EXPECT_TRUE(f.ok()) << f.error().message;
  return f.ok() ? *f : "";
}

TEST(RemoteScript, FramedScriptCountsLinesAndEndsInANewline) {
  EXPECT_EQ(Framed("echo a"), "1\necho a\n");
  EXPECT_EQ(Framed("echo a\necho b\n"), "2\necho a\necho b\n");
  EXPECT_EQ(Framed("x='a\n\nb'\n"), "3\nx='a\n\nb'\n");
  EXPECT_EQ(Framed(""), "1\n\n");
  auto nul = FramedScript(std::string("echo a\0b", 8));
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.error().message, HasSubstr("NUL byte at offset 6"));
}

// The bootstrap itself holds no value: it is the same text for every script.
TEST(RemoteScript, TheBootstrapIsOneFixedTextWithoutQuotedValues) {
  const std::string b = kRemoteBootstrap;
  EXPECT_THAT(b, Not(HasSubstr("'")));
  EXPECT_THAT(b, HasSubstr("eval \"$_fvb_s\""));
}

// Quotes, backslashes, blank and indented lines, multi-line quoted values
// and a last line without a newline arrive byte-exact; $$ is the shell the
// exec request started; the bytes after the script are the script's stdin.
TEST(RemoteScript, EachShellRunsTheScriptAndLeavesTheRestOnStdin) {
  const std::string script =
      "printf '%s|' \"a\\\\b  c\" '  lead' \"$$\"\n"
      "\n"
      "   v='multi\nline \\ back\ttab'\n"
      "printf '%s|' \"$v\"\n"
      "exec cat";
  const std::string rest = std::string("REST\x01\xff", 6) + " 'data' $x \\\n\nmore";
  for (const std::string& sh : Shells()) {
    SCOPED_TRACE(sh);
    Ran r = RunBootstrap(sh, Framed(script) + rest);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "a\\b  c|  lead|" + std::to_string(r.pid) + "|multi\nline \\ back\ttab|" + rest);
  }
}

// A script cut short (the channel ended early, or something else read
// stdin first) runs not even its first line.
TEST(RemoteScript, AShortScriptRunsNothing) {
  const fs::path marker = fs::temp_directory_path() / ("fvb-remote-script-" + std::to_string(::getpid()));
  for (const std::string& sh : Shells()) {
    SCOPED_TRACE(sh);
    fs::remove(marker);
    Ran r = RunBootstrap(sh, "3\ntouch '" + marker.string() + "'\necho two\n");
    EXPECT_EQ(r.exit_code, 126);
    EXPECT_FALSE(fs::exists(marker));
    Ran empty = RunBootstrap(sh, "");
    EXPECT_EQ(empty.exit_code, 126);
  }
}

TEST(RemoteScript, ThereIsAShellToTest) { EXPECT_FALSE(Shells().empty()); }

}  // namespace
}  // namespace fvbench::remote_script_test
