// LocalHost on real processes: exit status, signals, big output on both
// streams, timeouts that kill the whole group, env/cwd, services, files.
#include "support/host/local_host.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::local_host_test {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
constexpr FileCap kTestCap{"test file", 1 << 20};

// True when `pid` no longer runs: no such process, or a zombie waiting for a
// parent that is not us (PID 1 here may or may not reap orphans).
bool Dead(int pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return true;
  auto p = line.rfind(')');
  return p != std::string::npos && p + 2 < line.size() &&
         (line[p + 2] == 'Z' || line[p + 2] == 'X');
}

// Polls `pred` for up to `limit`; the limit is generous, not a measurement.
template <class Pred>
bool Eventually(Pred pred, milliseconds limit = milliseconds(10000)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return pred();
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

class LocalHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fvbench-local-host-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ExecResult Run(std::vector<std::string> argv, milliseconds timeout = milliseconds(60000)) {
    Command c;
    c.argv = std::move(argv);
    c.timeout = timeout;
    auto r = host_.Run(c);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : ExecResult{};
  }
  std::string Path(const std::string& rel) const { return dir_ + "/" + rel; }

  LocalHost host_;
  std::string dir_;
};

TEST_F(LocalHostTest, Name) { EXPECT_EQ(host_.name(), "local"); }

TEST_F(LocalHostTest, ExitCodes) {
  auto t = Run({"true"});
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_EQ(t.term_signal, 0);
  EXPECT_FALSE(t.timed_out);
  EXPECT_TRUE(t.success());
  auto f = Run({"false"});
  EXPECT_EQ(f.exit_code, 1);
  EXPECT_FALSE(f.success());
  auto e = Run({"sh", "-c", "exit 42"});
  EXPECT_EQ(e.exit_code, 42);
  EXPECT_EQ(e.term_signal, 0);
}

TEST_F(LocalHostTest, KilledBySignal) {
  auto k = Run({"sh", "-c", "kill -KILL $$"});
  EXPECT_EQ(k.exit_code, -1);
  EXPECT_EQ(k.term_signal, SIGKILL);
  EXPECT_FALSE(k.timed_out);
  EXPECT_FALSE(k.success());
  auto s = Run({"sh", "-c", "ulimit -c 0; kill -SEGV $$"});
  EXPECT_EQ(s.exit_code, -1);
  EXPECT_EQ(s.term_signal, SIGSEGV);
}

TEST_F(LocalHostTest, CapturesStdoutAndStderrSeparately) {
  auto r = Run({"sh", "-c", "printf 'to out'; printf 'to err' >&2"});
  EXPECT_EQ(r.out, "to out");
  EXPECT_EQ(r.err, "to err");
}

TEST_F(LocalHostTest, EightMebibytesOnBothStreamsAtOnce) {
  constexpr size_t kSize = 8 << 20;
  std::mt19937 rng(42);
  std::string a(kSize, '\0'), b(kSize, '\0');
  for (auto& c : a) c = static_cast<char>(rng());
  for (auto& c : b) c = static_cast<char>(rng());
  {
    std::ofstream(Path("a"), std::ios::binary) << a;
    std::ofstream(Path("b"), std::ios::binary) << b;
  }
  auto r = Run({"sh", "-c", "cat \"$0\" & cat \"$1\" >&2; wait", Path("a"), Path("b")});
  EXPECT_EQ(r.exit_code, 0);
  ASSERT_EQ(r.out.size(), kSize);
  ASSERT_EQ(r.err.size(), kSize);
  EXPECT_TRUE(r.out == a) << "stdout differs from the file written";
  EXPECT_TRUE(r.err == b) << "stderr differs from the file written";
}

TEST_F(LocalHostTest, StdinIsDevNull) {
  auto r = Run({"cat"}, milliseconds(20000));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "");
}

TEST_F(LocalHostTest, TimeoutKillsTheCommand) {
  auto start = std::chrono::steady_clock::now();
  auto r = Run({"sleep", "30"}, milliseconds(300));
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.success());
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_LT(took, std::chrono::seconds(10));
}

TEST_F(LocalHostTest, TimeoutKillsTheWholeProcessGroup) {
  auto start = std::chrono::steady_clock::now();
  auto r = Run({"sh", "-c", "sleep 30 & echo $!; wait"}, milliseconds(300));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_TRUE(r.timed_out);
  int grandchild = std::atoi(r.out.c_str());
  ASSERT_GT(grandchild, 1) << "child printed: " << r.out;
  EXPECT_TRUE(Eventually([&] { return Dead(grandchild); }))
      << "grandchild " << grandchild << " survived the timeout";
  if (!Dead(grandchild)) ::kill(grandchild, SIGKILL);
}

TEST_F(LocalHostTest, TermIgnoringCommandGetsKilled) {
  auto r = Run({"sh", "-c", "trap '' TERM; while :; do :; done"}, milliseconds(300));
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.term_signal, SIGKILL);
}

// A caller killed outright (SIGKILL: a ctest TIMEOUT) cannot clean up; the
// command it was running must die with it (PR_SET_PDEATHSIG), not go on
// loading a server unattended.
TEST_F(LocalHostTest, CommandDiesWithItsSigkilledCaller) {
  const std::string pidfile = Path("cmd.pid");
  pid_t caller = ::fork();
  ASSERT_GE(caller, 0);
  if (caller == 0) {
    LocalHost host;
    Command c;
    c.argv = {"sh", "-c", "echo $$ > " + pidfile + "; exec sleep 30"};
    c.timeout = std::chrono::seconds(60);
    (void)host.Run(c);
    ::_exit(0);
  }
  int cmd = 0;
  ASSERT_TRUE(Eventually([&] { return (cmd = std::atoi(Slurp(pidfile).c_str())) > 1; }))
      << "the caller never started its command";
  ASSERT_EQ(::kill(caller, SIGKILL), 0);
  int st = 0;
  ASSERT_EQ(::waitpid(caller, &st, 0), caller);
  EXPECT_TRUE(Eventually([&] { return Dead(cmd); }))
      << "command " << cmd << " outlived its SIGKILLed caller";
  if (!Dead(cmd)) ::kill(cmd, SIGKILL);
}

TEST_F(LocalHostTest, BackgroundGrandchildDoesNotHoldTheCall) {
  // The grandchild keeps the pipes open; Run() returns once the child exits.
  auto start = std::chrono::steady_clock::now();
  auto r = Run({"sh", "-c", "sleep 30 & echo $!"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 0);
  int grandchild = std::atoi(r.out.c_str());
  ASSERT_GT(grandchild, 1) << r.out;
  ::kill(grandchild, SIGKILL);
}

TEST_F(LocalHostTest, EnvAddsAndOverrides) {
  ::setenv("FVBENCH_TEST_INHERITED", "from-parent", 1);
  ::setenv("FVBENCH_TEST_OVERRIDDEN", "old", 1);
  Command c;
  c.argv = {"sh", "-c",
            "printf '%s|%s|%s' \"$FVBENCH_TEST_INHERITED\" \"$FVBENCH_TEST_OVERRIDDEN\" "
            "\"$FVBENCH_TEST_ADDED\""};
  c.env = {{"FVBENCH_TEST_OVERRIDDEN", "new"}, {"FVBENCH_TEST_ADDED", "a b $c"}};
  auto r = host_.Run(c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, "from-parent|new|a b $c");
}

TEST_F(LocalHostTest, PathFromCommandEnvFindsTheProgram) {
  fs::create_directories(Path("bin"));
  ASSERT_TRUE(host_.WriteFile(Path("bin/fvbench-hello"), "#!/bin/sh\necho hello\n", 0755).ok());
  Command c;
  c.argv = {"fvbench-hello"};
  c.env = {{"PATH", Path("bin") + ":/usr/bin:/bin"}};
  auto r = host_.Run(c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, "hello\n");
}

TEST_F(LocalHostTest, CwdHonoured) {
  Command c;
  c.argv = {"pwd", "-P"};
  c.cwd = dir_;
  auto r = host_.Run(c);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, fs::canonical(dir_).string() + "\n");
}

TEST_F(LocalHostTest, MissingCwdIsAnError) {
  Command c;
  c.argv = {"true"};
  c.cwd = Path("no/such/dir");
  auto r = host_.Run(c);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(Path("no/such/dir")));
}

TEST_F(LocalHostTest, MissingBinaryIsAnErrorNamingIt) {
  Command c;
  c.argv = {"fvbench-no-such-binary", "x"};
  auto r = host_.Run(c);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("fvbench-no-such-binary"));
  EXPECT_THAT(r.error().message, HasSubstr("No such file or directory"));
  EXPECT_THAT(r.error().message, HasSubstr("local"));

  c.argv = {Path("nope")};
  auto abs = host_.Run(c);
  ASSERT_FALSE(abs.ok());
  EXPECT_THAT(abs.error().message, HasSubstr(Path("nope")));
  EXPECT_THAT(abs.error().message, HasSubstr("No such file or directory"));

  c.argv = {};
  EXPECT_FALSE(host_.Run(c).ok());
}

TEST_F(LocalHostTest, ManyRunsLeakNoDescriptors) {
  auto count_fds = [] {
    return std::distance(fs::directory_iterator("/proc/self/fd"), fs::directory_iterator{});
  };
  (void)Run({"true"});
  auto before = count_fds();
  for (int i = 0; i < 50; ++i) (void)Run({"true"});
  (void)Run({"sleep", "5"}, milliseconds(50));
  EXPECT_EQ(count_fds(), before);
}

// --- files ---

TEST_F(LocalHostTest, WriteReadRoundTripWithModeAndParents) {
  std::string content("bin\0ary\nline\n", 13);
  std::string p = Path("x/y/z/file.conf");
  ASSERT_TRUE(host_.WriteFile(p, content, 0600).ok());
  auto back = host_.ReadFile(p, kTestCap);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, content);
  struct stat st;
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  // Overwrite keeps no temp files behind.
  ASSERT_TRUE(host_.WriteFile(p, "second", 0644).ok());
  EXPECT_EQ(*host_.ReadFile(p, kTestCap), "second");
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  int entries = 0;
  for (auto& e : fs::directory_iterator(Path("x/y/z"))) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
}

TEST_F(LocalHostTest, UnwritablePathIsAnErrorNamingIt) {
  auto r = host_.WriteFile("/proc/fvbench-test/file", "x");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("/proc/fvbench-test"));
  auto r2 = host_.WriteFile("/proc/fvbench-test-file", "x");
  ASSERT_FALSE(r2.ok());
  EXPECT_THAT(r2.error().message, HasSubstr("/proc/fvbench-test-file"));
}

TEST_F(LocalHostTest, ReadMissingFileIsAnErrorNamingIt) {
  auto r = host_.ReadFile(Path("missing.txt"), kTestCap);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(Path("missing.txt")));
  EXPECT_THAT(r.error().message, HasSubstr("No such file or directory"));
}

TEST_F(LocalHostTest, FetchCopiesIntoNewDirectories) {
  std::string src = Path("remote/out.json");
  ASSERT_TRUE(host_.WriteFile(src, "{\"k\": 1}\n", 0640).ok());
  std::string dst = Path("results/run1/out.json");
  auto r = host_.Fetch(src, dst, kTestCap);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Slurp(dst), "{\"k\": 1}\n");
  struct stat st;
  ASSERT_EQ(::stat(dst.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);  // the controller's own mode (umask 022), not the source's 0640
  // Same path: no-op success, content untouched.
  ASSERT_TRUE(host_.Fetch(src, src, kTestCap).ok());
  EXPECT_EQ(Slurp(src), "{\"k\": 1}\n");
  auto missing = host_.Fetch(Path("nope.json"), Path("copy.json"), kTestCap);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr(Path("nope.json")));
  EXPECT_FALSE(fs::exists(Path("copy.json")));
}

// What a host sends back (host.h), on this machine's own host: a result
// left setuid, one padded to 1 GiB, links and special files in its place.

// A result left setuid and world-writable arrives with the
// controller's own mode.
TEST_F(LocalHostTest, FetchedCopyHasTheControllersModeNotTheSources) {
  const std::string src = Path("lg/r.json"), dst = Path("ctl/raw/r.json");
  ASSERT_TRUE(host_.WriteFile(src, "{}\n", 0644).ok());
  ASSERT_EQ(::chmod(src.c_str(), 04777), 0);
  auto r = host_.Fetch(src, dst, kTestCap);
  ASSERT_TRUE(r.ok()) << r.error().message;
  struct stat st;
  ASSERT_EQ(::lstat(dst.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);  // umask 022
  EXPECT_EQ(Slurp(dst), "{}\n");
  // Overwriting an earlier copy: the same, and no temporary file left beside it.
  ASSERT_TRUE(host_.Fetch(src, dst, kTestCap).ok());
  EXPECT_EQ(std::distance(fs::directory_iterator(Path("ctl/raw")), fs::directory_iterator{}), 1);
}

// A link, a directory, a FIFO or a second name (hard link) where a result
// belongs is refused, nothing stored, and a FIFO never blocks the fetch.
TEST_F(LocalHostTest, FetchAndReadRefuseLinksSpecialFilesAndHardLinks) {
  const std::string secret = Path("secret");
  ASSERT_TRUE(host_.WriteFile(secret, "precious\n", 0600).ok());
  ASSERT_EQ(::symlink(secret.c_str(), Path("link.json").c_str()), 0);
  ASSERT_EQ(::mkfifo(Path("fifo.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkdir(Path("dir.json").c_str(), 0700), 0);
  ASSERT_EQ(::link(secret.c_str(), Path("hard.json").c_str()), 0);
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& [name, why] : {std::pair{"link.json", "a symbolic link: refused, not followed"},
                                  std::pair{"fifo.json", "a FIFO, not a regular file"},
                                  std::pair{"dir.json", "a directory, not a regular file"},
                                  std::pair{"hard.json", "it has 2 names (a hard link): refused"}}) {
    auto f = host_.Fetch(Path(name), Path("copy.json"), kTestCap);
    ASSERT_FALSE(f.ok()) << name;
    EXPECT_THAT(f.error().message, HasSubstr(Path(name))) << name;
    EXPECT_THAT(f.error().message, HasSubstr(why)) << name;
    EXPECT_THAT(f.error().message, HasSubstr("local: ")) << name;
    EXPECT_FALSE(fs::exists(fs::symlink_status(Path("copy.json")))) << name;
  }
  for (const char* name : {"link.json", "fifo.json", "dir.json"}) {
    EXPECT_FALSE(host_.ReadFile(Path(name), kTestCap).ok()) << name;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

// A result of 1 GiB (sparse here) is refused at once from its size,
// a file larger than it says (/proc states 0 bytes) on the bytes read; in
// both, nothing is kept.
TEST_F(LocalHostTest, OverItsCapIsRefusedQuicklyAndNotStored) {
  const std::string huge = Path("lg/huge.json");
  ASSERT_TRUE(host_.WriteFile(huge, "{\"schema\":\"fvbench.wrk.pace/1\"}\n", 0644).ok());
  ASSERT_EQ(::truncate(huge.c_str(), 1LL << 30), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto f = host_.Fetch(huge, Path("ctl/huge.json"), kWrkResultCap);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message, HasSubstr("local: " + huge + " (wrk result JSON) is over its cap of 2097152 bytes: "
                                           "it holds 1073741824 bytes; refused, not kept"));
  EXPECT_FALSE(fs::exists(Path("ctl/huge.json")));
  EXPECT_FALSE(host_.ReadFile(huge, kWrkResultCap).ok());
  const FileCap tiny{"test file", 64};
  auto proc = host_.ReadFile("/proc/self/status", tiny);
  ASSERT_FALSE(proc.ok());
  EXPECT_THAT(proc.error().message, HasSubstr("(test file) is over its cap of 64 bytes: read "));
  auto copy = host_.Fetch("/proc/self/status", Path("ctl/status"), tiny);
  ASSERT_FALSE(copy.ok());
  EXPECT_FALSE(fs::exists(Path("ctl/status")));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(Path("ctl"), ec)) ADD_FAILURE() << "left behind: " << e.path();
}

// The controller's side: a link put where the copy goes is refused, never
// written through; a destination with ".." is refused.
TEST_F(LocalHostTest, FetchNeverWritesThroughALocalLink) {
  const std::string victim = Path("victim");
  ASSERT_TRUE(host_.WriteFile(victim, "precious\n", 0600).ok());
  ASSERT_TRUE(host_.WriteFile(Path("lg/r.json"), "{}\n", 0644).ok());
  ASSERT_TRUE(fs::create_directories(Path("ctl")));
  ASSERT_EQ(::symlink(victim.c_str(), Path("ctl/r.json").c_str()), 0);
  auto f = host_.Fetch(Path("lg/r.json"), Path("ctl/r.json"), kTestCap);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message, HasSubstr("local copy " + Path("ctl/r.json") + ": a symbolic link is in the way"));
  EXPECT_EQ(Slurp(victim), "precious\n");
  auto up = host_.Fetch(Path("lg/r.json"), Path("ctl/../victim"), kTestCap);
  ASSERT_FALSE(up.ok());
  EXPECT_THAT(up.error().message, HasSubstr("'..'"));
  EXPECT_EQ(Slurp(victim), "precious\n");
}

// --- services ---

TEST_F(LocalHostTest, ServiceLifecycle) {
  Command c;
  c.argv = {"sh", "-c",
            "echo out-line; echo \"$SVC_VAR\" >&2; pwd -P >&2; sleep 30 & echo $! > child.pid; wait"};
  c.env = {{"SVC_VAR", "err-line"}};
  c.cwd = dir_;
  auto h = host_.StartService("sleeper", c, Path("logs/out.log"), Path("logs/err.log"));
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->name, "sleeper");
  EXPECT_GT(h->pid, 1);
  EXPECT_EQ(::getsid(h->pid), h->pid) << "service is not in its own session";
  EXPECT_EQ(::getpgid(h->pid), h->pid);
  EXPECT_TRUE(host_.IsAlive(*h));
  ASSERT_TRUE(Eventually([&] { return Slurp(Path("child.pid")).find('\n') != std::string::npos; }));
  int child = std::atoi(Slurp(Path("child.pid")).c_str());
  ASSERT_GT(child, 1);
  ASSERT_TRUE(Eventually([&] { return Slurp(Path("logs/err.log")).find('\n', 9) != std::string::npos; }));
  EXPECT_EQ(Slurp(Path("logs/out.log")), "out-line\n");
  EXPECT_EQ(Slurp(Path("logs/err.log")), "err-line\n" + fs::canonical(dir_).string() + "\n");

  auto stop = host_.StopService(*h, milliseconds(5000));
  ASSERT_TRUE(stop.ok()) << stop.error().message;
  EXPECT_FALSE(host_.IsAlive(*h));
  EXPECT_TRUE(Dead(h->pid));
  EXPECT_TRUE(Dead(child)) << "the service's child survived StopService";
  EXPECT_TRUE(host_.StopService(*h).ok()) << "second stop must succeed";
  if (!Dead(child)) ::kill(child, SIGKILL);
}

TEST_F(LocalHostTest, ServiceIgnoringTermIsKilledAfterGrace) {
  Command c;
  c.argv = {"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 1; done"};
  auto h = host_.StartService("stubborn", c, Path("s.out"), Path("s.err"));
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_TRUE(Eventually([&] { return Slurp(Path("s.out")) == "ready\n"; }));
  auto stop = host_.StopService(*h, milliseconds(300));
  ASSERT_TRUE(stop.ok()) << stop.error().message;
  EXPECT_FALSE(host_.IsAlive(*h));
  EXPECT_TRUE(Dead(h->pid));
}

TEST_F(LocalHostTest, ServiceThatExitedIsReapedAndStopSucceeds) {
  Command c;
  c.argv = {"sh", "-c", "echo bye"};
  auto h = host_.StartService("short", c, Path("short.out"), Path("short.out"));
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_TRUE(Eventually([&] { return !host_.IsAlive(*h); }));
  // Reaped by IsAlive: no zombie left in /proc.
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(h->pid)));
  EXPECT_EQ(Slurp(Path("short.out")), "bye\n");
  EXPECT_TRUE(host_.StopService(*h).ok());
}

TEST_F(LocalHostTest, ServiceLogsAppend) {
  Command c;
  c.argv = {"sh", "-c", "echo run"};
  for (int i = 0; i < 2; ++i) {
    auto h = host_.StartService("twice", c, Path("append.log"), Path("append.err"));
    ASSERT_TRUE(h.ok()) << h.error().message;
    ASSERT_TRUE(Eventually([&] { return !host_.IsAlive(*h); }));
  }
  EXPECT_EQ(Slurp(Path("append.log")), "run\nrun\n");
}

TEST_F(LocalHostTest, ServiceWithMissingBinaryIsAnError) {
  Command c;
  c.argv = {"fvbench-no-such-daemon"};
  auto h = host_.StartService("ghost", c, Path("g.out"), Path("g.err"));
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr("fvbench-no-such-daemon"));
  EXPECT_THAT(h.error().message, HasSubstr("ghost"));
}

TEST_F(LocalHostTest, StopRefusesPidsItDidNotStart) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::pause();
    ::_exit(0);
  }
  ServiceHandle foreign;
  foreign.pid = pid;
  foreign.name = "foreign";
  auto r = host_.StopService(foreign, milliseconds(100));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("not started by this host"));
  EXPECT_THAT(r.error().message, HasSubstr(std::to_string(pid)));
  EXPECT_EQ(::kill(pid, 0), 0) << "the foreign process was signalled";
  EXPECT_TRUE(host_.IsAlive(foreign));
  ::kill(pid, SIGKILL);
  int status;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));

  ServiceHandle init;
  init.pid = 1;
  EXPECT_FALSE(host_.StopService(init).ok());
  init.pid = 0;
  EXPECT_FALSE(host_.StopService(init).ok());
  init.pid = -5;
  EXPECT_FALSE(host_.StopService(init).ok());
}

}  // namespace
}  // namespace fvbench::local_host_test
