// SshHost against a REAL sshd: the network-namespace test hosts of
// fixtures/testhosts/netns-hosts.sh (fvb-sut 10.213.1.2, fvb-lg 10.213.2.2).
//
// FVBENCH_TESTHOSTS=<state dir>: reuse hosts that are up (CTest's fixture
// unit.SshTestHostsUp does this). Unset: this process brings them up and
// tears them down at the end (needs root and `ip netns`; when not root the
// tests skip, saying so). Ports used inside the SUT namespace: 18222 (a
// second sshd with another host key), 18223 (nothing listens); on loopback
// 18224 (a listener that never speaks SSH).
#include "support/host/ssh_host.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/sha.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <chrono>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/engine/wrk_output.h"
#include "support/host/local_host.h"
#include "support/host/remote_runner.h"
#include "support/host/shell_quote.h"
#include "fvbench/source_dir.h"

namespace fvbench::ssh_host_test {
namespace {

using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
constexpr FileCap kTestCap{"test file", 8 << 20};
constexpr FileCap kBigTestCap{"test file", 128 << 20};

std::string FixturesDir() {
  const char* f = std::getenv("FVBENCH_FIXTURES");
  return f != nullptr && *f != '\0' ? f : FVBENCH_SOURCE_DIR "/fixtures";
}
std::string Script() { return FixturesDir() + "/testhosts/netns-hosts.sh"; }

Command Cmd(std::vector<std::string> argv, std::map<std::string, std::string> env = {}) {
  Command c;
  c.argv = std::move(argv);
  c.env = std::move(env);
  return c;
}


// The hosts of this run, from <state>/env.
struct TestHosts {
  std::string dir;
  std::string sut;      // root@10.213.1.2
  std::string loadgen;  // root@10.213.2.2
  std::string target;   // 10.213.3.2
  std::string ssh_opts;
  std::string client_key() const { return dir + "/client_key"; }
  std::string known_hosts() const { return dir + "/known_hosts"; }
  std::string sut_addr() const { return sut.substr(sut.find('@') + 1); }
};

std::string g_skip;         // non-empty: skip every test with this reason
std::string g_fail;         // non-empty: fail every test with this reason
TestHosts g_hosts;
bool g_we_brought_up = false;

Result<TestHosts> ReadEnv(const std::string& dir) {
  std::ifstream f(dir + "/env");
  if (!f) return Error{"cannot read " + dir + "/env (hosts not up?)"};
  TestHosts h;
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
  if (h.sut.empty() || h.loadgen.empty() || h.ssh_opts.empty())
    return Error{dir + "/env lacks FAIRVISOR_REMOTE / LOADGEN_REMOTE / SSH_OPTS"};
  return h;
}

class TestHostsEnv : public ::testing::Environment {
 public:
  void SetUp() override {
    if (const char* d = std::getenv("FVBENCH_TESTHOSTS"); d != nullptr && *d != '\0') {
      auto h = ReadEnv(d);
      if (h.ok()) {
        g_hosts = *h;
      } else if (::geteuid() != 0) {
        g_skip = "not root, and FVBENCH_TESTHOSTS=" + std::string(d) +
                 " holds no hosts (the namespace hosts need root): " + h.error().message;
      } else {
        g_fail = "FVBENCH_TESTHOSTS=" + std::string(d) + ": " + h.error().message;
      }
      return;
    }
    if (::geteuid() != 0) {
      g_skip = "not root: the network-namespace SSH test hosts need root (ip netns, sshd)";
      return;
    }
    LocalHost local;
    std::string dir = "/tmp/fvbench-testhosts";
    auto st = local.Run(Cmd({"bash", Script(), "status"}, {{"FVBENCH_TESTHOSTS_DIR", dir}}));
    if (!st.ok() || st->exit_code != 0) {
      auto up = local.Run(Cmd({"bash", Script(), "up"}, {{"FVBENCH_TESTHOSTS_DIR", dir}}));
      if (!up.ok() || !up->success()) {
        g_fail = "cannot bring up the test hosts with " + Script() + " up: " +
                 (up.ok() ? up->err : up.error().message);
        return;
      }
      g_we_brought_up = true;
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
    (void)local.Run(Cmd({"bash", Script(), "down"}, {{"FVBENCH_TESTHOSTS_DIR", g_hosts.dir}}));
  }
};

const auto* const kEnv [[maybe_unused]] =
    ::testing::AddGlobalTestEnvironment(new TestHostsEnv);

#define REQUIRE_HOSTS()                        \
  do {                                         \
    if (!g_fail.empty()) FAIL() << g_fail;     \
    if (!g_skip.empty()) GTEST_SKIP() << g_skip; \
  } while (0)

SshTarget TargetFor(const std::string& dest, const std::string& extra_opts = "") {
  auto t = LoadSshTarget(dest, g_hosts.ssh_opts + " " + extra_opts, "/dev/null");
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
  return t.ok() ? *t : SshTarget{};
}

// The commands' path for the tests of SshHostCommands: the runner (true)
// or an exec channel per command (false); every other test uses the default.
bool g_runner = true;
SshConnectOptions Options() {
  SshConnectOptions o;
  o.command_runner = g_runner;
  return o;
}

// The command tests run twice: through the command runner (remote_runner.h)
// and with an exec channel per command (the path taken without perl).
class SshHostCommands : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { g_runner = GetParam(); }
  void TearDown() override { g_runner = true; }
};
INSTANTIATE_TEST_SUITE_P(, SshHostCommands, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Runner" : "ExecChannels"; });

std::unique_ptr<SshHost> ConnectOrDie(const std::string& dest, const std::string& extra = "") {
  auto h = SshHost::Connect(TargetFor(dest, extra), Options());
  if (!h.ok()) ADD_FAILURE() << h.error().message;
  return h.ok() ? std::move(*h) : nullptr;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), md);
  char hex[2 * SHA256_DIGEST_LENGTH + 1];
  for (int i = 0; i < SHA256_DIGEST_LENGTH; ++i) std::snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return hex;
}

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v = rng();
    std::memcpy(&s[i], &v, 8);
  }
  for (size_t i = n - n % 8; i < n; ++i) s[i] = static_cast<char>(rng());
  return s;
}

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// ---------------------------------------------------------------- exec ---

TEST_P(SshHostCommands, NameIsTheTargetAsGiven) {
  REQUIRE_HOSTS();
  auto t0 = Clock::now();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  std::printf("[figure] connect (TCP + kex + publickey auth): %.1f ms\n", Ms(Clock::now() - t0));
  EXPECT_EQ(h->name(), g_hosts.sut);
  auto r = h->Run(Cmd({"cat", "/proc/sys/kernel/hostname"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  // The command ran in the SUT namespace: its controller-side address is there.
  auto ip = h->Run(Cmd({"ip", "-br", "addr", "show", "dev", "eth-ctl"}));
  ASSERT_TRUE(ip.ok()) << ip.error().message;
  EXPECT_THAT(ip->out, HasSubstr(g_hosts.sut_addr()));
  // Per-command round trip.
  const int n = 5;
  auto t1 = Clock::now();
  for (int i = 0; i < n; ++i) ASSERT_TRUE(h->Run(Cmd({"true"})).ok());
  std::printf("[figure] Run(true) round trip: %.2f ms (mean of %d)\n", Ms(Clock::now() - t1) / n, n);
}

// Without perl (a start script that fails as the real one does), every
// command takes an exec channel of its own, and the host says why.
TEST(SshHost, CommandsFallBackToExecChannelsWithoutTheRunner) {
  REQUIRE_HOSTS();
  SshConnectOptions o;
  o.runner_start_script = "echo 'no perl on this host' >&2; exit 127";
  auto h = SshHost::Connect(TargetFor(g_hosts.sut), o);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ((*h)->runner_note(), "");
  auto r = (*h)->Run(Cmd({"sh", "-c", "echo $X", "sh"}, {{"X", "through exec"}}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, "through exec\n");
  EXPECT_THAT((*h)->runner_note(), HasSubstr("exec channel of its own"));
  EXPECT_THAT((*h)->runner_note(), HasSubstr("no perl on this host"));
  auto runner = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(runner, nullptr);
  ASSERT_TRUE(runner->Run(Cmd({"true"})).ok());
  EXPECT_THAT(runner->runner_note(), HasSubstr("through one runner process"));
}

// While a command runs through the runner, other threads' reads and
// commands run too: the phase monitor samples the loadgen while its engine
// runs on the same connection, the hops' counters are read beside the
// monitor's start-up facts.
TEST(SshHost, CommandsAndReadsRunAtOnce) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  ASSERT_TRUE(h->Run(Cmd({"true"})).ok());  // the runner is up
  auto t_alone = Clock::now();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(h->ReadFile("/proc/stat", kProcFileCap).ok());
  const double alone_ms = Ms(Clock::now() - t_alone);
  auto slow = std::async(std::launch::async, [&] { return h->Run(Cmd({"sleep", "6"})); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto t0 = Clock::now();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(h->ReadFile("/proc/stat", kProcFileCap).ok());
  const double read_ms = Ms(Clock::now() - t0);
  auto t1 = Clock::now();
  auto other = h->Run(Cmd({"sh", "-c", "echo beside"}));
  const double run_ms = Ms(Clock::now() - t1);
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->out, "beside\n");
  // Ordering, not a time limit: the reads and the other command were answered
  // while the first command still ran.
  const bool first_still_running = slow.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  auto s = slow.get();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->exit_code, 0);
  std::printf("[figure] 10 reads alone %.1f ms; during a 6 s command: 10 reads %.1f ms, another command %.1f ms\n",
              alone_ms, read_ms, run_ms);
  EXPECT_TRUE(first_still_running) << "the reads (" << read_ms << " ms) or the other command (" << run_ms
                                   << " ms) waited for the first command";
}

// The host's clock over one command (Host::ExchangeClock): the namespace
// hosts run this machine's kernel, so the offset is 0 within each
// exchange's uncertainty; the login shell's start is in no exchange.
TEST(SshHost, ClockReadingsOverOneCommand) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const auto t0 = Clock::now();
  auto x = h->ExchangeClock(8, std::chrono::seconds(30));
  const double took = Ms(Clock::now() - t0);
  ASSERT_TRUE(x.ok()) << x.error().message;
  ASSERT_EQ(x->size(), 8u);
  for (const ClockExchange& e : *x) {
    EXPECT_LE(e.sent_us, e.received_us);
    // One clock: the host read it between the controller's two readings
    // (to a microsecond: date prints nanoseconds, the controller µs).
    EXPECT_GE(e.remote_us, e.sent_us - 1);
    EXPECT_LE(e.remote_us, e.received_us + 1);
  }
  auto o = EstimateClockOffset(*x);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_LE(std::abs(o->offset_us), o->uncertainty_us() + 1);
  std::printf("[figure] clock offset %.1f us +- %.1f us (best of 8 round trips), %.1f ms in all\n", o->offset_us,
              o->uncertainty_us(), took);
  // The session still runs commands afterwards.
  auto r = h->Run(Cmd({"true"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0);
}

TEST_P(SshHostCommands, ArgvArrivesByteExact) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::vector<std::string> awkward = {
      "plain",
      "two words",
      "",
      "it's",
      "say \"hi\"",
      "$HOME $(id) `id` ${PATH}",
      "; rm -rf /nonexistent-fvbench; echo pwned",
      "a\nb\n",
      "back\\slash \\n \\\\",
      "tab\there",
      "ünïcødé ✓ 日本",
      "*",
      "~",
      "-n",
      "%s %d \\0",
      "'",
      "\"",
      "&& | > < ( ) { } ! #",
      "\x01\x7f",
  };
  Command cmd;
  cmd.argv = {"printf", "%s\\0"};
  cmd.argv.insert(cmd.argv.end(), awkward.begin(), awkward.end());
  auto r = h->Run(cmd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->exit_code, 0) << r->err;
  std::vector<std::string> got;
  size_t start = 0;
  for (size_t i = 0; i < r->out.size(); ++i) {
    if (r->out[i] == '\0') {
      got.push_back(r->out.substr(start, i - start));
      start = i + 1;
    }
  }
  EXPECT_EQ(got, awkward);
  EXPECT_EQ(r->err, "");

  // Environment values and a working directory with a space, the same way.
  auto mk = h->Run(Cmd({"mkdir", "-p", "/tmp/fvbench ssh test/dir $x"}));
  ASSERT_TRUE(mk.ok() && mk->success());
  Command env_cmd;
  env_cmd.argv = {"sh", "-c", "printf '%s|%s' \"$FVB_AWKWARD\" \"$(pwd)\""};
  env_cmd.env = {{"FVB_AWKWARD", "a 'b' \"c\" $d\n;e"}};
  env_cmd.cwd = "/tmp/fvbench ssh test/dir $x";
  auto e = h->Run(env_cmd);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->out, "a 'b' \"c\" $d\n;e|/tmp/fvbench ssh test/dir $x");
}

// Every command line on the host, as any local user reads it: the pids
// whose /proc/<pid>/cmdline holds the value of $FVB_NEEDLE (taken from a
// file, so that grep's own argv does not hold it). The hosts are network
// namespaces: they share this machine's process table.
Command CmdlinesHolding(const std::string& needle) {
  return Cmd({"sh", "-c",
              "f=$(mktemp) && printf '%s\\n' \"$FVB_NEEDLE\" >\"$f\" && "
              "grep -l -a -F -f \"$f\" /proc/[0-9]*/cmdline 2>/dev/null; rm -f \"$f\"; exit 0"},
             {{"FVB_NEEDLE", needle}});
}

// A value given in cmd.env or cmd.cwd, or inside a service's environment,
// reaches no command line on the host: not the login shell's (the exec
// request), not the watchdog subshell's, not a service's start script's, not
// the runner's.
// Before, the exec request held `export K='value'` and `cd 'dir'`, and the
// watchdog kept that argv while the command ran.
TEST_P(SshHostCommands, NoEnvValueOrCwdOnAnyCommandLineOfTheHost) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::string pid = std::to_string(::getpid());
  const std::string secret = "fvb-env-secret-" + pid + "-Q7xZ";
  const std::string dir = "/tmp/fvb-cwd-secret-" + pid;
  ASSERT_TRUE(h->Run(Cmd({"mkdir", "-p", dir})).ok());
  // The scan runs as the command itself, with the value in its environment
  // and the directory as its cwd, while its shell and watchdog are alive.
  for (const std::string& needle : {secret, dir}) {
    Command scan = CmdlinesHolding(needle);
    scan.env["FVB_SECRET"] = secret;
    scan.cwd = dir;
    auto r = h->Run(scan);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->out, "") << "command lines holding '" << needle << "'";
  }
  // The value still arrives, in the environment.
  Command echo = Cmd({"sh", "-c", "printf %s \"$FVB_SECRET\""}, {{"FVB_SECRET", secret}});
  auto e = h->Run(echo);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->out, secret);

  const std::string log = dir + "/svc.log";
  auto svc = h->StartService("env-holder", Cmd({"sleep", "60"}, {{"FVB_SECRET", secret}}), log, log);
  ASSERT_TRUE(svc.ok()) << svc.error().message;
  auto r = h->Run(CmdlinesHolding(secret));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->out, "") << "command lines holding the service's environment value";
  auto env = h->Run(Cmd({"sh", "-c", "tr '\\0' '\\n' </proc/\"$1\"/environ | grep '^FVB_SECRET='", "sh",
                         std::to_string(svc->pid)}));
  ASSERT_TRUE(env.ok()) << env.error().message;
  EXPECT_EQ(env->out, "FVB_SECRET=" + secret + "\n") << "the service has the value in its environment";
  ASSERT_TRUE(h->StopService(*svc, std::chrono::seconds(2)).ok());
  (void)h->Run(Cmd({"rm", "-rf", dir}));
}

// The runner is started as every exec channel's script is: its exec request
// is the fixed bootstrap, the start script comes over the channel's stdin.
// A start script that waits with a value in it shows whether that value is
// on a command line meanwhile (before, the start script was the exec request,
// the login shell's argv).
TEST(SshHost, TheRunnersStartScriptIsOnNoCommandLine) {
  REQUIRE_HOSTS();
  const std::string needle = "fvb-start-script-" + std::to_string(::getpid()) + "-K2v";
  SshConnectOptions o;
  o.runner_start_script = "_fvb_mark='" + needle + "'; sleep 2\n" + runner::RunnerStartScript();
  auto h = SshHost::Connect(TargetFor(g_hosts.sut), o);
  ASSERT_TRUE(h.ok()) << h.error().message;
  auto first = std::async(std::launch::async, [&] { return (*h)->Run(Cmd({"true"})); });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  auto scanner = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(scanner, nullptr);
  auto seen = scanner->Run(CmdlinesHolding(needle));
  ASSERT_TRUE(seen.ok()) << seen.error().message;
  auto r = first.get();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_THAT((*h)->runner_note(), HasSubstr("through one runner process"));
  EXPECT_EQ(seen->out, "") << "command lines holding the runner's start script";
}

TEST_P(SshHostCommands, ExactExitStatusAfterMegabytesOnBothStreams) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const size_t kOut = 6 * 1000 * 1000 + 7, kErr = 4 * 1000 * 1000 + 3;
  for (int code : {0, 1, 77}) {
    Command cmd;
    cmd.argv = {"sh", "-c",
                "yes stdout-line | head -c " + std::to_string(kOut) + " & "
                "yes stderr-line | head -c " + std::to_string(kErr) + " >&2; wait; exit " +
                    std::to_string(code)};
    cmd.timeout = std::chrono::seconds(30);
    auto r = h->Run(cmd);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->exit_code, code);
    EXPECT_EQ(r->term_signal, 0);
    EXPECT_FALSE(r->timed_out);
    EXPECT_EQ(r->out.size(), kOut) << "exit " << code;
    EXPECT_EQ(r->err.size(), kErr) << "exit " << code;
    EXPECT_EQ(r->out.substr(0, 12), "stdout-line\n");
    EXPECT_EQ(r->err.substr(0, 12), "stderr-line\n");
  }
}

TEST_P(SshHostCommands, SignalDeathIsReportedAsTheSignal) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  auto r = h->Run(Cmd({"sh", "-c", "echo before; kill -SEGV $$; echo after"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->term_signal, SIGSEGV);
  EXPECT_EQ(r->exit_code, -1);
  EXPECT_FALSE(r->success());
  EXPECT_EQ(r->out, "before\n");
  auto k = h->Run(Cmd({"sh", "-c", "kill -KILL $$"}));
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(k->term_signal, SIGKILL);
}

TEST_P(SshHostCommands, ABrokenSessionIsAnErrorNeverExitZero) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  // The shell's parent is this connection's sshd process (exec channels) or
  // the runner: killing it ends the channel with no exit status.
  auto r = h->Run(Cmd({"sh", "-c", "kill -KILL $PPID; sleep 5; exit 0"}));
  ASSERT_FALSE(r.ok()) << "exit " << r->exit_code << " signal " << r->term_signal;
  EXPECT_THAT(r.error().message, HasSubstr(g_hosts.sut));
  // The host recovers with a new session.
  ASSERT_TRUE(h->Reconnect().ok());
  auto again = h->Run(Cmd({"true"}));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->exit_code, 0);
}

TEST_P(SshHostCommands, TimeoutKillsTheRemoteProcessGroup) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  Command cmd;
  // The shell and a background child; both must be gone afterwards.
  cmd.argv = {"sh", "-c", "echo $$; sleep 300 & echo $!; wait"};
  cmd.timeout = std::chrono::milliseconds(1500);
  auto r = h->Run(cmd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->timed_out);
  EXPECT_FALSE(r->success());
  std::istringstream in(r->out);
  std::string shell_pid, child_pid;
  in >> shell_pid >> child_pid;
  ASSERT_FALSE(shell_pid.empty());
  ASSERT_FALSE(child_pid.empty()) << r->out;
  // Second command: neither process is alive (gone, or a zombie nobody reaps).
  auto check = h->Run(Cmd({"sh", "-c",
                        "for p in \"$@\"; do [ -r /proc/$p/stat ] || continue; "
                        "read -r s </proc/$p/stat; s=${s##*\")\"}; set -- $s; "
                        "[ \"$1\" = Z ] || echo \"alive $p ($1)\"; done",
                        "sh", shell_pid, child_pid}));
  ASSERT_TRUE(check.ok()) << check.error().message;
  EXPECT_EQ(check->out, "");
}

// Liveness of remote pids: prints "alive <pid>" for each that runs (zombies
// count as dead: nobody may reap them).
Command AliveCheck(const std::vector<std::string>& pids) {
  Command c = Cmd({"sh", "-c",
                   "for p in \"$@\"; do [ -r /proc/$p/stat ] || continue; "
                   "read -r s </proc/$p/stat; s=${s##*\")\"}; set -- $s; "
                   "[ \"$1\" = Z ] || echo \"alive $p\"; done",
                   "sh"});
  c.argv.insert(c.argv.end(), pids.begin(), pids.end());
  return c;
}

TEST_P(SshHostCommands, AbandonedRunDoesNotOutliveTheController) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::string pidfile = "/tmp/fvbench-ssh-abandon-" + std::to_string(::getpid());
  // A controller process that runs a long command and is then SIGKILLed.
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto c = SshHost::Connect(TargetFor(g_hosts.sut), Options());
    if (c.ok())
      (void)(*c)->Run(Cmd({"sh", "-c", "sleep 300 & echo \"$$ $!\" >" + pidfile + "; wait"}));
    ::_exit(0);
  }
  std::string pids;
  for (int i = 0; i < 200 && pids.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto r = h->ReadFile(pidfile, kTestCap);
    if (r.ok() && r->find('\n') != std::string::npos) pids = *r;
  }
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ASSERT_FALSE(pids.empty()) << "the abandoned command never started";
  std::istringstream in(pids);
  std::string shell_pid, sleep_pid;
  in >> shell_pid >> sleep_pid;
  std::string alive = "?";
  for (int i = 0; i < 100 && !alive.empty(); ++i) {
    auto r = h->Run(AliveCheck({shell_pid, sleep_pid}));
    ASSERT_TRUE(r.ok()) << r.error().message;
    alive = r->out;
    if (!alive.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(alive, "") << "the abandoned command outlived its controller";
  (void)h->Run(Cmd({"rm", "-f", pidfile}));
}

TEST_P(SshHostCommands, StartErrorsAreErrorsNotExitCodes) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  auto nf = h->Run(Cmd({"fvbench-no-such-command", "x"}));
  ASSERT_FALSE(nf.ok());
  EXPECT_THAT(nf.error().message, HasSubstr(g_hosts.sut));
  EXPECT_THAT(nf.error().message, HasSubstr("fvbench-no-such-command"));
  Command c;
  c.argv = {"true"};
  c.cwd = "/nonexistent/fvbench";
  auto nc = h->Run(c);
  ASSERT_FALSE(nc.ok());
  EXPECT_THAT(nc.error().message, HasSubstr("working directory"));
  // A command that exits 127 by itself is an exit code, not an Error.
  auto own = h->Run(Cmd({"sh", "-c", "exit 127"}));
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->exit_code, 127);
}

// ------------------------------------------------------------ host keys ---

// A second sshd in the SUT namespace on port 18222 with a fresh host key.
// A new, empty directory of this test's own ("/tmp/<prefix>-XXXXXX"): a
// directory named by the pid alone can be a crashed earlier run's, holding a
// known_hosts that records another key for the second sshd's address.
std::string FreshTmpDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp " << tmpl << ": " << std::strerror(errno);
    return "/tmp/" + prefix + "-" + std::to_string(::getpid());
  }
  return tmpl;
}

class SecondSshd {
 public:
  // sftp = false: the server allows exec but has no sftp subsystem.
  explicit SecondSshd(const std::string& dir, bool sftp = true) : dir_(dir), sftp_(sftp) {}
  Result<void> Start() {
    fs::create_directories(dir_);
    auto kg = local_.Run(Cmd({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_ + "/key"}));
    if (!kg.ok() || !kg->success()) return Error{"ssh-keygen failed"};
    std::ifstream in(g_hosts.dir + "/sut/sshd_config");
    std::ostringstream cfg;
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("HostKey ", 0) == 0) line = "HostKey " + dir_ + "/key";
      if (line.rfind("PidFile ", 0) == 0) line = "PidFile " + dir_ + "/pid";
      if (line.rfind("Port ", 0) == 0) line = "Port 18222";
      if (!sftp_ && line.rfind("Subsystem ", 0) == 0) continue;
      cfg << line << "\n";
    }
    std::ofstream(dir_ + "/sshd_config") << cfg.str();
    auto s = local_.StartService(
        "sshd-18222",
        Cmd({"ip", "netns", "exec", "fvb-sut", "/usr/sbin/sshd", "-D", "-f", dir_ + "/sshd_config",
          "-E", dir_ + "/log"}),
        dir_ + "/out", dir_ + "/out");
    if (!s.ok()) return s.error();
    svc_ = *s;
    // Wait until it listens: a TCP connect to 10.213.1.2:18222 succeeds.
    for (int i = 0; i < 100; ++i) {
      int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(18222);
      ::inet_pton(AF_INET, g_hosts.sut_addr().c_str(), &a.sin_addr);
      int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
      ::close(fd);
      if (rc == 0) return Ok();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    return Error{"second sshd did not listen on 18222; log: " + Slurp(dir_ + "/log")};
  }
  ~SecondSshd() {
    if (svc_.pid > 0) (void)local_.StopService(svc_, std::chrono::seconds(2));
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string PublicKey() const {  // "ssh-ed25519 AAAA..."
    std::string k = Slurp(dir_ + "/key.pub");
    auto sp = k.find(' ', k.find(' ') + 1);
    return k.substr(0, sp);
  }

 private:
  std::string dir_;
  bool sftp_ = true;
  LocalHost local_;
  ServiceHandle svc_;
};

TEST(SshHost, AcceptNewRecordsThenRefusesAChangedKey) {
  REQUIRE_HOSTS();
  const std::string tmp = FreshTmpDir("fvbench-ssh-keytest");
  SecondSshd second(tmp + "/sshd");
  auto started = second.Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  const std::string dest = g_hosts.sut + ":18222";
  const std::string kh = tmp + "/known_hosts";
  auto opts = [&](const char* mode) {
    return "-o UserKnownHostsFile=" + kh + " -o StrictHostKeyChecking=" + mode;
  };
  // SSH_OPTS name the test hosts' own known_hosts first; these -o come later
  // and would lose (first value wins), so build the options ourselves.
  auto target = [&](const char* mode) {
    auto t = LoadSshTarget(dest, "-i " + g_hosts.client_key() + " " + opts(mode), "/dev/null");
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    return t.ok() ? *t : SshTarget{};
  };

  // yes + unknown key: refused, with the fingerprint.
  auto refused = SshHost::Connect(target("yes"));
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.error().message, HasSubstr("not known"));
  EXPECT_THAT(refused.error().message, HasSubstr("SHA256:"));
  EXPECT_THAT(refused.error().message, HasSubstr(dest));
  EXPECT_FALSE(fs::exists(kh) && !Slurp(kh).empty());

  // accept-new + unknown key: recorded as [host]:18222, connection works.
  auto accepted = SshHost::Connect(target("accept-new"));
  ASSERT_TRUE(accepted.ok()) << accepted.error().message;
  std::string recorded = Slurp(kh);
  EXPECT_THAT(recorded, HasSubstr("[" + g_hosts.sut_addr() + "]:18222 " + second.PublicKey()));
  // Now known: yes accepts it.
  auto again = SshHost::Connect(target("yes"));
  ASSERT_TRUE(again.ok()) << again.error().message;

  // A different key recorded for [host]:18222 (the main sshd's): changed -> refused.
  std::string other = Slurp(g_hosts.dir + "/sut/ssh_host_ed25519_key.pub");
  other = other.substr(0, other.find(' ', other.find(' ') + 1));
  std::ofstream(kh) << "[" << g_hosts.sut_addr() << "]:18222 " << other << "\n";
  auto changed = SshHost::Connect(target("accept-new"));
  ASSERT_FALSE(changed.ok());
  EXPECT_THAT(changed.error().message, HasSubstr("CHANGED"));
  EXPECT_THAT(changed.error().message, HasSubstr("SHA256:"));
  EXPECT_EQ(Slurp(kh), "[" + g_hosts.sut_addr() + "]:18222 " + other + "\n");  // untouched
  // no: any key accepted, nothing recorded.
  auto any = SshHost::Connect(target("no"));
  ASSERT_TRUE(any.ok()) << any.error().message;
  EXPECT_EQ(Slurp(kh), "[" + g_hosts.sut_addr() + "]:18222 " + other + "\n");
  accepted->reset();
  again->reset();
  any->reset();
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

// fixtures/ssh/09 and 09b for real: a host key marked @revoked is refused as
// OpenSSH refuses it, even when the next line trusts the same key, and
// accept-new never appends it. libssh reads neither marker line.
TEST(SshHost, RevokedHostKeyIsRefusedAndNeverAppended) {
  REQUIRE_HOSTS();
  const std::string tmp = FreshTmpDir("fvbench-ssh-revoked");
  SecondSshd second(tmp + "/sshd");
  auto started = second.Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  const std::string dest = g_hosts.sut + ":18222";
  const std::string kh = tmp + "/known_hosts";
  auto target = [&](const char* mode) {
    auto t = LoadSshTarget(dest, "-i " + g_hosts.client_key() + " -o UserKnownHostsFile=" + kh +
                                     " -o StrictHostKeyChecking=" + mode, "/dev/null");
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message);
    return t.ok() ? *t : SshTarget{};
  };
  const std::string entry = "[" + g_hosts.sut_addr() + "]:18222 " + second.PublicKey();
  // 09: revoked, then trusted on a plain line.
  std::ofstream(kh) << "@revoked " << entry << "\n" << entry << "\n";
  for (const char* mode : {"yes", "accept-new"}) {
    auto r = SshHost::Connect(target(mode));
    ASSERT_FALSE(r.ok()) << mode;
    EXPECT_THAT(r.error().message, HasSubstr("@revoked in " + kh + ":1")) << r.error().message;
  }
  // 09b: revoked only; accept-new must not append it as trusted.
  std::ofstream(kh) << "@revoked " << entry << "\n";
  auto r = SshHost::Connect(target("accept-new"));
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("@revoked"));
  EXPECT_EQ(Slurp(kh), "@revoked " + entry + "\n");
  // A @cert-authority line for the host, its own key unknown: refused clearly
  // (accept-new would record the plain key, as ssh does).
  std::ofstream(kh) << "@cert-authority [" << g_hosts.sut_addr() << "]:18222 " << second.PublicKey() << "\n";
  auto ca = SshHost::Connect(target("yes"));
  ASSERT_FALSE(ca.ok());
  EXPECT_THAT(ca.error().message, HasSubstr("@cert-authority"));
  EXPECT_THAT(ca.error().message, HasSubstr(kh + ":1"));
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

// Hosts as they come: a server that allows exec but has no sftp subsystem
// still gets and gives its files, byte for byte (exec channels with cat).
TEST_P(SshHostCommands, FilesTravelWithoutAnSftpSubsystem) {
  REQUIRE_HOSTS();
  const std::string tmp = FreshTmpDir("fvbench-ssh-nosftp");
  SecondSshd second(tmp + "/sshd", /*sftp=*/false);
  auto started = second.Start();
  ASSERT_TRUE(started.ok()) << started.error().message;
  const std::string kh = tmp + "/known_hosts";
  auto t = LoadSshTarget(g_hosts.sut + ":18222",
                         "-i " + g_hosts.client_key() + " -o UserKnownHostsFile=" + kh +
                             " -o StrictHostKeyChecking=accept-new",
                         "/dev/null");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto h = SshHost::Connect(*t, Options());
  ASSERT_TRUE(h.ok()) << h.error().message;
  std::string bytes;
  for (int i = 0; i < (1 << 20); ++i) bytes += static_cast<char>((i * 7919) & 0xff);
  const std::string remote = "/tmp/fvbench-nosftp-" + std::to_string(::getpid()) + "/sub/file.bin";
  ASSERT_TRUE((*h)->WriteFile(remote, bytes, 0640).ok());
  auto back = (*h)->ReadFile(remote, kTestCap);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(*back == bytes) << "read back " << back->size() << " bytes of " << bytes.size();
  auto mode = (*h)->Run(Cmd({"stat", "-c", "%a", remote}));
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(mode->out, "640\n");
  // put / fetch of a local file.
  fs::create_directories(tmp);
  std::ofstream(tmp + "/local.txt") << "line 1\n\0line 2\n";
  ASSERT_TRUE((*h)->put(tmp + "/local.txt", remote + ".put", -1).ok());
  ASSERT_TRUE((*h)->Fetch(remote + ".put", tmp + "/fetched.txt", kTestCap).ok());
  EXPECT_EQ(Slurp(tmp + "/fetched.txt"), Slurp(tmp + "/local.txt"));
  auto missing = (*h)->ReadFile(remote + ".none", kTestCap);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.error().message, HasSubstr(remote + ".none"));
  EXPECT_THAT(missing.error().message, HasSubstr("no such file"));
  // Without sftp the same refusals (SentBack has them all on each path): a
  // link by name, a file over its cap by the size the host states, a setuid
  // file arriving with the controller's mode.
  ASSERT_TRUE((*h)->Run(Cmd({"ln", "-s", remote, remote + ".link"})).ok());
  auto link = (*h)->Fetch(remote + ".link", tmp + "/link.txt", kTestCap);
  ASSERT_FALSE(link.ok());
  EXPECT_THAT(link.error().message, HasSubstr("a symbolic link, not a regular file: refused"));
  EXPECT_FALSE(fs::exists(tmp + "/link.txt"));
  auto over = (*h)->ReadFile(remote, FileCap{"test file", 1000});
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.error().message,
              HasSubstr("(test file) is over its cap of 1000 bytes: the host states 1048576 bytes"));
  ASSERT_TRUE((*h)->Run(Cmd({"chmod", "4777", remote + ".put"})).ok());
  ASSERT_TRUE((*h)->Fetch(remote + ".put", tmp + "/setuid.txt", kTestCap).ok());
  EXPECT_EQ(fs::status(tmp + "/setuid.txt").permissions() & fs::perms::mask,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  (void)(*h)->Run(Cmd({"rm", "-rf", "/tmp/fvbench-nosftp-" + std::to_string(::getpid())}));
  h->reset();
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

TEST(SshHost, RefusedClientKeyNamesWhatWasTried) {
  REQUIRE_HOSTS();
  const std::string tmp = FreshTmpDir("fvbench-ssh-badkey");
  fs::create_directories(tmp);
  LocalHost local;
  auto kg = local.Run(Cmd({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", tmp + "/other"}));
  ASSERT_TRUE(kg.ok() && kg->success());
  auto t = LoadSshTarget(g_hosts.sut,
                         "-o IdentitiesOnly=yes -i " + tmp + "/other -o UserKnownHostsFile=" +
                             g_hosts.known_hosts(),
                         "/dev/null");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto h = SshHost::Connect(*t);
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr(g_hosts.sut));
  EXPECT_THAT(h.error().message, HasSubstr(tmp + "/other (refused)"));
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

// ------------------------------------------------------------- connect ---

TEST(SshHost, NothingListeningFailsNamingTheHost) {
  REQUIRE_HOSTS();
  const std::string dest = g_hosts.sut + ":18223";
  SshConnectOptions o;
  o.connect_timeout = std::chrono::seconds(2);
  auto h = SshHost::Connect(TargetFor(dest), o);
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr(dest));
}

TEST(SshHost, SilentServerFailsWithinTheConnectTimeout) {
  REQUIRE_HOSTS();
  // Accepts TCP (kernel backlog) but never sends an SSH banner.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(18224);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 8), 0);
  auto t = LoadSshTarget("root@127.0.0.1:18224", "-o ConnectTimeout=1 -i " + g_hosts.client_key(),
                         "/dev/null");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto t0 = Clock::now();
  auto h = SshHost::Connect(*t);
  auto took = Clock::now() - t0;
  ::close(fd);
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr("root@127.0.0.1:18224"));
  EXPECT_THAT(h.error().message, HasSubstr("1000 ms"));
  // Bounded by the 1 s connect timeout (+ generous slack), not by libssh's defaults.
  EXPECT_LT(took, std::chrono::seconds(5));
}

// ------------------------------------------------------------ services ---

TEST_P(SshHostCommands, ServiceSurvivesTheSessionEnd) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::string log = "/tmp/fvbench-ssh-svc-" + std::to_string(::getpid()) + "/out.log";
  auto svc = h->StartService("sleeper", Cmd({"sh", "-c", "echo started; exec sleep 120"}), log, log);
  ASSERT_TRUE(svc.ok()) << svc.error().message;
  EXPECT_TRUE(h->IsAlive(*svc));

  // End the session; a brand-new session (another SshHost) still sees it.
  h->Disconnect();
  EXPECT_FALSE(h->connected());
  auto other = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(other, nullptr);
  auto check = other->Run(Cmd({"sh", "-c", "kill -0 \"$1\" && cat /proc/$1/cmdline | tr '\\0' ' '",
                            "sh", std::to_string(svc->pid)}));
  ASSERT_TRUE(check.ok()) << check.error().message;
  EXPECT_EQ(check->exit_code, 0) << "the service died with the session";
  EXPECT_THAT(check->out, HasSubstr("sleep 120"));
  // Another SshHost did not start it: it must not stop it.
  auto foreign = other->StopService(*svc, std::chrono::seconds(1));
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.error().message, HasSubstr("not started by this host"));

  ASSERT_TRUE(h->Reconnect().ok());
  EXPECT_TRUE(h->IsAlive(*svc));
  auto out = h->ReadFile(log, kTestCap);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_EQ(*out, "started\n");
  auto stopped = h->StopService(*svc, std::chrono::seconds(2));
  ASSERT_TRUE(stopped.ok()) << stopped.error().message;
  EXPECT_FALSE(h->IsAlive(*svc));
  EXPECT_FALSE(other->IsAlive(*svc));
  (void)h->Run(Cmd({"rm", "-rf", fs::path(log).parent_path().string()}));
}

// IsAlive's state check on /proc/<pid>/stat lines (read over SFTP): a comm
// with spaces and parentheses, a zombie, a dead task, no state at all.
TEST(SshHostPure, ProcStatAliveReadsTheStateAfterTheLastParenthesis) {
  EXPECT_TRUE(detail::ProcStatAlive("4242 (nginx) S 1 4242 4242 0 -1 4194560"));
  EXPECT_TRUE(detail::ProcStatAlive("4242 (a) b (c)) R 1 2 3"));
  EXPECT_FALSE(detail::ProcStatAlive("4242 (nginx) Z 1 4242"));
  EXPECT_FALSE(detail::ProcStatAlive("4242 (x) Z) X 1"));
  EXPECT_FALSE(detail::ProcStatAlive("4242 (nginx)"));
  EXPECT_FALSE(detail::ProcStatAlive(""));
}

// --------------------------------------------------------------- files ---

TEST(SshHost, LargeTransfersArriveIntact) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::string tmp = FreshTmpDir("fvbench-ssh-xfer");
  fs::create_directories(tmp);
  const std::string data = RandomBytes(64u << 20, 42);
  const std::string sha = Sha256Hex(data);
  std::ofstream(tmp + "/up.bin", std::ios::binary) << data;
  const std::string remote = "/tmp/fvbench-ssh-remote-" + std::to_string(::getpid()) + "/sub/big.bin";

  auto t0 = Clock::now();
  auto put = h->put(tmp + "/up.bin", remote, 0640);
  ASSERT_TRUE(put.ok()) << put.error().message;
  std::printf("[figure] SFTP put 64 MiB: %.0f ms\n", Ms(Clock::now() - t0));
  auto sum = h->Run(Cmd({"sh", "-c", "sha256sum \"$1\" && stat -c %a \"$1\"", "sh", remote}));
  ASSERT_TRUE(sum.ok() && sum->success());
  EXPECT_EQ(sum->out.substr(0, 64), sha);
  EXPECT_THAT(sum->out, HasSubstr("\n640\n"));

  auto t1 = Clock::now();
  auto got = h->Fetch(remote, tmp + "/down/big.bin", kBigTestCap);
  ASSERT_TRUE(got.ok()) << got.error().message;
  std::printf("[figure] SFTP fetch 64 MiB: %.0f ms\n", Ms(Clock::now() - t1));
  EXPECT_EQ(Sha256Hex(Slurp(tmp + "/down/big.bin")), sha);
  // The controller's own mode (0644 less the umask), not the remote 0640.
  EXPECT_EQ(fs::status(tmp + "/down/big.bin").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);

  // WriteFile / ReadFile in memory, and overwriting an existing file.
  const std::string small = RandomBytes(3u << 20, 7);
  ASSERT_TRUE(h->WriteFile(remote, small, 0755).ok());
  auto back = h->ReadFile(remote, kTestCap);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->size(), small.size());
  EXPECT_TRUE(*back == small);
  auto mode = h->Run(Cmd({"stat", "-c", "%a", remote}));
  ASSERT_TRUE(mode.ok());
  EXPECT_EQ(mode->out, "755\n");
  // No temp files left beside the target.
  auto ls = h->Run(Cmd({"ls", "-A", fs::path(remote).parent_path().string()}));
  ASSERT_TRUE(ls.ok());
  EXPECT_EQ(ls->out, "big.bin\n");
  ASSERT_TRUE(h->WriteFile(remote, "").ok());
  auto empty = h->ReadFile(remote, kTestCap);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");

  (void)h->Run(Cmd({"rm", "-rf", fs::path(remote).parent_path().parent_path().string()}));
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

TEST_P(SshHostCommands, FileErrorsNameHostAndPath) {
  REQUIRE_HOSTS();
  auto h = ConnectOrDie(g_hosts.sut);
  ASSERT_NE(h, nullptr);
  const std::string missing = "/tmp/fvbench-no-such-dir/missing.txt";
  auto r = h->ReadFile(missing, kTestCap);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(g_hosts.sut));
  EXPECT_THAT(r.error().message, HasSubstr(missing));
  EXPECT_THAT(r.error().message, HasSubstr("no such file"));
  auto f = h->Fetch(missing, "/tmp/fvbench-ssh-never/x", kTestCap);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message, HasSubstr(missing));
  EXPECT_FALSE(fs::exists("/tmp/fvbench-ssh-never/x"));

  const std::string unwritable = "/proc/fvbench-unwritable/file.txt";
  auto w = h->WriteFile(unwritable, "x");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.error().message, HasSubstr(g_hosts.sut));
  EXPECT_THAT(w.error().message, HasSubstr(unwritable));
  const std::string under_file = "/etc/hostname/child.txt";
  auto u = h->WriteFile(under_file, "x");
  ASSERT_FALSE(u.ok());
  EXPECT_THAT(u.error().message, HasSubstr(under_file));
  EXPECT_THAT(u.error().message, HasSubstr("not a directory"));
  auto d = h->ReadFile("/etc", kTestCap);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.error().message, HasSubstr("not a regular file"));
}

// What a loadgen sends back, over a real sshd: files planted on the host as
// a compromised or odd loadgen leaves them (left setuid, padded to 1 GiB,
// replaced by a link or a FIFO). Each test runs on every path a file takes:
//   Runner             ReadFile through the command runner, Fetch over SFTP
//   RunnerWithoutSftp  both through the runner (a server without sftp)
//   Sftp               both over SFTP (no runner: commands on exec channels)
//   ExecWithoutSftp    both by exec channels (neither runner nor sftp)
// and refuses in the same words on each.
enum class FilePath { kRunner, kRunnerWithoutSftp, kSftp, kExecWithoutSftp };

class SentBack : public ::testing::TestWithParam<FilePath> {
 protected:
  void SetUp() override {
    REQUIRE_HOSTS();
    const FilePath mode = GetParam();
    SshConnectOptions o;
    o.command_runner = mode == FilePath::kRunner || mode == FilePath::kRunnerWithoutSftp;
    if (mode == FilePath::kRunnerWithoutSftp || mode == FilePath::kExecWithoutSftp) {
      sshd_tmp_ = FreshTmpDir("fvbench-ssh-sentback-sshd");
      const std::string& tmp = sshd_tmp_;
      second_ = std::make_unique<SecondSshd>(tmp + "/sshd", /*sftp=*/false);
      auto started = second_->Start();
      ASSERT_TRUE(started.ok()) << started.error().message;
      auto t = LoadSshTarget(g_hosts.sut + ":18222",
                             "-i " + g_hosts.client_key() + " -o UserKnownHostsFile=" + tmp +
                                 "/known_hosts -o StrictHostKeyChecking=accept-new",
                             "/dev/null");
      ASSERT_TRUE(t.ok()) << t.error().message;
      auto h = SshHost::Connect(*t, o);
      ASSERT_TRUE(h.ok()) << h.error().message;
      h_ = std::move(*h);
    } else {
      auto h = SshHost::Connect(TargetFor(g_hosts.loadgen), o);
      ASSERT_TRUE(h.ok()) << h.error().message;
      h_ = std::move(*h);
    }
    remote_ = "/tmp/fvbench-ssh-sentback-" + std::to_string(::getpid());
    local_ = "/tmp/fvbench-ssh-sentback-local-" + std::to_string(::getpid());
    ASSERT_TRUE(h_->Run(Cmd({"mkdir", "-p", remote_})).ok());
  }
  void TearDown() override {
    if (h_) (void)h_->Run(Cmd({"rm", "-rf", remote_}));
    h_.reset();
    second_.reset();
    std::error_code ec;
    fs::remove_all(local_, ec);
    if (!sshd_tmp_.empty()) fs::remove_all(sshd_tmp_, ec);
  }
  void Sh(const std::string& script) {
    auto r = h_->Run(Cmd({"sh", "-c", script, "sh", remote_}));
    ASSERT_TRUE(r.ok() && r->success()) << script << ": " << (r.ok() ? r->err : r.error().message);
  }
  // The path commands took: the runner, or exec channels.
  void ExpectCommandPath() {
    const bool runner = GetParam() == FilePath::kRunner || GetParam() == FilePath::kRunnerWithoutSftp;
    EXPECT_EQ(h_->runner_note().find("through one runner process") != std::string::npos, runner)
        << h_->runner_note();
  }
  std::unique_ptr<SecondSshd> second_;
  std::unique_ptr<SshHost> h_;
  std::string remote_, local_;
  std::string sshd_tmp_;  // the second sshd's files and the known_hosts it is checked against
};

INSTANTIATE_TEST_SUITE_P(, SentBack,
                         ::testing::Values(FilePath::kRunner, FilePath::kRunnerWithoutSftp, FilePath::kSftp,
                                           FilePath::kExecWithoutSftp),
                         [](const ::testing::TestParamInfo<FilePath>& i) {
                           switch (i.param) {
                             case FilePath::kRunner: return "Runner";
                             case FilePath::kRunnerWithoutSftp: return "RunnerWithoutSftp";
                             case FilePath::kSftp: return "Sftp";
                             case FilePath::kExecWithoutSftp: return "ExecWithoutSftp";
                           }
                           return "";
                         });

// Mode 4777 on the loadgen arrives as the controller's 0644.
TEST_P(SentBack, SetuidWorldWritableResultArrivesSafe) {
  Sh("printf '{}\\n' > \"$1/r.json\" && chmod 4777 \"$1/r.json\"");
  auto f = h_->Fetch(remote_ + "/r.json", local_ + "/raw/r.json", kWrkResultCap);
  ASSERT_TRUE(f.ok()) << f.error().message;
  struct stat st;
  ASSERT_EQ(::lstat((local_ + "/raw/r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_EQ(Slurp(local_ + "/raw/r.json"), "{}\n");
  auto text = h_->ReadFile(remote_ + "/r.json", kWrkResultCap);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, "{}\n");
  ExpectCommandPath();
}

// A link (to a file of the host's root), a FIFO, a directory where the
// result belongs: refused by name, nothing stored, the FIFO never opened.
TEST_P(SentBack, LinksAndSpecialFilesAreRefused) {
  Sh("ln -s /etc/shadow \"$1/link.json\" && mkfifo \"$1/fifo.json\" && mkdir \"$1/dir.json\"");
  const auto t0 = Clock::now();
  for (const auto& [name, why] : {std::pair{"link.json", "a symbolic link, not a regular file: refused"},
                                  std::pair{"fifo.json", "a special file (FIFO, socket or device), not a regular file"},
                                  std::pair{"dir.json", "a directory, not a regular file"}}) {
    const std::string refusal = h_->name() + ": cannot read " + remote_ + "/" + name + " (wrk result JSON): " + why;
    auto f = h_->Fetch(remote_ + "/" + name, local_ + "/" + name, kWrkResultCap);
    ASSERT_FALSE(f.ok()) << name;
    EXPECT_THAT(f.error().message, HasSubstr(refusal));
    EXPECT_FALSE(fs::exists(fs::symlink_status(local_ + "/" + name))) << name;
    auto r = h_->ReadFile(remote_ + "/" + name, kWrkResultCap);
    ASSERT_FALSE(r.ok()) << name;
    EXPECT_THAT(r.error().message, HasSubstr(refusal));
  }
  // Never waited on the FIFO (a blocked open lasts until a time-out of a
  // minute or more): six reads in seconds; on exec channels each is a login
  // shell of its own (the unit hosts' shell is slow).
  // A bound far from both: a blocked open would take over a minute per read.
  EXPECT_LT(Ms(Clock::now() - t0), 45000);
  ExpectCommandPath();
}

// A result grown to 64 GiB (sparse on the loadgen) is refused from
// the size the host states, before any byte of it crosses; a file larger
// than it states (/proc states 0 bytes) is refused on the bytes received.
TEST_P(SentBack, OverItsCapIsRefusedQuicklyAndNotStored) {
  Sh("printf '{\"schema\":\"fvbench.wrk.pace/1\"}\\n' > \"$1/huge.json\" && truncate -s 64G \"$1/huge.json\"");
  const std::string refusal = h_->name() + ": " + remote_ +
                              "/huge.json (wrk result JSON) is over its cap of 2097152 bytes: the host states "
                              "68719476736 bytes; refused, not kept";
  const auto t0 = Clock::now();
  auto f = h_->Fetch(remote_ + "/huge.json", local_ + "/huge.json", kWrkResultCap);
  const double fetch_ms = Ms(Clock::now() - t0);
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(f.error().message, HasSubstr(refusal));
  EXPECT_FALSE(fs::exists(local_ + "/huge.json"));
  const auto t1 = Clock::now();
  auto r = h_->ReadFile(remote_ + "/huge.json", kWrkResultCap);
  const double read_ms = Ms(Clock::now() - t1);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(refusal));
  std::printf("[figure] refusing a 64 GiB result: Fetch %.0f ms, ReadFile %.0f ms\n", fetch_ms, read_ms);
  // Refused from the stated size, not after the bytes: reading 64 GiB over
  // ssh takes minutes; a bound far from both, so a loaded machine passes.
  EXPECT_LT(fetch_ms, 30000);
  EXPECT_LT(read_ms, 30000);
  for (int i = 0; i < 2; ++i) {
    const std::string over = "/proc/cpuinfo (test file) is over its cap of 64 bytes: received ";
    if (i == 0) {
      auto proc = h_->Fetch("/proc/cpuinfo", local_ + "/cpuinfo", FileCap{"test file", 64});
      ASSERT_FALSE(proc.ok());
      EXPECT_THAT(proc.error().message, HasSubstr(h_->name() + ": " + over));
    } else {
      auto proc = h_->ReadFile("/proc/cpuinfo", FileCap{"test file", 64});
      ASSERT_FALSE(proc.ok());
      EXPECT_THAT(proc.error().message, HasSubstr(h_->name() + ": " + over));
    }
  }
  EXPECT_FALSE(fs::exists(local_ + "/cpuinfo"));
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(local_, ec)) ADD_FAILURE() << "left behind: " << e.path();
  ExpectCommandPath();
}

// A document followed by NUL bytes (under the cap) arrives, and the parser
// refuses it, naming the file and the host.
TEST_P(SentBack, NulBytesAfterTheDocumentAreRefusedNamingFileAndHost) {
  const std::string good = Slurp(FixturesDir() + "/wrk/paced_get_2000rps.json");
  ASSERT_FALSE(good.empty());
  ASSERT_TRUE(h_->WriteFile(remote_ + "/nul.json", good + std::string(4096, '\0')).ok());
  ASSERT_TRUE(h_->Fetch(remote_ + "/nul.json", local_ + "/nul.json", kWrkResultCap).ok());
  const std::string source = local_ + "/nul.json (fetched from " + h_->name() + ":" + remote_ + "/nul.json)";
  auto parsed = ParseWrkOutput(Slurp(local_ + "/nul.json"), source, 2000);
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error().message, HasSubstr(source));
  EXPECT_THAT(parsed.error().message, HasSubstr("a NUL byte at byte " + std::to_string(good.size())));
  auto text = h_->ReadFile(remote_ + "/nul.json", kWrkResultCap);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, good + std::string(4096, '\0'));
  ExpectCommandPath();
}

// A runner that answers a read with more than the cap allows (a host that
// runs something else than fvbench's runner): the controller reads no more
// of the reply than its head and refuses, naming file, host and cap.
TEST(SshHost, ARunnerReplyOverTheCapIsNotRead) {
  REQUIRE_HOSTS();
  // Says hello, then answers the first request with a reply frame stating
  // 64 GiB and sends bytes until the channel ends.
  const std::string program = std::string(R"PERL(
$| = 1;
sub frame { my $p = ''; $p .= length($_) . "\n" . $_ for @_; return length($p) . "\n" . $p; }
print frame('hello', ')PERL") + runner::kRunnerVersion + R"PERL(', $$);
my $b = '';
while ($b !~ /\A\d+\n4\nread(\d+)\n/ || length($b) < $+[0] + $1) { sysread(STDIN, $b, 4096, length $b) or exit 1; }
$b =~ /\A\d+\n4\nread(\d+)\n/;
my $id = substr($b, $+[0], $1);
my $head = "4\nread" . length($id) . "\n" . $id . "2\nok" . "68719476736\n";
print length($head) + 68719476736, "\n", $head;
my $z = "\0" x 65536;
print $z while 1;
)PERL";
  const std::string fake = "exec perl -e " + ShellQuote(program) + "\n";
  SshConnectOptions o;
  o.runner_start_script = fake;
  auto h = SshHost::Connect(TargetFor(g_hosts.sut), o);
  ASSERT_TRUE(h.ok()) << h.error().message;
  const auto t0 = Clock::now();
  auto r = (*h)->ReadFile("/proc/stat", kProcFileCap);
  const double ms = Ms(Clock::now() - t0);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(g_hosts.sut + ": /proc/stat (/proc file) is over its cap of 4194304 bytes: "
                                           "the runner's reply states "));
  // Reading the stated 64 GiB would take minutes: a bound far from both.
  EXPECT_LT(ms, 30000);
  std::printf("[figure] a runner reply of 64 GiB refused in %.0f ms\n", ms);
}

TEST(SshHost, LoadgenHostReachesTheSutOverTheLoadLink) {
  REQUIRE_HOSTS();
  auto lg = ConnectOrDie(g_hosts.loadgen);
  ASSERT_NE(lg, nullptr);
  // The SUT's load-link address is a directly connected route on eth-load.
  auto route = lg->Run(Cmd({"ip", "route", "get", g_hosts.target}));
  ASSERT_TRUE(route.ok()) << route.error().message;
  EXPECT_THAT(route->out, HasSubstr("dev eth-load"));
}

}  // namespace
}  // namespace fvbench::ssh_host_test
