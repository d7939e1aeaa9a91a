// Quoting property test through a REAL sshd: every value
// that reaches the remote shell is quoted, so random words passed as argv,
// environment values and cwd to SshHost::Run come back byte-identical.
//
// Hosts: the network-namespace test hosts (fixtures/testhosts/netns-hosts.sh),
// reused from FVBENCH_TESTHOSTS=<state dir> (CTest's fixture
// unit.SshTestHostsUp sets it up and the variable). Without it the tests
// skip, saying so. Only runs commands on the SUT host (printf, env, pwd,
// mkdir/rm under /tmp/fvbench-quoting-<pid>); takes a few seconds. Every test
// runs twice: through the command runner (words travel as frames, remote_runner.h)
// and with an exec channel per command (words travel quoted through a shell).
//
// Words: fixed seed (reproducible), a few hundred, 0..48 bytes drawn from
// shell metacharacters (space ' " ` $ \ ; & | * ? ~ # ( ) < > ! { } [ ] =
// %), newline, tab, CR, control bytes, bytes >= 0x80 (valid UTF-8 and stray
// continuation bytes), letters, and a leading '-'; plus fixed edge cases (the
// empty word, "-", "--", "-n", "'", "''", "\\", "$(id)", "`id`", "%s%n").
// NUL cannot be in argv: a word with one is refused with an Error naming it.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/host/ssh_host.h"

namespace fvbench::ssh_quoting_test {
namespace {

using ::testing::HasSubstr;

struct Hosts {
  std::string sut;
  std::string ssh_opts;
};

Result<Hosts> ReadEnv(const std::string& dir) {
  std::ifstream f(dir + "/env");
  if (!f) return Error{"cannot read " + dir + "/env (test hosts not up?)"};
  Hosts h;
  std::string line;
  while (std::getline(f, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
    if (k == "FAIRVISOR_REMOTE") h.sut = v;
    if (k == "SSH_OPTS") h.ssh_opts = v;
  }
  if (h.sut.empty() || h.ssh_opts.empty()) return Error{dir + "/env lacks FAIRVISOR_REMOTE / SSH_OPTS"};
  return h;
}

// The words of the property test: fixed seed, so a failure names a word
// that the next run produces again.
std::vector<std::string> RandomWords(size_t n, uint32_t seed) {
  static const std::string kMeta = " '\"`$\\;&|*?~#()<>!{}[]=%\n\t\r";
  static const std::vector<std::string> kUtf8 = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                                                 "\xd0\x96", "\xe6\x97\xa5"};
  std::mt19937 rng(seed);
  auto pick = [&](size_t k) { return static_cast<size_t>(rng() % k); };
  std::vector<std::string> words;
  for (size_t i = 0; i < n; ++i) {
    std::string w;
    size_t len = pick(49);
    if (pick(6) == 0) w += '-';
    while (w.size() < len) {
      switch (pick(8)) {
        case 0: case 1: case 2: w += kMeta[pick(kMeta.size())]; break;
        case 3: w += kUtf8[pick(kUtf8.size())]; break;
        case 4: w += static_cast<char>(0x80 + pick(0x80)); break;  // any high byte
        case 5: w += static_cast<char>(1 + pick(31)); break;       // control, not NUL
        default: w += static_cast<char>('a' + pick(26)); break;
      }
    }
    words.push_back(std::move(w));
  }
  return words;
}

std::vector<std::string> EdgeWords() {
  return {"", "-", "--", "-n", "-e", "'", "''", "\"", "\\", "\\\\", "$(id)", "`id`", "$HOME",
          "${IFS}", "%s%n", "a b", " ", "\n", "\t", "*", "~", "~root", "!!", "#x", ";true",
          "x\n'y'\n", std::string(1, '\x7f'), "\xff\xfe", "end\\"};
}

// Splits printf '%s\0' output; the last field is empty by construction.
std::vector<std::string> SplitNul(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\0') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start != s.size()) out.push_back(s.substr(start) + "<no trailing NUL>");
  return out;
}

std::string Printable(const std::string& w) {
  std::string o;
  for (unsigned char c : w) {
    if (c >= 0x20 && c < 0x7f && c != '\\') o += static_cast<char>(c);
    else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    }
  }
  return "\"" + o + "\"";
}

// Two connections for the whole suite (connecting is most of a short test):
// commands through the runner [0] and on an exec channel each [1].
std::unique_ptr<SshHost> g_host[2];
std::string g_setup_skip, g_setup_fail;

class SshQuoting : public ::testing::TestWithParam<bool> {
 protected:
  static void SetUpTestSuite() {
    const char* d = std::getenv("FVBENCH_TESTHOSTS");
    if (d == nullptr || *d == '\0') {
      g_setup_skip = "FVBENCH_TESTHOSTS unset: run through ctest (fixture unit.SshTestHostsUp "
                     "brings up the namespace hosts, root only)";
      return;
    }
    auto h = ReadEnv(d);
    if (!h.ok()) {
      (::geteuid() != 0 ? g_setup_skip : g_setup_fail) = h.error().message;
      return;
    }
    auto t = LoadSshTarget(h->sut, h->ssh_opts, "/dev/null");
    if (!t.ok()) {
      g_setup_fail = t.error().message;
      return;
    }
    for (bool runner : {true, false}) {
      SshConnectOptions o;
      o.command_runner = runner;
      auto c = SshHost::Connect(*t, o);
      if (!c.ok()) {
        g_setup_fail = c.error().message;
        return;
      }
      g_host[runner ? 0 : 1] = std::move(*c);
    }
  }
  static void TearDownTestSuite() {
    g_host[0].reset();
    g_host[1].reset();
  }
  void SetUp() override {
    if (!g_setup_skip.empty()) GTEST_SKIP() << g_setup_skip;
    ASSERT_TRUE(g_setup_fail.empty()) << g_setup_fail;
    host_ = g_host[GetParam() ? 0 : 1].get();
  }
  // Runs printf '%s\0' over `words` in batches; checks every word came back.
  void RoundTrip(const std::vector<std::string>& words, size_t batch) {
    for (size_t at = 0; at < words.size(); at += batch) {
      Command cmd;
      cmd.argv = {"printf", std::string("%s\\0")};
      size_t end = std::min(words.size(), at + batch);
      cmd.argv.insert(cmd.argv.end(), words.begin() + static_cast<long>(at),
                      words.begin() + static_cast<long>(end));
      cmd.timeout = std::chrono::seconds(30);
      auto r = host_->Run(cmd);
      ASSERT_TRUE(r.ok()) << r.error().message;
      ASSERT_TRUE(r->success()) << "exit " << r->exit_code << ": " << r->err;
      auto got = SplitNul(r->out);
      ASSERT_EQ(got.size(), end - at) << "batch at word " << at;
      for (size_t i = at; i < end; ++i)
        EXPECT_EQ(got[i - at], words[i]) << "word " << i << " sent " << Printable(words[i])
                                         << " came back " << Printable(got[i - at]);
    }
  }
  SshHost* host_ = nullptr;
};

INSTANTIATE_TEST_SUITE_P(, SshQuoting, ::testing::Values(true, false),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "Runner" : "ExecChannels"; });

TEST_P(SshQuoting, RandomArgvComesBackByteIdentical) {
  auto words = RandomWords(400, 20240611u);
  RoundTrip(words, 200);  // two commands of ~10 KiB each
}

TEST_P(SshQuoting, EdgeCaseWordsComeBackByteIdentical) {
  auto words = EdgeWords();
  RoundTrip(words, words.size());
  // Alone too: an empty word or "-n" as the only argument.
  RoundTrip({std::string()}, 1);
}

TEST_P(SshQuoting, RandomEnvValuesComeBackByteIdentical) {
  auto words = RandomWords(120, 7u);
  for (size_t at = 0; at < words.size(); at += 60) {
    Command cmd;
    cmd.argv = {"env", "-0"};
    for (size_t i = at; i < std::min(words.size(), at + 60); ++i)
      cmd.env["FVQ_" + std::to_string(i)] = words[i];
    auto r = host_->Run(cmd);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->success()) << r->err;
    std::map<std::string, std::string> seen;
    for (const auto& kv : SplitNul(r->out)) {
      auto eq = kv.find('=');
      if (eq != std::string::npos && kv.rfind("FVQ_", 0) == 0) seen[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const auto& [k, v] : cmd.env) {
      ASSERT_TRUE(seen.count(k)) << k << " missing";
      EXPECT_EQ(seen[k], v) << k << " sent " << Printable(v) << " came back " << Printable(seen[k]);
    }
  }
}

TEST_P(SshQuoting, OddDirectoryNamesWorkAsCwd) {
  const std::string base = "/tmp/fvbench-quoting-" + std::to_string(::getpid());
  std::vector<std::string> names = {"a b'$(x)`t`;&|*", "-dash\nnew line\ttab\xc3\xa9\\"};
  Command mk;
  mk.argv = {"mkdir", "-p", "--"};
  for (const auto& n : names) mk.argv.push_back(base + "/" + n);
  auto m = host_->Run(mk);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->success()) << m->err;
  for (const auto& n : names) {
    Command pwd;
    pwd.argv = {"sh", "-c", "printf '%s' \"$PWD\""};
    pwd.cwd = base + "/" + n;
    auto r = host_->Run(pwd);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->out, pwd.cwd) << Printable(n);
  }
  Command rm;
  rm.argv = {"rm", "-rf", "--", base};
  auto r = host_->Run(rm);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success()) << r->err;
}

TEST_P(SshQuoting, NulByteIsRefusedNamingTheWord) {
  Command cmd;
  cmd.argv = {"printf", "%s", std::string("a\0b", 3)};
  auto r = host_->Run(cmd);
  ASSERT_FALSE(r.ok()) << "a NUL byte in argv must not be cut short silently";
  EXPECT_THAT(r.error().message, HasSubstr("argv[2] contains a NUL byte"));
  EXPECT_THAT(r.error().message, HasSubstr(host_->name()));

  Command env;
  env.argv = {"true"};
  env.env["FVQ_NUL"] = std::string("x\0y", 3);
  auto e = host_->Run(env);
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("'FVQ_NUL' contains a NUL byte"));

  // The host still works after a refusal (nothing was sent).
  Command ok;
  ok.argv = {"true"};
  auto o = host_->Run(ok);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_TRUE(o->success());
}

}  // namespace
}  // namespace fvbench::ssh_quoting_test
