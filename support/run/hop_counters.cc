#include "support/run/hop_counters.h"

#include <fmt/format.h>

#include <chrono>
#include <future>

#include "support/run/progress.h"

namespace fvbench {

namespace {

void ReadStatus(Host& sut, const HopTarget& t, HopCounters& h) {
  if (t.status_socket.empty()) return;
  Command c;
  c.argv = {"curl", "-sS", "--max-time", "2", "--unix-socket", t.status_socket, "http://localhost/fvbench_status"};
  c.timeout = std::chrono::seconds(4);
  if (auto r = sut.run(c); r && r->success()) {
    if (auto st = ParseStubStatus(r->out)) {
      h.accepts = st->accepts;
      h.requests = st->requests;
    }
  }
}

void ReadTimeWait(Host& sut, const HopTarget& t, HopCounters& h) {
  if (t.port <= 0) return;
  Command c;
  c.argv = {"ss", "-Htan", "state", "time-wait", fmt::format("( sport = :{0} or dport = :{0} )", t.port)};
  c.timeout = std::chrono::seconds(4);
  if (auto r = sut.run(c); r && r->success()) h.time_wait = CountSsSockets(r->out);
}

}  // namespace

// Every read at once: between phases these reads are fixed cost, and one
// curl costs tens of ms to start. Host::run may be called from several
// threads (LocalHost runs them at once; SshHost, one after another).
std::vector<HopCounters> ReadHops(Host& sut, const std::vector<HopTarget>& targets) {
  std::vector<HopCounters> out(targets.size());
  std::vector<std::future<void>> reads;
  for (size_t i = 0; i < targets.size(); ++i) {
    reads.push_back(std::async(std::launch::async, [&, i] { ReadStatus(sut, targets[i], out[i]); }));
    reads.push_back(std::async(std::launch::async, [&, i] { ReadTimeWait(sut, targets[i], out[i]); }));
  }
  for (auto& r : reads) r.get();
  return out;
}

}  // namespace fvbench
