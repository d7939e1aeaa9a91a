// ProgressTicker: progress lines while one load phase runs (warmup, latency
// run, search step, confirmation), from a thread beside the engine's run.
//
//   ProgressTicker t(sut, setup, print);
//   t.Start();                 // right before engine.Run()
//   engine.Run(...);
//   auto served = t.Stop();    // right after it, whatever it returned
//
// Every poll_s (1 s) the thread reads the SUT nginx's request counter on the
// SUT host through Host::Run (so it works locally and over SSH alike):
//   curl -sS --max-time 2 --unix-socket <status_socket> http://localhost/fvbench_status
// (one short-lived curl process on the SUT host per second; the page is a few
// hundred bytes), and every tick_s it prints one line (FormatProgressLine,
// progress.h) through `out`. The rate is ServedRate's (progress.h): requests
// served by the nginx under load, the reads themselves subtracted.
//
// Why a counter on the SUT: wrk prints nothing until it
// ends and k6's live progress is a terminal bar on stderr that Host::Run
// returns only at the end, so the engines have nothing to read while they
// run; the SUT's own counter is cheap, engine-neutral and honest (it counts
// what the SUT served, not what the engine meant to send).
//
// Why a unix socket, not a port: the status listener (nginx_conf.h,
// NginxParams::status_socket) must stay off the measured path and must not
// take a port that could clash with the SUT's (FV_PORT ...) or another run's.
// A unix socket in the service's run dir is reachable only on the SUT host,
// by its owner's users, needs no variable and no free port. nginx's
// stub_status counts requests over all of that nginx's listeners; a read
// costs the SUT one request per second, subtracted from the rate.
//
// Never fails the phase: a failed read (curl error, no listener, a page that
// does not parse) stops the reads for the rest of the phase; the next tick
// line says "rate n/a (<reason>)" once and later ones "rate n/a". Without a
// status socket (the runtime has no stub_status module, the socket path is
// too long) the lines say "rate n/a (<unavailable>)" the same way.
//
// Stops cleanly: Stop() (and the destructor) ends the thread and joins it;
// on SIGINT/SIGTERM/SIGHUP (interrupts.h) a registered cleanup wakes the
// thread, which prints nothing more and ends (the interrupt thread kills a
// curl still running, as every child command).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "support/host/host.h"
#include "support/run/progress.h"

namespace fvbench {

struct TickerSetup {
  // scenario, phase, target_rps, total_s; search_load_s = the search's load
  // seconds BEFORE this phase (elapsed is added per tick) and budget_s.
  ProgressTick base;
  double tick_s = 0;           // TickPeriod(); 0 = off: Start() and Stop() do nothing
  double poll_s = 1;           // counter reads; min(poll_s, tick_s) is used
  std::string status_socket;   // on the SUT host; "" = no counter
  std::string unavailable;     // why status_socket is "" (shown once)
};

class ProgressTicker {
 public:
  ProgressTicker(Host& sut, TickerSetup setup, std::function<void(const std::string&)> out);
  ~ProgressTicker();  // Stop() if still running
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  void Start();
  // Ends the thread; reads the counter once more (the load is over) and
  // returns the rate the SUT served over the phase (ServedRate::SoFarRps
  // after LoadEnded); nullopt when off, never read, or no window.
  std::optional<double> Stop();

 private:
  struct State;
  void Loop();
  void Read(double t_s);
  void Print(double elapsed_s);

  Host& sut_;
  TickerSetup setup_;
  std::function<void(const std::string&)> out_;
  std::shared_ptr<State> state_;  // shared with the interrupt cleanup
  std::thread thread_;
  int cleanup_id_ = 0;
  bool running_ = false;
};

}  // namespace fvbench
