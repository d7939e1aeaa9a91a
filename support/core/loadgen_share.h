// Whether one phase's load can be split over several engine processes
// (engine/multi_loadgen.h): each process must get enough requests in its
// window to be judged on its own. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "support/core/result.h"

namespace fvbench {

// The fewest requests one process of a shared phase may be given in its
// window: then one request more or less (a slot at the window's edge, a
// response still in flight) moves its achieved rate by at most 1 %, a third
// of the 3 % its own achieved_rate check allows (VALIDITY_MIN_ACHIEVED
// 0.97). A share below it could not be judged: 7 processes at 5 RPS for 2 s
// would each send 1 or 2 requests.
inline constexpr double kMinRequestsPerLoadgenProcess = 100;

// The split of rate_rps x duration_s over `processes`: Error when a process
// would get fewer than kMinRequestsPerLoadgenProcess, naming the numbers and
// how many processes the phase could have; `what` names the phase
// ("LATENCY_RPS=5 x LATENCY_DUR=2 s (...)", "phase x at 50 RPS for 2 s").
// One process is never refused here.
Result<void> CheckShareSize(double rate_rps, double duration_s, size_t processes, const std::string& what);

}  // namespace fvbench
