// Host: where commands run. One interface, three implementations:
//   LocalHost   (local_host.h)  child processes on this machine
//   SshHost     (ssh_host.h) remote mode: commands over SSH (libssh)
//   DryRunHost  (dry_run_host.h) records the plan, touches nothing
//
// Contract for Run(): argv is executed without a shell (argv[0] looked up in
// PATH); stdout/stderr are captured whole; the call returns when the process
// exits or `timeout` elapses, in which case the process group is killed
// (SIGTERM, then SIGKILL) and timed_out is set. A process killed by a signal
// has term_signal != 0 and exit_code == -1.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "support/core/clock_offset.h"
#include "support/core/result.h"
#include "support/host/file_caps.h"

namespace fvbench {

// Secrets go in `env`, never in `argv`: every local user of a host reads a
// process's argv (ps, /proc/<pid>/cmdline), while its environment is shown
// to its owner and root only. Each Host keeps env values off every command
// line (LocalHost: execve's environment; SshHost: the script on the
// channel's stdin).
struct Command {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // added to / overriding the inherited environment
  std::string cwd;                         // empty = inherit
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

struct ExecResult {
  int exit_code = -1;   // -1 when killed by a signal or not started
  int term_signal = 0;  // signal that ended the process, 0 if it exited
  bool timed_out = false;
  std::string out;
  std::string err;
  bool success() const { return exit_code == 0 && !timed_out; }
};

// A long-running process started detached (own session, stdin /dev/null,
// stdout/stderr to files). Stopped only through the pid recorded here.
struct ServiceHandle {
  int pid = 0;
  std::string name;
  std::string stdout_path;
  std::string stderr_path;
};

class Host {
 public:
  virtual ~Host() = default;
  // "local" or the ssh target; used in every error message about this host.
  virtual std::string name() const = 0;
  // Err only when the command could not be started at all; a non-zero exit is
  // a successful Result with exit_code set.
  virtual Result<ExecResult> Run(const Command& cmd) = 0;
  virtual Result<void> WriteFile(const std::string& path, const std::string& content,
                                  int mode = 0644) = 0;
  // What a host sends back (ReadFile, Fetch) is data from outside: only a
  // regular file is read (a symbolic link, directory, FIFO, socket or device
  // at `path` is refused, not followed or opened), and more than cap.max_bytes
  // received is refused (file_caps.h: the cap of each kind), naming the host,
  // the path, the kind, the cap and the bytes received.
  virtual Result<std::string> ReadFile(const std::string& path, const FileCap& cap) = 0;
  // Copies a file on this host to the controller (for LocalHost: a copy).
  // The local copy is created under a new temporary name beside `local_path`
  // (exclusively, never through a link), gets mode 0644 less the umask
  // whatever the remote file's mode (no setuid, setgid or sticky bit, no
  // group or other write), and is renamed over `local_path`; an existing
  // `local_path` that is not a regular file, or a `local_path` with a ".."
  // component, is refused. A refused or failed fetch leaves no copy.
  virtual Result<void> Fetch(const std::string& remote_path, const std::string& local_path,
                             const FileCap& cap) = 0;
  virtual Result<ServiceHandle> StartService(const std::string& name, const Command& cmd,
                                              const std::string& stdout_path,
                                              const std::string& stderr_path) = 0;
  // SIGTERM to the service's process group, wait up to `grace`, then SIGKILL.
  virtual Result<void> StopService(const ServiceHandle& svc,
                                    std::chrono::milliseconds grace = std::chrono::seconds(10)) = 0;
  virtual bool IsAlive(const ServiceHandle& svc) = 0;
  // The host's wall clock read `rounds` times over ONE command, each reading
  // between two readings of this process's clock (clock_offset.h), within
  // `timeout`: the exchanges NTP's estimate takes. The command's start (a
  // login shell) is waited for before the first exchange, so it is in none.
  // Default: an Error (a host that cannot).
  virtual Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds timeout) {
    (void)rounds;
    (void)timeout;
    return Error{name() + ": this host cannot exchange clock readings"};
  }
};

}  // namespace fvbench
