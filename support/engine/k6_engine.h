// K6Engine: the primary LoadEngine (support/engine/load_engine.h) on k6 and the
// static scripts in k6/ (constant_rate.js, warmup.js, common.js). Create it
// with MakeK6Engine(host, scripts_dir); scripts_dir holds those three files on
// the loadgen host (local mode: <source>/k6).
//
// One measured phase runs, on the loadgen host:
//   [taskset -c <cpuset>] k6 run --quiet --no-color --include-system-env-vars
//       -e TARGET_URL=<url> -e RATE=<R> -e DURATION=<D> -e KIND=get|decision|post
//       [-e BODY_FILE=<remote_dir>/<phase>.body.json]
//       -e PRE_VUS=<P> -e MAX_VUS=<M> -e KEYS=<spec.keys>
//       -e SUMMARY_OUT=<remote_dir>/<phase>.json
//       -e COUNT_RATELIMIT=0|1 <scripts_dir>/constant_rate.js
// with K6_NO_USAGE_REPORT=true, K6_NEW_MACHINE_READABLE_SUMMARY=false (keeps
// k6 >= 1.5 on the handleSummary shape that support/engine/k6_summary.h
// parses; older k6 ignores it) and JWT=<spec.jwt> (empty when none) in its
// environment. The JWT is a secret: it never goes on k6's command line,
// which every user of the loadgen host can read; k6 run copies its
// environment into the script's __ENV (--include-system-env-vars, k6 docs
// "Environment variables"; -e values override it). BODY_FILE only for
// kPostJson (the body is written there first). KEYS (0 = none) is always
// given, warmup included: k6/common.js puts X-Bench-Key: k<i> on each request.
//   R = round(spec.rate_rps), >= 1 (k6's `rate` is an integer).
//   D = spec.duration_s in seconds ("60", "0.5").
//   P = spec.connections when > 0, else max(50, ceil(R / 100)): VUs for R
//       req/s at up to 10 ms each (Little's law: busy VUs = rate x latency).
//   M = 5 x P: head-room up to 50 ms before k6 drops iterations, which the
//       parser reports as kept_up = false. (At 150k RPS that is 1500 / 7500
//       VUs; k6 allocates the extra VUs only when needed.)
// Timeout of the command: D + kK6GracefulStopS (2 s: k6/common.js sets the
// scenario's gracefulStop to it; k6's default is 30 s) + kK6StartupS (30 s).
// Run() records the command's wall time in LoadResult::wall_s and M, the
// pool the scenario could use, in LoadResult::connections.
// Exit 0 and 99 (thresholds failed; the summary is still written,
// go.k6.io/k6/errext/exitcodes ThresholdsHaveFailed) are accepted.
//
// Run() leaves on the controller, in controller_dir:
//   <phase>.cmd.txt   the command line as run, env assignments first
//                     (the JWT value replaced by "<redacted>")
//   <phase>.k6.log    k6's stdout and stderr
//   <phase>.json      the fetched summary; LoadResult.raw_path
// and parses it with ParseK6Summary (source = that path). A stale summary on
// the host is removed before the run, so a run that writes none is an error.
// engine_version is Version()'s line when Version() has been called (cached).
//
// Several instances (engine/multi_loadgen.h sets the fields).
// With spec.k6_segment set, the command also gets
//   --execution-segment <seg> --execution-segment-sequence <seq>
// (k6 `run` flags, k6 docs "k6 options reference" / "Execution segment"; the
// k6 operator's distributed runs use the same pair) and RATE, PRE_VUS,
// MAX_VUS are the whole test's: round(rate_rps / segment width) and the VUs
// of that rate (connections / width when given). k6 runs this segment's
// share of the constant-arrival-rate; the instances of one sequence together
// keep exactly the whole rate.
//
// Synchronised start (spec.start_epoch_us > 0, measured runs only): the
// instance is ONE `bash -c` command on the loadgen host, so Run() stays
// synchronous and multi_loadgen runs instances in parallel threads:
//   1. refuse when a k6 already answers at its address (a stale run would
//      otherwise be resumed in its place);
//   2. `k6 run --paused --address 127.0.0.1:<port> [segment flags]
//      --out csv=<remote_dir>/<phase>.samples.csv ...` in the background
//      (`-p, --paused`: start the test paused; `--address`: where the k6
//      REST API listens, default localhost:6565; k6 docs "k6 run" and
//      "k6 REST API", present in k6 v0.54). port = kK6ApiBasePort + the
//      segment's index (i for "i/n:(i+1)/n"), so instances on one host do
//      not clash;
//   3. `k6 status --address ...` every 0.1 s until it answers (k6 has
//      initialised its VUs and waits, paused), at most kK6ApiReadyTries
//      tries, and only while k6 runs; prints `fvbench-ready <epoch_us>`;
//   4. sleeps until the common start (date +%s%N; coreutils sleep takes
//      fractional seconds), then `k6 resume --address ...` (k6 docs
//      "k6 REST API": PATCH /v1/status paused=false, which the CLI sends);
//      prints `fvbench-resumed <sent_epoch_us> <returned_epoch_us>`;
//   5. waits for k6 and exits with its status (3: the wrapper's own failure,
//      its message on stderr);
//   6. reduces the samples on the loadgen host when
//      <scripts_dir>/fvbench_k6_reduce is there and executable
//      (apps/k6_reduce_main.cc): `fvbench_k6_reduce --origin-us <start>
//      --width-us <W> -o <remote_dir>/<phase>.histogram.json -- csv
//      <samples>`: the histogram and the counts and histograms per interval
//      (engine/k6_samples.h) of W = spec.interval_us (1 s when 0) from the
//      common start on that host's clock (spec.start_epoch_us).
// The k6 process of a synchronised run gets K6_CSV_TIME_FORMAT=unix_micro in
// its environment: k6's csv output reads its timeFormat option from there
// (grafana/k6 internal/output/csv/config.go, `envconfig:"K6_CSV_TIME_FORMAT"`,
// the environment k6 runs with; output.go writes Time.UnixMicro()). The
// value exists since k6 v0.44 (v0.39..v0.43 know only unix and rfc3339 and
// refuse it at start; older k6 ignore the variable and write whole seconds,
// for which the reducer reports the series absent unless the start is a
// whole second and W whole seconds). The default, `unix`, is whole seconds.
// Run() then fetches that histogram (kilobytes); when it is missing (the
// tool is not on that host: fvbench does not ship a binary to a remote host
// of maybe another architecture or libc, or it failed) Run() fetches the CSV
// and reduces it on the controller instead: exact either way, but that copy
// is the whole CSV (about 10 lines, ~2 KB, per request: k6 writes every
// metric's sample). The samples are uncompressed: gzip (`csv=<f>.gz`) would
// cost the loadgen's CPU during the phase, which is what loadgen_cpu gates;
// the file stays on the loadgen host in remote_dir. What was taken is
// recorded as `reduced_on` ("loadgen host" | "controller") in
//   <phase>.instance.json   (controller_dir; K6InstanceRun below) the
//                           ready and resume times and the histogram with
//                           its intervals (k6_samples.h K6ReductionToJson)
// beside <phase>.histogram.json or <phase>.samples.csv. The instance's
// measured start is `resumed_epoch_us`, when `k6 resume` returned: k6 has
// resumed by its answer, while the time it was sent precedes the CLI's own
// start-up (both are kept). Its window is that start + duration_s. Run()'s
// LoadResult::intervals is the instance's series on the loadgen host's clock
// (empty when the reducer found it absent: instance.json says why).
//
// Warmup() runs warmup.js with the same parameters (no SUMMARY_OUT), a post
// body at <remote_dir>/<phase>.body.json on the loadgen host (under BENCH_DIR), and
// checks only the exit status; duration_s <= 0 skips it.
//
// Errors name the phase and the host, and for a failed k6 the exit status (or
// signal / timeout) and the tail of its stderr; a bad spec (empty phase or
// phase with characters other than [A-Za-z0-9._-], no URL, rate < 0.5,
// duration <= 0, negative connections, keys outside [0, kMaxBenchKeys],
// post without body) is rejected before
// anything runs.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "support/core/latency_histogram.h"
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
// A measured run with spec.start_epoch_us > 0 is the synchronised bash
// command above, writing `samples_out` (required) and `histogram_out`.
// Pure; validates the spec.
Result<Command> PlanK6Command(const LoadSpec& spec, const std::string& scripts_dir,
                              const std::string& summary_out, const std::string& body_path,
                              const std::string& samples_out = "", const std::string& histogram_out = "");

inline constexpr size_t kK6ApiBasePort = 6565;  // k6's own default REST API port
inline constexpr int kK6ApiReadyTries = 300;     // x 0.1 s and a `k6 status` each
inline constexpr std::string_view kK6ReduceTool = "fvbench_k6_reduce";

// An execution segment "<from>:<to>", each bound 0, 1 or p/q (what
// PlanShards writes); index = from / width (i for "i/n:(i+1)/n").
struct K6Segment {
  double from = 0;
  double to = 1;
  size_t index = 0;
};
Result<K6Segment> ParseK6Segment(const std::string& segment);

// "127.0.0.1:<kK6ApiBasePort + segment index>" (index 0 without a segment).
std::string K6ApiAddress(const LoadSpec& spec);

// What a synchronised run leaves for multi_loadgen (<phase>.instance.json).
struct K6InstanceRun {
  double ready_epoch_us = 0;        // its REST API answered: initialised, paused
  double resume_sent_epoch_us = 0;  // `k6 resume` started
  double resumed_epoch_us = 0;      // `k6 resume` returned: running (its measured start)
  std::string reduced_on;           // "loadgen host" | "controller"
  LatencyHistogram histogram;
  IntervalSeries intervals;         // per interval, on the loadgen host's clock (k6_samples.h); may be empty
  std::string intervals_absent;     // why `intervals` is empty, when it is
};
std::string K6InstancePath(const std::string& controller_dir, const std::string& phase);
nlohmann::json K6InstanceToJson(const K6InstanceRun& run);
Result<K6InstanceRun> ParseK6InstanceJson(std::string_view text, const std::string& source);

// The command as one pasteable shell line: env assignments (values quoted),
// then argv; the JWT's value "<redacted>", and RedactSecrets (jwt.h) over it all.
std::string K6CommandLine(const Command& cmd);

}  // namespace fvbench
