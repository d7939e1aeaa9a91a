// Parser for the JSON object that support/engine/pace.lua writes in wrk's done()
// (schema "fvbench.wrk.pace/1"). Pure: no I/O.
//
// Input fields (all required unless marked; counts are non-negative integers):
//   schema "fvbench.wrk.pace/1", target_rate (req/s), threads, threads_requested,
//   requests (completed responses, any status), sent (paced sends),
//   duration_us (wrk's runtime, µs), errors {connect, read, write, status,
//   timeout}, non_2xx, non_2xx_source, latency_us {p50, p90, p99, p99_9, max,
//   mean (optional)} (µs, from wrk's histogram), send_lag_us {max, mean,
//   late_1ms, late_10ms, late_10ms_pool_exhausted (optional)}, ratelimit_evidence (optional; present when the
//   script counted responses), unsent_at_stop (optional), connections
//   (optional), window {synchronised, start_epoch_us, end_epoch_us,
//   first_send_lag_us, wrk_start_epoch_us (optional), missed_slots
//   (optional)} (optional: the schedule window on the loadgen host's clock),
//   histogram (optional: the mergeable latency histogram,
//   core/latency_histogram_json.h, written with FVBENCH_HISTOGRAM=1),
//   intervals {start_epoch_us, width_us (> 0), scheduled, sent, completed,
//   late_10ms (arrays of counts, one length)} (optional: counts per interval).
//   Meaning of every field: the header comment of support/engine/pace.lua.
//
// Mapping to LoadResult (support/core/load_result.h):
//   duration_s   = duration_us / 1e6 (must be > 0); with a synchronised start
//                  (window.synchronised: several load generators)
//                  the schedule window instead, (end - start) / 1e6: wrk's -d
//                  then also covers the wait for the common start
//   achieved_rps = requests / duration_s
//   outcomes     per scheduled request (support/core/outcomes.h):
//                  scheduled = the slots that fell due on the threads'
//                  timelines (field `scheduled`: each thread's schedule starts
//                  when its first connection is up and lasts wrk's -d, also
//                  when every connection hangs), or round(target_rate x
//                  duration_s) for outputs without it; bad answers = non_2xx + timeout (wrk's `timeout`
//                  counts responses slower than --timeout: completed, too late
//                  to count as served); sent = pace.lua's paced sends. Sent
//                  but unanswered requests are the SUT's failures, unsent
//                  slots the engine's, except the requests still in flight
//                  when wrk stopped at -d (wrk does not wait for them): when
//                  the phase had no socket error and no timeout, and at most
//                  one unanswered request per connection, those are
//                  `interrupted` and leave scheduled and sent
//                  (InFlightAtStop, outcomes.h); so do the slots whose timer
//                  wrk's stop cut off while on time (field `unsent_at_stop`,
//                  optional, already out of `scheduled`). wrk's connect/read/write counters count
//                  socket ATTEMPTS (a write that fails is retried on a new
//                  connection and counted again), so they are reported but
//                  never used as failed requests: measured, a 200 ms outage at
//                  200 RPS lost ~4 % of the scheduled requests while those
//                  counters summed to 88 % of the attempts.
//   error_rate   = (scheduled - succeeded) / scheduled; 1 when nothing was
//                  scheduled or answered (nothing was served), never 0.
//   latency_us   = the percentiles of pace.lua; requests slower than wrk's
//                  --timeout (errors.timeout, capped at requests) are censored
//                  samples of at least `timeout_us` (field; wrk's default 2 s
//                  when absent): a percentile whose rank falls among them, and
//                  max, read timeout_us with latency_us.censored_at_us set
//                  (CensorAtTimeout, outcomes.h). wrk's own percentiles drop
//                  them (measured: 2 of 600 responses at 2.5 s, p99.9 = max =
//                  8.99 ms). Note wrk also counts a connection idle for longer
//                  than the timeout as a timeout: that errs towards failing.
//   non_2xx      = exact statuses outside 200..299 when pace.lua counted them
//                  (non_2xx_source "response"); otherwise wrk's errors.status,
//                  which counts status > 399 only (3xx slip through).
//   late_send_share = send_lag_us.late_10ms / sent (0 when sent == 0): the
//                  share of sends more than 10 ms (kDefaultMaxSendLagUs) behind
//                  their slot. wrk's timers tick in whole milliseconds, so lag
//                  up to ~1-2 ms is quantisation; 10 ms late means connections
//                  ran out, or the loadgen CPU was saturated or descheduled.
//   kept_up      = the engine kept to its schedule: late_send_share <=
//                  max_late_share, no send more than 10 ms BEFORE its slot
//                  (send_lag_us.max_early: a schedule that ran ahead offered
//                  more than the target rate, e.g. retries after socket
//                  errors consuming slots), and sent > 0 when requests > 0
//                  (sent == 0 means delay()/request() never paced: not an
//                  open model).
//                  With the default kDefaultMaxLateShare (0.001) the p99.9 of
//                  send lag is <= 10 ms, so a reported percentile up to p99.9
//                  is not hidden by more than 10 ms of coordinated omission
//                  (latency from schedule at q <= measured latency at
//                  q + late share, plus 10 ms). A bound on the worst lag alone
//                  (this parser's first rule) failed whole search steps on one
//                  20-60 ms descheduling of the engine on a 2-core host; the
//                  worst lag is still reported (max_send_lag_us).
//   max_send_lag_us = send_lag_us.max; ratelimit_evidence copied when present.
//   connections  = the field (wrk's -c as pace.lua echoes it), 0 when absent;
//                  latency_us.mean = latency_us.mean, 0 when absent.
//   intervals    = the field (core/interval_series.h), on this host's clock;
//                  empty when absent (older pace.lua).
//   engine "wrk"; engine_version empty (the engine fills it); raw_path = source_name.
//
// Errors (never a silent 0): empty text, invalid/truncated JSON (with the byte
// offset), wrong schema, a missing field, a field of the wrong type, a negative
// or fractional count, interval series of different lengths or whose sums
// differ from `scheduled`, `sent` or `send_lag_us.late_10ms` (pace.lua makes
// them equal), and a target_rate that differs from `target_rps`
// (relative 1e-6) or threads != threads_requested (the offered rate was not the
// one asked for). Every message starts with `source_name` and names the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/core/latency_histogram.h"
#include "support/core/load_result.h"
#include "support/core/result.h"

namespace fvbench {

// Everything pace.lua reports, beyond the engine-neutral LoadResult.
struct WrkOutput {
  LoadResult load;
  struct Errors {
    uint64_t connect = 0, read = 0, write = 0, status = 0, timeout = 0;
  } errors;
  struct SendLag {
    double max_us = 0, mean_us = 0, max_early_us = 0;
    uint64_t late_1ms = 0, late_10ms = 0;  // sends later than 1 ms / 10 ms past their slot
    // Of late_10ms, those whose slot found every connection waiting for a
    // response (late_10ms_pool_exhausted; absent in older outputs: nullopt).
    std::optional<uint64_t> late_10ms_pool_exhausted;
  } send_lag;
  uint64_t sent = 0;
  // Slots whose timer wrk's stop cut off while on time (pace.lua
  // thread_unsent_at_stop): already out of `scheduled`, counted in
  // load.interrupted. 0 when the JSON has none (older pace.lua).
  uint64_t unsent_at_stop = 0;
  int threads = 0;
  int connections = 0;               // 0 when the JSON has none (FVBENCH_CONNECTIONS unset)
  std::string non_2xx_source;        // "response" or "errors.status (status > 399 only)"
  // wrk's stats_correct() adds synthetic samples before done(); samples >
  // recorded means the percentiles include them. 0/0 when the JSON has none.
  uint64_t latency_samples = 0;
  uint64_t latency_recorded = 0;
  // The schedule window on the wall clock (µs since the Unix epoch; pace.lua
  // field `window`); all 0 when the JSON has none (older pace.lua).
  struct Window {
    bool synchronised = false;     // a common start (FVBENCH_START_EPOCH_US) paced it
    double start_epoch_us = 0;     // slot 0 (common start + offset when synchronised)
    double end_epoch_us = 0;       // no slot at or after it was scheduled
    std::optional<double> first_send_lag_us;  // earliest first send - its slot; nullopt: nothing sent
    double wrk_start_epoch_us = 0;             // when wrk started (its last setup()); 0 when not written
    uint64_t missed_slots = 0;  // synchronised: slots due before a thread was up, skipped (pace.lua delay())
  } window;
  // The mergeable latency histogram (field `histogram`), when written.
  std::optional<LatencyHistogram> histogram;
};

Result<WrkOutput> ParseWrkPaceOutput(std::string_view text, const std::string& source_name,
                                     double target_rps,
                                     double max_late_share = kDefaultMaxLateShare);

// The LoadResult part of ParseWrkPaceOutput.
Result<LoadResult> ParseWrkOutput(std::string_view text, const std::string& source_name,
                                  double target_rps,
                                  double max_late_share = kDefaultMaxLateShare);

}  // namespace fvbench
