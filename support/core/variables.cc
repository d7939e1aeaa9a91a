#include "support/core/variables.h"

#include <fmt/format.h>

#include "support/core/run_plan.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

using detail::FormatNumber;

std::string OrNone(const std::string& s) { return s.empty() ? "(none)" : s; }
std::string Flag(bool b) { return b ? "1" : "0"; }
std::string SideB(const Config& c, const std::string& v) { return c.ab ? OrNone(v) : "(A/B off)"; }
std::string Cpuset(const Config& c, const std::string& set) {
  if (set.empty()) return c.remote() ? "(decided per host when provisioning)" : "(unpinned)";
  return c.cpusets_auto ? set + " (split 50/50)" : set;
}
std::string Seconds(double s) { return FormatNumber(s); }
std::string GateMetrics(const Config& c) {
  if (c.ab_gate_metrics.empty()) return "(every metric)";
  std::string s;
  for (const std::string& m : c.ab_gate_metrics) s += (s.empty() ? "" : ",") + m;
  return s;
}

// The groups, in order: Load, Throughput search, Load generator, Provisioning, The SUT,
// Paths and CPUs, Remote mode, Inputs and comparisons, A/B mode, Flame profiles, Validity,
// Progress and ctest.
const std::vector<VariableDoc> kVariables = {
    // Load
    {"LATENCY_RPS", "Load", "10000", false, "RPS",
     "arrival rate of the latency scenarios and of limits.reject_cost's two phases",
     [](const Config& c) { return FormatNumber(c.latency_rps); }},
    {"LATENCY_DUR", "Load", "60", false, "s",
     "measured seconds per latency scenario (with wrk this and `WARMUP_DUR`, `STEP_DUR`, `CONFIRM_DUR` are whole "
     "seconds: wrk's `-d`)",
     [](const Config& c) { return Seconds(c.latency_dur_s); }},
    {"WARMUP_DUR", "Load", "10", false, "s", "unmeasured warmup seconds before each scenario (0 = none)",
     [](const Config& c) { return Seconds(c.warmup_dur_s); }},
    {"FVBENCH_INTERVAL_S", "Load", "1", false, "s",
     "wrk phases: width of the counts per interval (scheduled, sent, completed, late sends; results.json "
     "`intervals`) and of the stall check, 0.001..3600 in whole ms (0.1 sees a stall of a few hundred ms)",
     [](const Config& c) { return FormatNumber(c.interval_s); }},
    {"LIMITS", "Load", "1", false, "0 or 1",
     "1 runs the limits scenarios after the six (`ctest --preset local`); 0 leaves them out (their tests skip, "
     "saying so)",
     [](const Config& c) { return std::string(c.limits ? "1" : "0"); }},
    {"LIMITS_KEYS", "Load", "50", false, "keys",
     "rate-limit keys the limits scenarios rotate over (1..100000; header `X-Bench-Key`)",
     [](const Config& c) { return std::to_string(c.limits_keys); }},
    {"LIMITS_OVERLOAD", "Load", "4", false, "x",
     "limits scenarios: offered rate / the keys' allowed rate (above 1, at most 100)",
     [](const Config& c) { return FormatNumber(c.limits_overload); }},
    {"LIMITS_DUR", "Load", "10", false, "s", "measured seconds per limits phase",
     [](const Config& c) { return Seconds(c.limits_dur_s); }},
    {"LIMITS_KEYS_SWEEP", "Load", "10,100,1000,10000", false, "keys",
     "limits.keys: the key counts of the sweep, a comma list ascending in 1..100000 (one measured point each)",
     [](const Config& c) {
       std::string s;
       for (int k : c.limits_keys_sweep) s += (s.empty() ? "" : ",") + std::to_string(k);
       return s;
     }},
    {"LIMITS_KEYS_RPS", "Load", "1000", false, "RPS", "limits.keys: the fixed total rate over each point's keys",
     [](const Config& c) { return FormatNumber(c.limits_keys_rps); }},
    {"REPEAT", "Load", "1", false, "runs",
     "runs per measured phase (1..100); the median is reported and gated, with its spread "
     "([Repeats](methodology.md#repeats)); in A/B mode the pairs per measured phase: default 5, at least 3",
     [](const Config& c) { return std::to_string(c.repeat); }},

    // Throughput search
    {"THROUGHPUT_SEARCH_MAX", "Throughput search", "150000", false, "RPS",
     "the search's cap (the seed search: what its step percentages apply to)",
     [](const Config& c) { return FormatNumber(c.throughput_search_max); }},
    {"THROUGHPUT_SEARCH", "Throughput search", "bisect", false, "choice",
     "`bisect` (bracket, bisect, confirm: [Throughput search](methodology.md#throughput-search)) or `seed` (the "
     "seed's fixed steps)",
     [](const Config& c) -> std::string {
       return c.throughput_search == ThroughputSearchKind::kSeed ? "seed" : "bisect";
     }},
    {"THROUGHPUT_BUDGET_S", "Throughput search", "120", false, "s",
     "seconds of load per bisect search (warmup excluded); at least two first steps + a confirmation + 1 s (9 s "
     "with lengths from the budget), at most 86400 (24 h: a search converges within minutes, a larger value is "
     "usually a slip); the seed search runs its six steps whatever the budget",
     [](const Config& c) { return Seconds(c.throughput_budget_s); }},
    {"STEP_DUR", "Throughput search", "(from the budget)", true, "s",
     "seconds per bracket / bisect step; unset: `THROUGHPUT_BUDGET_S`/12 (10 s at 120 s) with 3 s probes; "
     "`STEP_DUR=20` gives the seed's 20 s steps (and `THROUGHPUT_SEARCH=seed` uses 20 when unset)",
     [](const Config& c) {
       const SearchPlan p = RunPlanOf(c).search;
       return p.lengths_from_budget ? fmt::format("{} (from THROUGHPUT_BUDGET_S; probes {} s)",
                                                  Seconds(p.lengths.step_s), Seconds(p.lengths.probe_s))
                                    : Seconds(p.lengths.step_s);
     }},
    {"CONFIRM_DUR", "Throughput search", "2 × the step", true, "s",
     "seconds of each confirmation run (20 s at the default budget); not shorter than a step",
     [](const Config& c) {
       // The seed search runs no confirmation: the value it would have.
       const SearchPlan p = RunPlanOf(c).search;
       return Seconds(p.seed ? c.confirm_dur_s.value_or(2 * p.lengths.step_s) : p.lengths.confirm_s);
     }},
    {"THROUGHPUT_START", "Throughput search", "`THROUGHPUT_SEARCH_MAX`/8", true, "RPS",
     "first bracket rate (≤ the cap)",
     [](const Config& c) {
       return FormatNumber(c.throughput_start > 0 ? c.throughput_start : c.throughput_search_max / 8);
     }},
    {"THROUGHPUT_RESOLUTION", "Throughput search", "0.02", false, "fraction",
     "bisect until pass and fail are within this fraction of the rate (0 < x ≤ 0.5)",
     [](const Config& c) { return FormatNumber(c.throughput_resolution); }},
    {"THROUGHPUT_SLO_P99_MS", "Throughput search", "1000", false, "ms",
     "a step fails at p99 ≥ this; at or above the engine's request timeout (wrk 10 s, k6 60 s) it is refused",
     [](const Config& c) { return FormatNumber(c.throughput_slo_p99_us / 1000); }},

    // Load generator
    {"LOADGEN_ENGINE", "Load generator", "k6", false, "choice", "`k6` or `wrk`",
     [](const Config& c) -> std::string { return EngineName(c.engine); }},
    {"LOADGEN_CONNECTIONS", "Load generator", "0", false, "connections",
     "wrk connections / k6 preAllocatedVUs; 0: derived from the rate "
     "([Connection pools](methodology.md#connection-pools))",
     [](const Config& c) { return std::to_string(c.connections); }},
    {"LOADGEN_PROCS_PER_HOST", "Load generator", "1", false, "processes",
     "engine processes (wrk, or k6 instances) sharing each phase on every loadgen host (1..64), each on its own SSH "
     "session; with a cpuset on its host (`K6_CPUSET`, or the automatic split of that host's own CPUs) each gets a "
     "contiguous part of it (`0-3` with 2 processes: `0-1`, `2-3`; fewer CPUs than processes is refused). Hosts that "
     "are one machine (the same kernel `boot_id`) and one cpuset split it among all their processes. A latency "
     "phase that would give a process fewer than 100 requests in its window (LATENCY_RPS x LATENCY_DUR / "
     "processes) is refused at start, naming the numbers; a search step, when it is planned; see "
     "[Several load generators](load-generators.md)",
     [](const Config& c) { return std::to_string(c.procs_per_host); }},
    {"K6_VER", "Provisioning", "v0.54.0", false, "tag",
     "k6 release installed when k6 is missing (a tag `vX.Y.Z`; recorded as `k6_pinned`, what runs as "
     "`engine_version`)",
     [](const Config& c) { return c.k6_version; }},
    {"K6_SOURCE", "Provisioning", "repo", false, "choice",
     "where a missing k6 comes from: `repo` (Grafana's apt/dnf repository) or `archive` (the release archive, "
     "SHA-256 checked first)",
     [](const Config& c) { return c.k6_source; }},
    {"K6_RELEASE_URL", "Provisioning", "https://github.com/grafana/k6/releases/download", false, "URL",
     "base of the release archive and its checksum file (`K6_SOURCE=archive`); a mirror (`https://`, `http://`), "
     "or `file:///dir`",
     [](const Config& c) { return c.k6_release_url; }},
    {"FVBENCH_PACKAGE_LOCK_WAIT_S", "Provisioning", "300", false, "s",
     "seconds each package install or index refresh waits for the apt/dpkg or dnf lock another process holds "
     "(unattended-upgrades, apt-daily or dnf-automatic run for minutes after a cloud VM boots); provisioning says "
     "who holds it while it waits, and names that process if the wait ends without the lock (0..3600; 0: no wait; "
     "SUT and loadgen hosts alike)",
     [](const Config& c) { return std::to_string(c.package_lock_wait_s); }},

    // The SUT
    {"FAIRVISOR_EDGE_SRC", "The SUT", "https://github.com/fairvisor/edge", false, "URL or path",
     "git URL (`https://`, `http://`, `ssh://`, `git://`, `file:///path` or `user@host:path`), or an absolute path "
     "to an edge checkout, used in place "
     "([Using a local fairvisor edge checkout](running.md#using-a-local-fairvisor-edge-checkout)); in remote mode "
     "a path on the SUT host. Anything else, an empty value, a value starting with `-` and other transports (`ext::`) "
     "are refused",
     [](const Config& c) { return c.edge_skipped ? std::string("(none: edge scenarios skipped)") : c.edge_src; }},
    {"FAIRVISOR_EDGE_REF", "The SUT", "(none)", false, "git ref",
     "branch, tag or commit to check out (a local path with a ref is cloned into `FV_DIR`); git's ref rules, never "
     "starting with `-`; none: the default branch, or a checkout as it is",
     [](const Config& c) { return OrNone(c.edge_ref); }},
    {"FVBENCH_EDGE_OPTIONAL", "The SUT", "0", true, "0 or 1",
     "1 (self-test preset): without `FAIRVISOR_EDGE_SRC`, skip the edge scenarios with that reason instead of "
     "cloning",
     [](const Config& c) -> std::string {
       return c.edge_skipped ? "1: edge scenarios skipped" : "edge scenarios run";
     }},
    {"NGINX_RUNTIME", "The SUT", "auto", false, "choice",
     "`openresty`, `nginx` (Debian nginx + `libnginx-mod-http-lua`, apt family only) or `auto` (OpenResty when "
     "installed, or installable: the host reaches openresty.org; [Supported hosts](remote.md#supported-hosts))",
     [](const Config& c) -> std::string {
       return c.runtime == NginxRuntime::kOpenResty ? "openresty" : c.runtime == NginxRuntime::kDistro ? "nginx" : "auto";
     }},
    {"FAIRVISOR_WORKER_PROCESSES", "The SUT", "auto", false, "count",
     "edge's `worker_processes` (1..1024); auto = one per CPU of `ORESTY_CPUSET`, or per usable CPU of the SUT "
     "host (never nginx's own `auto`, which counts online CPUs)",
     [](const Config& c) { return c.fv_worker_processes; }},
    {"FAIRVISOR_SHARED_DICT_SIZE", "The SUT", "256m", false, "nginx size",
     "edge's `lua_shared_dict` of limiter state (32k..65536m; nginx takes k and m only); a dict too small for the keys evicts buckets, "
     "which start full again ([limits.md](limits.md))",
     [](const Config& c) { return c.fv_shared_dict_size; }},
    {"FAIRVISOR_LOG_LEVEL", "The SUT", "error", false, "nginx level",
     "edge's error_log level. Not `warn`: at warn, edge writes two log lines per request (`rule_engine.lua` "
     "`evaluate global_shadow_state ...`), which the seed measured along with the gateway",
     [](const Config& c) { return c.fv_log_level; }},
    {"NGINX_LISTEN_BACKLOG", "The SUT", "(nginx's own: 511)", false, "connections",
     "the `backlog=` of the measured listen directive of every SUT nginx (raw, backend, edge; 1..65535): the "
     "accept queue a listening socket holds before the kernel drops new connections (the kernel caps it at "
     "`net.core.somaxconn`); a drop during a measured phase fails it (`kernel_listen_drops`)",
     [](const Config& c) -> std::string {
       return c.nginx_listen_backlog > 0 ? std::to_string(c.nginx_listen_backlog) : "(nginx's own: 511)";
     }},
    {"HEALTH_TIMEOUT", "The SUT", "20", false, "s", "seconds to wait for `/livez` (and edge's `/readyz`)",
     [](const Config& c) { return Seconds(c.health_timeout_s); }},
    {"FV_PORT", "The SUT", "8080", false, "port",
     "fairvisor edge's port; the three SUT ports must differ; an occupied port is reported, never killed",
     [](const Config& c) { return std::to_string(c.fv_port); }},
    {"BACKEND_PORT", "The SUT", "8081", false, "port", "the backend nginx behind reverse_proxy",
     [](const Config& c) { return std::to_string(c.backend_port); }},
    {"NGINX_PORT", "The SUT", "8082", false, "port", "the raw nginx baseline",
     [](const Config& c) { return std::to_string(c.nginx_port); }},
    {"FVBENCH_JWT_SECRET", "The SUT", "(built-in)", false, "text",
     "HMAC secret of the benchmark JWT (`Authorization: Bearer`), at least 32 bytes (an HS256 key is at least 256 "
     "bits, RFC 7518 section 3.2; set-but-empty refused). The built-in one is public and benchmark-only "
     "(`support/core/jwt_secret.h`); either secret, its base64url form and every token signed with it are redacted "
     "from everything the suite writes, and nothing else is changed",
     [](const Config& c) -> std::string {
       if (c.jwt_secret == kBenchJwtSecret) return "(built-in)";
       return fmt::format("(set, {} bytes, not shown)", c.jwt_secret.size());
     }},

    // Paths and CPUs
    {"BENCH_DIR", "Paths and CPUs", "`/tmp/fv-bench-<uid>`", true, "path",
     "everything the suite writes, on the controller and on each host (absolute; `/` and set-but-empty refused; "
     "whitespace, quotes, `;`, braces, `$`, `` ` `` and backslashes refused: it is written into nginx configs). The "
     "default is one per user (`id -u` of the controller). On every host, BENCH_DIR and the folders the suite writes "
     "into must be directories of the user the suite runs as there, not writable by group or others (a sticky bit "
     "does not help), and the directories above it owned by root or that user and not writable by others unless "
     "sticky (`/tmp`); otherwise the run is refused naming the path, its owner and mode. Missing ones are created "
     "(BENCH_DIR 0711, folders only the suite reads 0700)",
     [](const Config& c) { return c.bench_dir; }},
    {"FV_DIR", "Paths and CPUs", "/opt/fairvisor", false, "path", "where a cloned edge goes (absolute; set-but-empty refused)",
     [](const Config& c) { return c.fv_dir; }},
    {"ORESTY_CPUSET", "Paths and CPUs", "(auto)", true, "CPU list",
     "`taskset -c` list for every nginx process (baseline, backend, edge); each nginx gets one worker per CPU of "
     "it; unset: split 50/50 with 8 or more usable CPUs, else unpinned ([CPU pinning](running.md#cpu-pinning))",
     [](const Config& c) { return Cpuset(c, c.oresty_cpuset); }},
    {"K6_CPUSET", "Paths and CPUs", "(auto)", true, "CPU list", "`taskset -c` list for the load engine, k6 or wrk",
     [](const Config& c) { return Cpuset(c, c.loadgen_cpuset); }},

    // Remote mode
    {"FAIRVISOR_REMOTE", "Remote mode", "(none)", false, "user@host[:port]",
     "the SUT host ([Remote mode](remote.md)); none: local mode. One of `FAIRVISOR_REMOTE` and `LOADGEN_REMOTE` "
     "without the other is refused",
     [](const Config& c) { return OrNone(c.fairvisor_remote); }},
    {"LOADGEN_REMOTE", "Remote mode", "(none)", false, "user@host[:port], ...",
     "the load-generator host, or several separated by commas: each is connected, provisioned (in parallel; all "
     "must report the same engine version), checked against `K6_CPUSET` (each against its own CPUs) and given the "
     "scripts; an empty or "
     "repeated target is refused",
     [](const Config& c) {
       std::string all;
       for (const std::string& t : c.loadgen_remotes) all += (all.empty() ? "" : ",") + t;
       return OrNone(all);
     }},
    {"FAIRVISOR_TARGET_HOST", "Remote mode", "host part of `FAIRVISOR_REMOTE` (127.0.0.1 locally)", true, "address",
     "address the loadgen sends the load to (a host name or IP address)",
     [](const Config& c) { return c.fairvisor_target_host; }},
    {"FV_LISTEN_ADDR", "Remote mode", "127.0.0.1 local, 0.0.0.0 remote", true, "address",
     "address the SUT services bind (an IP address or host name); set it to the SUT's load-network address to make sure the load arrives over "
     "that network",
     [](const Config& c) { return c.listen_addr; }},
    {"SSH_OPTS", "Remote mode", "(none)", false, "ssh options",
     "the seed's ssh options: `-o Key=Value`, `-i`, `-p`, `-l` ([Remote mode](remote.md)); anything else is "
     "refused, named. Split on whitespace like the seed's unquoted `ssh ${SSH_OPTS}`: quotes are not read, so a "
     "value holds no space (`~` in `-i` is the home directory)",
     [](const Config& c) { return OrNone(c.ssh_opts); }},
    {"FVBENCH_MODE", "Remote mode", "(none)", true, "choice",
     "`remote` (set by the remote presets): both hosts are required, never a silent local run; `local`: remote "
     "hosts are refused",
     [](const Config& c) -> std::string { return c.remote() ? "remote" : "local"; }},
    {"DRY_RUN", "Remote mode", "0", false, "0 or 1",
     "1: connect to nothing; print the complete ordered plan (every command and transfer per host) and write it to "
     "`BENCH_DIR/controller-results/dry_run_plan.txt`, JWT redacted; scenarios are reported as skipped; an earlier "
     "run's gtest XML, report, results, raw outputs and `run_meta.json` stay as they are (no report is written; the "
     "engines' command lines go to `controller-results/dry-run/raw/`)",
     [](const Config& c) { return Flag(c.dry_run); }},

    // Inputs and comparisons
    {"FVBENCH_POLICY_DIR", "Inputs and comparisons", "`fixtures/policies`", true, "path",
     "your own `simple.json`, `complex.json`, `llm.json` and, unless `LIMITS=0`, `limits.json`, `limits_llm.json` and `limits_keys.json` "
     "(their policy ids must stay `bench-simple`, `bench-complex`, `bench-llm`, `bench-limits`, `bench-limits-llm`, `bench-limits-keys`); nginx workers read them, so they (and their directories) must be "
     "world-readable",
     [](const Config& c) { return c.policy_dir; }},
    {"FVBENCH_THRESHOLDS", "Inputs and comparisons", "`thresholds/portable.json`", true, "path",
     "threshold profile ([thresholds/README.md](../thresholds/README.md))",
     [](const Config& c) { return c.thresholds; }},
    {"FVBENCH_REFERENCE", "Inputs and comparisons", "`reference.json`", true, "path",
     "reference results shown beside every number, with the delta to it; thresholds' reference values and "
     "`x_reference` limits",
     [](const Config& c) { return c.reference; }},
    {"FVBENCH_BASELINE", "Inputs and comparisons", "(none)", false, "path",
     "an earlier run's `results.json` ([Baselines](outputs.md#baselines)): the table and `report.md` show deltas "
     "to it instead of to the reference; checked before any load",
     [](const Config& c) { return OrNone(c.baseline); }},
    {"FVBENCH_HISTORY", "Inputs and comparisons", "(none)", false, "path or URL",
     "results history: an SQLite file (absolute path) or a `postgresql://` URL ([History and change "
     "points](history.md)); the report adds a History section and trend plots, `fvbench.history` records the run "
     "and gates on it",
     [](const Config& c) { return OrNone(c.history); }},

    // A/B mode
    {"FVBENCH_AB", "A/B mode", "0", false, "0 or 1",
     "1: [A/B mode](ab.md) (setting any `*_B` variable turns it on too). Side A is `FAIRVISOR_EDGE_SRC` / "
     "`FAIRVISOR_EDGE_REF` / `FVBENCH_POLICY_DIR`",
     [](const Config& c) { return Flag(c.ab); }},
    {"FAIRVISOR_EDGE_SRC_B", "A/B mode", "A's", true, "URL or path",
     "side B's edge (git URL or absolute path; a path without a ref is used in place)",
     [](const Config& c) { return SideB(c, c.edge_src_b); }},
    {"FAIRVISOR_EDGE_REF_B", "A/B mode", "A's", true, "git ref",
     "side B's ref, cloned into `FV_DIR_B` (B's source and ref equal to A's: A's tree is used)",
     [](const Config& c) { return SideB(c, c.edge_ref_b); }},
    {"FV_DIR_B", "A/B mode", "`FV_DIR`-b", true, "path", "where B's clone goes",
     [](const Config& c) { return SideB(c, c.fv_dir_b); }},
    {"FVBENCH_POLICY_DIR_B", "A/B mode", "A's", true, "path",
     "side B's policies (shipped to `BENCH_DIR/policies-b/`; policy ids as A's)",
     [](const Config& c) { return SideB(c, c.policy_dir_b); }},
    {"AB_RATE_FRACTION", "A/B mode", "0.8", false, "fraction",
     "throughput A/B runs go at this fraction of A's searched maximum (0 < x ≤ 1)",
     [](const Config& c) { return FormatNumber(c.ab_rate_fraction); }},
    {"AB_GATE", "A/B mode", "0", false, "0 or 1",
     "1: a significant difference where B is worse fails the scenario (the message shows A, B, delta, CI, "
     "noise); on every A/B metric, or those of `AB_GATE_METRICS`; refused outside A/B mode (`FVBENCH_AB=1` or a side B "
     "variable)",
     [](const Config& c) { return Flag(c.ab_gate); }},
    {"AB_GATE_METRICS", "A/B mode", "(every metric)", false, "metric names",
     "with `AB_GATE=1`: the metrics whose significant worsening fails the scenario, a comma list of the A/B "
     "metric keys `p50_us`, `p90_us`, `p99_us`, `p999_us`, `error_rate`, `achieved_rps`, `fv_cpu_cores`, "
     "`fv_cpu_us_per_request` (each once); the others are reported, not gated. For CI: `fv_cpu_us_per_request` "
     "(\"did edge get more expensive\", the quietest signal), optionally with `p99_us` "
     "([regression-check.md](regression-check.md#the-gate-on-it-in-ci))",
     [](const Config& c) { return GateMetrics(c); }},

    // Flame profiles
    {"FVBENCH_PROFILE", "Flame profiles", "0", false, "cpu, lua, both or 0",
     "after each latency and throughput scenario's verdict: a phase without and one with the profiler, at the "
     "rate below; `cpu` samples the SUT's nginx workers with `perf` (installed when provisioning; needs root or "
     "`kernel.perf_event_paranoid` <= 1), `lua` edge's Lua code; empty or 0 = none. Never changes a verdict",
     [](const Config& c) { return c.profile.Text(); }},
    {"FVBENCH_PROFILE_DUR", "Flame profiles", "10", false, "s",
     "seconds of each of the two profile phases (whole seconds with wrk)",
     [](const Config& c) { return Seconds(c.profile.duration_s); }},
    {"FVBENCH_PROFILE_FRACTION", "Flame profiles", "0.8", false, "fraction",
     "throughput scenarios profile at this fraction of the rate the search confirmed (0 < x <= 1); latency "
     "scenarios at `LATENCY_RPS`",
     [](const Config& c) { return FormatNumber(c.profile.fraction); }},
    {"FVBENCH_PROFILE_HZ", "Flame profiles", "99", false, "Hz",
     "samples per second per CPU, 1..1000 (perf's own default is 4000; LuaJIT samples every round(1000 / Hz) "
     "ms); 99 keeps the profiler's cost low and out of step with 100 Hz timers",
     [](const Config& c) { return std::to_string(c.profile.hz); }},

    // Validity
    {"VALIDITY", "Validity", "fail", false, "choice",
     "`fail`: a failed [validity check](methodology.md#validity-checks) fails the scenario, and fails a search step "
     "with its reason; `warn`: the result is marked INVALID in the report, the test passes",
     [](const Config& c) -> std::string { return c.validity.mode == ValidityMode::kWarn ? "warn" : "fail"; }},
    {"VALIDITY_MIN_EVIDENCE", "Validity", "0.99", false, "fraction",
     "policy scenarios: share of responses that must carry RateLimit headers",
     [](const Config& c) { return FormatNumber(c.validity.min_evidence_share); }},
    {"VALIDITY_MIN_REQUESTS", "Validity", "0.99", false, "fraction",
     "successful responses must reach this × target rate × duration",
     [](const Config& c) { return FormatNumber(c.validity.min_success_fraction); }},
    {"VALIDITY_MIN_ACHIEVED", "Validity", "0.97", false, "fraction", "achieved / target rate",
     [](const Config& c) { return FormatNumber(c.validity.min_achieved_fraction); }},
    {"LOADGEN_MAX_BUSY", "Validity", "0.8", false, "fraction",
     "busy fraction of the engine's cpuset (`K6_CPUSET`, or all cpus) during a phase, from /proc/stat",
     [](const Config& c) { return FormatNumber(c.validity.max_loadgen_busy); }},
    {"QUIET_LOAD_PER_CORE", "Validity", "0.5", false, "fraction",
     "before each measured phase the SUT's cpus (`ORESTY_CPUSET`, or all) must be at most this busy over 100 ms "
     "(then 1 s windows, up to `QUIET_TIMEOUT`)",
     [](const Config& c) { return FormatNumber(c.validity.quiet_max_per_core); }},
    {"QUIET_TIMEOUT", "Validity", "30", false, "s", "seconds to wait for that quiet (0 = do not wait or check)",
     [](const Config& c) { return Seconds(c.validity.quiet_timeout_s); }},
    {"ERROR_LOG_MAX_RATE", "Validity", "10", false, "lines/s",
     "lines/s any SUT error.log may gain during a phase; any `[alert]`/`[emerg]`/worker_connections/\"Too many "
     "open files\" line fails",
     [](const Config& c) { return FormatNumber(c.validity.max_log_lines_per_s); }},

    // Progress and ctest
    {"FVBENCH_PROGRESS_S", "Progress and ctest", "auto", false, "s",
     "seconds between [progress lines](running.md#progress-lines) while a load phase runs; auto = max(5, phase "
     "duration / 10); 0 = none (and no status listener in the SUT configs)",
     [](const Config& c) { return c.progress.period_s ? Seconds(*c.progress.period_s) : std::string("auto"); }},
    {"FVBENCH_SCENARIO_TIMEOUT_S", "Progress and ctest", "(set by CTest)", true, "s",
     "the scenarios' ctest `TIMEOUT`, which CTest passes from the cache variable `FVBENCH_SCENARIO_TIMEOUT`; "
     "durations with which a scenario could not finish within it are refused ([Soak runs](running.md#soak-runs)). "
     "Not set outside ctest: not checked",
     [](const Config& c) {
       return c.scenario_timeout_s > 0 ? Seconds(c.scenario_timeout_s) : std::string("(not under ctest: not checked)");
     }},
};

// A table cell: '|' would end the cell, also inside a code span (GFM).
std::string Cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

const std::vector<VariableDoc>& Variables() { return kVariables; }

std::string VariablesMarkdown() {
  std::string out;
  std::string group;
  for (const VariableDoc& v : kVariables) {
    if (v.group != group) {
      group = v.group;
      out += fmt::format("\n### {}\n\n| variable | default | unit | meaning |\n|---|---|---|---|\n", group);
    }
    out += fmt::format("| `{}` | {} | {} | {} |\n", v.name, Cell(v.default_text), Cell(v.unit), Cell(v.meaning));
  }
  return out + "\n";
}

Result<std::string> WithVariablesMarkdown(const std::string& page) {
  const size_t begin = page.find(kVariablesBegin);
  const size_t end = page.find(kVariablesEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    return Error{fmt::format("no generated part: expected a line '{}' and after it a line '{}'", kVariablesBegin,
                             kVariablesEnd)};
  }
  const size_t from = begin + std::string(kVariablesBegin).size();
  return page.substr(0, from) + "\n" + VariablesMarkdown() + page.substr(end);
}

std::string VariablesText(const Config* config, const EnvMap& env) {
  std::string out;
  std::string group;
  for (const VariableDoc& v : kVariables) {
    if (v.group != group) {
      group = v.group;
      out += fmt::format("{}{}\n", out.empty() ? "" : "\n", group);
    }
    auto it = env.find(v.name);
    const bool set = it != env.end() && !it->second.empty();
    // A secret's value is never printed (value() shows its length only).
    const bool secret = std::string(v.name).find("SECRET") != std::string::npos;
    const std::string now = config != nullptr ? v.value(*config)
                            : !set            ? "(default)"
                            : secret          ? "(set, not shown)"
                                              : it->second;
    out += fmt::format("  {} = {}   ({}; default {}; {})\n      {}\n", v.name, now, set ? "set" : "not set",
                       v.default_text, v.unit, v.meaning);
  }
  return out;
}

}  // namespace fvbench
