// The command runner program (remote_runner.h kRunnerProgram) run by this
// machine's perl over two pipes, as SshHost runs it over an exec channel:
// Host::Run's contract, reads, and the end of its stdin ending everything.
// Over SSH the same is tested by ssh_host_test (SshHostCommands/Runner).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/host/remote_runner.h"

namespace fvbench::runner_process_test {
namespace {

using ::testing::HasSubstr;
using namespace runner;

// The runner as a child process; Call() sends a frame and waits for the reply.
class LocalRunner {
 public:
  LocalRunner() {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::close(in[0]); ::close(in[1]); ::close(out[0]); ::close(out[1]);
      ::execlp("perl", "perl", "-e", kRunnerProgram, static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~LocalRunner() {
    CloseStdin();
    if (from_ >= 0) ::close(from_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }
  void CloseStdin() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }
  std::vector<std::string> Next(int timeout_ms = 20000) {
    char buf[65536];
    while (true) {
      auto f = TakeFrame(buf_);
      if (!f.ok()) return {"malformed: " + f.error().message};
      if (*f) return **f;
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return {"timeout"};
      ssize_t n = ::read(from_, buf, sizeof buf);
      if (n <= 0) return {"eof"};
      buf_.append(buf, static_cast<size_t>(n));
    }
  }
  // Sends `request` with id `id` without waiting.
  bool Send(const std::vector<std::string>& request, const std::string& id) {
    const std::string frame = WithId(request, id);
    size_t off = 0;
    while (off < frame.size()) {
      ssize_t n = ::write(to_, frame.data() + off, frame.size() - off);
      if (n <= 0) return false;
      off += static_cast<size_t>(n);
    }
    return true;
  }
  // The next reply, its id taken off into `id`.
  std::vector<std::string> Reply(std::string* id = nullptr) {
    std::vector<std::string> f = Next();
    auto got = TakeId(f);
    if (id != nullptr) *id = got.value_or("");
    return f;
  }
  std::vector<std::string> Call(const std::vector<std::string>& request) {
    const std::string id = std::to_string(++ids_);
    if (!Send(request, id)) return {"write failed"};
    std::string got;
    std::vector<std::string> f = Reply(&got);
    if (got != id) return {"reply for id " + got + ", not " + id};
    return f;
  }
  Result<ExecResult> Run(const Command& c) {
    auto req = RunRequest(c);
    if (!req.ok()) return req.error();
    return ParseRunReply(Call(*req), "'" + c.argv[0] + "'");
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
  int ids_ = 0;
};

Command Cmd(std::vector<std::string> argv, std::map<std::string, std::string> env = {}, std::string cwd = "") {
  Command c;
  c.argv = std::move(argv);
  c.env = std::move(env);
  c.cwd = std::move(cwd);
  c.timeout = std::chrono::seconds(20);
  return c;
}

bool Alive(const std::string& pid) {
  std::ifstream f("/proc/" + pid + "/stat");
  std::string s;
  if (!std::getline(f, s)) return false;
  size_t paren = s.rfind(')');
  return paren != std::string::npos && paren + 2 < s.size() && s[paren + 2] != 'Z';
}

// Whether `pid` has left the process table (or is a zombie) within 1 s.
bool GoneWithin1s(const std::string& pid) {
  for (int i = 0; i < 50 && Alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return !Alive(pid);
}

class RunnerProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::access("/usr/bin/perl", X_OK) != 0) GTEST_SKIP() << "no perl here";
    auto hello = r_.Next();
    ASSERT_EQ(hello.size(), 3u) << (hello.empty() ? "" : hello[0]);
    EXPECT_EQ(hello[0], "hello");
    EXPECT_EQ(hello[1], kRunnerVersion);
  }
  LocalRunner r_;
};

TEST_F(RunnerProcess, ArgvEnvCwdAndOutputsAsTheHostContractSays) {
  auto r = r_.Run(Cmd({"sh", "-c", "printf '%s|' \"$@\"; printf '%s' \"$FV_X\" >&2; pwd; exit 3", "sh", "a b", "",
                       "'$(id)'", "\n"},
                      {{"FV_X", "v a l\nue"}}, "/tmp"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->term_signal, 0);
  EXPECT_EQ(r->out, "a b||'$(id)'|\n|/tmp\n");
  EXPECT_EQ(r->err, "v a l\nue");
  auto big = r_.Run(Cmd({"sh", "-c", "yes o | head -c 3000000 & yes e | head -c 2000000 >&2; wait"}));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->out.size(), 3000000u);
  EXPECT_EQ(big->err.size(), 2000000u);  // SIGPIPE is the default again in the command: no "Broken pipe"
  EXPECT_EQ(big->exit_code, 0);
}

TEST_F(RunnerProcess, SignalsNotFoundAndNoCwd) {
  auto sig = r_.Run(Cmd({"sh", "-c", "kill -s KILL $$"}));
  ASSERT_TRUE(sig.ok());
  EXPECT_EQ(sig->exit_code, -1);
  EXPECT_EQ(sig->term_signal, SIGKILL);
  auto nf = r_.Run(Cmd({"fvbench-no-such-command"}));
  ASSERT_FALSE(nf.ok());
  EXPECT_THAT(nf.error().message, HasSubstr("command not found"));
  auto nc = r_.Run(Cmd({"true"}, {}, "/nonexistent/fvbench"));
  ASSERT_FALSE(nc.ok());
  EXPECT_THAT(nc.error().message, HasSubstr("working directory"));
  auto own = r_.Run(Cmd({"sh", "-c", "exit 127"}));
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(own->exit_code, 127);
}

TEST_F(RunnerProcess, TimeoutAndLeftoversEndTheCommandsGroup) {
  Command c = Cmd({"sh", "-c", "echo $$; sleep 300 & echo $!; wait"});
  c.timeout = std::chrono::milliseconds(400);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = r_.Run(c);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  std::istringstream in(r->out);
  std::string shell, child;
  in >> shell >> child;
  ASSERT_FALSE(child.empty()) << r->out;
  // The group is signalled before Run returns; a signalled process leaves
  // the process table when the kernel has ended it, so each is given 1 s.
  EXPECT_TRUE(GoneWithin1s(shell));
  EXPECT_TRUE(GoneWithin1s(child));
  // A finished command's background leftover is ended too, at once.
  auto left = r_.Run(Cmd({"sh", "-c", "sleep 300 & echo $!"}));
  ASSERT_TRUE(left.ok());
  std::string pid = left->out.substr(0, left->out.find('\n'));
  EXPECT_TRUE(GoneWithin1s(pid));
}

TEST_F(RunnerProcess, TheEndOfItsInputEndsTheRunningCommand) {
  const std::string pidfile = "/tmp/fvbench-runner-test-" + std::to_string(::getpid());
  auto req = RunRequest(Cmd({"sh", "-c", "echo $$ >" + pidfile + "; exec sleep 300"}));
  ASSERT_TRUE(req.ok());
  std::string pid;
  // Send the request without waiting for its reply, then wait for the pid.
  std::thread send([&] { (void)r_.Call(*req); });
  for (int i = 0; i < 200 && pid.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream f(pidfile);
    std::getline(f, pid);
  }
  ASSERT_FALSE(pid.empty());
  EXPECT_TRUE(Alive(pid));
  r_.CloseStdin();
  send.join();
  for (int i = 0; i < 150 && Alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(Alive(pid));
  int status = 0;
  EXPECT_EQ(::waitpid(r_.pid(), &status, 0), r_.pid());  // the runner exited too
  ::unlink(pidfile.c_str());
}

// Several requests at once: each reply comes when its command ends, under
// its own id; a read is answered while a command runs.
TEST_F(RunnerProcess, RequestsRunAtOnceAndRepliesFollowTheirIds) {
  auto slow = RunRequest(Cmd({"sh", "-c", "sleep 1; echo slow"}));
  auto fast = RunRequest(Cmd({"sh", "-c", "echo fast"}));
  ASSERT_TRUE(slow.ok() && fast.ok());
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(r_.Send(*slow, "s"));
  ASSERT_TRUE(r_.Send(*fast, "f"));
  ASSERT_TRUE(r_.Send(ReadRequest({"/proc/self/stat"}, 4096), "r"));
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> replies;
  for (int i = 0; i < 3; ++i) {
    std::string id;
    auto f = r_.Reply(&id);
    order.push_back(id);
    replies[id] = f;
  }
  EXPECT_EQ(order.back(), "s") << "the slow command's reply came before the others";
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  auto s = ParseRunReply(replies["s"], "'sh'");
  auto f = ParseRunReply(replies["f"], "'sh'");
  ASSERT_TRUE(s.ok() && f.ok());
  EXPECT_EQ(s->out, "slow\n");
  EXPECT_EQ(f->out, "fast\n");
  EXPECT_TRUE(ParseReadReply(replies["r"], 1).ok());
}

TEST_F(RunnerProcess, ReadsFilesWithoutAProcess) {
  auto f = r_.Call(ReadRequest({"/proc/self/stat", "/nonexistent/fvbench"}, 4096));
  auto r = ParseReadReply(f, 2);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ((*r)[0].kind, ReadOutcome::kOk);
  // /proc/self is the runner itself: no process was started for the read.
  EXPECT_EQ((*r)[0].contents.substr(0, (*r)[0].contents.find(' ')), std::to_string(r_.pid()));
  EXPECT_EQ((*r)[1].kind, ReadOutcome::kError);
  EXPECT_EQ((*r)[1].error, "No such file or directory");
}

// Only a regular file is read, and at most the cap and one byte of it: a
// link is not followed, a FIFO never opened (the runner would wait on it), a
// stated size over the cap not read at all, a /proc file (size 0) cut one
// byte past the cap.
TEST_F(RunnerProcess, ReadsOnlyRegularFilesAndAtMostTheCapAndOneByte) {
  const std::string dir = "/tmp/fvbench-runner-read-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/dir");
  std::ofstream(dir + "/small") << "0123456789";
  ASSERT_EQ(::symlink((dir + "/small").c_str(), (dir + "/link").c_str()), 0);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0600), 0);
  std::ofstream(dir + "/huge") << "x";
  ASSERT_EQ(::truncate((dir + "/huge").c_str(), 1LL << 30), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto f = r_.Call(ReadRequest({dir + "/small", dir + "/link", dir + "/fifo", dir + "/dir", dir + "/huge",
                                "/proc/cpuinfo"},
                               10));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  auto r = ParseReadReply(f, 6);
  ASSERT_TRUE(r.ok()) << r.error().message << ": " << (f.empty() ? "" : f[0]);
  EXPECT_EQ((*r)[0].kind, ReadOutcome::kOk);
  EXPECT_EQ((*r)[0].contents, "0123456789");
  EXPECT_EQ((*r)[1].kind, ReadOutcome::kSymlink);
  EXPECT_EQ((*r)[2].kind, ReadOutcome::kSpecial);
  EXPECT_EQ((*r)[3].kind, ReadOutcome::kDirectory);
  EXPECT_EQ((*r)[4].kind, ReadOutcome::kOverStated);
  EXPECT_EQ((*r)[4].stated_bytes, 1u << 30);
  EXPECT_EQ((*r)[5].kind, ReadOutcome::kOk);
  EXPECT_EQ((*r)[5].contents.size(), 11u) << "a /proc file is cut one byte past the cap";
  // The same file with a cap one byte smaller: its stated size refuses it.
  auto g = ParseReadReply(r_.Call(ReadRequest({dir + "/small"}, 9)), 1);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)[0].kind, ReadOutcome::kOverStated);
  EXPECT_EQ((*g)[0].stated_bytes, 10u);
  // A malformed cap reads nothing.
  auto bad = ParseReadReply(r_.Call({"read", "-1", dir + "/small"}), 1);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ((*bad)[0].kind, ReadOutcome::kError);
  std::filesystem::remove_all(dir);
}

// The values of the environment are set in the command, never in an argv.
TEST_F(RunnerProcess, NoEnvValueOrCwdInAnyCommandLine) {
  const std::string secret = "fvbench-secret-" + std::to_string(::getpid());
  const std::string dir = "/tmp/" + secret + "-cwd";
  ::mkdir(dir.c_str(), 0700);
  auto req = RunRequest(Cmd({"sleep", "1"}, {{"FV_SECRET", secret}}, dir));
  ASSERT_TRUE(req.ok());
  std::thread send([&] { (void)r_.Call(*req); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::string seen;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename().string();
    if (pid.find_first_not_of("0123456789") != std::string::npos || pid == std::to_string(::getpid())) continue;
    std::ifstream f(e.path() / "cmdline", std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    if (s.str().find(secret) != std::string::npos) seen += pid + " ";
  }
  send.join();
  ::rmdir(dir.c_str());
  EXPECT_EQ(seen, "") << "a command line held the value";
}

}  // namespace
}  // namespace fvbench::runner_process_test
