#include "support/host/local_host.h"

#include "support/core/path_text.h"
#include "support/host/interrupts.h"
#include "support/host/local_copy.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

extern char** environ;

namespace fvbench {

using detail::ErrnoText;

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kTermGrace{2000};       // timeout: SIGTERM -> SIGKILL
constexpr milliseconds kLingerIdle{100};       // after exit: stop when pipes idle this long
constexpr milliseconds kLingerMax{1000};       // after exit: stop reading at the latest
constexpr milliseconds kKillWait{5000};        // StopService: wait after SIGKILL
constexpr milliseconds kPollSlice{20};         // when no pidfd is available

// Closes an fd on scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

// The null-terminated char* array posix_spawn and execve take for argv and
// envp; points into `words`, which must outlive it.
std::vector<char*> CStringArray(const std::vector<std::string>& words) {
  std::vector<char*> out;
  out.reserve(words.size() + 1);
  for (const auto& w : words) out.push_back(const_cast<char*>(w.c_str()));
  out.push_back(nullptr);
  return out;
}

// posix_spawn attributes / file actions with RAII.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
};

// The child's environment: ours, with `extra` added / overriding.
std::vector<std::string> BuildEnv(const std::map<std::string, std::string>& extra,
                                  std::string* path_value) {
  std::map<std::string, std::string> merged;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    auto eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    merged.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  for (const auto& [k, v] : extra) merged[k] = v;
  auto it = merged.find("PATH");
  *path_value = it != merged.end() ? it->second : "/usr/local/bin:/usr/bin:/bin";
  std::vector<std::string> out;
  out.reserve(merged.size());
  for (const auto& [k, v] : merged) out.push_back(k + "=" + v);
  return out;
}

// argv[0] as execve will see it: unchanged when it holds a '/', else the first
// executable regular file named so in `path` (an empty entry means ".").
Result<std::string> ResolveProgram(const std::string& host, const std::string& argv0,
                                   const std::string& path) {
  if (argv0.find('/') != std::string::npos) return argv0;
  int last_err = ENOENT;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + argv0;
    struct stat st;
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      last_err = EACCES;
    }
    start = end + 1;
  }
  return Error{host + ": cannot start '" + argv0 + "': " + ErrnoText(last_err) +
               " (searched PATH=" + path + ")"};
}

// What both spawn paths check before starting `cmd`: a program name, and a
// cwd that is an existing directory.
Result<void> CheckStartable(const std::string& host, const Command& cmd) {
  if (cmd.argv.empty() || cmd.argv[0].empty())
    return Error{host + ": cannot start a command with an empty argv"};
  if (cmd.cwd.empty()) return {};
  struct stat st;
  if (::stat(cmd.cwd.c_str(), &st) != 0)
    return Error{host + ": cannot start '" + cmd.argv[0] + "': cwd " + cmd.cwd + ": " + ErrnoText(errno)};
  if (!S_ISDIR(st.st_mode))
    return Error{host + ": cannot start '" + cmd.argv[0] + "': cwd " + cmd.cwd + " is not a directory"};
  return {};
}

// Spawns cmd with the file actions / flags already in `setup`.
Result<pid_t> Spawn(const std::string& host, const Command& cmd, SpawnSetup& setup,
                    short flags) {
  if (auto ok = CheckStartable(host, cmd); !ok) return ok.error();
  const std::string& argv0 = cmd.argv[0];
  if (!cmd.cwd.empty()) posix_spawn_file_actions_addchdir_np(&setup.actions, cmd.cwd.c_str());
  // Only fds 0-2 reach the child, whatever else this process has open.
  posix_spawn_file_actions_addclosefrom_np(&setup.actions, 3);

  std::string path;
  std::vector<std::string> env = BuildEnv(cmd.env, &path);
  auto program = ResolveProgram(host, argv0, path);
  if (!program.ok()) return program.error();

  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&setup.attr, &none);
  posix_spawnattr_setsigdefault(&setup.attr, &all);
  posix_spawnattr_setflags(&setup.attr, flags | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv = CStringArray(cmd.argv);
  std::vector<char*> envp = CStringArray(env);

  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program->c_str(), &setup.actions, &setup.attr, argv.data(),
                         envp.data());
  if (rc != 0)
    return Error{host + ": cannot start '" + argv0 + "'" +
                 (*program != argv0 ? " (" + *program + ")" : std::string()) + ": " +
                 ErrnoText(rc)};
  return pid;
}

// Run()'s spawn: like Spawn(), but by fork + execve so that the child can ask
// the kernel for SIGKILL when the thread that started it dies
// (prctl(PR_SET_PDEATHSIG)). A suite process killed outright (SIGKILL from a
// ctest TIMEOUT, the OOM killer) cannot run any cleanup; this way the load
// engine it was running dies with it instead of loading the SUT unattended.
// The signal survives execve (not for set-uid programs) and taskset's exec.
// Between fork and execve only async-signal-safe calls. stdin is /dev/null,
// stdout/stderr the given fds, a new process group, empty signal mask,
// default dispositions, fds >= 3 closed. An exec failure comes back through a
// close-on-exec pipe as its errno.
Result<pid_t> SpawnDyingWithParent(const std::string& host, const Command& cmd, int out_fd,
                                   int err_fd) {
  if (auto ok = CheckStartable(host, cmd); !ok) return ok.error();
  const std::string& argv0 = cmd.argv[0];
  std::string path;
  std::vector<std::string> env = BuildEnv(cmd.env, &path);
  auto program = ResolveProgram(host, argv0, path);
  if (!program.ok()) return program.error();
  std::vector<char*> argv = CStringArray(cmd.argv);
  std::vector<char*> envp = CStringArray(env);
  const char* prog = program->c_str();
  const char* cwd = cmd.cwd.empty() ? nullptr : cmd.cwd.c_str();

  int status_pipe[2];
  if (::pipe2(status_pipe, O_CLOEXEC) != 0)
    return Error{host + ": cannot start '" + argv0 + "': pipe: " + ErrnoText(errno)};
  Fd status_r(status_pipe[0]), status_w(status_pipe[1]);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return Error{host + ": cannot start '" + argv0 + "': fork: " + ErrnoText(errno)};
  if (pid == 0) {
    const int sw = status_pipe[1];
    auto die = [sw](int err) {
      (void)!::write(sw, &err, sizeof err);
      ::_exit(127);
    };
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) die(errno);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    if (::setpgid(0, 0) != 0) die(errno);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull < 0) die(errno);
    if (::dup2(devnull, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) die(errno);
    if (cwd != nullptr && ::chdir(cwd) != 0) die(errno);
    // Close fds >= 3 except the status pipe (close-on-exec: closed by execve).
    const unsigned lo = 3, hi = static_cast<unsigned>(sw);
    if (hi > lo) ::syscall(SYS_close_range, lo, hi - 1, 0);
    ::syscall(SYS_close_range, hi + 1, ~0U, 0);
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; ++s) ::sigaction(s, &dfl, nullptr);  // EINVAL for KILL/STOP: fine
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(prog, argv.data(), envp.data());
    die(errno);
  }
  status_w.reset();
  int err = 0;
  ssize_t n;
  do {
    n = ::read(status_r.get(), &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof err)) {
    int st;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return Error{host + ": cannot start '" + argv0 + "'" +
                 (*program != argv0 ? " (" + *program + ")" : std::string()) + ": " +
                 ErrnoText(err)};
  }
  return pid;
}

Result<void> MakeParentDirs(const std::string& host, const std::string& path) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return Ok();
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return Error{host + ": cannot create directory " + parent.string() + " for " + path +
                       ": " + ec.message()};
  return Ok();
}

Result<void> WriteAll(int fd, const char* data, size_t n, const std::string& what) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Error{"write " + what + ": " + ErrnoText(errno)};
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Ok();
}

// Writes `path` atomically: `fill` writes into a temp file in the same
// directory, which then gets `mode` and is renamed over `path`.
template <class Fill>
Result<void> WriteAtomically(const std::string& host, const std::string& path, int mode,
                             Fill fill) {
  if (path.empty()) return Error{host + ": WriteFile: empty path"};
  if (auto r = MakeParentDirs(host, path); !r.ok()) return r;
  std::filesystem::path p(path);
  std::string tmpl = (p.parent_path() / ("." + p.filename().string() + ".tmp.XXXXXX")).string();
  if (p.parent_path().empty()) tmpl = "." + p.filename().string() + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return Error{host + ": cannot write " + path + ": " + ErrnoText(errno)};
  Fd guard(fd);
  auto fail = [&](const std::string& msg) -> Result<void> {
    guard.reset();
    ::unlink(tmpl.c_str());
    return Error{host + ": cannot write " + path + ": " + msg};
  };
  if (auto r = fill(fd); !r.ok()) return fail(r.error().message);
  if (::fchmod(fd, static_cast<mode_t>(mode) & 07777) != 0)
    return fail("chmod " + ErrnoText(errno));
  if (::close(guard.release()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Error{host + ": cannot write " + path + ": close: " + ErrnoText(err)};
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmpl.c_str());
    return Error{host + ": cannot write " + path + ": rename: " + ErrnoText(err)};
  }
  return Ok();
}

// True once no live (non-zombie) process is in process group `pgid`.
bool GroupGone(int pgid) {
  if (::kill(-pgid, 0) != 0 && errno == ESRCH) return true;
  // The group still has members: perhaps only zombies waiting for a parent
  // (e.g. a PID 1 that does not reap). Those are dead; look in /proc.
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return false;
  bool live = false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
    std::string line;
    if (!std::getline(f, line)) continue;
    // pid (comm) state ppid pgrp ...; comm may hold spaces and ')'.
    auto close_paren = line.rfind(')');
    if (close_paren == std::string::npos) continue;
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (std::sscanf(line.c_str() + close_paren + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3)
      continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') {
      live = true;
      break;
    }
  }
  ::closedir(d);
  return !live;
}

}  // namespace

namespace {

// One started child of LocalHost::Run until its end: reaps it, escalates
// SIGTERM -> SIGKILL at its timeout, reads its stdout / stderr, and lingers
// briefly after its exit for output its own children still write.
class ChildWatch {
 public:
  ChildWatch(const std::string& host, const Command& cmd, pid_t pid, Fd& out_r, Fd& err_r, ExecResult& res)
      : host_(host), cmd_(cmd), pid_(pid), res_(res), streams_{&out_r, &err_r}, sinks_{&res.out, &res.err} {
    ::fcntl(out_r.get(), F_SETFL, O_NONBLOCK);
    ::fcntl(err_r.get(), F_SETFL, O_NONBLOCK);
    pidfd_.reset(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    limited_ = cmd.timeout.count() > 0;
    deadline_ = Clock::now() + cmd.timeout;
  }

  Result<void> Run() {
    while (true) {
      auto now = Clock::now();
      if (auto r = Reap(now); !r.ok()) return r;
      if (Done(now)) break;
      Escalate(now);
      auto p = PollAndRead(Wait(now));
      if (!p.ok()) return p;
    }
    if (WIFEXITED(status_)) {
      res_.exit_code = WEXITSTATUS(status_);
    } else if (WIFSIGNALED(status_)) {
      res_.exit_code = -1;
      res_.term_signal = WTERMSIG(status_);
    }
    return Ok();
  }

 private:
  Result<void> Reap(Clock::time_point now) {
    if (exited_) return Ok();
    int w;
    do {
      w = ::waitpid(pid_, &status_, WNOHANG);
    } while (w < 0 && errno == EINTR);
    if (w == pid_) {
      exited_ = true;
      exit_time_ = last_data_ = now;
      pidfd_.reset();
    } else if (w < 0) {
      // ECHILD: someone else reaped it (SIGCHLD ignored?); no status to report.
      return Error{host_ + ": lost the exit status of '" + cmd_.argv[0] + "' (pid " + std::to_string(pid_) +
                   "): " + ErrnoText(errno)};
    }
    return Ok();
  }

  bool Done(Clock::time_point now) const {
    if (streams_[0]->get() < 0 && streams_[1]->get() < 0 && exited_) return true;
    return exited_ && (now - last_data_ >= kLingerIdle || now - exit_time_ >= kLingerMax);
  }

  // The timeout: SIGTERM to the group, SIGKILL after the grace.
  void Escalate(Clock::time_point now) {
    if (exited_ || !limited_) return;
    if (phase_ == kRunning && now >= deadline_) {
      res_.timed_out = true;
      ::kill(-pid_, SIGTERM);
      phase_ = kTermSent;
      kill_at_ = now + kTermGrace;
    } else if (phase_ == kTermSent && now >= kill_at_) {
      ::kill(-pid_, SIGKILL);
      phase_ = kKillSent;
    }
  }

  // How long poll may sleep (-1: until something happens).
  milliseconds Wait(Clock::time_point now) const {
    milliseconds wait{-1};
    auto cap = [&](Clock::duration d) {
      auto ms = std::max<milliseconds>(milliseconds(0), std::chrono::ceil<milliseconds>(d));
      if (wait.count() < 0 || ms < wait) wait = ms;
    };
    if (exited_) {
      cap(last_data_ + kLingerIdle - now);
      cap(exit_time_ + kLingerMax - now);
    } else {
      if (limited_ && phase_ == kRunning) cap(deadline_ - now);
      if (phase_ == kTermSent) cap(kill_at_ - now);
      if (pidfd_.get() < 0 || phase_ == kKillSent) cap(kPollSlice);
    }
    return wait;
  }

  // Polls the open streams (and the pidfd) and reads whatever is ready.
  Result<void> PollAndRead(milliseconds wait) {
    pollfd fds[3];
    int idx[3];
    nfds_t n = 0;
    for (int i = 0; i < 2; ++i) {
      if (streams_[i]->get() < 0) continue;
      fds[n] = {streams_[i]->get(), POLLIN, 0};
      idx[n++] = i;
    }
    if (!exited_ && pidfd_.get() >= 0) {
      fds[n] = {pidfd_.get(), POLLIN, 0};
      idx[n++] = -1;
    }
    int pr = ::poll(fds, n, static_cast<int>(wait.count()));
    if (pr < 0) {
      if (errno == EINTR) return Ok();
      return Error{host_ + ": poll on '" + cmd_.argv[0] + "': " + ErrnoText(errno)};
    }
    for (nfds_t k = 0; k < n; ++k) {
      if (idx[k] >= 0 && fds[k].revents != 0) Drain(idx[k]);
    }
    return Ok();
  }

  void Drain(int i) {
    Fd& fd = *streams_[i];
    while (true) {
      ssize_t r = ::read(fd.get(), buf_, sizeof buf_);
      if (r > 0) {
        sinks_[i]->append(buf_, static_cast<size_t>(r));
        last_data_ = Clock::now();
        continue;
      }
      if (r < 0 && errno == EINTR) continue;
      if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      fd.reset();  // EOF or a read error: this stream is done
      break;
    }
  }

  const std::string& host_;
  const Command& cmd_;
  const pid_t pid_;
  ExecResult& res_;
  Fd* streams_[2];
  std::string* sinks_[2];
  Fd pidfd_;
  bool limited_ = false;
  Clock::time_point deadline_{};
  enum { kRunning, kTermSent, kKillSent } phase_ = kRunning;
  Clock::time_point kill_at_{};
  bool exited_ = false;
  int status_ = 0;
  Clock::time_point exit_time_{}, last_data_{};
  char buf_[65536];
};

}  // namespace

Result<ExecResult> LocalHost::Run(const Command& cmd) {
  const std::string host = name();
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0)
    return Error{host + ": pipe for '" + (cmd.argv.empty() ? "" : cmd.argv[0]) +
                 "': " + ErrnoText(errno)};
  Fd out_r(out_pipe[0]), out_w(out_pipe[1]);
  if (::pipe2(err_pipe, O_CLOEXEC) != 0)
    return Error{host + ": pipe for '" + (cmd.argv.empty() ? "" : cmd.argv[0]) +
                 "': " + ErrnoText(errno)};
  Fd err_r(err_pipe[0]), err_w(err_pipe[1]);

  auto spawned = SpawnDyingWithParent(host, cmd, out_w.get(), err_w.get());
  if (!spawned.ok()) return spawned.error();
  const pid_t pid = *spawned;
  // Killed by its group if the suite is interrupted (support/host/interrupts.h).
  TrackChildGroup(pid);
  struct Untrack {
    pid_t pid;
    // While an interrupt is being handled, the calling thread must not go
    // on with the run (its command was just killed): it parks until the
    // interrupt thread exits the process.
    ~Untrack() {
      UntrackChildGroup(pid);
      ParkIfInterrupted();
    }
  } untrack{pid};
  out_w.reset();
  err_w.reset();
  ExecResult res;
  if (auto r = ChildWatch(host, cmd, pid, out_r, err_r, res).Run(); !r.ok()) return r.error();
  return res;
}

Result<void> LocalHost::WriteFile(const std::string& path, const std::string& content,
                                   int mode) {
  return WriteAtomically(name(), path, mode, [&](int fd) {
    return WriteAll(fd, content.data(), content.size(), path);
  });
}

namespace {

const char* FileTypeName(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  return "not a regular file";
}

// Opens a file this host hands over (Host::ReadFile / Fetch): never through
// a symbolic link (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK), and
// only a regular file. `verb` is "read" or "fetch".
Result<int> OpenHandedOver(const std::string& host, const char* verb, const std::string& path, const FileCap& cap,
                           struct stat* st) {
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0 && errno == ELOOP) {
    return Error{host + ": cannot " + verb + " " + path + " (" + cap.kind +
                 "): a symbolic link: refused, not followed"};
  }
  if (fd < 0) return Error{host + ": cannot " + verb + " " + path + ": " + ErrnoText(errno)};
  if (::fstat(fd, st) != 0) {
    int err = errno;
    ::close(fd);
    return Error{host + ": cannot " + verb + " " + path + ": " + ErrnoText(err)};
  }
  if (!S_ISREG(st->st_mode)) {
    ::close(fd);
    return Error{host + ": cannot " + verb + " " + path + " (" + cap.kind + "): " + FileTypeName(st->st_mode) +
                 ", not a regular file: refused"};
  }
  return fd;
}

Error OverCap(const std::string& host, const std::string& path, const FileCap& cap, uint64_t bytes,
              const char* counted) {
  return Error{host + ": " + path + " (" + cap.kind + ") is over its cap of " + std::to_string(cap.max_bytes) +
               " bytes: " + counted + " " + std::to_string(bytes) + " bytes; refused, not kept"};
}

// Reads `fd` to its end in pieces handed to `sink`, refusing more than the
// cap (counted on the bytes read). Returns the total.
template <class Sink>
Result<uint64_t> ReadCapped(const std::string& host, int fd, const std::string& path, const FileCap& cap,
                            Sink sink) {
  char buf[65536];
  uint64_t total = 0;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return total;
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{host + ": cannot read " + path + ": " + ErrnoText(errno)};
    }
    total += static_cast<uint64_t>(n);
    if (total > cap.max_bytes) return OverCap(host, path, cap, total, "read");
    if (auto w = sink(buf, static_cast<size_t>(n), total - static_cast<uint64_t>(n)); !w.ok()) return w.error();
  }
}

}  // namespace

Result<std::string> LocalHost::ReadFile(const std::string& path, const FileCap& cap) {
  struct stat st;
  auto fd = OpenHandedOver(name(), "read", path, cap, &st);
  if (!fd.ok()) return fd.error();
  Fd guard(*fd);
  // A /proc file states size 0; a regular file's stated size refuses early.
  if (static_cast<uint64_t>(st.st_size) > cap.max_bytes) {
    return OverCap(name(), path, cap, static_cast<uint64_t>(st.st_size), "it holds");
  }
  std::string out;
  auto n = ReadCapped(name(), *fd, path, cap, [&](const char* data, size_t len, uint64_t) -> Result<void> {
    out.append(data, len);
    return Ok();
  });
  if (!n.ok()) return n.error();
  return out;
}

Result<void> LocalHost::Fetch(const std::string& remote_path, const std::string& local_path, const FileCap& cap) {
  const std::string host = name();
  struct stat st;
  auto src = OpenHandedOver(host, "fetch", remote_path, cap, &st);
  if (!src.ok()) return src.error();
  Fd guard(*src);
  // Another name for the same file (a hard link) could hand over a file its
  // owner never meant to share; a result is written once, under one name.
  if (st.st_nlink != 1) {
    return Error{host + ": cannot fetch " + remote_path + " (" + cap.kind + "): it has " +
                 std::to_string(st.st_nlink) + " names (a hard link): refused"};
  }
  if (static_cast<uint64_t>(st.st_size) > cap.max_bytes) {
    return OverCap(host, remote_path, cap, static_cast<uint64_t>(st.st_size), "it holds");
  }
  {
    struct stat dst;
    if (::lstat(local_path.c_str(), &dst) == 0 && dst.st_dev == st.st_dev && dst.st_ino == st.st_ino) return Ok();
  }
  auto copy = LocalCopy::Create(host + ": ", "fetch " + remote_path, local_path);
  if (!copy.ok()) return copy.error();
  auto n = ReadCapped(host, *src, remote_path, cap, [&](const char* data, size_t len, uint64_t off) {
    return copy->WriteAt(off, data, len);
  });
  if (!n.ok()) return n.error();
  return copy->Commit(*n);
}

void LocalHost::ReapLocked(int pid) {
  auto it = services_.find(pid);
  if (it == services_.end() || it->second != ServiceState::kRunning) return;
  int status;
  int w;
  do {
    w = ::waitpid(pid, &status, WNOHANG);
  } while (w < 0 && errno == EINTR);
  if (w == pid || (w < 0 && errno == ECHILD)) it->second = ServiceState::kReaped;
}

Result<ServiceHandle> LocalHost::StartService(const std::string& svc_name, const Command& cmd,
                                               const std::string& stdout_path,
                                               const std::string& stderr_path) {
  const std::string host = name();
  auto open_log = [&](const std::string& path, Fd* fd) -> Result<void> {
    std::string p = path.empty() ? "/dev/null" : path;
    if (auto r = MakeParentDirs(host, p); !r.ok()) return r;
    int f;
    do {
      f = ::open(p.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    } while (f < 0 && errno == EINTR);
    if (f < 0)
      return Error{host + ": service '" + svc_name + "': cannot open log " + p + ": " +
                   ErrnoText(errno)};
    fd->reset(f);
    return Ok();
  };
  Fd out, err;
  if (auto r = open_log(stdout_path, &out); !r.ok()) return r.error();
  if (auto r = open_log(stderr_path, &err); !r.ok()) return r.error();

  SpawnSetup setup;
  posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&setup.actions, out.get(), 1);
  posix_spawn_file_actions_adddup2(&setup.actions, err.get(), 2);
  auto spawned = Spawn(host, cmd, setup, POSIX_SPAWN_SETSID);
  if (!spawned.ok())
    return Error{spawned.error().message + " (service '" + svc_name + "')"};

  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [pid, state] : services_) ReapLocked(pid);  // keep old exits from lingering
  services_[*spawned] = ServiceState::kRunning;
  ServiceHandle h;
  h.pid = *spawned;
  h.name = svc_name;
  h.stdout_path = stdout_path;
  h.stderr_path = stderr_path;
  return h;
}

Result<std::vector<ClockExchange>> LocalHost::ExchangeClock(int rounds, std::chrono::milliseconds) {
  auto now = [] {
    return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  std::vector<ClockExchange> out;
  for (int i = 0; i < rounds; ++i) {
    ClockExchange e;
    e.sent_us = now();
    e.remote_us = now();
    e.received_us = now();
    out.push_back(e);
  }
  return out;
}

bool LocalHost::IsAlive(const ServiceHandle& svc) {
  if (svc.pid <= 1) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = services_.find(svc.pid);
    if (it != services_.end()) {
      ReapLocked(svc.pid);
      return it->second == ServiceState::kRunning;
    }
  }
  return ::kill(svc.pid, 0) == 0 || errno == EPERM;
}

Result<void> LocalHost::StopService(const ServiceHandle& svc, std::chrono::milliseconds grace) {
  const std::string host = name();
  const std::string what = "service '" + svc.name + "' (pid " + std::to_string(svc.pid) + ")";
  if (svc.pid <= 1) return Error{host + ": refusing to stop " + what + ": not a service pid"};
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = services_.find(svc.pid);
    if (it == services_.end())
      return Error{host + ": refusing to stop " + what + ": not started by this host"};
    if (it->second == ServiceState::kStopped) return Ok();
  }
  const int pid = svc.pid;
  // Gone = leader reaped (or never ours to reap) and no live process in its group.
  auto gone = [&]() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ReapLocked(pid);
      if (services_[pid] == ServiceState::kRunning) return false;
    }
    return GroupGone(pid);
  };
  auto wait_gone = [&](milliseconds limit) {
    const auto until = Clock::now() + limit;
    while (true) {
      if (gone()) return true;
      if (Clock::now() >= until) return false;
      std::this_thread::sleep_for(milliseconds(10));
    }
  };
  auto mark_stopped = [&]() {
    std::lock_guard<std::mutex> lock(mu_);
    services_[pid] = ServiceState::kStopped;
  };
  if (gone()) {
    mark_stopped();
    return Ok();
  }
  ::kill(-pid, SIGTERM);  // ESRCH: it just ended, fine
  if (wait_gone(grace)) {
    mark_stopped();
    return Ok();
  }
  ::kill(-pid, SIGKILL);
  if (wait_gone(kKillWait)) {
    mark_stopped();
    return Ok();
  }
  return Error{host + ": " + what + " still alive " +
               std::to_string(kKillWait.count()) + " ms after SIGKILL to its process group"};
}

}  // namespace fvbench
