// Remote-host faults on the real stack: real sshd, real
// nginx, real wrk on a second, independent set of network-namespace hosts
// (fixtures/testhosts/netns-hosts.sh with FVBENCH_TESTHOSTS_PREFIX=fvf,
// FVBENCH_TESTHOSTS_NET=10.214: fvf-sut 10.214.1.2, fvf-lg 10.214.2.2, load
// link 10.214.3.0/29), so taking a link down or stopping an sshd never
// touches the default hosts other tests use.
//
// FVBENCH_FAULT_TESTHOSTS=<state dir> (set by CTest; its fixture
// faults.RemoteHostsUp brings the set up): reuse it. Unset: this process
// brings the set up and down itself (root only; skips otherwise).
// Ports: nginx on the SUT's load address, 18200.
//
// Faults, each injected about 3 s in, each test checking a bound on the time
// to a clear failure, the message (host named), what is left afterwards in
// the namespace, and that results fetched before the fault are kept:
//   LoadLinkDown     eth-load of the loadgen namespace down during a wrk phase
//   ControlLinkDown  eth-ctl of the loadgen namespace down during a wrk phase
//   SshdStopped      the loadgen's sshd SIGSTOPped: before Connect (listener),
//                    and during a command (the session's sshd processes)
// and one that is no fault: the phase monitor reads each host's kernel
// network counters inside that host's own network namespace (/proc/net/* is
// per namespace), over its SSH connection.
// Every fault is undone in the test's teardown (link up, SIGCONT). Each test
// prints one "FAULT-TABLE |" line (fault | injected | time | first line of
// the error | leftovers) for the table in docs/faults.md.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/engine/load_engine.h"
#include "support/host/local_host.h"
#include "support/host/ssh_host.h"
#include "support/judge/kernel_counters.h"
#include "support/judge/validity.h"
#include "support/run/phase_monitor.h"
#include "fvbench/source_dir.h"

namespace fvbench {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;
namespace fs = std::filesystem;

constexpr int kNginxPort = 18200;
const char kPrefix[] = "fvf";
const char kNet[] = "10.214";

std::string FixturesDir() {
  const char* f = std::getenv("FVBENCH_FIXTURES");
  return f != nullptr && *f != '\0' ? f : FVBENCH_SOURCE_DIR "/fixtures";
}
std::string Script() { return FixturesDir() + "/testhosts/netns-hosts.sh"; }
std::map<std::string, std::string> SetEnv(const std::string& dir) {
  return {{"FVBENCH_TESTHOSTS_PREFIX", kPrefix},
          {"FVBENCH_TESTHOSTS_NET", kNet},
          {"FVBENCH_TESTHOSTS_DIR", dir}};
}

struct Hosts {
  std::string dir, sut, loadgen, target, ssh_opts;
  std::string ns(const std::string& h) const { return std::string(kPrefix) + "-" + h; }
};
std::string g_skip, g_fail;
Hosts g_hosts;
bool g_we_brought_up = false;

Result<Hosts> ReadEnv(const std::string& dir) {
  std::ifstream f(dir + "/env");
  if (!f) return Error{"cannot read " + dir + "/env (fault test hosts not up?)"};
  Hosts h;
  h.dir = dir;
  std::string line;
  while (std::getline(f, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
    if (k == "FAIRVISOR_REMOTE") h.sut = v;
    if (k == "LOADGEN_REMOTE") h.loadgen = v;
    if (k == "FAIRVISOR_TARGET_HOST") h.target = v;
    if (k == "SSH_OPTS") h.ssh_opts = v;
  }
  if (h.sut.empty() || h.loadgen.empty() || h.target.empty() || h.ssh_opts.empty())
    return Error{dir + "/env lacks FAIRVISOR_REMOTE / LOADGEN_REMOTE / FAIRVISOR_TARGET_HOST / SSH_OPTS"};
  if (h.target.rfind(std::string(kNet) + ".", 0) != 0)
    return Error{dir + "/env is not the fault-test set (" + kNet + ".*): " + h.target};
  return h;
}

Command Cmd(std::vector<std::string> argv, std::map<std::string, std::string> env = {}) {
  Command c;
  c.argv = std::move(argv);
  c.env = std::move(env);
  c.timeout = seconds(60);
  return c;
}

// A bash line on the controller; returns stdout, or "" with the failure
// recorded as a test failure.
std::string Sh(const std::string& line) {
  LocalHost local;
  auto r = local.Run(Cmd({"bash", "-c", line}));
  if (!r.ok()) {
    ADD_FAILURE() << line << ": " << r.error().message;
    return "";
  }
  if (!r->success()) ADD_FAILURE() << line << ": exit " << r->exit_code << ": " << r->err;
  return r->out;
}

class FaultHostsEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    if (::geteuid() != 0) {
      g_skip = "not root: the network-namespace test hosts need root (ip netns, sshd)";
      return;
    }
    std::string dir;
    if (const char* d = std::getenv("FVBENCH_FAULT_TESTHOSTS"); d != nullptr && *d != '\0') {
      dir = d;
    } else {
      dir = std::string("/tmp/fvbench-testhosts-") + kPrefix;
      LocalHost local;
      auto st = local.Run(Cmd({"bash", Script(), "status"}, SetEnv(dir)));
      if (!st.ok() || st->exit_code != 0) {
        auto up = local.Run(Cmd({"bash", Script(), "up"}, SetEnv(dir)));
        if (!up.ok() || !up->success()) {
          g_fail = "cannot bring up the fault test hosts: " + (up.ok() ? up->err : up.error().message);
          return;
        }
        g_we_brought_up = true;
      }
    }
    auto h = ReadEnv(dir);
    if (!h.ok()) {
      g_fail = h.error().message;
      return;
    }
    g_hosts = *h;
  }
  void TearDown() override {
    if (!g_we_brought_up) return;
    LocalHost local;
    (void)local.Run(Cmd({"bash", Script(), "down"}, SetEnv(g_hosts.dir)));
  }
};
const auto* const kEnv [[maybe_unused]] = ::testing::AddGlobalTestEnvironment(new FaultHostsEnv);

Result<std::unique_ptr<SshHost>> ConnectTo(const std::string& dest) {
  auto t = LoadSshTarget(dest, g_hosts.ssh_opts, "/dev/null");
  if (!t.ok()) return t.error();
  return SshHost::Connect(*t);
}

// pids of processes named `comm` whose network namespace is `ns` (the
// namespaces share the pid namespace: other tests' wrk must not count).
std::vector<int> PidsInNs(const std::string& comm, const std::string& ns) {
  std::string out = Sh("for p in $(pgrep -x " + comm + " || true); do "
                       "[ \"$(ip netns identify \"$p\" 2>/dev/null)\" = " + ns +
                       " ] && echo \"$p\"; done; true");
  std::vector<int> pids;
  std::istringstream in(out);
  for (int p; in >> p;) pids.push_back(p);
  return pids;
}

// Polls until no `comm` runs in `ns` or `limit` passes; returns how long it took.
Result<milliseconds> WaitGone(const std::string& comm, const std::string& ns, milliseconds limit) {
  auto t0 = Clock::now();
  while (!PidsInNs(comm, ns).empty()) {
    if (Clock::now() - t0 > limit)
      return Error{comm + " still running in " + ns + " after " + std::to_string(limit.count()) + " ms"};
    std::this_thread::sleep_for(milliseconds(200));
  }
  return std::chrono::duration_cast<milliseconds>(Clock::now() - t0);
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }
double Secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// Undo on scope exit: link up / SIGCONT.
struct Undo {
  std::string line;
  ~Undo() {
    if (!line.empty()) (void)Sh(line);
  }
};

class RemoteFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!g_skip.empty()) GTEST_SKIP() << g_skip;
    ASSERT_TRUE(g_fail.empty()) << g_fail;
    work_ = "/tmp/fvbench-faults-remote-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(work_);
    fs::create_directories(work_ + "/controller");
    // The links are up, no sshd is stopped, nothing of an earlier test runs.
    LocalHost local;
    auto st = local.Run(Cmd({"bash", Script(), "status"}, SetEnv(g_hosts.dir)));
    ASSERT_TRUE(st.ok() && st->success()) << "fault test hosts not healthy before the test";
    ASSERT_TRUE(PidsInNs("wrk", g_hosts.ns("lg")).empty()) << "a wrk is already running in "
                                                           << g_hosts.ns("lg");
  }
  void TearDown() override {
    if (sut_ != nullptr && nginx_.pid > 0) {
      auto s = sut_->StopService(nginx_, seconds(5));
      EXPECT_TRUE(s.ok()) << s.error().message;
    }
    fs::remove_all(work_);
  }

  // nginx on the SUT's load address, one worker, returns 200 "ok".
  void StartNginx() {
    auto s = ConnectTo(g_hosts.sut);
    ASSERT_TRUE(s.ok()) << s.error().message;
    sut_ = std::move(*s);
    std::string d = work_ + "/nginx";
    fs::create_directories(d + "/logs");
    std::ofstream(d + "/nginx.conf")
        << "worker_processes 1;\ndaemon off;\npid " << d << "/nginx.pid;\n"
        << "error_log " << d << "/logs/error.log;\nevents { worker_connections 1024; }\n"
        << "http { access_log off;\n  server { listen " << g_hosts.target << ":" << kNginxPort
        << ";\n    location / { return 200 \"ok\\n\"; } } }\n";
    auto svc = sut_->StartService("nginx-faults",
                                   Cmd({"nginx", "-p", d, "-c", d + "/nginx.conf"}),
                                   d + "/logs/stdout", d + "/logs/stderr");
    ASSERT_TRUE(svc.ok()) << svc.error().message;
    nginx_ = *svc;
    // Listening?
    for (int i = 0; i < 50; ++i) {
      auto r = sut_->Run(Cmd({"sh", "-c", "grep -qi ':" + std::to_string(kNginxPort) +
                                              "' /proc/net/tcp || ss -ltn | grep -q ':" +
                                              std::to_string(kNginxPort) + " '"}));
      if (r.ok() && r->success()) return;
      std::this_thread::sleep_for(milliseconds(100));
    }
    FAIL() << "nginx did not listen on " << g_hosts.target << ":" << kNginxPort;
  }

  LoadSpec Spec(const std::string& phase, double rate, double secs) {
    LoadSpec s;
    s.phase = phase;
    s.url = "http://" + g_hosts.target + ":" + std::to_string(kNginxPort) + "/";
    s.rate_rps = rate;
    s.duration_s = secs;
    s.connections = 4;
    return s;
  }

  // Runs `spec` on the loadgen; `fault` is run ~3 s into the phase.
  struct Outcome {
    Result<LoadResult> result = Error{"not run"};
    Clock::duration from_fault{};
    Clock::time_point end;
  };
  Outcome RunWithFault(SshHost& lg, const LoadSpec& spec, const std::string& fault) {
    auto engine = MakeWrkEngine(lg, FVBENCH_SOURCE_DIR "/support/engine");
    Outcome o;
    auto fut = std::async(std::launch::async, [&] {
      return engine->Run(spec, work_ + "/remote", work_ + "/controller");
    });
    // ~3 s into the phase: once wrk runs in the namespace, 3 s more.
    auto t0 = Clock::now();
    while (PidsInNs("wrk", g_hosts.ns("lg")).empty() && Clock::now() - t0 < seconds(20))
      std::this_thread::sleep_for(milliseconds(100));
    std::this_thread::sleep_for(seconds(3));
    auto tf = Clock::now();
    (void)Sh(fault);
    o.result = fut.get();
    o.end = Clock::now();
    o.from_fault = o.end - tf;
    return o;
  }

  std::string work_;
  std::unique_ptr<SshHost> sut_;
  ServiceHandle nginx_;
};

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The load link dies: wrk keeps running to its -d; its connections stall
// (the requests in flight are neither answered nor counted as errors by wrk,
// and nothing more is sent on them), so the result shows far fewer requests
// than scheduled. The phase's validity checks (validity.h: enough_requests,
// achieved_rate; VALIDITY=fail by default) are what fail it, naming the
// shortfall.
TEST_F(RemoteFaults, LoadLinkDownMidPhaseShowsInTheResult) {
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto lg = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(lg.ok()) << lg.error().message;
  // A phase measured before the fault: its file must survive untouched.
  auto engine = MakeWrkEngine(**lg, FVBENCH_SOURCE_DIR "/support/engine");
  auto before = engine->Run(Spec("faults_before", 200, 2), work_ + "/remote", work_ + "/controller");
  ASSERT_TRUE(before.ok()) << before.error().message;
  // Clean: every scheduled request answered; a request in flight when wrk
  // stops at -d is interrupted, not failed (core/outcomes.h), at most one per
  // connection. (Before pace.lua took wrk's start from its last setup(), a
  // slot after the threads had stopped was seen once counted as never sent.)
  ASSERT_EQ(before->failed, 0u) << before->failed_engine << " never sent, " << before->failed_sut << " the SUT's";
  ASSERT_LE(before->interrupted, 4u);
  const std::string kept = Slurp(before->raw_path);
  ASSERT_FALSE(kept.empty());

  const std::string ns = g_hosts.ns("lg");
  Undo undo{"ip -n " + ns + " link set eth-load up"};
  const double dur = 8;
  auto o = RunWithFault(**lg, Spec("faults_load_link", 200, dur),
                        "ip -n " + ns + " link set eth-load down");
  std::string message;
  if (o.result.ok()) {
    const LoadResult& r = *o.result;
    std::ostringstream m;
    m << r.requests << " requests, " << r.failed << " failed of " << r.scheduled << " scheduled, kept_up "
      << r.kept_up;
    // The schedule went on offering requests after every connection hung:
    // each thread's window lasts wrk's -d (pace.lua), not until its last
    // delay() (which counted 613 of ~1600 here).
    EXPECT_NEAR(static_cast<double>(r.scheduled), 200 * dur, 0.02 * 200 * dur) << m.str();
    PhaseObservation obs;
    obs.loadgen_host = g_hosts.loadgen;
    PhaseContext ctx;
    ctx.planned_duration_s = dur;
    auto checks = CheckPhase(r, obs, ctx, ValidityParams{});
    message = "validity: " + FailedValidity(checks) + " (" + m.str() + ")";
    EXPECT_FALSE(ValidityPassed(checks)) << "a phase that lost its load link passed validity: "
                                         << message;
    EXPECT_THAT(FailedValidity(checks), HasSubstr("achieved_rate")) << message;
  } else {
    message = o.result.error().message;
    EXPECT_THAT(message, HasSubstr(g_hosts.loadgen));
  }
  // Bounded: wrk's own -d plus the engine's slack.
  EXPECT_LT(Secs(o.from_fault), dur + 15) << message;
  auto gone = WaitGone("wrk", ns, seconds(5));
  EXPECT_TRUE(gone.ok()) << gone.error().message;
  EXPECT_EQ(Slurp(before->raw_path), kept) << "the result fetched before the fault changed";
  std::printf("FAULT-TABLE | loadgen load link down | ip -n %s link set eth-load down, 3 s into "
              "an %.0f s wrk phase | %.1f s | %s | wrk in %s: %s\n",
              ns.c_str(), dur, Secs(o.from_fault), FirstLine(message).c_str(), ns.c_str(),
              gone.ok() ? "none" : "LEFT");
}

// The controller's link to the loadgen dies: the kernel declares the SSH
// connection dead (keepalive + TCP_USER_TIMEOUT, 15 s) and the phase fails
// naming the host, long before the command's own timeout (-d + 15 s).
TEST_F(RemoteFaults, ControlLinkDownMidPhaseFailsNamingTheHost) {
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto lg = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(lg.ok()) << lg.error().message;
  auto engine = MakeWrkEngine(**lg, FVBENCH_SOURCE_DIR "/support/engine");
  auto before = engine->Run(Spec("faults_before", 200, 2), work_ + "/remote", work_ + "/controller");
  ASSERT_TRUE(before.ok()) << before.error().message;
  const std::string kept = Slurp(before->raw_path);

  const std::string ns = g_hosts.ns("lg");
  Undo undo{"ip -n " + ns + " link set eth-ctl up"};
  const double dur = 30;
  auto o = RunWithFault(**lg, Spec("faults_ctl_link", 100, dur),
                        "ip -n " + ns + " link set eth-ctl down");
  ASSERT_FALSE(o.result.ok()) << "the phase passed although the controller lost the loadgen";
  const std::string message = o.result.error().message;
  EXPECT_THAT(message, HasSubstr(g_hosts.loadgen));
  EXPECT_THAT(message, HasSubstr("connection lost"));
  // Dead-link timeout 15 s (+ keepalive granularity), well under -d + 15 s (a 30 s phase).
  EXPECT_LT(Secs(o.from_fault), 25.0) << message;
  EXPECT_TRUE(engine != nullptr);
  EXPECT_EQ(Slurp(before->raw_path), kept) << "the result fetched before the fault changed";
  // The link comes back: the loadgen's sshd learns that the connection is
  // gone (its next packet is answered with a reset), closes the channel, and
  // Run()'s watchdog ends the process group. (With the link gone for good,
  // wrk would end at its own -d.)
  (void)Sh("ip -n " + ns + " link set eth-ctl up");
  auto gone = WaitGone("wrk", ns, seconds(static_cast<int>(dur) + 10));
  EXPECT_TRUE(gone.ok()) << gone.error().message;
  auto watchdog_gone = WaitGone("cat", ns, seconds(10));
  std::printf("FAULT-TABLE | controller link to the loadgen down | ip -n %s link set eth-ctl down, "
              "3 s into a %.0f s wrk phase | %.1f s | %s | wrk in %s: %s (gone %.1f s after the "
              "link came back); watchdog: %s\n",
              ns.c_str(), dur, Secs(o.from_fault), FirstLine(message).c_str(), ns.c_str(),
              gone.ok() ? "none" : "LEFT",
              gone.ok() ? std::chrono::duration<double>(*gone).count() : -1.0,
              watchdog_gone.ok() ? "none" : "LEFT");
  // A new connection works again (the next scenario starts clean).
  auto again = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(again.ok()) << again.error().message;
}

std::string SshdPid(const std::string& host) {
  std::ifstream f(g_hosts.dir + "/" + host + "/sshd.pid");
  std::string pid;
  f >> pid;
  return pid;
}

// The loadgen's shell may open fewer files than a phase has connections
// (its sshd, whose sessions inherit its limits, lowered with prlimit): the
// phase is refused before any load, naming the host and both numbers.
TEST_F(RemoteFaults, TooFewOpenFilesOnTheLoadgenRefusedBeforeLoad) {
  const std::string pid = SshdPid("lg");
  ASSERT_FALSE(pid.empty());
  auto word = [](std::string w) {
    w.erase(0, w.find_first_not_of(" \t\n"));
    w.erase(w.find_last_not_of(" \t\n") + 1);
    return w;
  };
  const std::string soft = word(Sh("prlimit --pid " + pid + " --nofile --noheadings --output SOFT"));
  const std::string hard = word(Sh("prlimit --pid " + pid + " --nofile --noheadings --output HARD"));
  ASSERT_FALSE(soft.empty());
  Undo undo{"prlimit --pid " + pid + " --nofile=" + soft + ":" + hard};
  (void)Sh("prlimit --pid " + pid + " --nofile=64:" + hard);
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto lg = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(lg.ok()) << lg.error().message;
  auto engine = MakeWrkEngine(**lg, FVBENCH_SOURCE_DIR "/support/engine");
  LoadSpec s = Spec("faults_fds", 200, 2);
  s.connections = 100;
  auto r = engine->Run(s, work_ + "/remote", work_ + "/controller");
  ASSERT_FALSE(r.ok()) << "a phase with 100 connections ran under ulimit -n 64";
  EXPECT_THAT(r.error().message, HasSubstr("refused before load"));
  EXPECT_THAT(r.error().message, HasSubstr("load generator " + g_hosts.loadgen));
  EXPECT_THAT(r.error().message, HasSubstr("needs 118 open files"));
  EXPECT_THAT(r.error().message, HasSubstr("allows 64"));
  EXPECT_TRUE(PidsInNs("wrk", g_hosts.ns("lg")).empty());
  std::printf("MEASURED | loadgen ulimit -n 64 over SSH, 100 connections | %s\n", r.error().message.c_str());
}

// The listener sshd stopped: TCP connects (the kernel accepts), no banner.
TEST_F(RemoteFaults, SshdStoppedBeforeConnectFailsWithinTheConnectTimeout) {
  const std::string pid = SshdPid("lg");
  ASSERT_FALSE(pid.empty());
  Undo undo{"kill -CONT " + pid};
  (void)Sh("kill -STOP " + pid);
  auto t0 = Clock::now();
  auto lg = ConnectTo(g_hosts.loadgen);
  double took = Secs(Clock::now() - t0);
  ASSERT_FALSE(lg.ok()) << "connected to a stopped sshd?";
  const std::string message = lg.error().message;
  EXPECT_THAT(message, HasSubstr(g_hosts.loadgen));
  EXPECT_THAT(message, HasSubstr("connect timeout"));
  EXPECT_LT(took, SshConnectOptions{}.connect_timeout.count() / 1000.0 + 5) << message;
  (void)Sh("kill -CONT " + pid);
  auto again = ConnectTo(g_hosts.loadgen);
  EXPECT_TRUE(again.ok()) << again.error().message;
  std::printf("FAULT-TABLE | loadgen sshd stopped before connecting | kill -STOP <sshd pid> | "
              "%.1f s | %s | none (kill -CONT, a new connection works)\n",
              took, FirstLine(message).c_str());
}

// The session's sshd processes stopped while a command runs: the command's
// timeout ends the wait, the kill of its process group cannot get a channel
// (bounded), the run fails naming the host.
TEST_F(RemoteFaults, SshdStoppedDuringACommandFailsWithinItsTimeout) {
  const std::string listener = SshdPid("lg");
  ASSERT_FALSE(listener.empty());
  auto lg = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(lg.ok()) << lg.error().message;
  const std::string marker = "fvbench-faults-" + std::to_string(::getpid());
  auto fut = std::async(std::launch::async, [&] {
    Command c = Cmd({"bash", "-c", "exec -a " + marker + " sleep 30"});
    c.timeout = seconds(8);
    return (*lg)->Run(c);
  });
  // The command runs; then stop every sshd process of this session (the
  // listener's descendants: only ours, the set's own sshd).
  auto t0 = Clock::now();
  while (Sh("pgrep -f '^" + marker + "' || true").empty() && Clock::now() - t0 < seconds(10))
    std::this_thread::sleep_for(milliseconds(100));
  std::this_thread::sleep_for(seconds(1));
  std::string session = Sh("pgrep -P " + listener + " -d ' ' || true");
  ASSERT_FALSE(session.empty()) << "no session sshd under listener " << listener;
  for (auto& c : session)
    if (c == '\n') c = ' ';
  std::string all =
      session + " " + Sh("for p in " + session + "; do pgrep -P $p -x sshd -d ' '; done; true");
  for (auto& c : all)
    if (c == '\n') c = ' ';
  Undo undo{"kill -CONT " + all};
  auto tf = Clock::now();
  (void)Sh("kill -STOP " + all);
  auto r = fut.get();
  double took = Secs(Clock::now() - tf);
  std::string message = r.ok() ? (r->timed_out ? "timed out (no error)" : "finished") : r.error().message;
  ASSERT_FALSE(r.ok() && !r->timed_out) << "the command finished although its sshd was stopped";
  if (!r.ok()) {
    EXPECT_THAT(message, HasSubstr(g_hosts.loadgen));
  }
  // 8 s command timeout - ~1 s already run + <= 15 s for the kill's channel.
  EXPECT_LT(took, 8 + 15 + 5) << message;
  (void)Sh("kill -CONT " + all);
  // Once the session runs again, the group is ended (the kill or the watchdog).
  bool left = !Sh("pgrep -f '^" + marker + "' || true").empty();
  for (int i = 0; i < 50 && left; ++i) {
    std::this_thread::sleep_for(milliseconds(200));
    left = !Sh("pgrep -f '^" + marker + "' || true").empty();
  }
  EXPECT_FALSE(left) << "the stopped session's command is still running";
  std::printf("FAULT-TABLE | loadgen session sshd stopped during a command | kill -STOP <session "
              "sshd pids>, 1 s into a command with an 8 s timeout | %.1f s | %s | command after "
              "kill -CONT: %s\n",
              took, FirstLine(message).c_str(), left ? "LEFT" : "none");
}

// /proc/net/netstat and /proc/net/snmp are per network namespace: read over
// each host's SSH connection, they are that namespace's. 5 connections from
// the loadgen's namespace to nginx in the SUT's (made with `ip netns exec`,
// not through the hosts under test) show up as the SUT's Tcp.PassiveOpens
// and the loadgen's Tcp.ActiveOpens, and not the other way round; read in
// one namespace for both (or in the controller's, which only routes them),
// the two deltas could not differ so.
TEST_F(RemoteFaults, KernelCountersAreReadInsideEachHostsOwnNamespace) {
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto lg = ConnectTo(g_hosts.loadgen);
  ASSERT_TRUE(lg.ok()) << lg.error().message;
  MonitorOptions opt;
  opt.period = std::chrono::minutes(10);  // the two kernel readings are what counts here
  PhaseMonitor m(*sut_, **lg, {}, opt);
  ASSERT_TRUE(m.Start().ok());
  constexpr int kConnections = 5;
  (void)Sh("for i in $(seq " + std::to_string(kConnections) + "); do ip netns exec " + g_hosts.ns("lg") +
           " curl -sS -o /dev/null --max-time 5 http://" + g_hosts.target + ":" + std::to_string(kNginxPort) +
           "/ || exit 1; done");
  PhaseObservation o = m.Stop();
  ASSERT_EQ(o.kernel.size(), 2u) << (o.problems.empty() ? "" : o.problems[0]);
  const HostKernelCounters& sut = o.kernel[0].sut ? o.kernel[0] : o.kernel[1];
  const HostKernelCounters& load = o.kernel[0].sut ? o.kernel[1] : o.kernel[0];
  ASSERT_TRUE(sut.sut && !sut.loadgen && load.loadgen && !load.sut);
  EXPECT_EQ(sut.host, g_hosts.sut);
  EXPECT_EQ(load.host, g_hosts.loadgen);
  auto delta = [](const HostKernelCounters& h, const char* name) -> uint64_t {
    auto it = h.delta.deltas.find(name);
    return it == h.delta.deltas.end() ? 0 : it->second;
  };
  std::printf("SUT %s: PassiveOpens +%llu ActiveOpens +%llu; loadgen %s: PassiveOpens +%llu ActiveOpens +%llu\n",
              sut.host.c_str(), static_cast<unsigned long long>(delta(sut, "Tcp.PassiveOpens")),
              static_cast<unsigned long long>(delta(sut, "Tcp.ActiveOpens")), load.host.c_str(),
              static_cast<unsigned long long>(delta(load, "Tcp.PassiveOpens")),
              static_cast<unsigned long long>(delta(load, "Tcp.ActiveOpens")));
  EXPECT_GE(delta(sut, "Tcp.PassiveOpens"), static_cast<uint64_t>(kConnections));
  EXPECT_LT(delta(sut, "Tcp.ActiveOpens"), static_cast<uint64_t>(kConnections));
  EXPECT_GE(delta(load, "Tcp.ActiveOpens"), static_cast<uint64_t>(kConnections));
  EXPECT_LT(delta(load, "Tcp.PassiveOpens"), static_cast<uint64_t>(kConnections));
  // The phase's note names both hosts with their roles.
  LoadResult result;
  result.engine = "wrk";
  result.kept_up = true;
  std::string listed;
  for (const ValidityCheck& c : CheckPhase(result, o, PhaseContext{}, ValidityParams{})) {
    if (c.name == "kernel_counters") listed = c.detail;
  }
  EXPECT_THAT(listed, HasSubstr("host " + g_hosts.sut + " (SUT): "));
  EXPECT_THAT(listed, HasSubstr("host " + g_hosts.loadgen + " (load generator): "));
}

}  // namespace
}  // namespace fvbench
