// SshRunner: SshHost's end of the command runner (remote_runner.h) on one
// SSH session: the runner's exec channel, requests written to its stdin,
// replies read from its stdout. Not thread-safe: SshHost calls it under its
// mutex, as every use of the session; a Call given that mutex's lock lets it
// go while it waits for the reply (the session's other channels, SFTP and
// exec, are usable meanwhile; the runner itself is not).
#pragma once

#include <libssh/libssh.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

class SshRunner {
 public:
  // Opens an exec channel on `ss` with `exec_request`, writes `stdin_prefix`
  // to it (the start script, when the request reads it from stdin) and
  // waits for the runner's hello, at most `bound`. Err (the channel closed)
  // names why, with what the remote side said on stderr ("no perl on this
  // host", a shell error). The session's timeout is `io_timeout` after.
  static Result<std::unique_ptr<SshRunner>> Start(ssh_session ss, const std::string& exec_request,
                                                  const std::string& stdin_prefix, std::chrono::milliseconds bound,
                                                  std::chrono::milliseconds io_timeout);
  ~SshRunner();  // closes the channel: the runner ends what it runs and exits
  SshRunner(const SshRunner&) = delete;
  SshRunner& operator=(const SshRunner&) = delete;

  // Sends one request frame and returns the fields of the reply. `bound`
  // (0 = none) is how long the reply may take. With `session_lock` (held on
  // entry and on return), the lock is released while no reply byte is there
  // (between polls of the session's socket). Err when the channel broke,
  // the connection was lost or no reply came within `bound`; the runner is
  // then unusable (broken() is true) and should be dropped.
  Result<std::vector<std::string>> Call(const std::string& request, std::chrono::milliseconds bound,
                                        std::unique_lock<std::mutex>* session_lock = nullptr);
  bool broken() const { return broken_; }
  int remote_pid() const { return pid_; }

 private:
  SshRunner(ssh_session ss, ssh_channel ch) : ss_(ss), ch_(ch) {}
  Result<void> Write(const std::string& bytes);
  // The next frame's fields, reading until `deadline` (max: none).
  Result<std::vector<std::string>> NextFrame(std::chrono::steady_clock::time_point deadline,
                                             std::unique_lock<std::mutex>* session_lock = nullptr);
  // What the runner wrote on stderr (its last 2000 bytes; it writes only
  // when something is wrong), read without waiting.
  void KeepStderr();
  Error Broke(const std::string& why);

  ssh_session ss_;
  ssh_channel ch_;
  std::string in_;   // bytes from the runner not yet taken as a frame
  std::string err_;  // KeepStderr
  bool broken_ = false;
  int pid_ = 0;
};

}  // namespace fvbench
