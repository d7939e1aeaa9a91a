// SshRunner: SshHost's end of the command runner (remote_runner.h) on one
// SSH session: the runner's exec channel, requests written to its stdin,
// replies read from its stdout and handed to their callers by id. SshHost
// calls it under its session mutex, as every use of the session; a Call
// given that mutex's lock lets it go while it waits for its reply, so
// several calls (from several threads) can be in flight at once: whichever
// holds the lock reads the channel and files every reply it finds.
#pragma once

#include <libssh/libssh.h>

#include <chrono>
#include <cstdint>
#include <map>
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

  // Sends `request` (runner::RunRequest / ReadRequest fields) with an id of
  // its own and returns the fields of its reply, the id taken off. `bound`
  // (0 = none) is how long the reply may take. With `session_lock` (held on
  // entry and on return) the lock is released while no reply byte is there
  // (between polls of the session's socket); without, the session stays
  // locked until the reply. Err when the channel broke, the connection was
  // lost or no reply came within `bound`: the runner is then unusable
  // (broken() is true; every call in flight fails) and should be dropped once
  // no call is in flight. `max_reply_bytes` (0 = none) bounds the reply's
  // payload as its frame states it (runner::ReadReplyBound): a larger reply
  // is not read further, the runner is broken, and `*oversized` (when
  // given) is set to the size the frame states.
  Result<std::vector<std::string>> Call(const std::vector<std::string>& request, std::chrono::milliseconds bound,
                                        std::unique_lock<std::mutex>* session_lock = nullptr,
                                        uint64_t max_reply_bytes = 0, uint64_t* oversized = nullptr);
  bool broken() const { return broken_; }
  int remote_pid() const { return pid_; }

 private:
  SshRunner(ssh_session ss, ssh_channel ch) : ss_(ss), ch_(ch) {}
  Result<void> Write(const std::string& bytes);
  // Reads what the channel has (waiting up to `wait`; 0: not at all) and,
  // with `file_replies`, files the whole frames by id; true when bytes came.
  // Err when the channel broke.
  Result<bool> Pump(std::chrono::milliseconds wait, bool file_replies);
  // What the runner wrote on stderr (its last 2000 bytes; it writes only
  // when something is wrong), read without waiting.
  void KeepStderr();
  Error Broke(const std::string& why);

  ssh_session ss_;
  ssh_channel ch_;
  std::string in_;   // bytes from the runner not yet taken as a frame
  std::string err_;  // KeepStderr
  std::map<std::string, std::vector<std::string>> replies_;  // by id, until their caller takes them
  // The eventfd of each caller waiting without the lock, by id: written when
  // its reply is filed by another caller (it watches it beside the socket).
  std::map<std::string, int> wakers_;
  // The bound of each call's reply (Call's max_reply_bytes), by id; the size
  // a reply over it states, by id, for its caller.
  std::map<std::string, uint64_t> limits_;
  std::map<std::string, uint64_t> oversized_;
  uint64_t next_id_ = 0;
  bool broken_ = false;
  std::string broke_why_;
  int pid_ = 0;
};

}  // namespace fvbench
