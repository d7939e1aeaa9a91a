// LocalHost: the Host contract (support/host/host.h) on this machine.
//
// Run(): fork + execve without a shell; the child dies with the calling
// thread (PR_SET_PDEATHSIG SIGKILL), so a suite process killed outright
// (ctest TIMEOUT sends SIGKILL) leaves no load engine running. argv[0] without a '/' is looked up in
// the PATH of the child's environment (inherited environment with cmd.env
// added / overriding). The child gets stdin from /dev/null, its own process
// group, default signal dispositions and an empty signal mask; stdout and
// stderr are read whole through pipes with poll(), so any volume on both
// streams at once cannot deadlock. Run() returns when the child exits; output
// that a background grandchild still writes after that is read for at most
// ~0.5 s more, then the pipes are closed. On timeout: SIGTERM to the process
// group, SIGKILL to the group after 2 s, timed_out = true. cmd.timeout <= 0
// means no limit. Exit status via waitpid: WIFSIGNALED -> term_signal set and
// exit_code -1. Error only when the process could not be started (names
// argv[0] and the errno text).
//
// Files: WriteFile creates parent directories and writes atomically (temp
// file in the same directory, fchmod(mode), rename). ReadFile and Fetch
// open the file with O_NOFOLLOW | O_NONBLOCK (a symbolic link is refused, a
// FIFO never blocks) and take only a regular file, read at most its cap
// (file_caps.h); Fetch also refuses a file with more than one name (a hard
// link) and copies through LocalCopy (local_copy.h: mode 0644 less the umask,
// never the source's bits); Fetch(p, p) is a no-op success.
//
// Services: StartService spawns a new session (setsid: pid == pgid == sid),
// stdin /dev/null, stdout/stderr appended to the given files (parent
// directories created). The service must not daemonize itself (nginx:
// `daemon off;`), or it leaves the recorded session. The host remembers every
// pid it started and reaps them (IsAlive / StopService use waitpid WNOHANG),
// so no zombies pile up in a long-lived process. StopService signals only the
// recorded process group: SIGTERM, up to `grace`, then SIGKILL; success once
// the group is empty; a service already stopped is success. A pid this host
// did not start, or pid <= 1, is refused with an Error.
//
// Thread-safe: Run() may be called from several threads at once.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "support/host/host.h"

namespace fvbench {

class LocalHost : public Host {
 public:
  LocalHost() = default;
  LocalHost(const LocalHost&) = delete;
  LocalHost& operator=(const LocalHost&) = delete;
  // Services still running are left running (they are detached); their pids
  // are forgotten.
  ~LocalHost() override = default;

  std::string name() const override { return "local"; }
  Result<ExecResult> Run(const Command& cmd) override;
  Result<void> WriteFile(const std::string& path, const std::string& content,
                          int mode = 0644) override;
  Result<std::string> ReadFile(const std::string& path, const FileCap& cap) override;
  Result<void> Fetch(const std::string& remote_path, const std::string& local_path,
                     const FileCap& cap) override;
  Result<ServiceHandle> StartService(const std::string& name, const Command& cmd,
                                      const std::string& stdout_path,
                                      const std::string& stderr_path) override;
  Result<void> StopService(const ServiceHandle& svc,
                            std::chrono::milliseconds grace = std::chrono::seconds(10)) override;
  bool IsAlive(const ServiceHandle& svc) override;
  // This machine's clock is the controller's: each reading is taken between
  // two of the same clock, offset 0 by construction.
  Result<std::vector<ClockExchange>> ExchangeClock(int rounds, std::chrono::milliseconds timeout) override;

 private:
  enum class ServiceState { kRunning, kReaped, kStopped };
  // Reaps `pid` if it has exited; requires mu_ held.
  void ReapLocked(int pid);

  std::mutex mu_;
  std::map<int, ServiceState> services_;  // every pid StartService returned
};

}  // namespace fvbench
