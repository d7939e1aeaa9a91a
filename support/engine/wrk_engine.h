// WrkEngine: the offline LoadEngine (support/engine/load_engine.h) on Debian's wrk
// 4.1.0 with support/engine/pace.lua, which turns wrk's closed loop into an open
// model at spec.rate_rps and writes one JSON object (support/engine/wrk_output.h).
// Create it with MakeWrkEngine(host, scripts_dir); scripts_dir holds pace.lua
// on the loadgen host (BENCH_DIR/scripts, where the testbed ships it; the
// engine's own tests use <source>/support/engine). A warmup's POST body is
// written where a measured phase's is (<remote_dir>/<phase>.body.json).
//
// One phase runs, on the loadgen host:
//   [taskset -c <cpuset>] wrk -t<T> -c<C> -d<D>s --latency -s <scripts_dir>/pace.lua <url>
// with FVBENCH_RATE, FVBENCH_THREADS, FVBENCH_CONNECTIONS, FVBENCH_KIND,
// FVBENCH_JWT, FVBENCH_BODY_FILE, FVBENCH_COUNT_RATELIMIT, FVBENCH_TIMEOUT_US,
// FVBENCH_DURATION_S (= D: each thread's schedule lasts D, see pace.lua done()),
// FVBENCH_KEYS (= spec.keys: X-Bench-Key k0..k<keys-1>, 0 = none)
// and FVBENCH_OUT=<remote_dir>/<phase>.json. Every FVBENCH_* variable is set
// explicitly (empty or 0 when unused), so values inherited from the caller's
// environment never leak into the script.
//   T = cpus in spec.cpuset, capped at 4; 2 when unpinned.
//   C = spec.connections when > 0, else ceil(rate / kWrkRatePerConnection
//       (5)) clamped to [2*T, 1000]: each connection carries at most 5
//       req/s, i.e. the pool holds 200 ms of the schedule in flight (Little's
//       law: concurrency = rate x latency) before a slot finds no connection
//       free. Always rounded up to a multiple of T, because wrk
//       gives each thread C/T connections (integer division) and needs C >= T.
//   D = ceil(spec.duration_s) (wrk takes whole seconds).
//   Synchronised (spec.start_epoch_us > 0: several load generators,
//   multi_loadgen.h): also FVBENCH_START_EPOCH_US and FVBENCH_OFFSET_US
//   (pace.lua header), D = ceil(start_wait_s + duration_s + 0.25) while
//   FVBENCH_DURATION_S stays the window, and the command runs under
//   `bash --norc -c '"$@"; rc=$?; times >&2; exit $rc'` so that wrk's own CPU
//   time is known (ChildCpuSeconds -> LoadResult::engine_cpu_s); --norc: no
//   ~/.bashrc read on the way, as bash does when it thinks sshd started it.
//   --timeout=10s (kWrkRequestTimeoutUs; wrk's own default is 2 s):
//   slower responses count as errors.timeout, censored latency samples
//   (core/outcomes.h CensorAtTimeout).
// Timeout of the command: D + kWrkStartupS (10 s: its login shell's start)
// + kPhaseGraceS (5 s; wrk stops at -d by itself), and synchronised also
// the lead (start_wait_s, rounded up):
// a wrk killed there fails the phase as "cut" (no output). Run() records the
// command's wall time in LoadResult::wall_s. remote_dir is created on the host and a
// stale <phase>.json removed; a post body is written to
// <remote_dir>/<phase>.body.json first. A SUT that refuses connections fails
// the phase before any load: wrk's resolve step test-connects and exits 1
// ("unable to connect to <host>:<port> ...").
//
// Run() leaves on the controller, in controller_dir:
//   <phase>.cmd.txt     the exact command with its FVBENCH_* environment
//                       (the JWT value is replaced by "<redacted>")
//   <phase>.stdout.txt  wrk's stdout (its own summary, then the JSON)
//   <phase>.json        the fetched pace.lua output; LoadResult.raw_path
// and parses the JSON with ParseWrkPaceOutput (kDefaultMaxSendLagUs bound).
// engine_version is `wrk --version`'s first line (cached).
//
// Errors name the phase, the host and the command: pace.lua missing on the
// host (checked before any load: wrk would otherwise run unpaced, closed
// loop), a bad spec, a non-zero exit / signal / timeout (with the stderr
// tail; a Lua error inside pace.lua's init() aborts wrk), no JSON written,
// fetch failure, parse failure. Warmup() runs the same command with
// FVBENCH_OUT=/dev/null and checks only the exit status.
//
// Version(): `wrk --version` prints "wrk debian/4.1.0-3+b2 [epoll] Copyright
// (C) 2012 Will Glozer" and then the usage text, and exits 1 (wrk.c
// parse_args: -v prints, then the missing URL fails). The version is the text
// before " Copyright"; any exit status is accepted if that line is there.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "support/host/host.h"
#include "support/engine/load_engine.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr int kWrkDefaultThreads = 2;
// What a wrk command may take to begin, beyond its -d: the loadgen host's
// login shell starts first, and start-up files (conda, nvm, pyenv in
// .bashrc) take seconds on some hosts (a 5 s one was cut at -d + 5 s).
inline constexpr double kWrkStartupS = 10;
inline constexpr int kWrkMaxThreads = 4;
// Derived connections (LOADGEN_CONNECTIONS=0): rate / 5, so each connection
// carries 5 req/s and the pool keeps to the schedule while the SUT holds
// fewer than rate x 200 ms requests at once (Little's law: requests in
// flight = rate x response time), including during a stall. The pool is the
// open model's head-room: a SUT that stalls for longer than the pool covers
// makes the engine send late, and the step then fails on lateness, whatever
// its latency SLO (throughput: p99 < 1 s). History:
//  - rate / 100 (this engine's first rule): a SUT answering in 10-20 ms near
//    its knee ran the pool dry, and the search called the ENGINE the limit
//    at a rate the SUT still served.
//  - rate / 20 (50 ms): measured pinned (ORESTY_CPUSET=0 K6_CPUSET=1,
//    `ctest --preset local -R throughput`), edge on one CPU stalls for
//    20-90 ms near its knee with its p99 at 50-77 ms: 20 s confirmations
//    failed on 0.8-10 % late sends, 93-100 % of them with every connection
//    waiting for the SUT, at rates its stub_status showed served in full.
//    The pool had set a hidden 50 ms latency bound, and the SUT's stalls
//    were reported as the engine falling behind rather than as latency.
//  - rate / 5 (200 ms): the same stalls show as latency (p99 80-230 ms at
//    the knee, in the results); a step fails on lateness only when the SUT
//    held 200 ms of the schedule. Searches are not more often confirmed on
//    this VM, whose pinned SUT's capacity drifts by 10-20 % within minutes:
//    6 of 12 pinned searches confirmed at <= 2 % (4 of 9 with rate / 20).
// The cap keeps wrk (which never raises its open-files limit) within the
// common default `ulimit -n` 1024: 1000 sockets + threads + kWrkOwnFiles.
// Above 5000 RPS it shortens what the pool covers to 1000 / rate (143 ms at
// 7000 RPS, 100 ms at 10000); a step that fails on late sends with every
// connection waiting says how long its pool covered (judge/step_search.cc).
// k6 keeps its own pool (k6_engine.h: maxVUs = 5 x preAllocatedVUs): each
// k6 VU is a JavaScript runtime with its own memory, which a pool of
// rate x 200 ms (30000 VUs at 150000 RPS) would not fit.
inline constexpr double kWrkRatePerConnection = 5;  // req/s one connection is asked to carry
inline constexpr int kWrkMaxConnections = 1000;

// A synchronised phase (several load generators) runs the command under
// `bash --norc -c '"$@"; rc=$?; times >&2; exit $rc'`; this reads the children's
// user + system CPU seconds from the last `times` line of its stderr
// ("0m1.512s 0m0.346s" -> 1.858). nullopt when there is none.
std::optional<double> ChildCpuSeconds(std::string_view stderr_text);

// Distinct cpus in a taskset list ("0-3,6" -> 5). Error on bad syntax.
Result<int> CountCpuList(std::string_view cpuset);

// T and C as described above.
Result<int> WrkThreadsFor(const std::string& cpuset);
int WrkConnectionsFor(double rate_rps, int threads, int requested);

// The version line out of `wrk --version` output (stdout, maybe stderr).
Result<std::string> ParseWrkVersion(std::string_view output);

// The command for one phase. `out_path` is FVBENCH_OUT; `body_path` the body
// file on the host (post only, else ignored). Pure; validates the spec.
Result<Command> PlanWrkCommand(const LoadSpec& spec, const std::string& scripts_dir,
                               const std::string& out_path, const std::string& body_path);

// The command as one pasteable shell line: env assignments, then argv;
// FVBENCH_JWT's value redacted.
std::string WrkCommandLine(const Command& cmd);

}  // namespace fvbench
