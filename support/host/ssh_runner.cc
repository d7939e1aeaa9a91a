#include "support/host/ssh_runner.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "support/host/remote_runner.h"

namespace fvbench {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kReadSlice{200};    // one wait for the runner's bytes; the deadline is checked between
constexpr milliseconds kUnlockedPoll{20};  // one watch of the socket without the session's lock

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
  const auto deadline = Clock::now() + bound;
  while (true) {
    auto frame = runner::TakeFrame(r->in_);
    if (!frame.ok()) return r->Broke(frame.error().message);
    if (*frame) {
      const std::vector<std::string>& hello = **frame;
      if (hello.size() != 3 || hello[0] != "hello" || hello[1] != runner::kRunnerVersion)
        return Error{"it answered something else than " + std::string(runner::kRunnerVersion)};
      r->pid_ = std::atoi(hello[2].c_str());
      return r;
    }
    if (Clock::now() >= deadline) return r->Broke("no answer from the runner in time");
    if (auto p = r->Pump(kReadSlice, /*file_replies=*/false); !p.ok()) return p.error();
  }
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
  if (!broken_) {
    broken_ = true;
    KeepStderr();
    std::string err = err_;
    while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
    broke_why_ = why + (err.empty() ? "" : " (its stderr: " + err + ")");
  }
  return Error{broke_why_};
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

Result<bool> SshRunner::Pump(milliseconds wait, bool file_replies) {
  std::vector<char> buf(64 * 1024);
  const int n = wait.count() > 0 ? ssh_channel_read_timeout(ch_, buf.data(), static_cast<uint32_t>(buf.size()), 0,
                                                            static_cast<int>(wait.count()))
                                 : ssh_channel_read_nonblocking(ch_, buf.data(), static_cast<uint32_t>(buf.size()), 0);
  if (n == SSH_ERROR) return Broke(std::string("connection lost while the runner worked: ") + ssh_get_error(ss_));
  if (n > 0) {
    in_.append(buf.data(), static_cast<size_t>(n));
  } else if (ssh_channel_is_eof(ch_) || ssh_channel_is_closed(ch_)) {
    return Broke("the runner ended");
  } else if (!ssh_is_connected(ss_)) {
    return Broke(std::string("connection lost while the runner worked: ") + ssh_get_error(ss_));
  }
  KeepStderr();
  // Every whole frame to the caller its id names; a reply larger than its
  // call allows is not read further.
  while (file_replies) {
    auto head = runner::PeekFrameHead(in_);
    if (!head.ok()) return Broke(head.error().message);
    if (*head) {
      auto limit = limits_.find((*head)->id);
      if (limit != limits_.end() && limit->second > 0 && (*head)->payload_bytes > limit->second) {
        oversized_[(*head)->id] = (*head)->payload_bytes;
        return Broke("the runner's reply to request " + (*head)->id + " states " +
                     std::to_string((*head)->payload_bytes) + " bytes, over the " + std::to_string(limit->second) +
                     " it may hold: not read further");
      }
    }
    auto frame = runner::TakeFrame(in_);
    if (!frame.ok()) return Broke(frame.error().message);
    if (!*frame) break;
    std::vector<std::string> reply = std::move(**frame);
    auto id = runner::TakeId(reply);
    if (!id) return Broke("a reply from the runner without an id");
    if (auto w = wakers_.find(*id); w != wakers_.end()) {
      const uint64_t one = 1;
      (void)!::write(w->second, &one, sizeof one);
    }
    replies_[*id] = std::move(reply);
  }
  return n > 0;
}

Result<std::vector<std::string>> SshRunner::Call(const std::vector<std::string>& request, milliseconds bound,
                                                 std::unique_lock<std::mutex>* session_lock, uint64_t max_reply_bytes,
                                                 uint64_t* oversized) {
  if (broken_) return Error{broke_why_};
  const std::string id = std::to_string(++next_id_);
  struct Limit {
    SshRunner& r;
    const std::string& id;
    uint64_t* oversized;
    ~Limit() {
      if (auto o = r.oversized_.find(id); o != r.oversized_.end()) {
        if (oversized != nullptr) *oversized = o->second;
        r.oversized_.erase(o);
      }
      r.limits_.erase(id);
    }
  } limit{*this, id, oversized};
  if (max_reply_bytes > 0) limits_[id] = max_reply_bytes;
  if (auto w = Write(runner::WithId(request, id)); !w.ok()) return w.error();
  const auto deadline = bound.count() > 0 ? Clock::now() + bound : Clock::time_point::max();
  // Woken by another caller that files this reply while this one waits
  // without the lock (the socket's data is then read).
  struct Waker {
    std::map<std::string, int>& wakers;
    const std::string& id;
    int fd;
    ~Waker() {
      wakers.erase(id);
      if (fd >= 0) ::close(fd);
    }
  } waker{wakers_, id, session_lock != nullptr ? ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC) : -1};
  if (waker.fd >= 0) wakers_[id] = waker.fd;
  while (true) {
    if (auto it = replies_.find(id); it != replies_.end()) {
      std::vector<std::string> reply = std::move(it->second);
      replies_.erase(it);
      return reply;
    }
    if (broken_) return Error{broke_why_};
    const auto now = Clock::now();
    if (now >= deadline) return Broke("no answer from the runner in time");
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - now) + milliseconds(1);
    if (session_lock == nullptr) {
      if (auto p = Pump(std::min(kReadSlice, left), true); !p.ok()) return p.error();
      continue;
    }
    // What the session has now; with nothing, the lock goes while the
    // socket (and this call's waker) is watched.
    auto got = Pump(milliseconds(0), true);
    if (!got.ok()) return got.error();
    if (*got) continue;
    const int fd = ssh_get_fd(ss_);
    const milliseconds wait = std::min(kUnlockedPoll, left);
    session_lock->unlock();
    pollfd p[2] = {{fd, POLLIN, 0}, {waker.fd, POLLIN, 0}};
    (void)::poll(p, waker.fd >= 0 ? 2 : 1, static_cast<int>(wait.count()));
    session_lock->lock();
  }
}

}  // namespace fvbench
