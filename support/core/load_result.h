// One load phase's outcome, engine-neutral. Produced by the k6 and wrk parsers
// (k6_summary.h, wrk_output.h); consumed by thresholds, the search and reports.
//
// Units: latencies in microseconds (k6 reports milliseconds; the k6 parser
// converts once), rates in requests per second, error_rate a fraction 0..1.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/core/interval_series.h"
#include "support/core/latency_us.h"
#include "support/core/loadgen_instance.h"
#include "support/core/validity_check.h"

namespace fvbench {

// The engines' per-request timeouts (µs). A response slower than this is a
// timeout: a failed request whose latency is censored (latency_us.h LatencyUs).
// wrk: fvbench passes `--timeout 10s` (wrk's own default, -T, is 2 s: the
// value of outputs that carry no timeout_us). k6: Params.timeout, whose
// default of 60 s fvbench keeps (k6 docs, k6/http Params). The throughput
// SLO must lie below the engine's timeout (config.h refuses it otherwise).
inline constexpr double kWrkRequestTimeoutUs = 10e6;
inline constexpr double kWrkDefaultTimeoutUs = 2e6;
inline constexpr double kK6RequestTimeoutUs = 60e6;

// A phase ends at its duration plus this grace, however far behind the engine
// is: wrk stops at its -d by itself (its threads poll the stop flag every
// 100 ms) and its command is killed at -d + grace; k6 lets in-flight
// iterations finish for at most this long (gracefulStop; k6's default is
// 30 s) and its command is killed at DURATION + grace + kK6StartupS.
inline constexpr double kPhaseGraceS = 5;
inline constexpr double kK6GracefulStopS = 2;
inline constexpr double kK6StartupS = 30;  // k6 initialises its VUs before the duration starts

// The load offered was served: achieved_rps >= this x target_rps. A search
// step's pass rule (StepPassRule), VALIDITY_MIN_ACHIEVED's default
// (ValidityParams) and a phase's note (PhaseNotes) all take it from here.
inline constexpr double kMinAchievedFraction = 0.97;

struct LoadResult {
  std::string engine;          // "k6" | "wrk"
  std::string engine_version;  // as the engine printed it; may be empty from a parser
  double target_rps = 0;       // the arrival rate asked for
  double duration_s = 0;       // measured phase length as the engine reports it
  uint64_t requests = 0;       // completed HTTP requests (any status)
  // Outcomes per scheduled request (the parsers' headers say how each engine
  // counts them). When `scheduled` is 0 (a result file written before these
  // fields existed) only `failed` and `error_rate` are known, as failed /
  // requests.
  uint64_t scheduled = 0;      // requests the schedule offered during the phase
  uint64_t succeeded = 0;      // 2xx responses within the engine's request timeout
  uint64_t failed_sut = 0;     // the SUT's: non-2xx, slower than the timeout, sent but never answered
  uint64_t failed_engine = 0;  // the engine's: scheduled but never sent (fell behind its schedule)
  uint64_t failed = 0;         // scheduled - succeeded = failed_sut + failed_engine
  // Sent, and still in flight when the engine stopped at the phase's end:
  // their outcome is unknown, so they are neither succeeded nor failed and
  // not in `scheduled` (k6 likewise counts iterations cut off by the end of a
  // test as "interrupted", apart from complete and dropped ones; k6 docs,
  // Graceful stop). wrk: at most one per connection, and only when the phase
  // had no socket error and no timeout (wrk_output.h). 0 for k6.
  uint64_t interrupted = 0;
  uint64_t non_2xx = 0;        // responses with a status outside 200..299
  // The engine's pool: how many requests it can have outstanding at once.
  // wrk: its connections (-c; each has at most one request outstanding, wrk
  // never pipelines); k6: maxVUs of the constant-arrival-rate scenario (a VU
  // runs one iteration, one request here, at a time). 0 = not known (an
  // older result, a wrk output without `connections`). Read by
  // EngineLimitedReason (judge/step_search.h) with latency_us.mean.
  uint64_t connections = 0;
  double achieved_rps = 0;     // requests / duration_s
  double error_rate = 0;       // failed / scheduled, 0..1 (every kind of failure)
  LatencyUs latency_us;
  // Engine kept up with the schedule: k6 dropped_iterations == 0, or wrk's
  // late-send share within bound (wrk_output.h). Set by the parser from the
  // engine's own counters.
  bool kept_up = true;
  uint64_t dropped_iterations = 0;   // k6 `dropped_iterations.count` (absent = 0)
  double max_send_lag_us = 0;        // wrk pacing script: worst lateness vs schedule
  // wrk pacing script: share (fraction 0..1) of paced sends more than 10 ms
  // behind their slot (pace.lua send_lag_us.late_10ms / sent); 0 for k6.
  double late_send_share = 0;
  // wrk pacing script: of the sends more than 10 ms late, the share whose
  // slot found no free connection when it fell due (every connection of its
  // thread waiting for a response: the SUT's latency held the pool; pace.lua
  // send_lag_us.late_10ms_pool_exhausted / late_10ms). The rest were late
  // because the engine's event loop ran late. nullopt: not measured (k6, an
  // older output) or no late send.
  std::optional<double> late_pool_exhausted_share;
  // wrk pacing script: the earliest a send left before its slot (µs). A
  // schedule that runs ahead (sends consumed by retries after socket errors)
  // offers more than the target rate: kept_up is false beyond 10 ms.
  double max_early_send_us = 0;
  std::optional<uint64_t> ratelimit_evidence;  // responses carrying RateLimit headers, when counted
  // Responses per HTTP status, when the engine counted them (wrk's pace.lua
  // with FVBENCH_COUNT_RATELIMIT=1); empty otherwise (k6, an older result).
  std::map<int, uint64_t> status_counts;
  // Wall time (s) of the engine's command on the load generator, from start
  // to exit, as the controller measured it (0 = not measured: a parser alone,
  // an older result); several load generators (multi_loadgen.h): from their
  // common start to the last exit, the lead before it left out. What a
  // phase's load costs in time; a throughput search counts it against its
  // budget.
  double wall_s = 0;
  // CPU time (user + system, s) of the engine process itself, when measured
  // (wrk in a synchronised phase: bash's `times` after it); < 0: not measured.
  // Several load generators: each process's busy share of the cores its
  // threads could use (multi_loadgen.h) is taken from it.
  double engine_cpu_s = -1;
  std::string raw_path;        // the raw engine output this was parsed from
  // Not from the engine: what the SUT did during the phase, set by the
  // scenario runner (support/run), read by EngineLimitedReason
  // (step_search.h). nullopt when not measured.
  // Requests per second the SUT nginx under load served over the phase
  // (stub_status `requests` delta / window, progress_ticker.h).
  std::optional<double> sut_served_rps;
  // How busy the SUT's CPUs were, 0..1: the SUT nginx processes' CPU time /
  // (phase wall time x the CPUs of its cpuset); when the load generator
  // shares those CPUs, at least their overall busy fraction (then the CPUs,
  // not the engine alone, may be the limit).
  std::optional<double> sut_cpu_share;
  // The engine ran on the SUT's CPUs, this many of them (local mode
  // unpinned, or overlapping cpusets); 0 = on CPUs of its own. Shared CPUs
  // count as saturated earlier (judge/sut_saturation.h SharedCpusSaturatedFrom).
  int sut_cpus_shared = 0;
  // Several load generators (judge/loadgen_merge.h): each
  // instance's share and outcomes, and the spread of their measured start
  // times (µs). Empty / 0 for one engine process.
  std::vector<LoadgenInstance> loadgens;
  double loadgen_start_skew_us = 0;
  // Their own validity checks (judge/loadgen_merge.h: per instance
  // engine_kept_up, achieved_rate, loadgen_cpu, and start_skew), which the
  // scenario runner adds to the phase's checks: one instance that fell
  // behind invalidates the phase and is named.
  std::vector<ValidityCheck> loadgen_checks;
  // Counts per interval of the phase (interval_series.h); empty when the
  // engine wrote none (k6, an older wrk output).
  IntervalSeries intervals;
};

// The wrk pacing bounds behind kept_up (wrk_output.h) and the validity check
// engine_kept_up (validity.h).
inline constexpr double kDefaultMaxSendLagUs = 10000;  // 10 ms: pace.lua's late_10ms bound
inline constexpr double kDefaultMaxLateShare = 0.001;   // fraction of sends > 10 ms late

}  // namespace fvbench
