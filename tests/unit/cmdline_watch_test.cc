// fvbench_cmdline_watch (fixtures/cmdline_watch_main.cc), the watcher of the
// secrets test (fixtures/secrets/watched-run.sh): it reads command lines as
// the user nobody, catches a process that lives for a fraction of a second
// (at its exec), names kinds and never values, and sees no value that is in
// a process's environment only. Root only (the process-events connector and
// the switch to nobody); skipped otherwise.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::cmdline_watch_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs argv (with `env` added) and waits for it.
void Spawn(std::vector<std::string> argv, const std::string& env = "") {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (!env.empty()) ::putenv(const_cast<char*>(env.c_str()));
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
}

TEST(CmdlineWatch, CatchesShortLivedProcessesAsNobodyAndNamesKindsOnly) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: the watcher subscribes to process events, then becomes nobody";
  const fs::path dir = fs::temp_directory_path() / ("fvb-cmdline-watch-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string marker = "fvb-argv-marker-" + std::to_string(::getpid()) + "-Zx9";
  const std::string env_marker = "fvb-env-marker-" + std::to_string(::getpid()) + "-Qw8";
  std::ofstream(dir / "secrets") << "argv marker\t" << marker << "\nenv marker\t" << env_marker << "\n";
  fs::permissions(dir / "secrets", fs::perms::owner_read | fs::perms::owner_write);
  const std::string log = (dir / "log").string();

  pid_t watcher = ::fork();
  if (watcher == 0) {
    ::execl(FVBENCH_CMDLINE_WATCH_BIN, "fvbench_cmdline_watch", (dir / "secrets").c_str(), log.c_str(), "--engine",
            "sleep", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string status = Slurp("/proc/" + std::to_string(watcher) + "/status");
  EXPECT_THAT(status, HasSubstr("Uid:\t65534\t65534\t65534\t65534")) << "the watcher reads as nobody";

  // 20 ms, less than the scans' 100 ms: a probe's lifetime. A scan that
  // happens to run while one lives reads it first (via=scan); of five, the
  // exec events read at least one (each is missed by them with a chance of
  // about a fifth).
  constexpr int kProbes = 5;
  for (int i = 0; i < kProbes; ++i) {
    Spawn({"sh", "-c", "sleep 0.02; :", "short", marker});
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
  }
  Spawn({"sleep", "0.3"}, "FVB_HIDDEN=" + env_marker);  // in the environment only
  Spawn({"bash", "-c", "sleep 0.2; :", "bash", "x" + marker + "y"});  // a word holding it
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ::kill(watcher, SIGTERM);
  int st = 0;
  ::waitpid(watcher, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 1) << "a secret was seen";

  const std::string text = Slurp(log);
  EXPECT_THAT(text, HasSubstr("argv0=sh kind=argv marker via=exec")) << "a process shorter than a scan, read at its exec";
  int probes = 0;
  std::istringstream probe_lines(text);
  for (std::string line; std::getline(probe_lines, line);) probes += line.find(" argv0=sh kind=argv marker ") != std::string::npos;
  EXPECT_GE(probes, kProbes) << "every short-lived probe is caught: " << text;
  EXPECT_THAT(text, HasSubstr("argv0=bash kind=argv marker"));
  EXPECT_THAT(text, Not(HasSubstr("env marker")));
  EXPECT_THAT(text, Not(HasSubstr(marker))) << "the log names kinds, never values";
  EXPECT_THAT(text, HasSubstr("exec events read, a load engine ran in "));
  EXPECT_THAT(text, Not(HasSubstr("a load engine ran in 0 scans"))) << "sleep (the --engine here) ran";
  // At least the probes and bash; a child that sh or bash forks before its exec
  // carries the parent's command line for a moment and may count as well.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex(R"(, (\d+) secret\(s\) seen in command lines)"))) << text;
  const int seen = std::stoi(m[1].str());
  EXPECT_GE(seen, kProbes + 1) << text;
  int hits = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) hits += line.find(" kind=argv marker ") != std::string::npos;
  EXPECT_EQ(hits, seen) << "every secret seen is the argv marker: " << text;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fvbench::cmdline_watch_test
