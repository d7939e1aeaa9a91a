// Config: every knob of a run, read once from the environment and validated
// before any host is touched. Pure: the environment, the CPUs this process may
// use and a file-existence predicate are passed in. Every number and list
// goes through EnvReader (env_reader.h), the one checked parser with ranges;
// every default is the member initialiser below and nowhere else.
//
// Variable names and defaults follow the seed (fairvisor/benchmark run-all.sh).
// variables.h documents every one (name, default, unit, meaning, the value
// in effect); a unit test fails on a variable read here and missing there.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/core/env_map.h"
#include "support/core/jwt_secret.h"
#include "support/core/profile_params.h"
#include "support/core/progress_params.h"
#include "support/core/result.h"
#include "support/core/search_defaults.h"
#include "support/core/validity_params.h"

namespace fvbench {

enum class Engine { kK6, kWrk };
enum class NginxRuntime { kAuto, kOpenResty, kDistro };
enum class ThroughputSearchKind { kBisect, kSeed };

// The policy bundles a policy directory (FVBENCH_POLICY_DIR, _B) holds, one
// per scenario kind (fixtures/policies has the defaults).
inline constexpr const char* kPolicyFiles[] = {"simple.json", "complex.json", "llm.json"};
// The limits scenarios' bundles (limits.accuracy's, limits.llm's, limits.keys'): required
// in FVBENCH_POLICY_DIR (not _B: they have no A/B mode) only when they run
// (LIMITS=1).
inline constexpr const char* kLimitsPolicyFiles[] = {"limits.json", "limits_llm.json", "limits_keys.json"};

struct Config {
  // Where things live on the SUT / loadgen hosts.
  // BENCH_DIR; its default is DefaultBenchDir(ConfigInputs::uid),
  // /tmp/fv-bench-<uid>: one per user, checked private on every host
  // (run/testbed.h) and refused when someone else made it first.
  std::string bench_dir;
  std::string fv_dir = "/opt/fairvisor";    // FV_DIR: fairvisor edge checkout
  std::string k6_version = "v0.54.0";       // K6_VER (pinned; recorded in results as engine_version)
  // K6_SOURCE: where a missing k6 comes from. "repo": Grafana's apt/dnf
  // repository (vendor_repos.h); "archive": the release archive, its SHA-256
  // checked against the published checksum file first (k6_archive.h).
  std::string k6_source = "repo";
  std::string k6_release_url = "https://github.com/grafana/k6/releases/download";  // K6_RELEASE_URL (archive base)
  // FVBENCH_PACKAGE_LOCK_WAIT_S: how long each package install or index
  // refresh waits for the package manager's lock that another process holds
  // (unattended-upgrades, apt-daily, dnf-automatic: minutes on a fresh cloud
  // VM) before it fails naming that process (sut/package_lock.h). 0..3600.
  int package_lock_wait_s = 300;

  // Ports on the SUT host (1..65535, pairwise distinct).
  int fv_port = 8080;       // FV_PORT: fairvisor edge
  int backend_port = 8081;  // BACKEND_PORT: backend nginx behind reverse_proxy
  int nginx_port = 8082;    // NGINX_PORT: raw nginx baseline

  // Latency scenarios: constant-arrival-rate (open model).
  double latency_rps = 10000;  // LATENCY_RPS, requests/s
  double latency_dur_s = 60;   // LATENCY_DUR, seconds measured
  double warmup_dur_s = 10;    // WARMUP_DUR, seconds of unmeasured warmup before each phase
  double interval_s = 1;       // FVBENCH_INTERVAL_S: width of a wrk phase's counts per interval, s (0.001 .. 3600, whole ms)

  // Limits scenarios (kLimitsScenarios): the load rotates over `limits_keys`
  // rate-limit keys at `limits_overload` x the policy's per-key rate, for
  // `limits_dur_s` measured seconds per phase.
  bool limits = true;            // LIMITS=0 leaves them out of a run (their tests skip, saying so)
  int limits_keys = 50;          // LIMITS_KEYS, 1..100000
  double limits_overload = 4;    // LIMITS_OVERLOAD, offered / allowed, 1 < x <= 100
  double limits_dur_s = 10;      // LIMITS_DUR, seconds measured
  // limits.keys (key_sweep.h): one point per key count, at a fixed total rate.
  std::vector<int> limits_keys_sweep = {10, 100, 1000, 10000};  // LIMITS_KEYS_SWEEP, ascending, 1..100000
  double limits_keys_rps = 1000;  // LIMITS_KEYS_RPS, requests/s over all keys

  // Throughput scenarios.
  double throughput_search_max = 150000;  // THROUGHPUT_SEARCH_MAX, RPS
  double throughput_slo_p99_us = 1e6;     // THROUGHPUT_SLO_P99_MS * 1000 (seed: 1000 ms)
  // The search (throughput_search.h): THROUGHPUT_SEARCH=bisect (bracket,
  // bisect, confirm; default) or seed (the seed's 50..130 % steps).
  ThroughputSearchKind throughput_search = ThroughputSearchKind::kBisect;
  double throughput_start = 0;            // THROUGHPUT_START, RPS; 0 = THROUGHPUT_SEARCH_MAX / 8
  double throughput_resolution = 0.02;    // THROUGHPUT_RESOLUTION, fraction of the rate, 0 < x <= 0.5
  double throughput_budget_s = 120;       // THROUGHPUT_BUDGET_S, seconds of load per search (seed: 6 x 20 s)
  // STEP_DUR and CONFIRM_DUR, seconds, as given; unset: nullopt. The lengths
  // that run are the plan's (run_plan.h RunPlanOf): STEP_DUR unset, the
  // bisect search takes its probes and steps from THROUGHPUT_BUDGET_S and
  // the seed search 20 s steps; CONFIRM_DUR unset, 2 x the step.
  std::optional<double> step_dur_s;
  std::optional<double> confirm_dur_s;

  // FVBENCH_SCENARIO_TIMEOUT_S: the scenarios' ctest TIMEOUT in seconds, set
  // by CTest from the cache variable FVBENCH_SCENARIO_TIMEOUT (default 7200).
  // LoadConfig refuses durations with which a scenario could not finish
  // within it (scenario_time.h). 0: not run under ctest, not checked.
  double scenario_timeout_s = 0;

  // REPEAT=n: each measured phase runs n times (latency: n phases back to
  // back after one warmup; throughput: n confirmation runs; A/B mode: n
  // pairs, RunPlan); the median is reported and gated, with the min..max
  // spread beside it. 1..100.
  int repeat = 1;

  // Remote mode and dry run.
  std::string fairvisor_remote;       // FAIRVISOR_REMOTE (user@host), empty = local
  // LOADGEN_REMOTE: every loadgen host, in order (one SSH target, or several
  // separated by commas): each is provisioned and runs
  // LOADGEN_PROCS_PER_HOST engine processes of every phase. Empty in local
  // mode. LoadgenRemoteText() gives it back as the user wrote it.
  std::vector<std::string> loadgen_remotes;
  std::string fairvisor_target_host;  // FAIRVISOR_TARGET_HOST; default 127.0.0.1 locally
  std::string ssh_opts;               // SSH_OPTS
  bool dry_run = false;               // DRY_RUN=1
  // FV_LISTEN_ADDR: the address the SUT services bind. Default 127.0.0.1
  // locally, 0.0.0.0 remotely; set it to the SUT's own address (e.g.
  // FAIRVISOR_TARGET_HOST) so that the load can only arrive over that link.
  std::string listen_addr;

  // CPU pinning through taskset -c (cpu list syntax "0-3,6").
  std::string oresty_cpuset;   // ORESTY_CPUSET: nginx processes (baseline, backend, fairvisor)
  std::string loadgen_cpuset;  // K6_CPUSET: the load generator, whichever engine it runs
  bool cpusets_auto = false;   // true when split 50/50 automatically (>= 8 cores)

  // SUT.
  std::string edge_src = "https://github.com/fairvisor/edge";  // FAIRVISOR_EDGE_SRC: git URL or local path
  std::string edge_ref;                                        // FAIRVISOR_EDGE_REF; empty = default branch / as is
  // FVBENCH_EDGE_OPTIONAL=1 with FAIRVISOR_EDGE_SRC unset (the self-test
  // preset): edge is not provisioned and its scenarios skip, saying why.
  bool edge_skipped = false;
  NginxRuntime runtime = NginxRuntime::kAuto;                  // NGINX_RUNTIME: auto | openresty | nginx
  std::string fv_worker_processes = "auto";                    // FAIRVISOR_WORKER_PROCESSES
  // FAIRVISOR_SHARED_DICT_SIZE: edge's lua_shared_dict of counters (its
  // limiter state), an nginx size: digits and an optional k or m, 32k..65536m.
  std::string fv_shared_dict_size = "256m";
  std::string fv_log_level = "error";                          // FAIRVISOR_LOG_LEVEL (edge logs per-request lines at warn)
  int nginx_listen_backlog = 0;                                // NGINX_LISTEN_BACKLOG; 0 = nginx's own (511 on Linux)
  double health_timeout_s = 20;                                // HEALTH_TIMEOUT

  // Load engine.
  Engine engine = Engine::kK6;  // LOADGEN_ENGINE: k6 | wrk
  int connections = 0;          // LOADGEN_CONNECTIONS: wrk connections / k6 preAllocatedVUs; 0 = derived from rate
  // LOADGEN_PROCS_PER_HOST: engine processes sharing each phase on the
  // loadgen host (1..64; engine/multi_loadgen.h): each paces an
  // equal share of the rate from one common start, pinned to its own part of
  // K6_CPUSET when that is set (SplitCpuList: at least one CPU each).
  int procs_per_host = 1;

  // Inputs of the suite.
  std::string policy_dir;      // FVBENCH_POLICY_DIR: the kPolicyFiles
  std::string thresholds;      // FVBENCH_THRESHOLDS: profile file
  std::string reference;       // FVBENCH_REFERENCE: reference results file
  std::string baseline;        // FVBENCH_BASELINE: an earlier run's results.json; reports show deltas to it
                               // instead of to the reference (baseline.h); "" = none
  std::string history;         // FVBENCH_HISTORY: results history (SQLite path / postgresql:// URL); "" = none
  std::string source_dir;      // the suite's own source tree (k6/, support/ scripts)

  // A/B mode (support/judge/ab_compare.h, docs/ab.md "A/B mode"): FVBENCH_AB=1, or any
  // of the *_B variables set. Side A is edge_src / edge_ref / policy_dir above;
  // side B defaults to A's value for each. REPEAT (the pairs per phase)
  // defaults to 5 and must be >= 3.
  bool ab = false;
  std::string edge_src_b;    // FAIRVISOR_EDGE_SRC_B (git URL or absolute path)
  std::string edge_ref_b;    // FAIRVISOR_EDGE_REF_B
  std::string policy_dir_b;  // FVBENCH_POLICY_DIR_B
  std::string fv_dir_b;      // FV_DIR_B: where B's clone goes (default FV_DIR + "-b")
  // AB_RATE_FRACTION: throughput A/B runs go at this fraction of A's searched
  // maximum (0 < x <= 1, default 0.8).
  double ab_rate_fraction = 0.8;
  // AB_GATE=1: a significant difference where B is worse fails the scenario
  // (the regression gate); 0 (default): reported only.
  bool ab_gate = false;
  // AB_GATE_METRICS: the metrics AB_GATE fails a scenario on, each a name of
  // metric_names.h kAbMetricNames, once, in the order given (only with
  // AB_GATE=1); empty (unset) = every metric. The others are reported only.
  std::vector<std::string> ab_gate_metrics;
  // B's tree is A's (same source and ref): provisioning prepares it once.
  bool ab_same_edge() const { return edge_src_b == edge_src && edge_ref_b == edge_ref; }

  // Validity bounds (VALIDITY, VALIDITY_MIN_*, LOADGEN_MAX_BUSY, QUIET_*,
  // ERROR_LOG_MAX_RATE; validity_params.h) and progress lines
  // (FVBENCH_PROGRESS_S; progress_params.h).
  ValidityParams validity;
  ProgressParams progress;

  // Flame profiles after each scenario's verdict (FVBENCH_PROFILE*,
  // profile_params.h; run/profile_phase.h). Off by default.
  ProfileParams profile;

  // FVBENCH_JWT_SECRET: the HMAC key of the benchmark JWT (engine/jwt.h),
  // at least kMinJwtSecretBytes (RFC 7518 section 3.2); default the public,
  // benchmark-only kBenchJwtSecret.
  std::string jwt_secret = kBenchJwtSecret;

  bool remote() const { return !fairvisor_remote.empty() || !loadgen_remotes.empty(); }
  // LOADGEN_REMOTE's targets joined by commas ("" in local mode).
  std::string LoadgenRemoteText() const;
  // The engine processes that share each phase: every loadgen host (one in
  // local mode) x LOADGEN_PROCS_PER_HOST.
  size_t LoadgenProcesses() const;
};

struct ConfigInputs {
  EnvMap env;
  std::string source_dir;  // fvbench source tree; defaults for policies, thresholds, reference
  // The CPUs this process may use on the host that runs both roles (local
  // mode): its affinity within its cgroup's cpuset (usable_cpus.h), not the
  // online count. Empty: 0..cores-1.
  std::vector<int> cpus;
  int cores = 1;
  bool have_taskset = true;
  std::function<bool(const std::string&)> file_exists;  // for files the run needs
  unsigned uid = 0;  // the user this process runs as (geteuid): BENCH_DIR's default
  // When set, LoadConfig adds the name of every variable it asks for, set or
  // not (the test of the variables table, variables.h).
  EnvNamesRead* names_read = nullptr;
};

// BENCH_DIR's default for the user `uid`: /tmp/fv-bench-<uid>. A directory
// of its own per user, since another user who made it first could put links
// where results are written (it is then refused, naming its owner). Not
// under $XDG_RUNTIME_DIR: BENCH_DIR is the same path on the SUT and loadgen
// hosts, where the controller's runtime directory means nothing, and that
// directory is a small tmpfs removed at the user's last logout (the
// results, and the prefix of a service still running, with it).
std::string DefaultBenchDir(unsigned uid);

// Err names the variable and the value (EnvReader), e.g.
//   "LATENCY_RPS='10k': not a number (expected requests per second > 0)",
//   "LATENCY_DUR='1e16': 1e+16 is above 1000000000 (expected seconds > 0)".
// Durations, budgets and timeouts are at most plausible.h's kMaxPhaseSeconds
// (1e9 s), rates at most kMaxRateRps (1e9 RPS): what the integer types they
// end up in hold (wrk -d seconds, k6 nanoseconds, timeouts in ms). Under
// ctest (FVBENCH_SCENARIO_TIMEOUT_S set), durations with which a scenario
// could not finish within its TIMEOUT are refused (scenario_time.h).
Result<Config> LoadConfig(const ConfigInputs& in);

// Convenience for binaries: snapshot of ::environ.
EnvMap CurrentEnvironment();

const char* EngineName(Engine e);

}  // namespace fvbench
