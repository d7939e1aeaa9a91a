// Reads the counters of the SUT's hops (judge/hop_connections.h) on the SUT
// host, through Host::run (locally and over SSH alike), before and after a
// measured phase:
//   curl -sS --max-time 2 --unix-socket <status_socket> http://localhost/fvbench_status
//   ss -Htan state time-wait '( sport = :<port> or dport = :<port> )'
// Never fails the phase: a failed read leaves its fields nullopt (the check
// then says "n/a").
#pragma once

#include <string>
#include <vector>

#include "support/host/host.h"
#include "support/judge/hop_connections.h"

namespace fvbench {

struct HopTarget {
  std::string hop;            // "loadgen -> fv", "fv -> backend"
  std::string status_socket;  // the hop's server-side nginx status socket; "" = none
  int port = 0;               // the hop's server port
};

// Every hop's counters, in the order of `targets`; all reads run at once.
std::vector<HopCounters> ReadHops(Host& sut, const std::vector<HopTarget>& targets);

}  // namespace fvbench
