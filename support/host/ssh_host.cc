#include "support/host/ssh_host.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <glob.h>
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/rand.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "support/core/json_fields.h"
#include "support/core/path_text.h"
#include "support/host/known_hosts.h"
#include "support/host/local_copy.h"
#include "support/host/remote_runner.h"
#include "support/host/remote_script.h"
#include "support/host/ssh_runner.h"
#include "support/host/shell_quote.h"

namespace fvbench {

using detail::Basename;
using detail::ErrnoText;

struct SshHost::Session {
  ssh_session ssh = nullptr;
  sftp_session sftp = nullptr;
  bool no_sftp = false;  // sftp_init failed: files go over exec channels
  std::unique_ptr<SshRunner> runner;  // the command runner, once started
  bool runner_off = false;            // it could not start: commands go by exec channels
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    runner.reset();
    if (sftp != nullptr) sftp_free(sftp);
    if (ssh != nullptr) {
      if (ssh_is_connected(ssh)) ssh_disconnect(ssh);
      ssh_free(ssh);
    }
  }
};

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr char kMarker[] = "\001fvbench-";       // our lines on stderr
constexpr milliseconds kPollSlice{250};          // channel wait granularity
constexpr milliseconds kKillDrain{3000};         // after the timeout kill: wait for the status
constexpr size_t kWriteChunk = 128 * 1024;       // one SFTP WRITE (OpenSSH accepts <= 256 KiB)
constexpr uint32_t kReadChunk = 64 * 1024;       // one SFTP READ request
constexpr size_t kReadDepth = 32;                // READ requests in flight

void SetSessionTimeout(ssh_session s, milliseconds ms) {
  long sec = static_cast<long>(ms.count() / 1000);
  long usec = static_cast<long>((ms.count() % 1000) * 1000);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &sec);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

// Linux signal numbers by the names ssh servers send (RFC 4254 6.10 names,
// OpenSSH sends the others without "SIG" as well).
int SignalNumber(const std::string& name) {
  static const std::pair<const char*, int> kSignals[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT}, {"ILL", SIGILL},
      {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},     {"BUS", SIGBUS},   {"FPE", SIGFPE},
      {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
      {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM}, {"CHLD", SIGCHLD},
      {"CONT", SIGCONT}, {"STOP", SIGSTOP},     {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},
      {"TTOU", SIGTTOU}, {"URG", SIGURG},       {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
      {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
      {"PWR", SIGPWR},   {"SYS", SIGSYS},
  };
  std::string n = name.rfind("SIG", 0) == 0 ? name.substr(3) : name;
  if (auto at = n.find('@'); at != std::string::npos) n = n.substr(0, at);
  for (const auto& [k, v] : kSignals)
    if (n == k) return v;
  return 0;
}

std::string SftpStatusText(int code) {
  switch (code) {
    case SSH_FX_OK: return "ok";
    case SSH_FX_EOF: return "end of file";
    case SSH_FX_NO_SUCH_FILE: return "no such file";
    case SSH_FX_PERMISSION_DENIED: return "permission denied";
    case SSH_FX_FAILURE: return "failure";
    case SSH_FX_BAD_MESSAGE: return "bad message";
    case SSH_FX_NO_CONNECTION: return "no connection";
    case SSH_FX_CONNECTION_LOST: return "connection lost";
    case SSH_FX_OP_UNSUPPORTED: return "operation unsupported";
    case SSH_FX_INVALID_HANDLE: return "invalid handle";
    case SSH_FX_NO_SUCH_PATH: return "no such path";
    case SSH_FX_FILE_ALREADY_EXISTS: return "file already exists";
    case SSH_FX_WRITE_PROTECT: return "write protected";
    case SSH_FX_NO_MEDIA: return "no media";
    default: return "SFTP status " + std::to_string(code);
  }
}

// "no such file (SFTP server: No such file)" — status plus libssh's message.
std::string SftpError(ssh_session s, sftp_session sftp) {
  std::string text = SftpStatusText(sftp_get_error(sftp));
  const char* detail = ssh_get_error(s);
  if (detail != nullptr && *detail != '\0') text += " (" + std::string(detail) + ")";
  return text;
}

// Collected by the channel callbacks.
struct ChannelState {
  std::string out, err;
  bool have_status = false;
  int status = -1;
  std::string signal;  // exit-signal name, empty if none
};

int OnData(ssh_session, ssh_channel, void* data, uint32_t len, int is_stderr, void* user) {
  auto* st = static_cast<ChannelState*>(user);
  (is_stderr ? st->err : st->out).append(static_cast<const char*>(data), len);
  return static_cast<int>(len);
}
void OnExitStatus(ssh_session, ssh_channel, int status, void* user) {
  auto* st = static_cast<ChannelState*>(user);
  st->have_status = true;
  st->status = status;
}
void OnExitSignal(ssh_session, ssh_channel, const char* signal, int, const char*, const char*,
                  void* user) {
  auto* st = static_cast<ChannelState*>(user);
  st->signal = signal != nullptr && *signal != '\0' ? signal : "?";
}

// Closes and frees a channel on scope exit. The callbacks are removed first:
// libssh keeps a locally freed channel until the server's CLOSE arrives and
// would otherwise still call them (with a dangling ChannelState).
struct ChannelGuard {
  ssh_channel ch = nullptr;
  ssh_channel_callbacks cb = nullptr;
  ~ChannelGuard() { reset(); }
  void reset() {
    if (ch == nullptr) return;
    if (cb != nullptr) ssh_remove_channel_callbacks(ch, cb);
    cb = nullptr;
    if (ssh_channel_is_open(ch)) ssh_channel_close(ch);
    ssh_channel_free(ch);
    ch = nullptr;
  }
};

struct SftpFileGuard {
  sftp_file f = nullptr;
  ~SftpFileGuard() {
    if (f != nullptr) sftp_close(f);
  }
};

struct AttrGuard {
  sftp_attributes a = nullptr;
  ~AttrGuard() {
    if (a != nullptr) sftp_attributes_free(a);
  }
};

bool ValidEnvName(const std::string& k) {
  if (k.empty() || std::isdigit(static_cast<unsigned char>(k[0]))) return false;
  return std::all_of(k.begin(), k.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// The shell lines shared by Run() and StartService(): cd, exports, and a
// check that argv[0] can be found (so "not found" is an Error, not exit 127).
Result<std::string> Prologue(const std::string& host, const Command& cmd) {
  if (cmd.argv.empty() || cmd.argv[0].empty())
    return Error{host + ": cannot start a command with an empty argv"};
  // A NUL byte cannot travel in a shell word nor in argv: the command line
  // would be cut short silently. Refused, naming the word.
  for (size_t i = 0; i < cmd.argv.size(); ++i)
    if (cmd.argv[i].find('\0') != std::string::npos)
      return Error{host + ": cannot run '" + cmd.argv[0].substr(0, cmd.argv[0].find('\0')) +
                   "': argv[" + std::to_string(i) +
                   "] contains a NUL byte (not representable in a command line)"};
  for (const auto& [k, v] : cmd.env)
    if (k.find('\0') != std::string::npos || v.find('\0') != std::string::npos)
      return Error{host + ": cannot run '" + cmd.argv[0] + "': environment variable '" +
                   k.substr(0, k.find('\0')) + "' contains a NUL byte"};
  if (cmd.cwd.find('\0') != std::string::npos)
    return Error{host + ": cannot run '" + cmd.argv[0] + "': cwd contains a NUL byte"};
  std::string s;
  if (!cmd.cwd.empty())
    s += "cd " + ShellQuote(cmd.cwd) + " 2>/dev/null || { printf '\\001fvbench-nocwd\\n' >&2; exit 127; }\n";
  for (const auto& [k, v] : cmd.env) {
    if (!ValidEnvName(k))
      return Error{host + ": cannot start '" + cmd.argv[0] + "': bad environment variable name '" +
                   k + "'"};
    s += "export " + k + "=" + ShellQuote(v) + "\n";
  }
  s += "command -v " + ShellQuote(cmd.argv[0]) +
       " >/dev/null 2>&1 || { printf '\\001fvbench-notfound\\n' >&2; exit 127; }\n";
  return s;
}

// Takes our marker lines off `err`; returns them ("pgid 123", "notfound").
std::vector<std::string> TakeMarkers(std::string* err) {
  std::vector<std::string> found;
  size_t pos = 0;
  while ((pos = err->find(kMarker, pos)) != std::string::npos) {
    if (pos != 0 && (*err)[pos - 1] != '\n') {
      ++pos;
      continue;
    }
    size_t end = err->find('\n', pos);
    size_t stop = end == std::string::npos ? err->size() : end + 1;
    found.push_back(err->substr(pos + sizeof(kMarker) - 1,
                                (end == std::string::npos ? err->size() : end) - pos -
                                    (sizeof(kMarker) - 1)));
    err->erase(pos, stop - pos);
  }
  return found;
}

// A POSIX sh function: `gone P` succeeds when process group P has no live
// (non-zombie) member. Zombies count as gone: a reparented service's zombie
// lingers when the host's init does not reap.
constexpr char kGoneFn[] =
    "gone() {\n"
    "  kill -s 0 -- \"-$1\" 2>/dev/null || return 0\n"
    "  g=$1\n"
    "  for f in /proc/[0-9]*/stat; do\n"
    "    read -r s <\"$f\" 2>/dev/null || continue\n"
    "    s=${s##*\")\"}\n"
    "    set -f; set -- $s; set +f\n"
    "    if [ \"$3\" = \"$g\" ]; then case $1 in Z|X) ;; *) return 1 ;; esac; fi\n"
    "  done\n"
    "  return 0\n"
    "}\n";

// Kills process group `pgid`: TERM, up to `grace`, KILL, up to 5 s more.
// Prints "gone", "term", "kill" or "alive".
std::string KillGroupScript(int pgid, milliseconds grace) {
  long ticks = std::max<long>(1, static_cast<long>(grace.count() / 50));
  std::string p = std::to_string(pgid);
  return std::string(kGoneFn) + "P=" + p + "\n" +
         "gone $P && { echo gone; exit 0; }\n"
         "kill -s TERM -- -$P 2>/dev/null\n"
         "i=0; while [ $i -lt " + std::to_string(ticks) + " ]; do gone $P && { echo term; exit 0; }; "
         "sleep 0.05; i=$((i+1)); done\n"
         "kill -s KILL -- -$P 2>/dev/null\n"
         "i=0; while [ $i -lt 100 ]; do gone $P && { echo kill; exit 0; }; sleep 0.05; "
         "i=$((i+1)); done\n"
         "echo alive; exit 1\n";
}

// The kernel ends the connection (reads then fail with "Connection timed
// out") when the peer acknowledges nothing for `limit`: TCP_USER_TIMEOUT
// bounds unacknowledged data, keepalive probes (idle limit/3, every limit/6)
// make an idle connection carry some. A peer whose sshd is stopped still
// acknowledges (the kernel does), so this covers dead links and hosts only.
Result<void> SetDeadLinkTimeout(ssh_session ss, milliseconds limit) {
  if (limit.count() <= 0) return Ok();
  int fd = ssh_get_fd(ss);
  if (fd < 0) return Error{"dead-link timeout: no socket"};
  int on = 1;
  int idle = std::max<int>(1, static_cast<int>(limit.count() / 3000));
  int intvl = std::max<int>(1, static_cast<int>(limit.count() / 6000));
  int cnt = 3;
  unsigned int user_timeout = static_cast<unsigned int>(limit.count());
  if (::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) != 0 ||
      ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle) != 0 ||
      ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl) != 0 ||
      ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt) != 0 ||
      ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout) != 0)
    return Error{"dead-link timeout: setsockopt: " + ErrnoText(errno)};
  return Ok();
}

std::string RandomSuffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

std::string Dirname(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string HomeDir() {
  if (const char* h = std::getenv("HOME"); h != nullptr && *h != '\0') return h;
  if (passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) return pw->pw_dir;
  return "/";
}
std::string LocalUser() {
  if (passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  if (const char* u = std::getenv("USER"); u != nullptr) return u;
  return "root";
}

Result<std::string> ReadLocalFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error{"cannot read " + path + ": " + ErrnoText(errno)};
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

Result<SshTarget> LoadSshTarget(const std::string& destination, const std::string& ssh_opts,
                                const std::string& config_path) {
  const std::string home = HomeDir();
  auto opts = ParseSshOpts(ssh_opts);
  if (!opts.ok()) return opts.error();
  SshConfig config;
  std::string path = config_path.empty() ? home + "/.ssh/config" : config_path;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 || !config_path.empty()) {
    auto text = ReadLocalFile(path);
    if (!text.ok()) return Error{"ssh config: " + text.error().message};
    SshIncludeReader reader =
        [](const std::string& pattern)
        -> Result<std::vector<std::pair<std::string, std::string>>> {
      std::vector<std::pair<std::string, std::string>> files;
      glob_t g{};
      int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
      if (rc == 0) {
        for (size_t i = 0; i < g.gl_pathc; ++i) {
          auto body = ReadLocalFile(g.gl_pathv[i]);
          if (!body.ok()) {
            ::globfree(&g);
            return body.error();
          }
          files.emplace_back(g.gl_pathv[i], *body);
        }
      }
      ::globfree(&g);
      return files;
    };
    auto parsed = ParseSshConfig(*text, path, home, reader);
    if (!parsed.ok()) return Error{"ssh config: " + parsed.error().message};
    config = std::move(*parsed);
  }
  return ResolveSshTarget(destination, *opts, config, home, LocalUser());
}

SshHost::SshHost(SshTarget target, SshConnectOptions options)
    : target_(std::move(target)), options_(options) {}

SshHost::~SshHost() = default;

Result<std::unique_ptr<SshHost>> SshHost::Connect(const SshTarget& target,
                                                  const SshConnectOptions& options) {
  std::unique_ptr<SshHost> h(new SshHost(target, options));
  std::lock_guard<std::mutex> lock(h->mu_);
  if (auto r = h->ConnectLocked(); !r.ok()) return r.error();
  return h;
}

bool SshHost::connected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return s_ != nullptr && ssh_is_connected(s_->ssh);
}

std::string SshHost::runner_note() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runner_note_;
}

void SshHost::Disconnect() {
  std::unique_lock<std::mutex> lock(mu_);
  calls_done_.wait(lock, [this] { return calls_in_flight_ == 0; });
  s_.reset();
}

Result<void> SshHost::Reconnect() {
  std::unique_lock<std::mutex> lock(mu_);
  calls_done_.wait(lock, [this] { return calls_in_flight_ == 0; });
  s_.reset();
  return ConnectLocked();
}

namespace {

// The session's options from the target: host, port, user, no ssh_config of
// libssh's own, no logging, TCP_NODELAY, and the host key algorithms ordered
// as ssh orders them for what known_hosts holds (libssh's own reading of
// known_hosts is switched off: /dev/null).
Result<void> SetTargetOptions(ssh_session ss, const SshTarget& t, const std::string& host_key_algorithms,
                              milliseconds connect_timeout, const std::string& who) {
  bool no_config = false;
  int port = t.port;
  int verbosity = SSH_LOG_NOLOG;
  ssh_options_set(ss, SSH_OPTIONS_PROCESS_CONFIG, &no_config);
  ssh_options_set(ss, SSH_OPTIONS_LOG_VERBOSITY, &verbosity);
  if (ssh_options_set(ss, SSH_OPTIONS_HOST, t.host.c_str()) != SSH_OK)
    return Error{who + "bad host '" + t.host + "': " + ssh_get_error(ss)};
  ssh_options_set(ss, SSH_OPTIONS_PORT, &port);
  if (!t.user.empty()) ssh_options_set(ss, SSH_OPTIONS_USER, t.user.c_str());
  ssh_options_set(ss, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
  ssh_options_set(ss, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
  if (ssh_options_set(ss, SSH_OPTIONS_HOSTKEYS, host_key_algorithms.c_str()) != SSH_OK)
    return Error{who + "host key algorithms '" + host_key_algorithms + "': " + ssh_get_error(ss)};
  int nodelay = 1;
  ssh_options_set(ss, SSH_OPTIONS_NODELAY, &nodelay);
  SetSessionTimeout(ss, connect_timeout);
  return Ok();
}

// The target's known_hosts files as ssh reads them: a missing file is empty;
// one that exists but cannot be read is empty and named in refusals.
HostKeyQuery KnownHostsQueryOf(const SshTarget& t) {
  HostKeyQuery q;
  q.hostname = KnownHostsHostname(t.host);
  q.port = t.port;
  q.host_key_alias = t.host_key_alias;
  q.check_host_ip = t.check_host_ip;
  q.hash_known_hosts = t.hash_known_hosts;
  q.checking = t.host_key_checking;
  auto read = [&](const std::vector<std::string>& paths, std::vector<KnownHostsText>* out) {
    for (const std::string& path : paths) {
      KnownHostsText f{path, ""};
      struct stat st;
      if (::stat(path.c_str(), &st) == 0) {
        auto text = detail::ReadTextFile(path);
        if (text.ok()) f.text = std::move(*text);
        else q.unreadable.push_back(text.error().message);
      } else if (errno != ENOENT && errno != ENOTDIR) {
        q.unreadable.push_back(path + ": " + ErrnoText(errno));
      }
      out->push_back(std::move(f));
    }
  };
  read(t.user_known_hosts_files, &q.user_files);
  read(t.global_known_hosts_files, &q.global_files);
  return q;
}

// The server's numeric address (as getnameinfo writes it) and whether it is
// a loopback address; empty when the socket has no peer.
void PeerAddress(ssh_session ss, HostKeyQuery* q) {
  sockaddr_storage sa{};
  socklen_t len = sizeof sa;
  int fd = ssh_get_fd(ss);
  if (fd < 0 || ::getpeername(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) return;
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<sockaddr*>(&sa), len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0)
    return;
  q->address = host;
  if (sa.ss_family == AF_INET) {
    q->address_is_loopback = (ntohl(reinterpret_cast<sockaddr_in*>(&sa)->sin_addr.s_addr) >> 24) == 127;
  } else if (sa.ss_family == AF_INET6) {
    q->address_is_loopback = IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<sockaddr_in6*>(&sa)->sin6_addr);
  }
}

// The server's host key as an SSH wire-format blob.
Result<std::string> ServerKeyBlob(ssh_session ss, const std::string& who) {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(ss, &key) != SSH_OK || key == nullptr)
    return Error{who + "the server showed no host key: " + ssh_get_error(ss)};
  char* b64 = nullptr;
  int rc = ssh_pki_export_pubkey_base64(key, &b64);
  ssh_key_free(key);
  std::optional<std::string> blob;
  if (rc == SSH_OK && b64 != nullptr) blob = KeyBlobFromBase64(b64);
  ssh_string_free_char(b64);
  if (!blob) return Error{who + "cannot read the server's host key"};
  return *blob;
}

// Appends `names` with the key to `file` as ssh does (creating ~/.ssh when
// the file is in it); hashed names with HashKnownHosts.
Result<void> RecordHostKey(const std::string& file, const std::vector<std::string>& names, const std::string& blob,
                           bool hash) {
  std::string lines;
  for (const std::string& name : names) {
    std::optional<std::string> salt;
    if (hash) {
      salt = std::string(20, '\0');
      if (RAND_bytes(reinterpret_cast<unsigned char*>(salt->data()), 20) != 1) return Error{"no random salt"};
    }
    lines += KnownHostsLine(name, blob, salt);
  }
  const std::string dot_ssh = HomeDir() + "/.ssh";
  if (Dirname(file) == dot_ssh) ::mkdir(dot_ssh.c_str(), 0700);
  int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return Error{ErrnoText(errno)};
  ssize_t w = ::write(fd, lines.data(), lines.size());
  int err = errno;
  if (::close(fd) != 0 && w >= 0) return Error{ErrnoText(errno)};
  if (w != static_cast<ssize_t>(lines.size())) return Error{w < 0 ? ErrnoText(err) : "short write"};
  return Ok();
}

// The server's host key against the known_hosts files, as ssh checks it
// (known_hosts.h); what accept-new (or no) records is appended.
Result<void> CheckHostKey(ssh_session ss, HostKeyQuery q, const std::string& who, const std::string& where) {
  auto blob = ServerKeyBlob(ss, who);
  if (!blob.ok()) return blob.error();
  PeerAddress(ss, &q);
  HostKeyDecision d = DecideHostKey(q, *blob, where);
  if (!d.accepted) return Error{who + d.refusal};
  if (d.record.empty()) return Ok();
  const std::string& file = q.user_files.front().path;
  if (auto r = RecordHostKey(file, d.record, *blob, q.hash_known_hosts); !r.ok())
    return Error{who + "cannot record the host key of " + where + " in " + file + ": " + r.error().message +
                 ": refused (StrictHostKeyChecking " + HostKeyCheckingName(q.checking) + ")"};
  return Ok();
}

// Publickey with each identity file in turn; `done` once one is accepted.
Result<void> AuthWithIdentityFiles(ssh_session ss, const SshTarget& t, const std::string& who,
                                   const std::string& where, bool& done, std::vector<std::string>& tried) {
  for (const auto& file : t.identity_files) {
    if (done) break;
    struct stat st;
    if (::stat(file.c_str(), &st) != 0) {
      tried.push_back(file + " (missing)");
      continue;
    }
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(file.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK) {
      tried.push_back(file + " (cannot load: encrypted or not a private key)");
      continue;
    }
    int rc = ssh_userauth_publickey(ss, nullptr, key);
    ssh_key_free(key);
    if (rc == SSH_AUTH_SUCCESS) {
      done = true;
    } else if (rc == SSH_AUTH_ERROR) {
      return Error{who + "authentication with " + where + " failed using " + file + ": " + ssh_get_error(ss)};
    } else {
      tried.push_back(file + " (refused)");
    }
  }
  return Ok();
}

// Authentication: none, else publickey through the agent, then identity files.
Result<void> Authenticate(ssh_session ss, const SshTarget& t, const std::string& who, const std::string& where) {
  int rc = ssh_userauth_none(ss, nullptr);
  if (rc == SSH_AUTH_ERROR) return Error{who + "authentication with " + where + " failed: " + ssh_get_error(ss)};
  if (rc == SSH_AUTH_SUCCESS) return Ok();
  int methods = ssh_userauth_list(ss, nullptr);
  if ((methods & SSH_AUTH_METHOD_PUBLICKEY) == 0)
    return Error{who + where + " does not offer publickey authentication (the only method "
                 "the suite uses)"};
  std::vector<std::string> tried;
  bool done = false;
  const char* agent = std::getenv("SSH_AUTH_SOCK");
  if (!t.identities_only && agent != nullptr && *agent != '\0') {
    rc = ssh_userauth_agent(ss, nullptr);
    if (rc == SSH_AUTH_SUCCESS) done = true;
    else tried.push_back(std::string("ssh-agent (") + agent + ")");
    if (rc == SSH_AUTH_ERROR && !ssh_is_connected(ss))
      return Error{who + "connection to " + where + " lost during authentication: " + ssh_get_error(ss)};
  }
  if (auto f = AuthWithIdentityFiles(ss, t, who, where, done, tried); !f.ok()) return f;
  if (done) return Ok();
  std::string list;
  for (const auto& x : tried) list += (list.empty() ? "" : ", ") + x;
  return Error{who + "publickey authentication refused by " + where + "; tried: " +
               (list.empty() ? "nothing (no agent, no identity file)" : list)};
}

}  // namespace

Result<void> SshHost::ConnectLocked() {
  const std::string who = name() + ": ";
  const std::string where = DescribeSshTarget(target_);
  auto s = std::make_unique<Session>();
  s->ssh = ssh_new();
  if (s->ssh == nullptr) return Error{who + "ssh_new failed (out of memory)"};
  ssh_session ss = s->ssh;
  milliseconds connect_timeout = target_.connect_timeout_s > 0 ? milliseconds(target_.connect_timeout_s * 1000L)
                                                               : options_.connect_timeout;
  HostKeyQuery known = KnownHostsQueryOf(target_);
  if (auto o = SetTargetOptions(ss, target_, HostKeyAlgorithmsFor(known), connect_timeout, who); !o.ok()) return o;
  if (ssh_connect(ss) != SSH_OK) {
    return Error{who + "cannot connect to " + where + " (connect timeout " +
                 std::to_string(connect_timeout.count()) + " ms): " + ssh_get_error(ss)};
  }
  if (auto k = CheckHostKey(ss, std::move(known), who, where); !k.ok()) return k;
  if (auto a = Authenticate(ss, target_, who, where); !a.ok()) return a;
  SetSessionTimeout(ss, options_.io_timeout);
  if (auto d = SetDeadLinkTimeout(ss, options_.dead_link_timeout); !d.ok())
    return Error{who + d.error().message};
  s_ = std::move(s);
  return Ok();
}

Result<ExecResult> SshHost::Run(const Command& cmd) {
  std::unique_lock<std::mutex> lock(mu_);
  // Through the runner, the lock let go while the command runs: commands and
  // reads of other threads run at the same time (the phase monitor's reads
  // during the engine's run on the same host, the hops' counters beside the
  // monitor's start-up facts).
  if (SshRunner* r = RunnerLocked()) return RunByRunnerLocked(cmd, *r, &lock);
  return RunLocked(cmd);
}

// The command runner of this session (remote_runner.h), started on first
// use; nullptr when it is switched off or could not start (then every
// command takes an exec channel of its own; runner_note() says why).
SshRunner* SshHost::RunnerLocked() {
  if (!options_.command_runner || s_ == nullptr || s_->runner_off) return nullptr;
  if (s_->runner != nullptr && !s_->runner->broken()) return s_->runner.get();
  // A broken runner goes once no call waits on it (they fail on their own).
  if (calls_in_flight_ > 0) return nullptr;
  s_->runner.reset();
  const milliseconds bound = std::min<milliseconds>(options_.io_timeout, std::chrono::seconds(30));
  const std::string start =
      options_.runner_start_script.empty() ? runner::RunnerStartScript() : options_.runner_start_script;
  // The exec request is the fixed bootstrap; the start script follows it on
  // the channel's stdin (remote_script.h), then the runner's frames.
  auto framed = FramedScript(start);
  Result<std::unique_ptr<SshRunner>> r = framed.ok() ? SshRunner::Start(s_->ssh, kRemoteBootstrap, *framed, bound,
                                                                        options_.io_timeout)
                                                     : Result<std::unique_ptr<SshRunner>>(framed.error());
  if (!r.ok()) {
    s_->runner_off = true;
    runner_note_ = "each command on an exec channel of its own: the command runner did not start (" +
                   r.error().message + ")";
    return nullptr;
  }
  s_->runner = std::move(*r);
  runner_note_ = "commands through one runner process (perl, pid " + std::to_string(s_->runner->remote_pid()) + ")";
  return s_->runner.get();
}

// A call to the runner, counted while in flight (Disconnect, Reconnect and
// the restart of a broken runner wait for none to be).
Result<std::vector<std::string>> SshHost::CallRunnerLocked(SshRunner& r, const std::vector<std::string>& request,
                                                           milliseconds bound, std::unique_lock<std::mutex>* lock,
                                                           uint64_t max_reply_bytes, uint64_t* oversized) {
  ++calls_in_flight_;
  auto reply = r.Call(request, bound, lock, max_reply_bytes, oversized);
  if (--calls_in_flight_ == 0) calls_done_.notify_all();
  return reply;
}

// One command through the runner; the reply may take the command's timeout
// and the runner's kill and drain (at most 5 s) plus a margin.
Result<ExecResult> SshHost::RunByRunnerLocked(const Command& cmd, SshRunner& r, std::unique_lock<std::mutex>* lock) {
  const std::string who = name() + ": ";
  auto request = runner::RunRequest(cmd);
  if (!request.ok()) return Error{who + request.error().message};
  const std::string what = "'" + cmd.argv[0] + "'";
  const milliseconds bound = cmd.timeout.count() > 0 ? cmd.timeout + std::chrono::seconds(15) : milliseconds(0);
  auto reply = CallRunnerLocked(r, *request, bound, lock);
  if (!reply.ok()) return Error{who + "command runner: " + reply.error().message + " (running " + what + ")"};
  auto res = runner::ParseRunReply(*reply, what);
  if (!res.ok()) return Error{who + res.error().message};
  return res;
}

Result<ExecResult> SshHost::RunLocked(const Command& cmd) {
  auto pro = Prologue(name(), cmd);
  if (!pro.ok()) return pro.error();
  // The watchdog: fd 3 keeps the channel's stdin (a background list would
  // get /dev/null otherwise); its EOF (channel closed) ends the group.
  std::string script = "printf '\\001fvbench-pgid %s\\n' \"$$\" >&2\n"
                       "exec 3<&0\n"
                       "{ cat >/dev/null; kill -TERM -- \"-$$\"; } <&3 >/dev/null 2>&1 &\n"
                       "exec 3<&-\n" +
                       *pro + "exec " + ShellJoin(cmd.argv) + " </dev/null";
  auto r = RunScriptLocked(script, cmd.timeout, /*keep_stdin_open=*/true);
  if (!r.ok()) return Error{r.error().message + " (running '" + cmd.argv[0] + "')"};
  return r;
}

Result<ExecResult> SshHost::RunShLocked(const std::string& script, milliseconds timeout) {
  if (SshRunner* r = RunnerLocked()) {
    Command c;
    c.argv = {"sh", "-c", script};
    c.timeout = timeout;
    return RunByRunnerLocked(c, *r);
  }
  return RunScriptLocked(script, timeout);
}

// Runs `script` through the login shell on one exec channel (see the header).
namespace {

// Opens a session channel, hooks the callbacks and sends the exec request.
// Each waits for the server's answer, bounded by `open_bound`; the session's
// timeout is `io_timeout` again afterwards.
Result<void> OpenExecChannel(ssh_session ss, ChannelGuard& g, ssh_channel_callbacks_struct& cb,
                             const char* request, milliseconds open_bound, milliseconds io_timeout,
                             const std::string& who) {
  g.ch = ssh_channel_new(ss);
  if (g.ch == nullptr) return Error{who + "cannot create a channel: " + ssh_get_error(ss)};
  SetSessionTimeout(ss, open_bound);
  auto no_answer = [&](const char* step, int rc) -> Error {
    std::string detail = ssh_get_error(ss);
    if (rc == SSH_AGAIN || detail.empty())
      detail = "no answer from the ssh server within " + std::to_string(open_bound.count()) +
               " ms (sshd stopped or overloaded?)" + (detail.empty() ? "" : "; " + detail);
    SetSessionTimeout(ss, io_timeout);
    return Error{who + step + ": " + detail};
  };
  if (int rc = ssh_channel_open_session(g.ch); rc != SSH_OK) return no_answer("cannot open a session channel", rc);
  if (ssh_add_channel_callbacks(g.ch, &cb) != SSH_OK) return no_answer("cannot set channel callbacks", SSH_ERROR);
  g.cb = &cb;
  if (int rc = ssh_channel_request_exec(g.ch, request); rc != SSH_OK) return no_answer("exec request refused", rc);
  SetSessionTimeout(ss, io_timeout);
  return Ok();
}

// The channel's stdin: the framed script (remote_script.h), then the chunks
// of `source` (when given) and EOF; without a source, EOF at once unless
// `keep_open`.
Result<void> FeedStdin(ssh_session ss, ssh_channel ch, const std::string& framed,
                       const std::function<Result<size_t>(char*, size_t)>* source, bool keep_open,
                       const std::string& who) {
  for (size_t sent = 0; sent < framed.size();) {
    const uint32_t n = static_cast<uint32_t>(std::min(framed.size() - sent, kWriteChunk));
    if (ssh_channel_write(ch, framed.data() + sent, n) != static_cast<int>(n))
      return Error{who + "sending the script to the remote shell: " + ssh_get_error(ss)};
    sent += n;
  }
  if (source != nullptr) {
    std::vector<char> buf(kWriteChunk);
    while (true) {
      auto n = (*source)(buf.data(), buf.size());
      if (!n.ok()) return Error{who + n.error().message};
      if (*n == 0) break;
      if (ssh_channel_write(ch, buf.data(), static_cast<uint32_t>(*n)) != static_cast<int>(*n))
        return Error{who + "writing to the remote command's stdin: " + ssh_get_error(ss)};
    }
    ssh_channel_send_eof(ch);
  } else if (!keep_open) {
    ssh_channel_send_eof(ch);  // stdin: empty
  }
  return Ok();
}

// Waiting on a running command's channel, within its timeout (0: none).
struct ChannelWaiter {
  ssh_session ss;
  ssh_channel ch;
  ChannelState& st;
  milliseconds io_timeout;
  std::string who;
  bool limited;
  Clock::time_point deadline;

  int Slice() const {
    if (!limited) return static_cast<int>(kPollSlice.count());
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    return static_cast<int>(std::clamp<milliseconds>(left, milliseconds(0), kPollSlice).count());
  }
  bool Expired() const { return limited && Clock::now() >= deadline; }
  Error Lost() const { return Error{who + "connection lost while the command ran: " + ssh_get_error(ss)}; }
  bool Ended() const { return st.have_status || !st.signal.empty() || ssh_channel_is_closed(ch); }

  // 1. Output until the channel's EOF; true when the deadline came first.
  Result<bool> ReadUntilEof() {
    while (!ssh_channel_is_eof(ch) && !ssh_channel_is_closed(ch)) {
      if (Expired()) return true;
      if (ssh_channel_poll_timeout(ch, Slice(), 0) == SSH_ERROR) {
        if (ssh_channel_is_closed(ch)) break;
        return Lost();
      }
    }
    return false;
  }
  // 2. The exit status (or signal), which ssh servers send around EOF.
  Result<void> WaitStatus(bool bounded_by_deadline, Clock::time_point until) {
    while (!Ended()) {
      auto now = Clock::now();
      if (now >= until || (bounded_by_deadline && Expired())) return Ok();
      milliseconds step = kPollSlice;
      if (until != Clock::time_point::max())
        step = std::clamp<milliseconds>(std::chrono::duration_cast<milliseconds>(until - now), milliseconds(1),
                                        kPollSlice);
      SetSessionTimeout(ss, step);
      ssh_channel_get_exit_status(ch);
      SetSessionTimeout(ss, io_timeout);
      if (!ssh_is_connected(ss)) return Lost();
    }
    return Ok();
  }
  // After a kill: the command's last output and status, until `until`.
  Result<void> Drain(Clock::time_point until) {
    while (!ssh_channel_is_eof(ch) && !ssh_channel_is_closed(ch) && Clock::now() < until) {
      if (ssh_channel_poll_timeout(ch, static_cast<int>(kPollSlice.count()), 0) == SSH_ERROR) break;
    }
    return WaitStatus(false, until);
  }
};

// The channel's outcome as an ExecResult: the shell's markers (command not
// found, no working directory) as errors, the exit status or signal.
Result<ExecResult> ChannelOutcome(ChannelState& st, bool timed_out, ssh_session ss, const std::string& who,
                                  const ChannelWaiter& w) {
  for (const auto& m : TakeMarkers(&st.err)) {
    if (m == "notfound") return Error{who + "command not found in the remote PATH"};
    if (m == "nocwd") return Error{who + "working directory does not exist or is not accessible"};
  }
  ExecResult res;
  res.timed_out = timed_out;
  res.out = std::move(st.out);
  res.err = std::move(st.err);
  if (st.have_status) {
    res.exit_code = st.status;
  } else if (!st.signal.empty()) {
    res.exit_code = -1;
    res.term_signal = SignalNumber(st.signal);
    if (res.term_signal == 0) {
      res.term_signal = -1;
      res.err += "\n[fvbench: killed by signal " + st.signal + "]\n";
    }
  } else if (!res.timed_out) {
    if (!ssh_is_connected(ss)) return w.Lost();  // e.g. the dead-link timeout fired
    return Error{who + "the channel closed without an exit status or signal (the command's "
                 "outcome is unknown)"};
  }
  return res;
}

}  // namespace

// 3. Timeout: kills the remote process group the shell reported (its pgid
// marker on stderr), notes what is left.
Result<void> SshHost::KillTimedOutLocked(std::string& err) {
  std::string err_copy = err;
  int pgid = 0;
  for (const auto& m : TakeMarkers(&err_copy))
    if (m.rfind("pgid ", 0) == 0) pgid = std::atoi(m.c_str() + 5);
  if (pgid <= 1) {
    err += "\n[fvbench: timed out before the remote shell reported its process group]\n";
    return Ok();
  }
  // 15 s: the kill script needs at most 2 s + 5 s; also bounds its channel's opening.
  auto k = RunShLocked(KillGroupScript(pgid, milliseconds(2000)), std::chrono::seconds(15));
  if (!k.ok()) {
    return Error{k.error().message + " (killing process group " + std::to_string(pgid) + " after the timeout)"};
  }
  if (k->out.find("alive") != std::string::npos)
    err += "\n[fvbench: process group " + std::to_string(pgid) + " still alive after SIGKILL]\n";
  return Ok();
}

Result<ExecResult> SshHost::RunScriptLocked(const std::string& script, milliseconds timeout,
                                            bool keep_stdin_open, const ChunkSource* stdin_source) {
  const std::string who = name() + ": ";
  if (s_ == nullptr) return Error{who + "not connected (Disconnect() was called or Connect failed)"};
  auto framed = FramedScript(script);
  if (!framed.ok()) return Error{who + framed.error().message};
  ssh_session ss = s_->ssh;
  // Declared before the guard: the guard (destroyed first) unhooks them.
  ChannelState st;
  ssh_channel_callbacks_struct cb{};
  cb.userdata = &st;
  cb.channel_data_function = OnData;
  cb.channel_exit_status_function = OnExitStatus;
  cb.channel_exit_signal_function = OnExitSignal;
  ssh_callbacks_init(&cb);
  ChannelGuard g;
  // Opening the channel and the exec request wait for the server's answer:
  // bounded by the command's own timeout when that is shorter than the I/O
  // timeout (a stopped sshd answers nothing while its kernel keeps the TCP
  // connection alive).
  const milliseconds open_bound =
      timeout.count() > 0 ? std::min(timeout, options_.io_timeout) : options_.io_timeout;
  // The exec request is the fixed bootstrap; the script follows on stdin.
  if (auto o = OpenExecChannel(ss, g, cb, kRemoteBootstrap, open_bound, options_.io_timeout, who); !o.ok())
    return o.error();
  if (auto f = FeedStdin(ss, g.ch, *framed, stdin_source, keep_stdin_open, who); !f.ok()) return f.error();

  ChannelWaiter w{ss, g.ch, st, options_.io_timeout, who, timeout.count() > 0, Clock::now() + timeout};
  auto eof_timed_out = w.ReadUntilEof();
  if (!eof_timed_out.ok()) return eof_timed_out.error();
  bool timed_out = *eof_timed_out;
  if (!timed_out) {
    auto until = w.limited ? w.deadline : Clock::time_point::max();
    if (auto r = w.WaitStatus(true, until); !r.ok()) return r.error();
    if (!w.Ended()) timed_out = true;
  }
  if (timed_out) {
    if (auto k = KillTimedOutLocked(st.err); !k.ok()) return k.error();
    if (auto d = w.Drain(Clock::now() + kKillDrain); !d.ok()) return d.error();
  }
  return ChannelOutcome(st, timed_out, ss, who, w);
}

// ------------------------------------------------------- clock readings ---

namespace {

// Answers each line on stdin with the clock, after a ready line. The clock
// is clock_gettime(CLOCK_REALTIME): the call the engines read it with
// (pace.lua through LuaJIT's FFI, the k6 wrapper by `date`), so what the
// host's processes are told about time (libfaketime, a time namespace) is
// what is measured; bash's $EPOCHREALTIME comes from gettimeofday, which
// libfaketime 0.9.10 leaves alone in bash. Perl's Time::HiRes reads it
// without a process per reading; without it (no perl, or perl-base only),
// `date +%s%N` does, at the cost of a fork and exec in each exchange
// (~1 ms on a LAN host, up to 20 ms on a loaded VM) and of accuracy.
constexpr char kClockScript[] =
    "perl -MTime::HiRes=clock_gettime,CLOCK_REALTIME -e '$| = 1; print \"fvbench-clock-ready\\n\"; "
    "while (<STDIN>) { printf \"fvbench-clock %.6f\\n\", clock_gettime(CLOCK_REALTIME) }' 2>/dev/null && exit 0\n"
    "echo fvbench-clock-ready\n"
    "while IFS= read -r _; do printf 'fvbench-clock %s\\n' \"$(date +%s%N)\"; done\n";

double SystemNowUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The next line on the channel's stdout that starts with `tag` (others, e.g.
// a start-up file's output, are skipped), by `deadline`; the rest of the
// tagged line is returned.
Result<std::string> ReadTaggedLine(ssh_session ss, ssh_channel ch, std::string& buf, const std::string& tag,
                                   Clock::time_point deadline, const std::string& who) {
  while (true) {
    for (size_t nl; (nl = buf.find('\n')) != std::string::npos;) {
      std::string line = buf.substr(0, nl);
      buf.erase(0, nl + 1);
      if (line.rfind(tag, 0) == 0) return line.substr(tag.size());
    }
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Error{who + "no clock reading within the time allowed"};
    char chunk[512];
    const int n = ssh_channel_read_timeout(ch, chunk, sizeof chunk, 0, static_cast<int>(left.count()));
    if (n == SSH_ERROR) return Error{who + "reading the clock: " + ssh_get_error(ss)};
    if (n == 0 && (ssh_channel_is_eof(ch) || ssh_channel_is_closed(ch))) {
      return Error{who + "the clock-reading command ended early (its shell has no `read`/`date +%s%N`?)"};
    }
    if (buf.size() > 65536) return Error{who + "the clock-reading command printed too much without its answer"};
    buf.append(chunk, static_cast<size_t>(std::max(n, 0)));
  }
}

}  // namespace

Result<std::vector<ClockExchange>> SshHost::ExchangeClock(int rounds, milliseconds timeout) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = name() + ": clock readings: ";
  if (s_ == nullptr) return Error{who + "not connected"};
  ssh_session ss = s_->ssh;
  const Clock::time_point deadline = Clock::now() + timeout;
  ChannelGuard g;
  g.ch = ssh_channel_new(ss);
  if (g.ch == nullptr) return Error{who + "cannot create a channel: " + ssh_get_error(ss)};
  // An exec channel of its own, not the command runner: the runner answers
  // a command when it has ended, and a reading must come back while the
  // loop that takes it runs. The exec request is the fixed bootstrap, the
  // loop follows on stdin (remote_script.h), then one line per reading.
  auto framed = FramedScript(kClockScript);
  if (!framed.ok()) return Error{who + framed.error().message};
  SetSessionTimeout(ss, std::min(timeout, options_.io_timeout));
  const bool opened =
      ssh_channel_open_session(g.ch) == SSH_OK && ssh_channel_request_exec(g.ch, kRemoteBootstrap) == SSH_OK;
  SetSessionTimeout(ss, options_.io_timeout);
  if (!opened) return Error{who + "cannot start the command: " + ssh_get_error(ss)};
  if (ssh_channel_write(g.ch, framed->data(), static_cast<uint32_t>(framed->size())) !=
      static_cast<int>(framed->size()))
    return Error{who + "sending the loop to the remote shell: " + ssh_get_error(ss)};
  std::string buf;
  if (auto ready = ReadTaggedLine(ss, g.ch, buf, "fvbench-clock-ready", deadline, who); !ready) return ready.error();
  std::vector<ClockExchange> out;
  for (int i = 0; i < rounds; ++i) {
    ClockExchange e;
    e.sent_us = SystemNowUs();
    if (ssh_channel_write(g.ch, "\n", 1) != 1) return Error{who + "writing: " + ssh_get_error(ss)};
    auto line = ReadTaggedLine(ss, g.ch, buf, "fvbench-clock ", deadline, who);
    e.received_us = SystemNowUs();
    if (!line) return line.error();
    auto remote = ParseClockReading(*line);
    if (!remote) return Error{who + remote.error().message};
    e.remote_us = *remote;
    out.push_back(e);
  }
  ssh_channel_send_eof(g.ch);  // the loop ends at EOF; the guard closes the channel
  return out;
}

// ---------------------------------------------------------------- SFTP ---

namespace {

// sftp session of `s`, created on first use.
Result<sftp_session> OpenSftp(const std::string& who, ssh_session ss, sftp_session* slot) {
  if (*slot != nullptr) return *slot;
  sftp_session sftp = sftp_new(ss);
  if (sftp == nullptr) return Error{who + "cannot start SFTP: " + ssh_get_error(ss)};
  if (sftp_init(sftp) != SSH_OK) {
    std::string e = SftpError(ss, sftp);
    sftp_free(sftp);
    return Error{who + "cannot start SFTP (is the sftp subsystem enabled?): " + e};
  }
  *slot = sftp;
  return sftp;
}

// mkdir -p of `dir` over SFTP.
Result<void> MakeDirs(const std::string& who, ssh_session ss, sftp_session sftp,
                      const std::string& dir, const std::string& for_path) {
  if (dir.empty() || dir == "/" || dir == ".") return Ok();
  {
    AttrGuard a{sftp_stat(sftp, dir.c_str())};
    if (a.a != nullptr) {
      if (a.a->type == SSH_FILEXFER_TYPE_DIRECTORY) return Ok();
      return Error{who + "cannot create " + for_path + ": " + dir + " is not a directory"};
    }
  }
  if (auto r = MakeDirs(who, ss, sftp, Dirname(dir), for_path); !r.ok()) return r;
  if (sftp_mkdir(sftp, dir.c_str(), 0755) != 0) {
    std::string e = SftpError(ss, sftp);
    AttrGuard a{sftp_stat(sftp, dir.c_str())};  // created meanwhile?
    if (a.a == nullptr || a.a->type != SSH_FILEXFER_TYPE_DIRECTORY)
      return Error{who + "cannot create directory " + dir + " for " + for_path + ": " + e};
  }
  return Ok();
}

const char* SftpTypeName(uint8_t type) {
  switch (type) {
    case SSH_FILEXFER_TYPE_SYMLINK: return "a symbolic link";
    case SSH_FILEXFER_TYPE_DIRECTORY: return "a directory";
    case SSH_FILEXFER_TYPE_SPECIAL: return "a special file (FIFO, socket or device)";
    default: return "not a regular file";
  }
}

Error OverCap(const std::string& who, const std::string& path, const FileCap& cap, uint64_t bytes,
              const char* counted) {
  return Error{who + path + " (" + cap.kind + ") is over its cap of " + std::to_string(cap.max_bytes) +
               " bytes: " + counted + " " + std::to_string(bytes) + " bytes; refused, not kept"};
}

// `what`: "a symbolic link", "a directory", ... (SftpTypeName's words).
Error NotRegular(const std::string& who, const std::string& path, const FileCap& cap, const std::string& what) {
  return Error{who + "cannot read " + path + " (" + cap.kind + "): " + what + ", not a regular file: refused"};
}

// The runner's answer for one path (remote_runner.h), in the words of the
// SFTP path's refusals; the bytes received counted against the cap.
Result<std::string> RunnerReadResult(const std::string& who, const std::string& path, const FileCap& cap,
                                     runner::ReadOutcome o) {
  using O = runner::ReadOutcome;
  switch (o.kind) {
    case O::kOk:
      if (o.contents.size() > cap.max_bytes) return OverCap(who, path, cap, o.contents.size(), "received");
      return std::move(o.contents);
    case O::kOverStated: return OverCap(who, path, cap, o.stated_bytes, "the host states");
    case O::kSymlink: return NotRegular(who, path, cap, SftpTypeName(SSH_FILEXFER_TYPE_SYMLINK));
    case O::kDirectory: return NotRegular(who, path, cap, SftpTypeName(SSH_FILEXFER_TYPE_DIRECTORY));
    case O::kSpecial: return NotRegular(who, path, cap, SftpTypeName(SSH_FILEXFER_TYPE_SPECIAL));
    case O::kSwapped:
      return Error{who + "cannot read " + path + " (" + cap.kind +
                   "): the file opened is not the one checked (replaced between lstat and open): refused"};
    case O::kError: break;
  }
  if (!o.error.empty()) o.error[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(o.error[0])));
  return Error{who + "cannot read " + path + ": " + o.error};
}

// Reads a regular remote file with pipelined READ requests. `sink` receives
// each piece at its offset. Returns the size read. A file that ends before
// its stat size is an Error (truncated); one that grew is read to its end.
// Only a regular file is read: lstat first (a symbolic link is refused, not
// followed), and the opened handle's fstat must still show a regular file
// with the same owner and mode (SFTP v3 has no O_NOFOLLOW: a swap between the
// two is caught here; a FIFO swapped in blocks the server's open until
// io_timeout). More than cap.max_bytes is refused: a stated size at once,
// received bytes as they arrive (at most one READ chunk past the cap).
Result<uint64_t> ReadRemote(const std::string& who, ssh_session ss, sftp_session sftp,
                            const std::string& path, const FileCap& cap,
                            const std::function<Result<void>(uint64_t, const char*, size_t)>& sink) {
  AttrGuard a{sftp_lstat(sftp, path.c_str())};
  if (a.a == nullptr) return Error{who + "cannot read " + path + ": " + SftpError(ss, sftp)};
  if (a.a->type != SSH_FILEXFER_TYPE_REGULAR) return NotRegular(who, path, cap, SftpTypeName(a.a->type));
  const uint64_t size = a.a->size;
  if (size > cap.max_bytes) return OverCap(who, path, cap, size, "the host states");
  SftpFileGuard f{sftp_open(sftp, path.c_str(), O_RDONLY, 0)};
  if (f.f == nullptr) return Error{who + "cannot open " + path + ": " + SftpError(ss, sftp)};
  {
    AttrGuard h{sftp_fstat(f.f)};
    if (h.a == nullptr) return Error{who + "cannot read " + path + ": fstat: " + SftpError(ss, sftp)};
    if (h.a->type != SSH_FILEXFER_TYPE_REGULAR || h.a->uid != a.a->uid || h.a->gid != a.a->gid ||
        h.a->permissions != a.a->permissions) {
      return Error{who + "cannot read " + path + " (" + cap.kind +
                   "): the file opened is not the one checked (replaced between lstat and open): refused"};
    }
  }
  struct Req {
    uint32_t id;
    uint64_t off;
    uint32_t len;
  };
  std::deque<Req> inflight;
  std::vector<char> buf(kReadChunk);
  uint64_t next = 0;
  auto issue = [&](uint64_t off, uint32_t len) -> Result<void> {
    if (sftp_seek64(f.f, off) != 0)
      return Error{who + "cannot read " + path + ": seek: " + SftpError(ss, sftp)};
    int id = sftp_async_read_begin(f.f, len);
    if (id < 0) return Error{who + "cannot read " + path + ": " + SftpError(ss, sftp)};
    inflight.push_back({static_cast<uint32_t>(id), off, len});
    return Ok();
  };
  // Drains the responses still owed (keeps the SFTP session in step) on error.
  auto fail = [&](Error e) -> Error {
    while (!inflight.empty()) {
      Req r = inflight.front();
      inflight.pop_front();
      if (sftp_async_read(f.f, buf.data(), r.len, r.id) < 0) break;
    }
    return e;
  };
  while (true) {
    while (inflight.size() < kReadDepth && next < size) {
      uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(kReadChunk, size - next));
      if (auto r = issue(next, len); !r.ok()) return fail(r.error());
      next += len;
    }
    if (inflight.empty()) break;
    Req r = inflight.front();
    inflight.pop_front();
    int n = sftp_async_read(f.f, buf.data(), r.len, r.id);
    if (n < 0) return fail(Error{who + "cannot read " + path + " at offset " +
                                std::to_string(r.off) + ": " + SftpError(ss, sftp)});
    if (n == 0)
      return fail(Error{who + "truncated read of " + path + ": end of file at byte " +
                        std::to_string(r.off) + " of " + std::to_string(size) +
                        " (the file shrank while being read?)"});
    if (auto s = sink(r.off, buf.data(), static_cast<size_t>(n)); !s.ok()) return fail(s.error());
    if (static_cast<uint32_t>(n) < r.len) {  // short read: not EOF; ask for the rest
      if (auto q = issue(r.off + static_cast<uint32_t>(n), r.len - static_cast<uint32_t>(n)); !q.ok())
        return fail(q.error());
    }
  }
  // Confirm the end: read on from `size` until EOF (a file that grew is read whole).
  uint64_t total = size;
  if (sftp_seek64(f.f, total) != 0)
    return Error{who + "cannot read " + path + ": seek: " + SftpError(ss, sftp)};
  while (true) {
    ssize_t n = sftp_read(f.f, buf.data(), buf.size());
    if (n < 0) return Error{who + "cannot read " + path + ": " + SftpError(ss, sftp)};
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > cap.max_bytes) return OverCap(who, path, cap, total, "received");
    if (auto s = sink(total - static_cast<uint64_t>(n), buf.data(), static_cast<size_t>(n)); !s.ok())
      return s.error();
  }
  return total;
}

}  // namespace

namespace {

// Writes a remote file: temp name beside it, chmod, size check, rename.
// `next(buf, cap)` fills up to cap bytes and returns the count (0 = done).
Result<void> WriteRemote(const std::string& who, ssh_session ss, sftp_session sftp,
                         const std::string& path, int mode,
                         const std::function<Result<size_t>(char*, size_t)>& next,
                         const std::function<Result<ExecResult>(const std::string&)>& sh) {
  if (path.empty() || path.back() == '/') return Error{who + "cannot write '" + path + "': not a file path"};
  if (auto r = MakeDirs(who, ss, sftp, Dirname(path), path); !r.ok()) return r;
  std::string dir = Dirname(path);
  std::string tmp = (dir.empty() ? "" : (dir == "/" ? "/" : dir + "/")) + "." + Basename(path) +
                    ".tmp." + RandomSuffix();
  uint64_t written = 0;
  {
    SftpFileGuard f{sftp_open(sftp, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL,
                              static_cast<mode_t>(mode & 07777) | 0600)};
    if (f.f == nullptr)
      return Error{who + "cannot write " + path + ": " + SftpError(ss, sftp)};
    auto abandon = [&](const std::string& why) -> Error {
      sftp_close(f.f);
      f.f = nullptr;
      sftp_unlink(sftp, tmp.c_str());
      return Error{who + "cannot write " + path + ": " + why};
    };
    std::vector<char> buf(kWriteChunk);
    while (true) {
      auto n = next(buf.data(), buf.size());
      if (!n.ok()) return abandon(n.error().message);
      if (*n == 0) break;
      ssize_t w = sftp_write(f.f, buf.data(), *n);
      if (w < 0 || static_cast<size_t>(w) != *n)
        return abandon("write at byte " + std::to_string(written) + ": " + SftpError(ss, sftp));
      written += *n;
    }
    int rc = sftp_close(f.f);
    f.f = nullptr;
    if (rc != 0) {
      std::string e = SftpError(ss, sftp);
      sftp_unlink(sftp, tmp.c_str());
      return Error{who + "cannot write " + path + ": close: " + e};
    }
  }
  auto drop = [&](const std::string& why) -> Error {
    sftp_unlink(sftp, tmp.c_str());
    return Error{who + "cannot write " + path + ": " + why};
  };
  if (sftp_chmod(sftp, tmp.c_str(), static_cast<mode_t>(mode & 07777)) != 0)
    return drop("chmod: " + SftpError(ss, sftp));
  {
    AttrGuard a{sftp_stat(sftp, tmp.c_str())};
    if (a.a == nullptr) return drop("stat of the temp file: " + SftpError(ss, sftp));
    if (a.a->size != written)
      return drop("wrote " + std::to_string(written) + " bytes but the file holds " +
                  std::to_string(a.a->size));
  }
  if (sftp_rename(sftp, tmp.c_str(), path.c_str()) == 0) return Ok();
  // SFTP v3 rename does not replace an existing file; rename(2) through mv does.
  std::string rename_err = SftpError(ss, sftp);
  auto mv = sh("mv -f -- " + ShellQuote(tmp) + " " + ShellQuote(path));
  if (!mv.ok()) return drop("rename: " + rename_err + "; " + mv.error().message);
  if (!mv->success())
    return drop("rename: " + rename_err + "; mv: " + mv->err);
  return Ok();
}

}  // namespace

bool SshHost::SftpMissingLocked() {
  if (s_->no_sftp) return true;
  if (s_->sftp != nullptr) return false;
  auto sftp = OpenSftp(name() + ": ", s_->ssh, &s_->sftp);
  s_->no_sftp = !sftp.ok();
  return s_->no_sftp;
}

Result<void> SshHost::WriteByExecLocked(const std::string& path, int mode, const ChunkSource& next) {
  const std::string who = name() + ": ";
  if (path.empty() || path.back() == '/') return Error{who + "cannot write '" + path + "': not a file path"};
  const std::string script = fmt::format(
      "set -e; p={}; d=$(dirname -- \"$p\"); mkdir -p -- \"$d\"; t=$(mktemp \"$d/.fvbench.XXXXXX\"); "
      "trap 'rm -f -- \"$t\"' EXIT; cat > \"$t\"; chmod {:o} \"$t\"; mv -f -- \"$t\" \"$p\"; trap - EXIT",
      ShellQuote(path), mode & 07777);
  auto r = RunScriptLocked(script, std::chrono::minutes(5), false, &next);
  if (!r.ok()) return Error{r.error().message + " (writing " + path + " by exec: the server has no sftp)"};
  if (!r->success())
    return Error{who + "cannot write " + path + " (by exec: the server has no sftp): exit " +
                 std::to_string(r->exit_code) + ": " + r->err};
  return Ok();
}

Result<std::string> SshHost::ReadByExecLocked(const std::string& path, const FileCap& cap) {
  const std::string who = name() + ": ";
  const std::string by_exec = " (by exec: the server has no sftp)";
  // The shell cannot open without following a link: what is not a regular
  // file is refused by its type first (exit 3, never opened); a stated size
  // over the cap too (exit 4, the size on stdout); `head -c` stops one byte
  // past the cap.
  const std::string script = fmt::format(
      "p={}; m={}\n"
      "if [ -L \"$p\" ]; then t='{}'; elif [ -d \"$p\" ]; then t='{}'; "
      "elif [ ! -e \"$p\" ]; then echo 'no such file' >&2; exit 1; elif [ ! -f \"$p\" ]; then t='{}'; else t=; fi\n"
      "[ -z \"$t\" ] || {{ printf '%s\\n' \"$t\"; exit 3; }}\n"
      "s=$(stat -c %s -- \"$p\" 2>/dev/null) && [ \"$s\" -gt \"$m\" ] && {{ printf '%s\\n' \"$s\"; exit 4; }}\n"
      "exec head -c $((m + 1)) -- \"$p\"\n",
      ShellQuote(path), cap.max_bytes, SftpTypeName(SSH_FILEXFER_TYPE_SYMLINK),
      SftpTypeName(SSH_FILEXFER_TYPE_DIRECTORY), SftpTypeName(SSH_FILEXFER_TYPE_SPECIAL));
  auto r = RunScriptLocked(script, std::chrono::minutes(5));
  if (!r.ok()) return Error{r.error().message + " (reading " + path + " by exec: the server has no sftp)"};
  std::string line = r->out.substr(0, r->out.find('\n'));
  if (r->exit_code == 3) return Error{NotRegular(who, path, cap, line).message + by_exec};
  if (r->exit_code == 4 && !line.empty() && line.find_first_not_of("0123456789") == std::string::npos)
    return Error{OverCap(who, path, cap, std::stoull(line), "the host states").message + by_exec};
  if (!r->success()) return Error{who + "cannot read " + path + " (" + cap.kind + ")" + by_exec + ": " + r->err};
  if (r->out.size() > cap.max_bytes) return Error{OverCap(who, path, cap, r->out.size(), "received").message + by_exec};
  return std::move(r->out);
}

Result<std::optional<std::string>> SshHost::ReadByRunnerLocked(const std::string& path, const FileCap& cap,
                                                               std::unique_lock<std::mutex>* lock) {
  SshRunner* r = RunnerLocked();
  if (r == nullptr) return std::optional<std::string>();
  const std::string who = name() + ": ";
  uint64_t oversized = 0;
  auto reply = CallRunnerLocked(*r, runner::ReadRequest({path}, cap.max_bytes), options_.io_timeout, lock,
                                runner::ReadReplyBound(1, cap.max_bytes), &oversized);
  if (oversized > 0) return OverCap(who, path, cap, oversized, "the runner's reply states");
  if (!reply.ok()) return std::optional<std::string>();  // it broke: another path
  auto read = runner::ParseReadReply(*reply, 1);
  if (!read.ok()) return Error{who + "cannot read " + path + ": " + read.error().message};
  auto text = RunnerReadResult(who, path, cap, std::move((*read)[0]));
  if (!text.ok()) return text.error();
  return std::optional<std::string>(std::move(*text));
}

Result<void> SshHost::WriteFile(const std::string& path, const std::string& content, int mode) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = name() + ": ";
  if (s_ == nullptr) return Error{who + "not connected (writing " + path + ")"};
  size_t pos = 0;
  const ChunkSource next = [&](char* buf, size_t cap) -> Result<size_t> {
    size_t n = std::min(cap, content.size() - pos);
    std::memcpy(buf, content.data() + pos, n);
    pos += n;
    return n;
  };
  if (SftpMissingLocked()) return WriteByExecLocked(path, mode, next);
  auto sftp = OpenSftp(who, s_->ssh, &s_->sftp);
  if (!sftp.ok()) return sftp.error();
  return WriteRemote(
      who, s_->ssh, *sftp, path, mode, next,
      [&](const std::string& script) { return RunShLocked(script, std::chrono::seconds(60)); });
}

Result<void> SshHost::put(const std::string& local_path, const std::string& remote_path, int mode) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = name() + ": ";
  if (s_ == nullptr) return Error{who + "not connected (putting " + remote_path + ")"};
  int fd = ::open(local_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{who + "cannot put " + local_path + ": " + ErrnoText(errno)};
  struct FdGuard {
    int fd;
    ~FdGuard() { ::close(fd); }
  } guard{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    return Error{who + "cannot put " + local_path + ": not a regular file"};
  if (mode < 0) mode = static_cast<int>(st.st_mode & 07777);
  uint64_t sent = 0;
  const ChunkSource next = [&](char* buf, size_t cap) -> Result<size_t> {
    while (true) {
      ssize_t n = ::read(fd, buf, cap);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{"read " + local_path + ": " + ErrnoText(errno)};
      sent += static_cast<uint64_t>(n);
      return static_cast<size_t>(n);
    }
  };
  Result<void> r = Ok();
  if (SftpMissingLocked()) {
    r = WriteByExecLocked(remote_path, mode, next);
  } else {
    auto sftp = OpenSftp(who, s_->ssh, &s_->sftp);
    if (!sftp.ok()) return sftp.error();
    r = WriteRemote(who, s_->ssh, *sftp, remote_path, mode, next,
                    [&](const std::string& script) { return RunShLocked(script, std::chrono::seconds(60)); });
  }
  if (!r.ok()) return r;
  if (sent != static_cast<uint64_t>(st.st_size))
    return Error{who + "put " + local_path + " -> " + remote_path + ": sent " +
                 std::to_string(sent) + " bytes, the local file has " +
                 std::to_string(st.st_size) + " (it changed while being sent)"};
  return Ok();
}

Result<std::string> SshHost::ReadFile(const std::string& path, const FileCap& cap) {
  std::unique_lock<std::mutex> lock(mu_);
  return ReadFileLocked(path, cap, &lock);
}

Result<std::string> SshHost::ReadFileLocked(const std::string& path, const FileCap& cap,
                                            std::unique_lock<std::mutex>* lock) {
  const std::string who = name() + ": ";
  if (s_ == nullptr) return Error{who + "not connected (reading " + path + ")"};
  // Through the runner: one round trip, no process started; SFTP or exec
  // when there is none or it broke.
  auto by_runner = ReadByRunnerLocked(path, cap, lock);
  if (!by_runner.ok()) return by_runner.error();
  if (*by_runner) return std::move(**by_runner);
  if (SftpMissingLocked()) return ReadByExecLocked(path, cap);
  auto sftp = OpenSftp(who, s_->ssh, &s_->sftp);
  if (!sftp.ok()) return sftp.error();
  std::string out;
  auto n = ReadRemote(who, s_->ssh, *sftp, path, cap,
                      [&](uint64_t off, const char* data, size_t len) -> Result<void> {
                        if (out.size() < off + len) out.resize(off + len);
                        std::memcpy(out.data() + off, data, len);
                        return Ok();
                      });
  if (!n.ok()) return n.error();
  out.resize(*n);
  return out;
}

Result<void> SshHost::Fetch(const std::string& remote_path, const std::string& local_path, const FileCap& cap) {
  std::unique_lock<std::mutex> lock(mu_);
  const std::string who = name() + ": ";
  if (s_ == nullptr) return Error{who + "not connected (fetching " + remote_path + ")"};
  auto copy = LocalCopy::Create(who, "fetch " + remote_path, local_path);
  if (!copy.ok()) return copy.error();
  // SFTP streams the file to the copy; without it, the runner or an exec
  // channel reads it whole (at most the cap and one byte).
  if (SftpMissingLocked()) {
    auto by_runner = ReadByRunnerLocked(remote_path, cap, &lock);
    if (!by_runner.ok()) return by_runner.error();
    auto text = *by_runner ? Result<std::string>(std::move(**by_runner)) : ReadByExecLocked(remote_path, cap);
    if (!text.ok()) return text.error();
    if (auto w = copy->WriteAt(0, text->data(), text->size()); !w.ok()) return w;
    return copy->Commit(text->size());
  }
  auto sftp = OpenSftp(who, s_->ssh, &s_->sftp);
  if (!sftp.ok()) return sftp.error();
  auto n = ReadRemote(who, s_->ssh, *sftp, remote_path, cap,
                      [&](uint64_t off, const char* data, size_t len) { return copy->WriteAt(off, data, len); });
  if (!n.ok()) return n.error();
  return copy->Commit(*n);
}

// ------------------------------------------------------------ services ---

namespace {

// Starts a service through the runner: `sh -c kServiceScript sh <stdout>
// <stderr> <argv>...`, its environment and cwd set by the runner (never in
// the script or any argv). In a non-interactive shell a background job is
// not a group leader, so setsid(1) calls setsid() without forking: $! is the
// service's pid, pgid and sid.
constexpr char kServiceScript[] =
    "out=$1 err=$2; shift 2\n"
    "mkdir -p -- \"$(dirname -- \"$out\")\" \"$(dirname -- \"$err\")\" || exit 1\n"
    "printf '' >>\"$out\" && printf '' >>\"$err\" || exit 1\n"
    "command -v -- \"$1\" >/dev/null 2>&1 || { printf '\\001fvbench-notfound\\n' >&2; exit 127; }\n"
    "setsid -- \"$@\" </dev/null >>\"$out\" 2>>\"$err\" &\n"
    "p=$!\n"
    "i=0; while ! kill -s 0 -- \"-$p\" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.01; i=$((i+1)); done\n"
    "echo \"$p\"\n";

}  // namespace

Result<ServiceHandle> SshHost::StartService(const std::string& svc_name, const Command& cmd,
                                             const std::string& stdout_path,
                                             const std::string& stderr_path) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = name() + ": ";
  auto pro = Prologue(name(), cmd);
  if (!pro.ok()) return Error{pro.error().message + " (service '" + svc_name + "')"};
  std::string out = stdout_path.empty() ? "/dev/null" : stdout_path;
  std::string err = stderr_path.empty() ? "/dev/null" : stderr_path;
  Result<ExecResult> r = Error{"not started"};
  if (SshRunner* runner = RunnerLocked()) {
    Command c;
    c.argv = {"sh", "-c", kServiceScript, "sh", out, err};
    c.argv.insert(c.argv.end(), cmd.argv.begin(), cmd.argv.end());
    c.env = cmd.env;
    c.cwd = cmd.cwd;
    c.timeout = std::chrono::seconds(30);
    r = RunByRunnerLocked(c, *runner);
    if (r.ok() && r->exit_code == 127 && !TakeMarkers(&r->err).empty())
      r = Error{who + "command not found in the remote PATH"};
  } else {
    std::string dirs;
    for (const auto& p : {out, err})
      if (!Dirname(p).empty()) dirs += " " + ShellQuote(Dirname(p));
    std::string script;
    if (!dirs.empty()) script += "mkdir -p --" + dirs + " || exit 1\n";
    script += "printf '' >>" + ShellQuote(out) + " && printf '' >>" + ShellQuote(err) + " || exit 1\n";
    script += *pro;
    script += "setsid -- " + ShellJoin(cmd.argv) + " </dev/null >>" + ShellQuote(out) + " 2>>" + ShellQuote(err) +
              " &\n";
    script += "p=$!\n"
              "i=0; while ! kill -s 0 -- \"-$p\" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.01; "
              "i=$((i+1)); done\n"
              "echo \"$p\"\n";
    r = RunScriptLocked(script, std::chrono::seconds(30));
  }
  if (!r.ok()) return Error{r.error().message + " (starting service '" + svc_name + "')"};
  if (!r->success())
    return Error{who + "cannot start service '" + svc_name + "' (exit " +
                 std::to_string(r->exit_code) + "): " + r->err};
  std::string o = r->out;
  while (!o.empty() && (o.back() == '\n' || o.back() == ' ')) o.pop_back();
  if (auto nl = o.rfind('\n'); nl != std::string::npos) o = o.substr(nl + 1);
  int pid = std::atoi(o.c_str());
  if (pid <= 1 || o.find_first_not_of("0123456789") != std::string::npos)
    return Error{who + "service '" + svc_name + "': no pid from the start script (stdout '" +
                 r->out + "', stderr '" + r->err + "')"};
  services_.insert(pid);
  ServiceHandle h;
  h.pid = pid;
  h.name = svc_name;
  h.stdout_path = stdout_path;
  h.stderr_path = stderr_path;
  return h;
}

namespace detail {

bool ProcStatAlive(std::string_view stat) {
  const size_t paren = stat.rfind(')');
  if (paren == std::string_view::npos) return false;
  const size_t state = stat.find_first_not_of(' ', paren + 1);
  if (state == std::string_view::npos) return false;
  return stat[state] != 'Z' && stat[state] != 'X';
}

}  // namespace detail

bool SshHost::IsAlive(const ServiceHandle& svc) {
  if (svc.pid <= 1) return false;
  std::lock_guard<std::mutex> lock(mu_);
  std::string p = std::to_string(svc.pid);
  if (s_ == nullptr) return false;
  // Read by the runner or over SFTP, no process starts on the host (a
  // command without the runner costs a login shell: phase_monitor.h).
  if (RunnerLocked() != nullptr || !SftpMissingLocked()) {
    auto stat = ReadFileLocked("/proc/" + p + "/stat", kProcFileCap);
    return stat.ok() && detail::ProcStatAlive(*stat);
  }
  auto r = RunScriptLocked("kill -s 0 " + p + " 2>/dev/null || exit 1\n"
                           "read -r s </proc/" + p + "/stat 2>/dev/null || exit 0\n"
                           "s=${s##*\")\"}; set -f; set -- $s\n"
                           "case $1 in Z|X) exit 1 ;; esac\nexit 0\n",
                           std::chrono::seconds(30));
  return r.ok() && r->exit_code == 0;
}

Result<void> SshHost::StopService(const ServiceHandle& svc, milliseconds grace) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string who = name() + ": ";
  const std::string what = "service '" + svc.name + "' (pid " + std::to_string(svc.pid) + ")";
  if (svc.pid <= 1 || services_.count(svc.pid) == 0)
    return Error{who + "refusing to stop " + what + ": not started by this host"};
  auto r = RunShLocked(KillGroupScript(svc.pid, grace), grace + std::chrono::seconds(30));
  if (!r.ok()) return Error{r.error().message + " (stopping " + what + ")"};
  if (r->success()) return Ok();
  return Error{who + what + " still alive after SIGKILL to its process group (" + r->out +
               r->err + ")"};
}

}  // namespace fvbench
