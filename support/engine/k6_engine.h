// K6Engine: the primary LoadEngine (support/engine/load_engine.h) on k6 and the
// static scripts in k6/ (constant_rate.js, warmup.js, common.js). Create it
// with MakeK6Engine(host, scripts_dir); scripts_dir holds those three files on
// the loadgen host (local mode: <source>/k6).
//
// One measured phase runs, on the loadgen host:
//   [taskset -c <cpuset>] k6 run --quiet --no-color
//       -e TARGET_URL=<url> -e RATE=<R> -e DURATION=<D> -e KIND=get|decision|post
//       [-e JWT=<jwt>] [-e BODY_FILE=<remote_dir>/<phase>.body.json]
//       -e PRE_VUS=<P> -e MAX_VUS=<M> -e SUMMARY_OUT=<remote_dir>/<phase>.json
//       -e COUNT_RATELIMIT=0|1 <scripts_dir>/constant_rate.js
// with K6_NO_USAGE_REPORT=true and K6_NEW_MACHINE_READABLE_SUMMARY=false in
// its environment (the latter keeps k6 >= 1.5 on the handleSummary shape that
// support/engine/k6_summary.h parses; older k6 ignores it). JWT is passed only when
// set, BODY_FILE only for kPostJson (the body is written there first).
//   R = round(spec.rate_rps), >= 1 (k6's `rate` is an integer).
//   D = spec.duration_s in seconds ("60", "0.5").
//   P = spec.connections when > 0, else max(50, ceil(R / 100)): VUs for R
//       req/s at up to 10 ms each (Little's law: busy VUs = rate x latency).
//   M = 5 x P: head-room up to 50 ms before k6 drops iterations, which the
//       parser reports as kept_up = false. (At 150k RPS that is 1500 / 7500
//       VUs; k6 allocates the extra VUs only when needed.)
// Timeout of the command: D + kK6GracefulStopS (2 s: k6/common.js sets the
// scenario's gracefulStop to it; k6's default is 30 s) + kK6StartupS (30 s).
// run() records the command's wall time in LoadResult::wall_s and M, the
// pool the scenario could use, in LoadResult::connections.
// Exit 0 and 99 (thresholds failed; the summary is still written,
// go.k6.io/k6/errext/exitcodes ThresholdsHaveFailed) are accepted.
//
// run() leaves on the controller, in controller_dir:
//   <phase>.cmd.txt   the command line as run, env assignments first
//                     (the JWT value replaced by "<redacted>")
//   <phase>.k6.log    k6's stdout and stderr
//   <phase>.json      the fetched summary; LoadResult.raw_path
// and parses it with ParseK6Summary (source = that path). A stale summary on
// the host is removed before the run, so a run that writes none is an error.
// engine_version is version()'s line when version() has been called (cached).
//
// warmup() runs warmup.js with the same parameters (no SUMMARY_OUT), a post
// body at /tmp/fvbench-k6-<phase>.warmup.body.json on the loadgen host, and
// checks only the exit status; duration_s <= 0 skips it.
//
// Errors name the phase and the host, and for a failed k6 the exit status (or
// signal / timeout) and the tail of its stderr; a bad spec (empty phase or
// phase with characters other than [A-Za-z0-9._-], no URL, rate < 0.5,
// duration <= 0, negative connections, post without body) is rejected before
// anything runs.
#pragma once

#include <string>

#include "support/host/host.h"
#include "support/engine/load_engine.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr int kK6MinPreVus = 50;
inline constexpr double kK6RatePerVu = 100;  // req/s one pre-allocated VU is asked to carry
inline constexpr int kK6MaxVusFactor = 5;

struct K6Vus {
  int pre = 0;  // preAllocatedVUs
  int max = 0;  // maxVUs
};
K6Vus K6VusFor(long rate, int connections);

// The k6 command for one phase. `summary_out` empty = warmup (warmup.js, no
// SUMMARY_OUT / COUNT_RATELIMIT); `body_path` is used for kPostJson only.
// Pure; validates the spec.
Result<Command> PlanK6Command(const LoadSpec& spec, const std::string& scripts_dir,
                              const std::string& summary_out, const std::string& body_path);

// The command as one pasteable shell line: env assignments, then argv; the
// JWT value redacted.
std::string K6CommandLine(const Command& cmd);

}  // namespace fvbench
