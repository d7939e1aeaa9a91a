// known_hosts as OpenSSH reads it, compared with the REAL ssh: each row of
// the table runs the OpenSSH client (ssh -F <config> ... true, BatchMode) and
// SshHost::Connect with the same config file against the same server and the
// same known_hosts files (fresh copies for each), and compares whether each
// connected and what each appended to the first UserKnownHostsFile.
//
// Hosts: the namespace test hosts (FVBENCH_TESTHOSTS=<state dir>, as
// ssh_host_test.cc); without them the test skips. In the SUT's namespace it
// starts two more sshd: port 18226 with an ed25519 and an ECDSA host key,
// port 18227 with an ed25519 key that holds a host certificate. Each row runs
// in a child process with its own mount namespace whose /etc/hosts also maps
// sut.fvbench.test to the SUT (a host given by name, for CheckHostIP).
//
// A row whose `deviation` is set is one where fvbench deliberately refuses
// what OpenSSH accepts (never the other way): the row checks that OpenSSH
// accepts, that fvbench refuses, and that the refusal says why.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/host/known_hosts.h"
#include "support/host/local_host.h"
#include "support/host/ssh_host.h"

namespace fvbench::known_hosts_openssh_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

constexpr int kPortPair = 18226;  // ed25519 + ECDSA host keys
constexpr int kPortCert = 18227;  // ed25519 host key with a certificate
constexpr char kName[] = "sut.fvbench.test";

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}
void Spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
std::string PublicKey(const std::string& pub_file) {  // "ssh-ed25519 AAAA..."
  std::string k = Slurp(pub_file);
  return k.substr(0, k.find(' ', k.find(' ') + 1));
}

Command Cmd(std::vector<std::string> argv) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = std::chrono::seconds(30);
  return c;
}

// The test hosts: the SUT's address, its namespace and the client key.
struct Hosts {
  std::string dir, addr, netns, client_key, key22;  // key22: the port-22 sshd's host key
};

Result<Hosts> FindHosts() {
  const char* d = std::getenv("FVBENCH_TESTHOSTS");
  if (d == nullptr || *d == '\0') return Error{"FVBENCH_TESTHOSTS is not set (the namespace test hosts)"};
  Hosts h;
  h.dir = d;
  std::string env = Slurp(h.dir + "/env");
  auto at = env.find("FAIRVISOR_REMOTE=root@");
  if (at == std::string::npos) return Error{h.dir + "/env: no FAIRVISOR_REMOTE"};
  at += std::strlen("FAIRVISOR_REMOTE=root@");
  h.addr = env.substr(at, env.find('\n', at) - at);
  LocalHost local;
  std::string pid = Slurp(h.dir + "/sut/sshd.pid");
  while (!pid.empty() && pid.back() == '\n') pid.pop_back();
  auto ns = local.Run(Cmd({"ip", "netns", "identify", pid}));
  if (!ns.ok() || !ns->success() || ns->out.empty()) return Error{"cannot find the SUT's network namespace"};
  h.netns = ns->out.substr(0, ns->out.find('\n'));
  h.client_key = h.dir + "/client_key";
  h.key22 = PublicKey(h.dir + "/sut/ssh_host_ed25519_key.pub");
  return h;
}

// One more sshd in the SUT's namespace: the test hosts' config with another
// port and host keys.
class ExtraSshd {
 public:
  ExtraSshd(const Hosts& h, std::string dir, int port) : h_(h), dir_(std::move(dir)), port_(port) {}
  ~ExtraSshd() {
    if (svc_.pid > 0) (void)local_.StopService(svc_, std::chrono::seconds(2));
  }
  Result<void> Start(const std::vector<std::string>& host_key_lines) {
    std::istringstream in(Slurp(h_.dir + "/sut/sshd_config"));
    std::ostringstream cfg;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("HostKey ", 0) == 0 || line.rfind("PidFile ", 0) == 0) continue;
      if (line.rfind("Port ", 0) == 0) line = "Port " + std::to_string(port_);
      cfg << line << "\n";
    }
    cfg << "PidFile " << dir_ << "/sshd-" << port_ << ".pid\n";
    for (const auto& l : host_key_lines) cfg << l << "\n";
    const std::string conf = dir_ + "/sshd-" + std::to_string(port_) + ".conf";
    Spit(conf, cfg.str());
    auto s = local_.StartService("sshd-" + std::to_string(port_),
                                  Cmd({"ip", "netns", "exec", h_.netns, "/usr/sbin/sshd", "-D", "-f", conf, "-E",
                                       dir_ + "/sshd-" + std::to_string(port_) + ".log"}),
                                  dir_ + "/sshd.out", dir_ + "/sshd.out");
    if (!s.ok()) return s.error();
    svc_ = *s;
    for (int i = 0; i < 100; ++i) {
      auto probe = local_.Run(Cmd({"bash", "-c", "exec 3<>/dev/tcp/" + h_.addr + "/" + std::to_string(port_)}));
      if (probe.ok() && probe->success()) return Ok();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    return Error{"sshd on " + std::to_string(port_) + " did not listen: " +
                 Slurp(dir_ + "/sshd-" + std::to_string(port_) + ".log")};
  }

 private:
  const Hosts& h_;
  std::string dir_;
  int port_;
  LocalHost local_;
  ServiceHandle svc_;
};

// One row: the server, the options and the files before the connection.
struct Row {
  std::string name;
  int port = 22;
  std::string hostname;  // HostName: empty = the SUT's address; "name" = sut.fvbench.test
  std::string checking = "yes";
  std::vector<std::string> extra;         // more config lines (HostKeyAlias, CheckHostIP, ...)
  std::vector<std::string> user_files;    // contents; "-" = the file does not exist
  std::vector<std::string> global_files;  // contents; none given = "GlobalKnownHostsFile none"
  bool user_none = false;                 // UserKnownHostsFile none
  std::string deviation;                  // fvbench refuses what OpenSSH accepts: what its refusal says

  Row(std::string n, int p) : name(std::move(n)), port(p) {}
  Row& Name(std::string h) { hostname = std::move(h); return *this; }
  Row& Mode(std::string m) { checking = std::move(m); return *this; }
  Row& Extra(std::vector<std::string> e) { extra = std::move(e); return *this; }
  Row& User(std::vector<std::string> u) { user_files = std::move(u); return *this; }
  Row& Global(std::vector<std::string> g) { global_files = std::move(g); return *this; }
  Row& UserNone() { user_none = true; return *this; }
  Row& Stricter(std::string why) { deviation = std::move(why); return *this; }
};

struct Outcome {
  bool connected = false;
  std::string message;   // ssh's stderr / fvbench's Error
  std::string appended;  // what the first user file gained
};

// The parent's view of one row: ssh's and fvbench's outcomes.
struct RowResult {
  Outcome ssh, fv;
  std::string error;  // the row could not be run
};

std::string ConfigText(const Row& r, const Hosts& h, const std::string& dir) {
  std::string c = "Host fvbsut\n  User root\n  Port " + std::to_string(r.port) + "\n";
  c += "  HostName " + (r.hostname.empty() ? h.addr : r.hostname) + "\n";
  c += "  IdentityFile " + h.client_key + "\n  IdentitiesOnly yes\n  BatchMode yes\n  ConnectTimeout 10\n";
  c += "  StrictHostKeyChecking " + r.checking + "\n";
  if (r.user_none) {
    c += "  UserKnownHostsFile none\n";
  } else {
    c += "  UserKnownHostsFile";
    for (size_t i = 0; i < r.user_files.size(); ++i) c += " " + dir + "/kh" + std::to_string(i);
    c += "\n";
  }
  c += "  GlobalKnownHostsFile";
  if (r.global_files.empty()) c += " none";
  for (size_t i = 0; i < r.global_files.size(); ++i) c += " " + dir + "/global" + std::to_string(i);
  c += "\n";
  for (const auto& e : r.extra) c += "  " + e + "\n";
  return c;
}

void WriteFiles(const Row& r, const std::string& dir) {
  for (size_t i = 0; i < r.user_files.size(); ++i) {
    fs::remove(dir + "/kh" + std::to_string(i));
    if (r.user_files[i] != "-") Spit(dir + "/kh" + std::to_string(i), r.user_files[i]);
  }
  for (size_t i = 0; i < r.global_files.size(); ++i) Spit(dir + "/global" + std::to_string(i), r.global_files[i]);
}

std::string Appended(const Row& r, const std::string& dir) {
  if (r.user_files.empty()) return "";
  std::string before = r.user_files[0] == "-" ? "" : r.user_files[0];
  std::string after = Slurp(dir + "/kh0");
  return after.size() >= before.size() ? after.substr(before.size()) : "(shrank)";
}

// In the child: a private /etc/hosts with sut.fvbench.test, then ssh, then fvbench.
void RunRowInChild(const Row& r, const Hosts& h, const std::string& dir) {
  auto fail = [&](const std::string& why) {
    Spit(dir + "/result", "E" + why);
    ::_exit(1);
  };
  if (::unshare(CLONE_NEWNS) != 0) fail("unshare(CLONE_NEWNS) failed");
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("mount --make-rprivate / failed");
  Spit(dir + "/hosts", Slurp("/etc/hosts") + "\n" + h.addr + " " + kName + "\n");
  if (::mount((dir + "/hosts").c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) fail("bind /etc/hosts failed");
  const std::string cfg = dir + "/ssh_config";
  Spit(cfg, ConfigText(r, h, dir));
  ::unsetenv("SSH_AUTH_SOCK");
  LocalHost local;
  std::string result;
  WriteFiles(r, dir);
  auto ssh = local.Run(Cmd({"ssh", "-F", cfg, "fvbsut", "true"}));
  if (!ssh.ok()) fail(ssh.error().message);
  result += (ssh->exit_code == 0 ? "1" : "0") + std::string("\x1f") + ssh->err + "\x1f" + Appended(r, dir) + "\x1f";
  WriteFiles(r, dir);
  auto target = LoadSshTarget("fvbsut", "", cfg);
  if (!target.ok()) {
    result += "0\x1f" + target.error().message + "\x1f" + Appended(r, dir);
  } else {
    auto host = SshHost::Connect(*target);
    bool ok = host.ok() && (*host)->Run(Cmd({"true"})).ok();
    result += (ok ? "1" : "0") + std::string("\x1f") + (host.ok() ? "" : host.error().message) + "\x1f" +
              Appended(r, dir);
  }
  Spit(dir + "/result", "R" + result);
  ::_exit(0);
}

RowResult ReadRowResult(const std::string& dir) {
  const std::string text = Slurp(dir + "/result");
  RowResult res;
  if (text.empty() || text[0] != 'R') {
    res.error = text.empty() ? "the row's child died" : text.substr(1);
    return res;
  }
  std::vector<std::string> f;
  std::stringstream in(text.substr(1));
  for (std::string part; std::getline(in, part, '\x1f');) f.push_back(part);
  while (f.size() < 6) f.emplace_back();
  res.ssh = {f[0] == "1", f[1], f[2]};
  res.fv = {f[3] == "1", f[4], f[5]};
  return res;
}

// Every row in a child process of its own, kParallel at a time (the rows
// share nothing but the servers); results in the rows' order.
constexpr size_t kParallel = 6;
std::vector<RowResult> RunRows(const std::vector<Row>& rows, const Hosts& h, const std::string& base) {
  std::vector<RowResult> out;
  for (size_t first = 0; first < rows.size(); first += kParallel) {
    std::vector<pid_t> pids;
    const size_t end = std::min(rows.size(), first + kParallel);
    for (size_t i = first; i < end; ++i) {
      const std::string dir = base + "/row" + std::to_string(i);
      fs::create_directories(dir);
      fs::remove(dir + "/result");
      pid_t pid = ::fork();
      if (pid == 0) RunRowInChild(rows[i], h, dir);
      pids.push_back(pid);
    }
    for (size_t i = first; i < end; ++i) {
      int status = 0;
      if (pids[i - first] > 0) ::waitpid(pids[i - first], &status, 0);
      out.push_back(ReadRowResult(base + "/row" + std::to_string(i)));
    }
  }
  return out;
}

// Lines appended by each: equal, except that hashed names carry each their
// own salt: those must name the same host (checked against the candidates).
bool SameRecords(const std::string& a, const std::string& b, const std::vector<std::string>& candidates) {
  if (a == b) return true;
  std::istringstream ia(a), ib(b);
  std::string la, lb;
  while (true) {
    bool ga = static_cast<bool>(std::getline(ia, la)), gb = static_cast<bool>(std::getline(ib, lb));
    if (ga != gb) return false;
    if (!ga) return true;
    if (la.rfind("|1|", 0) != 0 || lb.rfind("|1|", 0) != 0) {
      if (la != lb) return false;
      continue;
    }
    if (la.substr(la.find(' ')) != lb.substr(lb.find(' '))) return false;
    for (const auto& name : candidates) {
      bool ma = !KnownHostsEntriesFor({"a", la}, name).empty();
      bool mb = !KnownHostsEntriesFor({"b", lb}, name).empty();
      if (ma != mb) return false;
    }
  }
}

std::string OneLine(std::string s, size_t max = 150) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  if (s.size() > max) s = s.substr(0, max) + "...";
  std::string out;  // a Markdown table cell
  for (char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// The servers and keys every group of rows shares: made once for the suite.
class KnownHostsAsOpenSsh : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0) {
      skip_ = "not root: needs the namespace test hosts and mount namespaces";
      return;
    }
    auto h = FindHosts();
    if (!h.ok()) {
      skip_ = h.error().message;
      return;
    }
    h_ = *h;
    dir_ = "/tmp/fvbench-kh-openssh-" + std::to_string(::getpid());
    fs::create_directories(dir_);
    LocalHost local;
    auto keygen = [&](std::vector<std::string> argv) {
      auto r = local.Run(Cmd(std::move(argv)));
      if (!r.ok() || !r->success()) setup_error_ += "ssh-keygen failed: " + (r.ok() ? r->err : r.error().message);
    };
    for (const char* k : {"pair_ed", "cert_ed", "other", "ca"})
      keygen({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", dir_ + "/" + k});
    keygen({"ssh-keygen", "-q", "-t", "ecdsa", "-N", "", "-f", dir_ + "/pair_ecdsa"});
    keygen({"ssh-keygen", "-q", "-s", dir_ + "/ca", "-I", "fvbench-test", "-h", "-n", h_.addr + "," + kName,
            dir_ + "/cert_ed.pub"});
    if (!setup_error_.empty()) return;
    pair_ = new ExtraSshd(h_, dir_, kPortPair);
    if (auto p = pair_->Start({"HostKey " + dir_ + "/pair_ed", "HostKey " + dir_ + "/pair_ecdsa"}); !p.ok())
      setup_error_ = p.error().message;
    cert_ = new ExtraSshd(h_, dir_, kPortCert);
    if (auto c = cert_->Start({"HostKey " + dir_ + "/cert_ed", "HostCertificate " + dir_ + "/cert_ed-cert.pub"});
        !c.ok())
      setup_error_ = c.error().message;
  }
  static void TearDownTestSuite() {
    delete pair_;
    delete cert_;
    pair_ = cert_ = nullptr;
    std::error_code ec;
    if (!dir_.empty() && !failed_) fs::remove_all(dir_, ec);
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(setup_error_.empty()) << setup_error_;
    S = h_.addr;
    SP = "[" + S + "]:" + std::to_string(kPortPair);
    ED = Key("pair_ed");
    EC = Key("pair_ecdsa");
    X = Key("other");
    K22 = h_.key22;
    CERT_ED = Key("cert_ed");
    CA = Key("ca");
  }
  void TearDown() override { failed_ = failed_ || HasFailure(); }

  static std::string Key(const char* name) { return PublicKey(dir_ + "/" + name + ".pub"); }
  static std::string L(const std::string& hosts, const std::string& key) { return hosts + " " + key + "\n"; }
  static std::string Hashed(const std::string& name, const std::string& key) {
    return KnownHostsLine(name, *KeyBlobFromBase64(key.substr(key.find(' ') + 1)), std::string("fvbench-test-salt-20"));
  }

  // Runs the rows, checks each against the real ssh, prints the table.
  void Compare(const std::string& group, const std::vector<Row>& rows) {
    std::vector<RowResult> results = RunRows(rows, h_, dir_ + "/" + group);
    std::string table = "| case | OpenSSH 9.2 | fvbench |\n|---|---|---|\n";
    auto describe = [](const Outcome& o) {
      std::string s = o.connected ? "connects" : "refused";
      if (!o.appended.empty()) s += "; records `" + OneLine(o.appended, 60) + "`";
      return s;
    };
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const RowResult& res = results[i];
      SCOPED_TRACE(r.name);
      if (!res.error.empty()) {
        ADD_FAILURE() << res.error;
        continue;
      }
      table += "| " + r.name + " | " + describe(res.ssh) + " | " + describe(res.fv) +
               (r.deviation.empty() ? "" : " (deliberately stricter)") + " |\n";
      if (!r.deviation.empty()) {
        EXPECT_TRUE(res.ssh.connected) << "OpenSSH: " << res.ssh.message;
        EXPECT_FALSE(res.fv.connected);
        EXPECT_THAT(res.fv.message, HasSubstr(r.deviation));
        EXPECT_EQ(res.fv.appended, "");
        continue;
      }
      EXPECT_EQ(res.fv.connected, res.ssh.connected)
          << "OpenSSH: " << OneLine(res.ssh.message, 600) << "\nfvbench: " << res.fv.message;
      const std::vector<std::string> candidates = {S, SP, kName, "[" + std::string(kName) + "]:" +
                                                   std::to_string(kPortPair), "sut-key"};
      EXPECT_TRUE(SameRecords(res.ssh.appended, res.fv.appended, candidates))
          << "OpenSSH appended:\n" << res.ssh.appended << "fvbench appended:\n" << res.fv.appended;
      if (!res.fv.connected) {
        EXPECT_THAT(res.fv.message, HasSubstr("SHA256:")) << "a refusal names the key";
      }
    }
    std::printf("[table] known_hosts, %s: OpenSSH against fvbench\n%s", group.c_str(), table.c_str());
  }

  std::string S, SP, ED, EC, X, K22, CERT_ED, CA;
  static inline Hosts h_;
  static inline std::string dir_, skip_, setup_error_;
  static inline bool failed_ = false;
  static inline ExtraSshd* pair_ = nullptr;
  static inline ExtraSshd* cert_ = nullptr;
};

TEST_F(KnownHostsAsOpenSsh, PortAndCheckingMode) {
  Compare("port-and-mode", {
      Row("port 22, known", 22).User({L(S, K22)}),
      Row("port 22, unknown", 22).User({""}),
      Row("port 22, unknown, accept-new records it", 22).Mode("accept-new").User({""}),
      Row("port 22, unknown, no records it too", 22).Mode("no").User({""}),
      Row("port 22, changed", 22).User({L(S, X)}),
      Row("port 22, changed, accept-new", 22).Mode("accept-new").User({L(S, X)}),
      Row("port 22, changed, no", 22).Mode("no").User({L(S, X)}),
      Row("port-less line, non-standard port", kPortPair).User({L(S, ED)}),
      Row("port-less line of another key, non-standard port", kPortPair).User({L(S, X)}),
      Row("port-less line of another key, accept-new records the port", kPortPair).Mode("accept-new").User({L(S, X)}),
      Row("line for the port wins over the port-less one", kPortPair).User({L(SP, X) + L(S, ED)}),
      Row("[host]:port line", kPortPair).User({L(SP, ED)}),
      Row("non-standard port, unknown, accept-new", kPortPair).Mode("accept-new").User({""}),
  });
}

TEST_F(KnownHostsAsOpenSsh, KeyTypesPatternsAndHashes) {
  Compare("types-patterns-hashes", {
      Row("only a key of another type known: ssh asks for that type", kPortPair).User({L(SP, EC)}),
      Row("port-less line of another type: not used to order", kPortPair).User({L(S, EC)}),
      Row("wildcard pattern", kPortPair).User({L("*", ED)}),
      Row("negated pattern excludes", 22).User({L("*,!" + S, K22)}),
      Row("negated pattern, other port", kPortPair).User({L("*,!" + S, ED)}),
      Row("hashed [host]:port line", kPortPair).User({Hashed(SP, ED)}),
      Row("hashed port-less line", kPortPair).User({Hashed(S, ED)}),
      Row("HashKnownHosts: accept-new records hashed", kPortPair).Mode("accept-new").Extra({"HashKnownHosts yes"})
          .User({""}),
      Row("host by name", 22).Name(kName).User({L(kName, K22)}),
      Row("host by name in capitals", 22).Name("SUT.FVBENCH.TEST").User({L(kName, K22)}),
  });
}

TEST_F(KnownHostsAsOpenSsh, RevokedFilesAndAlias) {
  Compare("revoked-files-alias", {
      Row("@revoked then trusted", kPortPair).User({"@revoked " + L(SP, ED) + L(SP, ED)}),
      Row("@revoked only, accept-new", kPortPair).Mode("accept-new").User({"@revoked " + L(SP, ED)}),
      Row("@revoked *, no", kPortPair).Mode("no").User({"@revoked " + L("*", ED) + L(SP, ED)}),
      Row("@revoked port-less line, accept-new", kPortPair).Mode("accept-new").User({"@revoked " + L(S, ED)})
          .Stricter("@revoked"),
      Row("second UserKnownHostsFile", kPortPair).User({"-", L(SP, ED)}),
      Row("second file changed, accept-new", kPortPair).Mode("accept-new").User({"-", L(SP, X)}),
      Row("GlobalKnownHostsFile, accept-new records nothing", kPortPair).Mode("accept-new").User({""})
          .Global({L(SP, ED)}),
      Row("second GlobalKnownHostsFile, port-less", kPortPair).User({""}).Global({"", L(S, ED)}),
      Row("global @revoked beats a user line", kPortPair).User({L(SP, ED)}).Global({"@revoked " + L("*", ED)}),
      Row("UserKnownHostsFile none, accept-new", kPortPair).Mode("accept-new").UserNone(),
      Row("UserKnownHostsFile none, known globally", kPortPair).UserNone().Global({L(SP, ED)}),
      Row("HostKeyAlias", kPortPair).Extra({"HostKeyAlias sut-key"}).User({L("sut-key", ED)}),
      Row("HostKeyAlias: no port-less look-up", kPortPair).Extra({"HostKeyAlias sut-key"}).User({L(S, ED)}),
      Row("HostKeyAlias, accept-new records the alias", kPortPair).Mode("accept-new").Extra({"HostKeyAlias Sut-Key"})
          .User({""}),
  });
}

TEST_F(KnownHostsAsOpenSsh, CheckHostIpAndCertificates) {
  Compare("checkhostip-ca", {
      Row("CheckHostIP: address recorded beside the host", 22).Name(kName).Extra({"CheckHostIP yes"})
          .User({L(kName, K22)}),
      Row("CheckHostIP: address with another key", 22).Name(kName).Extra({"CheckHostIP yes"})
          .User({L(kName, K22) + L(S, X)}),
      Row("CheckHostIP: address with another key, no", 22).Name(kName).Mode("no").Extra({"CheckHostIP yes"})
          .User({L(kName, K22) + L(S, X)}),
      Row("CheckHostIP, accept-new records host and address", 22).Name(kName).Mode("accept-new")
          .Extra({"CheckHostIP yes"}).User({""}),
      Row("CheckHostIP, hashed", kPortPair).Name(kName).Mode("accept-new")
          .Extra({"CheckHostIP yes", "HashKnownHosts yes"}).User({""}),
      Row("CheckHostIP, host given as address, other port", kPortPair).Mode("accept-new").Extra({"CheckHostIP yes"})
          .User({""}),
      Row("CheckHostIP off by default", 22).Name(kName).User({L(kName, K22) + L(S, X)}),
      Row("@cert-authority only, server without certificate", kPortPair).User({"@cert-authority " + L("*", CA)}),
      Row("@cert-authority only, accept-new", kPortPair).Mode("accept-new").User({"@cert-authority " + L("*", CA)}),
      Row("@cert-authority and the host's own key", kPortCert)
          .User({"@cert-authority " + L("*", CA) + L("[" + S + "]:" + std::to_string(kPortCert), CERT_ED)}),
      Row("@cert-authority, server with a certificate", kPortCert).User({"@cert-authority " + L("*", CA)})
          .Stricter("@cert-authority"),
  });
}

}  // namespace
}  // namespace fvbench::known_hosts_openssh_test
