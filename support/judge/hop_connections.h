// New connections per request and TIME_WAIT growth on one hop of the SUT
// during a measured phase: what distorts a number without
// failing it. A hop that opens a connection per request (keep-alive off or
// broken between the load generator and the edge, or between the edge and
// its backend) costs a handshake per request and fills TIME_WAIT; its
// latency and throughput are then those of a different system.
//
// Sources (read by support/run/hop_counters.h before and after the phase):
//  - nginx stub_status of the hop's server side (ngx_http_stub_status_module:
//    `accepts` = accepted client connections, `requests` = client requests;
//    both over all of that nginx's listeners, so they include the status
//    reads themselves, about one per second during a phase);
//  - `ss -Htan state time-wait '( sport = :P or dport = :P )'` on the SUT host
//    (iproute2): one line per socket in TIME-WAIT on the hop's port P.
//
// Reported as an informational ValidityCheck "hop_connections" (recorded in
// results.json with the phase's other checks and shown in the report; never
// fails the phase): measured = new connections per request, e.g.
//   "loadgen -> fv :8080: 30012 new connections for 30010 requests (1.00 per
//    request: a connection per request); TIME_WAIT on :8080 12 -> 28011 (+27999)"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/core/scenario_result.h"

namespace fvbench {

// One reading of a hop's counters; a field is nullopt when its read failed.
struct HopCounters {
  std::optional<uint64_t> accepts;    // stub_status `accepts`
  std::optional<uint64_t> requests;   // stub_status `requests`
  std::optional<uint64_t> time_wait;  // sockets in TIME-WAIT on the hop's port
};

// Sockets listed by `ss -H ...` (no header line): its non-blank lines.
uint64_t CountSsSockets(std::string_view ss_output);

// From this share of new connections per request on, a hop is said to open
// a connection per request (keep-alive is not working on it).
inline constexpr double kConnectionPerRequestShare = 0.5;

// The informational check for hop `hop` (e.g. "loadgen -> fv") on `port`.
// measured: new connections / requests over the phase (NaN when either
// counter is unknown or no request was counted); limit NaN. A counter that
// went backwards (the nginx restarted) reads as unknown.
ValidityCheck DescribeHop(const std::string& hop, int port, const HopCounters& before, const HopCounters& after);

}  // namespace fvbench
