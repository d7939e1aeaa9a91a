// Progress of a load phase while it runs: the pure parts (no I/O). The
// ticker that reads the SUT and prints is progress_ticker.h.
//
// What a tick line says (plain text: no \r, no ANSI, one line per tick, so a
// ctest log and a terminal read the same; the caller prefixes [hh:mm:ss]):
//   throughput.simple: step 4 (bracket) 8000 RPS: 5/10 s, SUT served 5420 RPS so far; load 62/120 s of budget
//   latency.raw_nginx: measuring 2000 RPS: 30/60 s, SUT served 1998 RPS so far
//   throughput.simple: warmup 400 RPS: 5/10 s, rate n/a (curl: (7) Couldn't connect to server)
//
// "SUT served" comes from nginx's own request counter on the SUT, not from
// the load engine: wrk prints nothing until it ends, and k6's live output is
// a terminal progress bar on stderr that Host::Run only returns at the end.
// Source: ngx_http_stub_status_module (`stub_status;`, in Debian's nginx
// and OpenResty builds: `nginx -V` lists --with-http_stub_status_module),
// whose page is
//   Active connections: 1 \n
//   server accepts handled requests\n
//    52 52 52 \n
//   Reading: 0 Writing: 1 Waiting: 0 \n
// `requests` is the total number of client requests since the nginx master
// started (shared by all workers and all server blocks of that nginx), and
// it already counts the request that reads the page. So between two reads
// the counter grows by the requests served plus exactly one (the later
// read); ServedRate subtracts that one per read.
//
// Rate "so far" (ServedRate): the counter is read every poll (1 s); the
// window runs from the first read at which load had already begun (an
// interval that gained more than the read itself) to the last read at which
// it was still running (the next interval gained load too; while the phase
// runs: the latest read). Partial intervals at the start and the end are
// left out, so the engine's start-up and the tail after its last request do
// not dilute the rate:
//   rps = (requests_b - requests_a - (b - a) reads) / (t_b - t_a)
// Absent until two reads inside the load exist. A counter that goes down
// (the nginx was restarted) starts the window again.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/progress_params.h"
#include "support/core/result.h"

namespace fvbench {

// One stub_status page. Err names what was missing ("no 'server accepts
// handled requests' line", "'Reading: x' is not a number").
struct StubStatus {
  uint64_t active = 0;  // open client connections, incl. waiting ones
  uint64_t accepts = 0;
  uint64_t handled = 0;
  uint64_t requests = 0;  // total client requests since the master started
  uint64_t reading = 0;
  uint64_t writing = 0;
  uint64_t waiting = 0;
};
Result<StubStatus> ParseStubStatus(std::string_view text);

// Served-request rate from successive reads of `requests` (see above).
class ServedRate {
 public:
  // One read at t_s (seconds from any fixed origin, increasing).
  void Add(double t_s, uint64_t requests);
  // The load is over and the latest read came after its end: when the
  // latest interval still gained load it was partial, and leaves the window.
  void LoadEnded();
  // Requests per second over the window; nullopt until the window has two reads.
  std::optional<double> SoFarRps() const;
  // Requests served between the window's ends (reads excluded); 0 without a window.
  uint64_t WindowRequests() const;
  double WindowSeconds() const;  // t_b - t_a; 0 without a window
  int reads() const { return static_cast<int>(reads_.size()); }

 private:
  struct Read {
    double t_s;
    uint64_t requests;
  };
  std::vector<Read> reads_;  // since the last counter reset
  int first_ = -1;           // index of a: the first read with load before it
  int last_ = -1;            // index of b: the last read with load after it (or the latest)
};

// Everything one tick line shows.
struct ProgressTick {
  std::string scenario;  // "throughput.simple"
  std::string phase;     // "step 4 (bracket)", "warmup", "measuring", "run 2 of 3"
  double target_rps = 0;
  double elapsed_s = 0;  // since the phase started (may pass total_s while the engine ends)
  double total_s = 0;    // the phase's planned duration
  std::optional<double> served_rps;  // ServedRate::SoFarRps
  // The counter could not be read: "rate n/a (<rate_na>)", or "rate n/a" when
  // rate_na is empty (the reason was printed on an earlier tick). Neither
  // served_rps nor rate_failed: "no load seen by the SUT yet".
  bool rate_failed = false;
  std::string rate_na;
  // The search's position: load seconds of the search so far (earlier phases'
  // planned durations + this one's elapsed), out of budget_s (0 = no budget,
  // THROUGHPUT_SEARCH=seed). Absent for phases outside a search.
  std::optional<double> search_load_s;
  double budget_s = 0;
};
std::string FormatProgressLine(const ProgressTick& t);

}  // namespace fvbench
