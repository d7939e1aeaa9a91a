// Faults on the real local stack: real nginx, real wrk,
// the real scenario binary (tests/scenarios: fvbench_scenarios) run as a
// child process with the self-test preset's settings on this file's own ports
// (18100-18149; the listen-queue tests 18400-18449) and BENCH_DIRs
// (/tmp/fvb-faults-<test>).
//
// Each test starts `fvbench_scenarios --gtest_filter=latency.raw_nginx`
// (raw nginx: no fairvisor edge needed), waits until its wrk is running (the
// load phase has begun: a wrk process whose URL names this test's port),
// injects one fault about 3 s into the phase and checks:
//   - the scenario process ends within a bound, non-zero, with a clear
//     message (printed to the console for the fault table in docs/faults.md);
//   - nothing of the suite is left: no process whose command line names the
//     BENCH_DIR (nginx -p BENCH_DIR/run/..., wrk -s BENCH_DIR/scripts/...),
//     no wrk against the port, no listening socket on this test's ports
//     (/proc/net/tcp, tcp6), no mount under /tmp/fvb-faults-;
//   - what an earlier run measured is still there, byte for byte;
//   - the next scenario in the same BENCH_DIR starts clean and passes.
//
// Needs root (mounts, nginx, reading every /proc/<pid>/cmdline), nginx and
// wrk; skips with the reason otherwise. The mounts are made in a private
// mount namespace of this test process (unshare(CLONE_NEWNS) in main, before
// any thread), so they can never outlive it, and are unmounted in each
// test's teardown too.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kScenario[] = "latency.raw_nginx";
constexpr char kDirPrefix[] = "/tmp/fvb-faults-";

std::string g_skip_reason;  // set in main(): why the fault tests cannot run here
bool g_private_mounts = false;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

bool OnPath(const std::string& prog) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (::access((dir + "/" + prog).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// ---- what is running ---------------------------------------------------------

struct Proc {
  int pid = 0;
  char state = '?';
  std::string comm;
  std::string cmdline;  // NULs as spaces
};

std::vector<Proc> Processes() {
  std::vector<Proc> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    Proc p;
    p.pid = std::atoi(e->d_name);
    std::string stat = ReadFile(std::string("/proc/") + e->d_name + "/stat");
    auto open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close + 2 >= stat.size()) continue;
    p.comm = stat.substr(open + 1, close - open - 1);
    p.state = stat[close + 2];
    p.cmdline = ReadFile(std::string("/proc/") + e->d_name + "/cmdline");
    for (char& c : p.cmdline) {
      if (c == '\0') c = ' ';
    }
    out.push_back(std::move(p));
  }
  ::closedir(d);
  return out;
}

bool Alive(int pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  auto close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z' &&
         stat[close + 2] != 'X';
}

// Live wrk processes sending to 127.0.0.1:<port>.
std::vector<int> WrkPids(int port) {
  std::vector<int> pids;
  const std::string url = "127.0.0.1:" + std::to_string(port) + "/";
  for (const Proc& p : Processes()) {
    if (p.comm == "wrk" && p.state != 'Z' && Has(p.cmdline, url)) pids.push_back(p.pid);
  }
  return pids;
}

// TCP ports in LISTEN state (/proc/net/tcp and tcp6: state 0A).
std::set<int> ListeningPorts() {
  std::set<int> ports;
  for (const char* f : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(ReadFile(f));
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string sl, local, remote, state;
      ls >> sl >> local >> remote >> state;
      auto colon = local.rfind(':');
      if (state != "0A" || colon == std::string::npos) continue;
      ports.insert(static_cast<int>(std::strtol(local.c_str() + colon + 1, nullptr, 16)));
    }
  }
  return ports;
}

// Mount points under /tmp/fvb-faults- in a mountinfo file.
std::vector<std::string> FaultMounts(const std::string& mountinfo) {
  std::vector<std::string> out;
  std::istringstream in(ReadFile(mountinfo));
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::string id, parent, dev, root, point;
    ls >> id >> parent >> dev >> root >> point;
    if (point.rfind(kDirPrefix, 0) == 0) out.push_back(point);
  }
  return out;
}

// Everything of the suite still there for this BENCH_DIR and these ports:
// "" when nothing, else one line per leftover.
std::string Leftovers(const std::string& bench_dir, const std::vector<int>& ports) {
  std::string out;
  const int self = ::getpid();
  for (const Proc& p : Processes()) {
    if (p.pid == self || p.state == 'Z') continue;
    bool ours = Has(p.cmdline, bench_dir + "/");
    for (int port : ports) ours = ours || (p.comm == "wrk" && Has(p.cmdline, ":" + std::to_string(port) + "/"));
    if (ours) out += "process " + std::to_string(p.pid) + " (" + p.comm + "): " + p.cmdline + "\n";
  }
  std::set<int> listening = ListeningPorts();
  for (int port : ports) {
    if (listening.count(port)) out += "a socket listens on port " + std::to_string(port) + "\n";
  }
  for (const std::string& m : FaultMounts("/proc/self/mountinfo")) out += "mount " + m + "\n";
  for (const std::string& m : FaultMounts("/proc/1/mountinfo")) out += "mount (host namespace) " + m + "\n";
  return out;
}

// Waits up to `limit` for Leftovers() to become empty; returns the last list.
std::string LeftoversAfter(const std::string& bench_dir, const std::vector<int>& ports, milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (true) {
    std::string l = Leftovers(bench_dir, ports);
    if (l.empty() || Clock::now() >= until) return l;
    std::this_thread::sleep_for(milliseconds(100));
  }
}

// ---- the scenario process ------------------------------------------------------

// Settings of the `selftest` test preset (CTestPresets.json), with this
// test's ports and BENCH_DIR. QUIET_TIMEOUT=0: on a shared 2-core box the
// quiet-SUT wait could take its full 30 s before each phase, and these tests
// are about what happens after the phase began.
std::map<std::string, std::string> ScenarioEnv(const std::string& bench_dir, int nginx_port, int latency_dur) {
  return {
      {"LOADGEN_ENGINE", "wrk"},
      {"LATENCY_RPS", "500"},
      {"LATENCY_DUR", std::to_string(latency_dur)},
      {"WARMUP_DUR", "0"},
      {"THROUGHPUT_SEARCH_MAX", "800"},
      {"STEP_DUR", "3"},
      {"NGINX_PORT", std::to_string(nginx_port)},
      {"BACKEND_PORT", std::to_string(nginx_port + 1)},
      {"FV_PORT", std::to_string(nginx_port + 2)},
      {"FAIRVISOR_WORKER_PROCESSES", "1"},
      {"BENCH_DIR", bench_dir},
      {"FVBENCH_THRESHOLDS", FVBENCH_SOURCE_DIR "/thresholds/ci-small.json"},
      {"FVBENCH_REFERENCE", FVBENCH_SOURCE_DIR "/reference.json"},
      {"FVBENCH_EDGE_OPTIONAL", "1"},
      {"VALIDITY", "warn"},
      {"QUIET_TIMEOUT", "0"},
  };
}

// Variables of the caller's environment that would change what the scenario
// does (.ci/run exports the remote ones for the remote self-test).
const char* const kClearedVars[] = {
    "FAIRVISOR_REMOTE", "LOADGEN_REMOTE", "FAIRVISOR_TARGET_HOST", "SSH_OPTS",  "FVBENCH_MODE",
    "DRY_RUN",          "FV_LISTEN_ADDR", "REPEAT",                "K6_CPUSET", "ORESTY_CPUSET",
    "GTEST_OUTPUT",     "GTEST_FILTER",   "FAIRVISOR_EDGE_SRC",    "FAIRVISOR_EDGE_REF"};

class ScenarioProcess {
 public:
  ScenarioProcess(const std::map<std::string, std::string>& env, const std::string& log_path,
                  const std::string& scenario = kScenario)
      : log_path_(log_path) {
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
      std::string kv = *e;
      std::string k = kv.substr(0, kv.find('='));
      bool drop = env.count(k) > 0;
      for (const char* c : kClearedVars) drop = drop || k == c;
      if (!drop) envs.push_back(kv);
    }
    for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& s : envs) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string bin = FVBENCH_SCENARIOS_BIN;
    std::string filter = "--gtest_filter=" + scenario;
    char* argv[] = {bin.data(), filter.data(), nullptr};
    const pid_t parent = ::getpid();
    started_ = Clock::now();
    pid_ = ::fork();
    if (pid_ == 0) {
      // A killed test run takes its scenario along (which then stops its own).
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
      int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd >= 0) {
        ::dup2(fd, 1);
        ::dup2(fd, 2);
      }
      int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, 0);
      ::execve(argv[0], argv, envp.data());
      ::_exit(127);
    }
  }
  ~ScenarioProcess() {
    if (pid_ > 0 && !done_) {
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
  }

  pid_t pid() const { return pid_; }
  std::string log() const { return ReadFile(log_path_); }

  // Waits up to `limit` for the process to end; false on timeout.
  bool Wait(Clock::duration limit) {
    const auto until = Clock::now() + limit;
    while (!done_) {
      int st = 0;
      pid_t w = ::waitpid(pid_, &st, WNOHANG);
      if (w == pid_) {
        done_ = true;
        status_ = st;
        ended_ = Clock::now();
        break;
      }
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return true;
  }
  // Exit code, or 128 + signal.
  int ExitCode() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_); }
  bool Signaled() const { return WIFSIGNALED(status_); }
  Clock::time_point ended() const { return ended_; }

  // Waits up to `limit` for this scenario's wrk to run against `port`; the
  // time it was first seen, or nullopt.
  std::optional<Clock::time_point> WaitForLoad(int port, Clock::duration limit) {
    const auto until = Clock::now() + limit;
    while (Clock::now() < until) {
      if (!WrkPids(port).empty()) return Clock::now();
      int st;
      if (!done_ && ::waitpid(pid_, &st, WNOHANG) == pid_) {
        done_ = true;
        status_ = st;
        ended_ = Clock::now();
      }
      if (done_) return std::nullopt;
      std::this_thread::sleep_for(milliseconds(50));
    }
    return std::nullopt;
  }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = 0;
  Clock::time_point started_, ended_;
};

// The first line of the scenario's own account of the failure: gtest's
// failure message ("<file>:<line>: Failure" is followed by it), else the
// interrupt line.
std::string FailureLine(const std::string& log) {
  std::istringstream in(log);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // The scenario's own error (RunScenarioTest: "<scenario>: <error>").
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i - 1] == "Failed" && lines[i].rfind(std::string(kScenario) + ": ", 0) == 0) return lines[i];
  }
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!Has(lines[i], ": Failure")) continue;
    if (lines[i + 1] == "Failed" && i + 2 < lines.size()) return lines[i + 2];  // FAIL() << message
    return lines[i + 1];
  }
  for (const std::string& l : lines) {
    if (Has(l, "fvbench: interrupted")) return l;
  }
  return "(no failure line in the log)";
}

nlohmann::json ResultJson(const std::string& bench_dir) {
  std::string text = ReadFile(bench_dir + "/controller-results/" + kScenario + ".json");
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("scenario") ? j["scenario"] : j;  // results_io.h: {"scenario": ...}
}

// One row of the fault table (docs/faults.md "Faults and bounded time").
void Report(const std::string& fault, const std::string& injected, double seconds, const std::string& message,
            const std::string& leftovers) {
  std::printf("FAULT | %s | %s | %.1f s | %s | %s\n", fault.c_str(), injected.c_str(), seconds,
              message.c_str(), leftovers.empty() ? "none" : leftovers.c_str());
  ::testing::Test::RecordProperty("fault", fault + ": " + message);
  std::fflush(stdout);
}

// ---- the fixture -----------------------------------------------------------------

class Faults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!g_skip_reason.empty()) GTEST_SKIP() << g_skip_reason;
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    // Each test its own 3 ports (NGINX_PORT, BACKEND_PORT, FV_PORT) in
    // first_port_ .. first_port_ + 47.
    port_ = first_port_ + 3 * static_cast<int>(std::hash<std::string>{}(name) % 16);
    bench_dir_ = kDirPrefix + name;
    log_ = bench_dir_ + ".log";
    Unmount();
    std::error_code ec;
    fs::remove_all(bench_dir_, ec);
    fs::create_directories(bench_dir_, ec);
    ASSERT_FALSE(ec) << bench_dir_ << ": " << ec.message();
    ASSERT_EQ(Leftovers(bench_dir_, ports()), "") << "not clean before the test";
  }

  void TearDown() override {
    if (bench_dir_.empty()) return;
    Unmount();
    // Nothing may remain: stop what does (by its BENCH_DIR command line, which
    // only this test's runs use), so a failing test does not poison the next.
    std::string left = Leftovers(bench_dir_, ports());
    if (!left.empty()) {
      for (const Proc& p : Processes()) {
        if (p.pid != ::getpid() && Has(p.cmdline, bench_dir_ + "/")) ::kill(p.pid, SIGKILL);
      }
      for (int pid : WrkPids(port_)) ::kill(pid, SIGKILL);
    }
    if (!::testing::Test::HasFailure()) {
      std::error_code ec;
      fs::remove_all(bench_dir_, ec);
      fs::remove(log_, ec);
      fs::remove(log_ + ".clean", ec);
    }
  }

  std::vector<int> ports() const { return {port_, port_ + 1, port_ + 2}; }
  std::map<std::string, std::string> Env(int latency_dur) const {
    return ScenarioEnv(bench_dir_, port_, latency_dur);
  }

  // A complete short run that must pass; returns its result file's bytes.
  std::string RunClean(const std::string& why, std::string* log = nullptr) {
    ScenarioProcess p(Env(2), log_ + ".clean");
    EXPECT_TRUE(p.Wait(seconds(90))) << why << ": the scenario did not end within 90 s";
    std::string text = p.log();
    if (log) *log = text;
    EXPECT_EQ(p.ExitCode(), 0) << why << ": the scenario failed:\n" << text;
    return ReadFile(bench_dir_ + "/controller-results/" + kScenario + ".json");
  }

  // Mounts made by a test: unmounted in TearDown (lazily when busy).
  void Mount(const std::string& what) { mounts_.push_back(what); }
  void Unmount() {
    for (auto it = mounts_.rbegin(); it != mounts_.rend(); ++it) {
      if (::umount2(it->c_str(), 0) != 0) ::umount2(it->c_str(), MNT_DETACH);
    }
    mounts_.clear();
    for (const std::string& m : FaultMounts("/proc/self/mountinfo")) {
      if (m == bench_dir_ || m.rfind(bench_dir_ + "/", 0) == 0) ::umount2(m.c_str(), MNT_DETACH);
    }
  }

  int first_port_ = 18100;  // ListenBacklog's tests: 18400
  int port_ = 0;
  std::string bench_dir_;
  std::string log_;
  std::vector<std::string> mounts_;
};

// Starts the scenario with a 20 s phase, waits for its load, injects `fault`
// 3 s into it; returns the time of the injection (the process is in *p).
Clock::time_point StartAndInject(ScenarioProcess& p, int port, const std::function<void()>& fault) {
  auto load = p.WaitForLoad(port, seconds(60));
  if (!load) {
    ADD_FAILURE() << "the load phase never started (no wrk against port " << port << "):\n" << p.log();
    return Clock::now();
  }
  std::this_thread::sleep_for(seconds(3));
  const auto at = Clock::now();
  fault();
  return at;
}

// ---- 1. interrupts ----------------------------------------------------------------

void InterruptTest(Faults& t, int sig, const std::string& bench_dir, int port, const std::vector<int>& ports,
                   const std::map<std::string, std::string>& env, const std::string& log) {
  ScenarioProcess p(env, log);
  auto at = StartAndInject(p, port, [&] { ::kill(p.pid(), sig); });
  if (::testing::Test::HasFailure()) return;
  ASSERT_TRUE(p.Wait(seconds(10))) << "still running 10 s after " << strsignal(sig) << ":\n" << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  EXPECT_EQ(p.ExitCode(), 128 + sig) << p.log();
  auto j = ResultJson(bench_dir);
  ASSERT_TRUE(j.is_object()) << "no result file after the interrupt";
  EXPECT_TRUE(Has(j.value("error", ""), "interrupted by signal " + std::to_string(sig))) << j.dump();
  std::string left = LeftoversAfter(bench_dir, ports, seconds(2));
  EXPECT_EQ(left, "");
  Report(std::string(sig == SIGINT ? "SIGINT (Ctrl-C)" : "SIGTERM (ctest / CI cancel)") + " mid-load",
         std::string("kill -") + (sig == SIGINT ? "INT" : "TERM") + " <scenario pid> 3 s into the phase", took,
         FailureLine(p.log()) + " / result: " + FirstLine(j.value("error", "")), left);
  (void)t;
}

TEST_F(Faults, SigintMidLoadStopsEverythingAndSavesAnInterruptedResult) {
  InterruptTest(*this, SIGINT, bench_dir_, port_, ports(), Env(20), log_);
}

TEST_F(Faults, SigtermMidLoadStopsEverythingAndSavesAnInterruptedResult) {
  InterruptTest(*this, SIGTERM, bench_dir_, port_, ports(), Env(20), log_);
}

// A ctest TIMEOUT kills the test process with SIGKILL (CMake 3.25; no
// TIMEOUT_SIGNAL_NAME before 3.27): nothing in-process runs. wrk dies with
// its parent (PR_SET_PDEATHSIG in LocalHost::Run); the detached nginx is left
// and stopped by the next scenario's start (pid file + our config path +
// dead owner), which then passes.
TEST_F(Faults, SigkillMidLoadTakesWrkAlongAndTheNextRunStopsTheLeftoverNginx) {
  std::vector<int> wrk;
  {
    ScenarioProcess p(Env(20), log_);
    auto at = StartAndInject(p, port_, [&] {
      wrk = WrkPids(port_);
      ::kill(p.pid(), SIGKILL);
    });
    if (HasFailure()) return;
    ASSERT_TRUE(p.Wait(seconds(5)));
    ASSERT_FALSE(wrk.empty());
    bool gone = false;
    while (!gone && SecondsSince(at) < 2.0) {
      gone = WrkPids(port_).empty();
      if (!gone) std::this_thread::sleep_for(milliseconds(20));
    }
    const double wrk_gone = SecondsSince(at);
    EXPECT_TRUE(gone) << "wrk (pid " << wrk.front() << ") still loads port " << port_
                      << " 2 s after its scenario process was SIGKILLed";
    std::string left = Leftovers(bench_dir_, ports());
    EXPECT_TRUE(Has(left, "/run/baseline/")) << "expected the detached nginx to be left: " << left;
    Report("SIGKILL mid-load (ctest TIMEOUT)", "kill -KILL <scenario pid> 3 s into the phase", wrk_gone,
           "(no message possible) wrk gone " + std::to_string(static_cast<int>(wrk_gone * 1000)) +
               " ms after the kill",
           "nginx left until the next run");
  }
  std::string log;
  const auto t0 = Clock::now();
  std::string result = RunClean("the next run after a SIGKILL", &log);
  const double next = SecondsSince(t0);
  EXPECT_TRUE(Has(result, "stopped a leftover of an earlier, interrupted run: baseline pid")) << result;
  std::string left = LeftoversAfter(bench_dir_, ports(), seconds(2));
  EXPECT_EQ(left, "");
  Report("next run after the SIGKILL", "same BENCH_DIR and ports", next,
         "passes; note: stopped a leftover of an earlier, interrupted run: baseline pid N", left);
}

// ---- 2. faults mid-phase ----------------------------------------------------------

std::vector<int> NginxPids(const std::string& bench_dir, const std::string& service) {
  std::vector<int> pids;
  const std::string conf = bench_dir + "/run/" + service + "/conf/nginx.conf";
  const std::string master = ReadFile(bench_dir + "/run/" + service + "/logs/nginx.pid");
  const int mpid = std::atoi(master.c_str());
  if (mpid <= 1 || !Has(ReadFile("/proc/" + std::to_string(mpid) + "/cmdline"), conf)) return pids;
  pids.push_back(mpid);
  for (const Proc& p : Processes()) {  // workers: children of the master
    std::string stat = ReadFile("/proc/" + std::to_string(p.pid) + "/stat");
    auto close = stat.rfind(')');
    int ppid = 0;
    if (close != std::string::npos) std::sscanf(stat.c_str() + close + 2, "%*c %d", &ppid);
    if (ppid == mpid) pids.push_back(p.pid);
  }
  return pids;
}

TEST_F(Faults, SutNginxKilledMidPhaseFailsTheScenarioAndKeepsEarlierResults) {
  const std::string earlier = RunClean("the earlier run");
  ASSERT_FALSE(earlier.empty());
  ScenarioProcess p(Env(8), log_);
  std::vector<int> killed;
  auto at = StartAndInject(p, port_, [&] {
    killed = NginxPids(bench_dir_, "baseline");
    for (int pid : killed) ::kill(pid, SIGKILL);
  });
  if (HasFailure()) return;
  ASSERT_GE(killed.size(), 2u) << "master + worker expected (pid file " << bench_dir_ << "/run/baseline/logs/nginx.pid)";
  ASSERT_TRUE(p.Wait(seconds(20))) << "still running 20 s after its nginx was killed:\n" << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  EXPECT_NE(p.ExitCode(), 0);
  auto j = ResultJson(bench_dir_);
  ASSERT_TRUE(j.is_object()) << "no result file";
  const std::string err = j.value("error", "");
  EXPECT_TRUE(Has(err, "died during the load") || Has(err, "refused") || Has(err, "error")) << err;
  EXPECT_EQ(ReadFile(bench_dir_ + "/controller-results/previous/" + kScenario + ".json"), earlier)
      << "the earlier run's result must be kept (moved to previous/ unchanged)";
  std::string left = LeftoversAfter(bench_dir_, ports(), seconds(2));
  EXPECT_EQ(left, "");
  Report("SUT nginx dies mid-phase", "kill -KILL master + workers (by logs/nginx.pid) 3 s into an 8 s phase", took,
         FirstLine(err), left);
  RunClean("the next run after the SUT died");
}

// A worker of the SUT's nginx killed mid-phase while its master lives on
// (and starts another): the phase runs to its end, and the scenario's SUT
// timeline lists the killed worker as an exit between the monitor's reads
// around the kill (core/sut_timeline.h), and the nginx_alerts check names
// the death from error.log; the replacement worker is not watched.
TEST_F(Faults, SutWorkerKilledMidPhaseIsAnExitOnTheSutTimeline) {
  ScenarioProcess p(Env(8), log_);
  std::vector<int> workers;
  double kill_epoch_us = 0;
  StartAndInject(p, port_, [&] {
    workers = NginxPids(bench_dir_, "baseline");
    if (!workers.empty()) workers.erase(workers.begin());  // the master stays
    kill_epoch_us =
        std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (int pid : workers) ::kill(pid, SIGKILL);
  });
  if (HasFailure()) return;
  ASSERT_GE(workers.size(), 1u) << "no worker under the master (" << bench_dir_ << "/run/baseline/logs/nginx.pid)";
  ASSERT_TRUE(p.Wait(seconds(60))) << "still running 60 s after a worker was killed:\n" << p.log();
  auto j = ResultJson(bench_dir_);
  ASSERT_TRUE(j.is_object()) << "no result file";
  const nlohmann::json exits = j.value("sut_timeline", nlohmann::json::object()).value("exits", nlohmann::json::array());
  std::string seen;
  for (int pid : workers) {
    bool found = false;
    for (const auto& e : exits) {
      if (e.value("service", "") != "baseline" || e.value("pid", 0) != pid) continue;
      found = true;
      const double last = e.value("last_seen_epoch_us", 0.0);
      const double gone = e.value("gone_epoch_us", 0.0);
      // The reads' times are their middles: a read in flight at the kill may
      // still hold the pid (a zombie until the master reaps it).
      EXPECT_LT(last, kill_epoch_us + 100e3) << e.dump();
      EXPECT_GT(gone, kill_epoch_us - 100e3) << e.dump();
      EXPECT_LT(gone - kill_epoch_us, 1.5e6) << "gone more than 1.5 s after the kill: " << e.dump();
      char line[160];
      std::snprintf(line, sizeof line, "pid %d gone %.0f ms after the kill (last seen %.0f ms before it); ", pid,
                    (gone - kill_epoch_us) / 1e3, (kill_epoch_us - last) / 1e3);
      seen += line;
    }
    EXPECT_TRUE(found) << "killed worker " << pid << " not among the exits: " << exits.dump();
  }
  // nginx logs the death at [alert]: the nginx_alerts check names it (VALIDITY=warn here: INVALID, not failed).
  std::string alert;
  for (const auto& v : j.value("validity", nlohmann::json::array())) {
    if (v.value("name", "") == "nginx_alerts" && Has(v.value("detail", ""), "exited on signal 9")) alert = v.dump();
  }
  EXPECT_NE(alert, "") << "the worker's death is not among nginx_alerts: " << j.value("validity", nlohmann::json::array()).dump();
  Report("SUT nginx worker dies mid-phase", "kill -KILL the workers (not the master) 3 s into an 8 s phase", 0,
         seen + "scenario exit code " + std::to_string(p.ExitCode()), "");
  RunClean("the next run after a worker died");
}

// fairvisor edge dies in the middle of a throughput search step: the step
// fails with the dead service named and the search stops there, instead of
// stepping down against a dead server until THROUGHPUT_BUDGET_S is spent.
// Needs an edge checkout (FAIRVISOR_EDGE_SRC); skipped without one (CI).
TEST_F(Faults, EdgeKilledMidSearchStepStopsTheSearch) {
  const char* edge = std::getenv("FAIRVISOR_EDGE_SRC");
  if (edge == nullptr || *edge == '\0') {
    GTEST_SKIP() << "needs fairvisor edge: set FAIRVISOR_EDGE_SRC to an edge checkout";
  }
  auto env = Env(2);
  env["FAIRVISOR_EDGE_SRC"] = edge;
  env["STEP_DUR"] = "8";
  const std::string scenario = "throughput.simple";
  ScenarioProcess p(env, log_, scenario);
  std::vector<int> killed;
  auto load = p.WaitForLoad(port_ + 2, seconds(90));  // FV_PORT
  ASSERT_TRUE(load.has_value()) << "no search step started against edge:\n" << p.log();
  std::this_thread::sleep_for(seconds(3));
  const auto at = Clock::now();
  killed = NginxPids(bench_dir_, "fv");
  for (int pid : killed) ::kill(pid, SIGKILL);
  ASSERT_GE(killed.size(), 2u) << "edge master + worker expected";
  ASSERT_TRUE(p.Wait(seconds(30))) << "still running 30 s after edge was killed:\n" << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  EXPECT_NE(p.ExitCode(), 0);
  auto j = nlohmann::json::parse(ReadFile(bench_dir_ + "/controller-results/" + scenario + ".json"), nullptr, false);
  if (j.is_object() && j.contains("scenario")) j = j["scenario"];
  ASSERT_TRUE(j.is_object()) << "no result file";
  const std::string err = j.value("error", "");
  EXPECT_TRUE(Has(err, "fv (pid ") && Has(err, "died during the load")) << err;
  EXPECT_EQ(j.value("steps", nlohmann::json::array()).size(), 1u) << "the search went on after edge died: " << j.dump();
  std::string left = LeftoversAfter(bench_dir_, ports(), seconds(2));
  EXPECT_EQ(left, "");
  Report("fairvisor edge dies mid search step", "kill -KILL edge master + workers 3 s into an 8 s step", took,
         FirstLine(err), left);
}

// BENCH_DIR becomes read-only / full mid-phase: mounts in this process's
// private mount namespace (the scenario child shares it).
class FaultsWithMounts : public Faults {
 protected:
  void SetUp() override {
    Faults::SetUp();
    if (IsSkipped() || HasFailure()) return;
    if (!g_private_mounts) GTEST_SKIP() << "no private mount namespace (unshare(CLONE_NEWNS) failed in main)";
  }
};

TEST_F(FaultsWithMounts, ReadOnlyBenchDirMidPhaseFailsNamingThePath) {
  const std::string earlier = RunClean("the earlier run");
  ASSERT_FALSE(earlier.empty());
  ScenarioProcess p(Env(8), log_);
  int rc = -1;
  auto at = StartAndInject(p, port_, [&] {
    rc = ::mount(bench_dir_.c_str(), bench_dir_.c_str(), nullptr, MS_BIND, nullptr);
    if (rc == 0) {
      Mount(bench_dir_);
      rc = ::mount(nullptr, bench_dir_.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr);
    }
  });
  if (HasFailure()) return;
  ASSERT_EQ(rc, 0) << "mount --bind -o ro " << bench_dir_ << ": " << std::strerror(errno);
  ASSERT_TRUE(p.Wait(seconds(20))) << "still running 20 s after BENCH_DIR became read-only:\n" << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  const std::string log = p.log();
  EXPECT_NE(p.ExitCode(), 0) << log;
  const std::string line = FailureLine(log);
  EXPECT_TRUE(Has(log, bench_dir_)) << "the failure must name the path:\n" << log;
  EXPECT_TRUE(Has(log, "Read-only file system")) << log;
  std::string left = LeftoversAfter(bench_dir_, ports(), seconds(2));
  // The mount itself is ours, not a leftover of the suite.
  EXPECT_TRUE(left.empty() || left == "mount " + bench_dir_ + "\n") << left;
  Unmount();
  EXPECT_EQ(ReadFile(bench_dir_ + "/controller-results/previous/" + kScenario + ".json"), earlier)
      << "the earlier run's result must be kept";
  EXPECT_EQ(Leftovers(bench_dir_, ports()), "");
  Report("BENCH_DIR read-only mid-phase", "mount --bind + remount,ro on BENCH_DIR 3 s into an 8 s phase", took, line,
         Leftovers(bench_dir_, ports()));
  RunClean("the next run, BENCH_DIR writable again");
}

TEST_F(FaultsWithMounts, FullBenchDirMidPhaseFailsNamingThePath) {
  // A 1 MiB tmpfs holds a short run (config, logs, results: ~100 kB).
  ASSERT_EQ(::mount("tmpfs", bench_dir_.c_str(), "tmpfs", 0, "size=1m,mode=0755"), 0)
      << "mount -t tmpfs " << bench_dir_ << ": " << std::strerror(errno);
  Mount(bench_dir_);
  const std::string earlier = RunClean("the earlier run");
  ASSERT_FALSE(earlier.empty());
  ScenarioProcess p(Env(8), log_);
  auto at = StartAndInject(p, port_, [&] {
    // Fill it: one file takes every free block.
    int fd = ::open((bench_dir_ + "/filler").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::string chunk(64 * 1024, 'x');
    while (fd >= 0 && ::write(fd, chunk.data(), chunk.size()) > 0) {
    }
    while (fd >= 0 && ::write(fd, chunk.data(), 1) > 0) {
    }
    if (fd >= 0) ::close(fd);
  });
  if (HasFailure()) return;
  ASSERT_TRUE(p.Wait(seconds(20))) << "still running 20 s after BENCH_DIR filled up:\n" << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  const std::string log = p.log();
  EXPECT_NE(p.ExitCode(), 0) << log;
  const std::string line = FailureLine(log);
  EXPECT_TRUE(Has(log, bench_dir_)) << "the failure must name the path:\n" << log;
  EXPECT_TRUE(Has(log, "No space left on device")) << log;
  EXPECT_EQ(ReadFile(bench_dir_ + "/controller-results/previous/" + kScenario + ".json"), earlier)
      << "the earlier run's result must be kept";
  std::string left = LeftoversAfter(bench_dir_, ports(), seconds(2));
  EXPECT_TRUE(left.empty() || left == "mount " + bench_dir_ + "\n") << left;
  Report("BENCH_DIR full mid-phase", "1 MiB tmpfs BENCH_DIR filled by a file 3 s into an 8 s phase", took, line,
         left == "mount " + bench_dir_ + "\n" ? "" : left);
  std::error_code ec;
  fs::remove(bench_dir_ + "/filler", ec);
  RunClean("the next run, space freed");
  Unmount();
  EXPECT_EQ(Leftovers(bench_dir_, ports()), "");
}

// ---- 5. a port taken by another process ------------------------------------------

TEST_F(Faults, PortTakenByAnotherProcessIsReportedAndLeftAlone) {
  int sock = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(sock, 0);
  int one = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port_));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(sock, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << std::strerror(errno);
  ASSERT_EQ(::listen(sock, 16), 0);
  // Another process owns the listener: a child holding the socket.
  pid_t holder = ::fork();
  if (holder == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::pause();
    ::_exit(0);
  }
  ::close(sock);
  ScenarioProcess p(Env(2), log_);
  const auto t0 = Clock::now();
  ASSERT_TRUE(p.Wait(seconds(60))) << p.log();
  const double took = SecondsSince(t0);
  const std::string log = p.log();
  EXPECT_NE(p.ExitCode(), 0) << log;
  EXPECT_TRUE(Has(log, "port " + std::to_string(port_) + " is already in use")) << log;
  EXPECT_TRUE(Alive(holder)) << "the suite must never stop a process it did not start";
  EXPECT_TRUE(ListeningPorts().count(port_)) << "the other process's listener is gone";
  ::kill(holder, SIGKILL);
  int st;
  ::waitpid(holder, &st, 0);
  Report("NGINX_PORT taken by another process", "a listening socket held by another process", took, FirstLine(FailureLine(log)),
         Leftovers(bench_dir_, ports()));
  EXPECT_EQ(LeftoversAfter(bench_dir_, ports(), seconds(2)), "");
}

// A predictable BENCH_DIR in /tmp: another user made BENCH_DIR first and
// keeps a link where the phase's wrk result is written (putting it back
// every 10 ms). The run is refused before any load, naming the directory and
// its owner; nothing is written through the link.
TEST_F(Faults, BenchDirMadeFirstByAnotherUserIsRefusedBeforeAnyLoad) {
  const std::string victim = bench_dir_ + ".victim";
  std::ofstream(victim) << "precious root-only data\n";
  ASSERT_EQ(::chmod(victim.c_str(), 0600), 0);
  std::error_code ec;
  fs::remove_all(bench_dir_, ec);
  // The link is put back every 10 ms (the run's `rm -f` of a stale result
  // does not get rid of it), until the stop file appears.
  const std::string stop = bench_dir_ + ".stop";
  fs::remove(stop, ec);
  const std::string link = bench_dir_ + "/results/latency_raw_nginx.json";
  ASSERT_EQ(std::system(("runuser -u nobody -- mkdir -p " + bench_dir_ + "/results").c_str()), 0);
  const std::string loop = "runuser -u nobody -- sh -c 'while [ ! -e " + stop + " ]; do ln -sfn " + victim + " " + link +
                           " 2>/dev/null; sleep 0.01; done' &";
  ASSERT_EQ(std::system(loop.c_str()), 0) << loop;
  ScenarioProcess p(Env(2), log_);
  const auto t0 = Clock::now();
  const bool ended = p.Wait(seconds(60));
  std::ofstream(stop) << "stop\n";
  std::this_thread::sleep_for(milliseconds(200));  // the loop sees it
  ASSERT_TRUE(ended) << p.log();
  const double took = SecondsSince(t0);
  const std::string log = p.log();
  EXPECT_NE(p.ExitCode(), 0) << log;
  EXPECT_TRUE(Has(log, bench_dir_ + " is owned by another user (owner nobody (uid 65534), mode 0755)")) << log;
  EXPECT_EQ(ReadFile(victim), "precious root-only data\n");
  EXPECT_FALSE(fs::exists(bench_dir_ + "/controller-results")) << "nothing may be written into it";
  Report("BENCH_DIR made first by another user", "runuser -u nobody: mkdir BENCH_DIR/results + a link to a root-only "
         "file where the wrk result goes", took, FirstLine(FailureLine(log)), Leftovers(bench_dir_, ports()));
  EXPECT_EQ(LeftoversAfter(bench_dir_, ports(), seconds(2)), "");
  fs::remove(victim, ec);
  fs::remove(stop, ec);
}

// ---- the kernel's listen queue ------------------------------------------------------

// A phase whose new connections the SUT's kernel drops at a full listen
// queue fails as invalid, naming ListenOverflows (validity.h:
// kernel_listen_drops); a normal run reads the counters and passes. Raw
// nginx with NGINX_LISTEN_BACKLOG=2 (an accept queue of 3 connections) and
// a 1 s warmup: the workers are stopped (SIGSTOP) from the moment the
// warmup's wrk exits until 1.5 s after the measured phase's wrk started, so
// all of the measured wrk's 16 connections arrive while nothing accepts: 3
// are queued, the SYNs of the others dropped (counted in ListenOverflows and
// ListenDrops, each SYN retried by the client after 1 s, then 3 s). Within
// the measured phase, whatever the scheduling: the monitor's first reading
// is taken before its wrk starts. Stopped, the workers do not answer the
// phase's stub_status read either (hop_connections says n/a; its curl gives
// up after 2 s).
class ListenBacklog : public Faults {
 protected:
  ListenBacklog() { first_port_ = 18400; }

  std::map<std::string, std::string> BacklogEnv() const {
    auto env = Env(5);
    env["WARMUP_DUR"] = "1";
    env["LOADGEN_CONNECTIONS"] = "16";
    return env;
  }
};

// The raw nginx's workers (the children of its master, from its pid file).
std::vector<int> NginxWorkers(const std::string& bench_dir) {
  const std::string master = FirstLine(ReadFile(bench_dir + "/run/baseline/logs/nginx.pid"));
  std::vector<int> out;
  if (master.empty()) return out;
  for (const Proc& p : Processes()) {
    const std::string stat = ReadFile("/proc/" + std::to_string(p.pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 2));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == master && p.state != 'Z') out.push_back(p.pid);
  }
  return out;
}

// The first line of `text` that contains `needle`; "" when none.
std::string LineWith(const std::string& text, const std::string& needle) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (Has(l, needle)) return l;
  }
  return "";
}

// The validity check `name` of a scenario result; null when absent.
nlohmann::json Check(const nlohmann::json& result, const std::string& name) {
  for (const auto& c : result.value("validity", nlohmann::json::array())) {
    if (c.value("name", "") == name) return c;
  }
  return nullptr;
}

TEST_F(ListenBacklog, ConnectionsDroppedAtAFullListenQueueFailThePhaseNamingListenOverflows) {
  auto env = BacklogEnv();
  env["NGINX_LISTEN_BACKLOG"] = "2";
  env["VALIDITY"] = "fail";
  ScenarioProcess p(env, log_);
  std::vector<int> stopped;
  struct Resume {  // whatever happens, the workers run again
    std::vector<int>& pids;
    ~Resume() {
      for (int pid : pids) ::kill(pid, SIGCONT);
    }
  } resume{stopped};
  ASSERT_TRUE(p.WaitForLoad(port_, seconds(60))) << "the warmup never started:\n" << p.log();
  while (!WrkPids(port_).empty()) std::this_thread::sleep_for(milliseconds(2));
  stopped = NginxWorkers(bench_dir_);
  ASSERT_FALSE(stopped.empty()) << "no nginx workers under " << bench_dir_ << "/run/baseline";
  const auto at = Clock::now();
  for (int pid : stopped) ::kill(pid, SIGSTOP);
  const auto measured = p.WaitForLoad(port_, seconds(30));
  ASSERT_TRUE(measured) << "the measured phase never started:\n" << p.log();
  std::this_thread::sleep_for(milliseconds(1500));
  for (int pid : stopped) ::kill(pid, SIGCONT);
  ASSERT_TRUE(p.Wait(seconds(60))) << p.log();
  const double took = std::chrono::duration<double>(p.ended() - at).count();
  const std::string log = p.log();
  EXPECT_NE(p.ExitCode(), 0) << log;
  // One failure line per failed check (the latency, the rate and the engine's
  // lag fail too: the dropped connections cost their requests 1-3 s).
  const std::string failure = LineWith(log, "validity check failed: kernel_listen_drops");
  EXPECT_TRUE(Has(failure, "host local: ListenOverflows +")) << failure << "\n" << log;
  EXPECT_TRUE(Has(failure, "raise the listen backlog")) << failure;
  auto j = ResultJson(bench_dir_);
  ASSERT_TRUE(j.is_object()) << "no result file";
  const auto drops = Check(j, "kernel_listen_drops");
  ASSERT_TRUE(drops.is_object()) << j.dump(2);
  EXPECT_FALSE(drops.value("passed", true)) << drops.dump();
  EXPECT_GE(drops.value("measured", 0.0), 1.0) << drops.dump();
  Report("SUT listen queue overflows (NGINX_LISTEN_BACKLOG=2)",
         "SIGSTOP raw nginx's workers from the warmup's end to 1.5 s into the measured phase", took, failure,
         Leftovers(bench_dir_, ports()));
  EXPECT_EQ(LeftoversAfter(bench_dir_, ports(), seconds(2)), "");
}

// The control: the same run, nothing stopped, nginx's own backlog. It passes
// with no connection dropped, and lists the counters it read on this host.
// VALIDITY=warn, as the other fault tests: on a loaded 2-core machine the
// engine's lag may fail engine_kept_up, which is not what this is about.
TEST_F(ListenBacklog, ANormalRunDropsNoConnectionAndListsTheCountersItRead) {
  ScenarioProcess p(BacklogEnv(), log_);
  ASSERT_TRUE(p.Wait(seconds(90))) << p.log();
  EXPECT_EQ(p.ExitCode(), 0) << p.log();
  auto j = ResultJson(bench_dir_);
  ASSERT_TRUE(j.is_object()) << "no result file";
  const auto drops = Check(j, "kernel_listen_drops");
  ASSERT_TRUE(drops.is_object()) << j.dump(2);
  EXPECT_TRUE(drops.value("passed", false)) << drops.dump();
  EXPECT_EQ(drops.value("measured", -1.0), 0.0) << drops.dump();
  const auto syn = Check(j, "kernel_syn_retrans");
  ASSERT_TRUE(syn.is_object()) << j.dump(2);
  EXPECT_EQ(syn.value("measured", -1.0), 0.0) << syn.dump();
  const auto listed = Check(j, "kernel_counters");
  ASSERT_TRUE(listed.is_object()) << j.dump(2);
  EXPECT_TRUE(listed.value("informational", false));
  const std::string detail = listed.value("detail", "");
  EXPECT_TRUE(Has(detail, "(SUT and load generator): ")) << detail;
  EXPECT_TRUE(Has(detail, " counters read")) << detail;
  std::printf("kernel_counters: %s\n", detail.c_str());
  EXPECT_EQ(LeftoversAfter(bench_dir_, ports(), seconds(2)), "");
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Only when running tests (listing them, for ctest's discovery, stays pure).
  bool listing = false;
  for (int i = 1; i < argc; ++i) listing = listing || std::strcmp(argv[i], "--gtest_list_tests") == 0;
  if (!listing) {
    if (::geteuid() != 0) {
      g_skip_reason = "needs root (nginx on the test ports, mounts, every /proc/<pid>/cmdline)";
    } else if (!OnPath("nginx") && !OnPath("openresty") && ::access("/usr/sbin/nginx", X_OK) != 0) {
      g_skip_reason = "nginx is not installed (support/setup-debian.sh installs it)";
    } else if (!OnPath("wrk")) {
      g_skip_reason = "wrk is not installed (support/setup-debian.sh installs it)";
    } else if (::access(FVBENCH_SCENARIOS_BIN, X_OK) != 0) {
      g_skip_reason = std::string("the scenario binary is not built: ") + FVBENCH_SCENARIOS_BIN;
    }
    // A private mount namespace, before any thread: the tests' mounts cannot
    // outlive this process or be seen outside it.
    if (g_skip_reason.empty() && ::unshare(CLONE_NEWNS) == 0 &&
        ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0) {
      g_private_mounts = true;
    }
  }
  return RUN_ALL_TESTS();
}
