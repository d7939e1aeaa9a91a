#include "support/host/ssh_runner.h"

#include <poll.h>

#include <algorithm>
#include <cstdlib>

#include "support/host/remote_runner.h"

namespace fvbench {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kReadSlice{200};     // one wait for the runner's bytes; the deadline is checked between
constexpr milliseconds kUnlockedPoll{20};   // one watch of the socket without the session's lock

void SetSessionTimeout(ssh_session s, milliseconds ms) {
  long sec = static_cast<long>(ms.count() / 1000);
  long usec = static_cast<long>((ms.count() % 1000) * 1000);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &sec);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

}  // namespace

Result<std::unique_ptr<SshRunner>> SshRunner::Start(ssh_session ss, const std::string& exec_request,
                                                    const std::string& stdin_prefix, milliseconds bound,
                                                    milliseconds io_timeout) {
  ssh_channel ch = ssh_channel_new(ss);
  if (ch == nullptr) return Error{std::string("cannot create a channel: ") + ssh_get_error(ss)};
  std::unique_ptr<SshRunner> r(new SshRunner(ss, ch));
  SetSessionTimeout(ss, bound);
  const bool opened = ssh_channel_open_session(ch) == SSH_OK && ssh_channel_request_exec(ch, exec_request.c_str()) == SSH_OK;
  SetSessionTimeout(ss, io_timeout);
  if (!opened) return Error{std::string("cannot start it: ") + ssh_get_error(ss)};
  if (auto w = r->Write(stdin_prefix); !w.ok()) return w.error();
  auto hello = r->NextFrame(Clock::now() + bound);
  if (!hello.ok()) return hello.error();
  if (hello->size() != 3 || (*hello)[0] != "hello" || (*hello)[1] != runner::kRunnerVersion)
    return Error{"it answered something else than " + std::string(runner::kRunnerVersion)};
  r->pid_ = std::atoi((*hello)[2].c_str());
  return r;
}

SshRunner::~SshRunner() {
  if (ch_ == nullptr) return;
  if (ssh_channel_is_open(ch_)) {
    ssh_channel_send_eof(ch_);
    ssh_channel_close(ch_);
  }
  ssh_channel_free(ch_);
}

Error SshRunner::Broke(const std::string& why) {
  broken_ = true;
  KeepStderr();
  std::string err = err_;
  while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
  return Error{why + (err.empty() ? "" : " (its stderr: " + err + ")")};
}

void SshRunner::KeepStderr() {
  char buf[4096];
  for (int n; (n = ssh_channel_read_nonblocking(ch_, buf, sizeof buf, 1)) > 0;) err_.append(buf, static_cast<size_t>(n));
  if (err_.size() > 2000) err_.erase(0, err_.size() - 2000);
}

Result<void> SshRunner::Write(const std::string& bytes) {
  for (size_t sent = 0; sent < bytes.size();) {
    const uint32_t n = static_cast<uint32_t>(std::min<size_t>(bytes.size() - sent, 64 * 1024));
    int w = ssh_channel_write(ch_, bytes.data() + sent, n);
    if (w <= 0) return Broke(std::string("writing to the runner: ") + ssh_get_error(ss_));
    sent += static_cast<size_t>(w);
  }
  return Ok();
}

Result<std::vector<std::string>> SshRunner::NextFrame(Clock::time_point deadline,
                                                      std::unique_lock<std::mutex>* session_lock) {
  std::vector<char> buf(64 * 1024);
  while (true) {
    auto frame = runner::TakeFrame(in_);
    if (!frame.ok()) return Broke(frame.error().message);
    if (*frame) return std::move(**frame);
    const auto now = Clock::now();
    if (now >= deadline) return Broke("no answer from the runner in time");
    const auto slice = std::min<milliseconds>(kReadSlice, std::chrono::duration_cast<milliseconds>(deadline - now) +
                                                              milliseconds(1));
    int n = 0;
    if (session_lock == nullptr) {
      n = ssh_channel_read_timeout(ch_, buf.data(), static_cast<uint32_t>(buf.size()), 0,
                                   static_cast<int>(slice.count()));
    } else {
      // What the session has now; with nothing, the lock goes while the
      // socket is watched (another thread may read the reply's packets for
      // us meanwhile: they wait in the channel's buffer).
      n = ssh_channel_read_nonblocking(ch_, buf.data(), static_cast<uint32_t>(buf.size()), 0);
      if (n == 0 && !ssh_channel_is_eof(ch_) && !ssh_channel_is_closed(ch_)) {
        const int fd = ssh_get_fd(ss_);
        session_lock->unlock();
        pollfd p{fd, POLLIN, 0};
        (void)::poll(&p, 1, static_cast<int>(std::min<milliseconds>(slice, kUnlockedPoll).count()));
        session_lock->lock();
        continue;
      }
    }
    if (n == SSH_ERROR) return Broke(std::string("connection lost while the runner worked: ") + ssh_get_error(ss_));
    if (n > 0) {
      in_.append(buf.data(), static_cast<size_t>(n));
    } else if (ssh_channel_is_eof(ch_) || ssh_channel_is_closed(ch_)) {
      return Broke("the runner ended");
    } else if (!ssh_is_connected(ss_)) {
      return Broke(std::string("connection lost while the runner worked: ") + ssh_get_error(ss_));
    }
    KeepStderr();
  }
}

Result<std::vector<std::string>> SshRunner::Call(const std::string& request, milliseconds bound,
                                                 std::unique_lock<std::mutex>* session_lock) {
  if (broken_) return Error{"the runner is broken"};
  if (auto w = Write(request); !w.ok()) return w.error();
  return NextFrame(bound.count() > 0 ? Clock::now() + bound : Clock::time_point::max(), session_lock);
}

}  // namespace fvbench
