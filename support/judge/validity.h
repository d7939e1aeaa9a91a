// Validity checks of one measured phase (latency phase or throughput step):
// is the number it produced worth reporting? Pure: the load result, what the
// phase monitor saw (phase_observation.h) and the bounds go in, a list of
// ValidityCheck (scenario_result.h) comes out, in this order:
//
//   policy_evidence  (policy scenarios) responses carrying RateLimit headers
//                    / requests >= min_evidence_share (0.99): the policy
//                    stayed live for the whole phase, not just at the probe
//   enough_requests  successful responses (requests - failed) >=
//                    min_success_fraction (0.99) x target rate x duration
//                    (the planned duration; the engine's when unset)
//   engine_kept_up   LoadResult::kept_up (k6 dropped_iterations == 0, wrk
//                    pace.lua send lag within bound); measured = dropped
//                    iterations (k6) or max send lag µs (wrk)
//   achieved_rate    achieved / target >= min_achieved_fraction (0.97)
//   interval_stalls, rate_drift (or the informational `intervals`)
//                    from the counts per interval, when the engine wrote
//                    them (interval_checks.h): no judged interval without a
//                    completed response; the completed share of the
//                    schedule within 10 % between the two halves
//   p99_drift        informational, from the latency per interval (k6
//                    series): the second half's p99 against the first's
//   loadgen_cpu      busy fraction of the engine's cpuset during the phase
//                    <= max_loadgen_busy (0.80: a load generator busier than
//                    80 % of its cpuset is flagged); absent when not sampled
//   sut_quiet        before the load, the SUT's busy fraction per core over
//                    1 s <= quiet_max_per_core (0.5), waited for up to
//                    quiet_timeout_s; absent when not waited for
//   error_log_rate   lines/s each SUT error.log gained <= max_log_lines_per_s
//   nginx_alerts     no [alert] / [emerg] / worker_connections / "Too many
//                    open files" line in any SUT error.log during the phase
//   kernel_listen_drops  TcpExt ListenOverflows / ListenDrops on the SUT host
//                    (the larger delta over the phase) == 0: a full listen
//                    queue dropped connections, each retried after 1 s;
//                    absent when the SUT host's counters were not read
//   kernel_syn_retrans   TcpExt TCPSynRetrans summed over the load-generator
//                    hosts == 0: a client sent a SYN again (~1 s added)
//   kernel_counters  informational, when any host's counters were read: per
//                    host the counters of kDistortingCounters
//                    (kernel_counters.h) that moved, and any that went back
//   kernel_<counter> one per maximum the threshold profile sets
//                    (PhaseContext::kernel_limits): the counter's largest
//                    delta on any host <= (or <) the limit; not measured
//                    (failed) when no host had it
//   shared_cores     informational, local mode: the engine and the SUT share
//                    cores (no pinning, or overlapping cpusets)
//
// Why the quiet check samples /proc/stat and not /proc/loadavg: load1 is an
// exponentially damped 1-minute average; after the warmup or a previous step
// it stays high for a minute on an idle machine, so waiting for it wastes the
// load budget and measures nothing about "now". The 1 s busy fraction per
// core is the same quantity (runnable work per cpu) over a window that fits
// a benchmark's pauses; load1 per core is quoted in the detail for reference.
//
// The bounds: ValidityParams (support/core/validity_params.h, Config::validity).
#pragma once

#include <string>
#include <vector>

#include "support/core/load_result.h"
#include "support/core/phase_observation.h"
#include "support/core/result.h"
#include "support/core/validity_params.h"
#include "support/judge/kernel_counters.h"
#include "support/core/scenario_result.h"

namespace fvbench {

// What the phase was meant to be.
struct PhaseContext {
  bool expect_evidence = false;    // policy scenario: count RateLimit evidence
  double planned_duration_s = 0;   // LoadSpec::duration_s; 0 = use the engine's duration
  // One machine (local mode, or hosts with one boot_id): the engine and the
  // SUT share cores. `sharing` says how (CoreSharing); empty = they do not.
  std::string sharing;
  // The threshold profile's maxima for kernel counters (kernel_counters.h):
  // one check each, `kernel_<counter>` (e.g. kernel_Tcp.RetransSegs), its
  // measured value the largest delta of any host, failing above the limit.
  std::vector<KernelCounterLimit> kernel_limits;
  // A limits phase: the limiter is meant to reject most requests, so
  // enough_requests counts answered responses (2xx and non-2xx:
  // LoadResult::succeeded + non_2xx), not 2xx alone.
  bool rejections_expected = false;
};

std::vector<ValidityCheck> CheckPhase(const LoadResult& load, const PhaseObservation& obs,
                                      const PhaseContext& ctx, const ValidityParams& params);

// How the engine and the SUT share cores on one machine, for
// PhaseContext::sharing: "" when `machine` is "" (different machines) or the
// cpusets are disjoint; else the sharing, opening with `machine` (what makes
// them one: "local mode", or hosts with one kernel's boot_id). Err on a bad
// cpu list.
Result<std::string> MachineCoreSharing(const std::string& machine, const std::string& sut_cpuset,
                                const std::string& loadgen_cpuset);
// MachineCoreSharing with machine "local mode" when same_host, else "".
Result<std::string> CoreSharing(bool same_host, const std::string& sut_cpuset, const std::string& loadgen_cpuset);

// True when no non-informational check failed.
bool ValidityPassed(const std::vector<ValidityCheck>& checks);

// "loadgen_cpu: 97.2% > 80% (cpus 0 of host local busy; peak 100%)"; a
// passing check reads "ok" instead of the comparison.
std::string DescribeValidity(const ValidityCheck& c);

// "fv: 2 processes, 0.85 cores, RSS 45.1 MiB (peak 46.0)"; services "; "-joined.
std::string DescribeUsage(const std::vector<ServiceUsage>& usage);

// The failed non-informational checks, "; "-joined, for step verdicts and
// failure messages ("" when all passed).
std::string FailedValidity(const std::vector<ValidityCheck>& checks);

}  // namespace fvbench
