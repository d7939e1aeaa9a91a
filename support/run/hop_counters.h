// Reads the counters of the SUT's hops (judge/hop_connections.h) on the SUT
// host, through Host::Run (locally and over SSH alike), before and after a
// measured phase: per hop
//   curl -sS --max-time 2 --unix-socket <status_socket> http://localhost/fvbench_status
//   ss -Htan state time-wait '( sport = :<port> or dport = :<port> )'
// all in ONE command (`sh -c`, the reads at once inside it): one round trip
// to the SUT host, whatever the number of hops.
// Never fails the phase: a failed read leaves its fields nullopt (the check
// then says "n/a").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/host/host.h"
#include "support/judge/hop_connections.h"

namespace fvbench {

struct HopTarget {
  std::string hop;            // "loadgen -> fv", "fv -> backend"
  std::string status_socket;  // the hop's server-side nginx status socket; "" = none
  int port = 0;               // the hop's server port
};

// Every hop's counters, in the order of `targets`.
std::vector<HopCounters> ReadHops(Host& sut, const std::vector<HopTarget>& targets);

namespace detail {
// The output of the one command: "@@<s|t> <hop index> <exit status>" lines,
// each followed by that read's output; a read that failed (status != 0) or
// is absent leaves its fields nullopt.
std::vector<HopCounters> ParseHopReads(std::string_view out, size_t hops);
}  // namespace detail

}  // namespace fvbench
