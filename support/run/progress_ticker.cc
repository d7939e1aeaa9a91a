#include "support/run/progress_ticker.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "support/host/interrupts.h"

namespace fvbench {

struct ProgressTicker::State {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::chrono::steady_clock::time_point t0;
  ServedRate rate;
  bool failed = false;        // reads stopped (or never possible)
  std::string reason;         // why
  bool reason_shown = false;  // printed on a tick line already
};

namespace {

std::string OneLine(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (s.size() > 160) s = s.substr(0, 160) + "...";
  return s;
}

double Since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

ProgressTicker::ProgressTicker(Host& sut, TickerSetup setup, std::function<void(const std::string&)> out)
    : sut_(sut), setup_(std::move(setup)), out_(std::move(out)), state_(std::make_shared<State>()) {}

ProgressTicker::~ProgressTicker() {
  if (running_) (void)Stop();
}

void ProgressTicker::Start() {
  if (running_ || setup_.tick_s <= 0) return;
  running_ = true;
  state_->t0 = std::chrono::steady_clock::now();
  if (setup_.status_socket.empty()) {
    state_->failed = true;
    state_->reason = setup_.unavailable.empty() ? "no status listener on the SUT" : setup_.unavailable;
  }
  std::weak_ptr<State> weak = state_;
  cleanup_id_ = RegisterCleanup([weak] {
    if (auto s = weak.lock()) {
      std::lock_guard<std::mutex> lock(s->mu);
      s->stop = true;
      s->cv.notify_all();
    }
  });
  thread_ = std::thread([this] { Loop(); });
}

std::optional<double> ProgressTicker::Stop() {
  if (!running_) return std::nullopt;
  running_ = false;
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stop = true;
  }
  state_->cv.notify_all();
  if (thread_.joinable()) thread_.join();
  UnregisterCleanup(cleanup_id_);
  if (InterruptSignal() != 0) return std::nullopt;
  Read(Since(state_->t0));
  std::lock_guard<std::mutex> lock(state_->mu);
  if (state_->failed) return std::nullopt;
  state_->rate.LoadEnded();
  return state_->rate.SoFarRps();
}

void ProgressTicker::Read(double t_before) {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->failed) return;
  }
  Command c;
  c.argv = {"curl", "-sS", "--max-time", "2", "--unix-socket", setup_.status_socket,
            "http://localhost/fvbench_status"};
  c.timeout = std::chrono::seconds(4);
  auto r = sut_.Run(c);
  // The counter was read somewhere inside the call: take its middle.
  const double t = (t_before + Since(state_->t0)) / 2;
  std::string why;
  std::optional<uint64_t> requests;
  if (!r) {
    why = "host " + sut_.name() + ": " + r.error().message;
  } else if (!r->success()) {
    why = r->timed_out ? "curl timed out" : fmt::format("curl exit {}: {}", r->exit_code, r->err);
  } else if (auto st = ParseStubStatus(r->out); !st) {
    why = st.error().message;
  } else {
    requests = st->requests;
  }
  std::lock_guard<std::mutex> lock(state_->mu);
  if (requests) {
    state_->rate.Add(t, *requests);
  } else {
    state_->failed = true;
    state_->reason = OneLine(why);
  }
}

void ProgressTicker::Print(double elapsed_s) {
  if (InterruptSignal() != 0) return;
  ProgressTick t = setup_.base;
  t.elapsed_s = elapsed_s;
  if (t.search_load_s) *t.search_load_s += std::min(elapsed_s, t.total_s);
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    if (state_->failed) {
      t.rate_failed = true;
      if (!state_->reason_shown) t.rate_na = state_->reason;
      state_->reason_shown = true;
    } else {
      t.served_rps = state_->rate.SoFarRps();
    }
  }
  out_(FormatProgressLine(t));
}

void ProgressTicker::Loop() {
  using namespace std::chrono;
  const double poll = std::max(0.1, std::min(setup_.poll_s, setup_.tick_s));
  const double tick = setup_.tick_s;
  Read(0);
  double next_poll = poll, next_tick = tick;
  std::unique_lock<std::mutex> lock(state_->mu);
  while (true) {
    const double wake = std::min(next_poll, next_tick);
    const auto deadline = state_->t0 + duration_cast<steady_clock::duration>(duration<double>(wake));
    if (state_->cv.wait_until(lock, deadline, [&] { return state_->stop; })) return;
    lock.unlock();
    double now = Since(state_->t0);
    if (now >= next_poll) {
      Read(now);
      while (next_poll <= now) next_poll += poll;
    }
    if (now >= next_tick) {
      Print(now);
      while (next_tick <= now) next_tick += tick;
    }
    lock.lock();
    if (InterruptSignal() != 0) return;
  }
}

}  // namespace fvbench
