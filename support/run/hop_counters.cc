#include "support/run/hop_counters.h"

#include <fmt/format.h>

#include <chrono>

#include "support/run/progress.h"

namespace fvbench {

HopCounters ReadHopCounters(Host& sut, const HopTarget& t) {
  HopCounters h;
  if (!t.status_socket.empty()) {
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
  if (t.port > 0) {
    Command c;
    c.argv = {"ss", "-Htan", "state", "time-wait", fmt::format("( sport = :{0} or dport = :{0} )", t.port)};
    c.timeout = std::chrono::seconds(4);
    if (auto r = sut.run(c); r && r->success()) h.time_wait = CountSsSockets(r->out);
  }
  return h;
}

std::vector<HopCounters> ReadHops(Host& sut, const std::vector<HopTarget>& targets) {
  std::vector<HopCounters> out;
  for (const HopTarget& t : targets) out.push_back(ReadHopCounters(sut, t));
  return out;
}

}  // namespace fvbench
