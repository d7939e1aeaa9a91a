// RunMeta: what a run was, for the reports: which engine and SUT, which hosts
// and cores, which knobs. Filled by the controller from Config and what it
// learned on the hosts (versions, commit, cores); the reporters only print it.
// Units: seconds, requests per second; timestamps are Unix seconds (UTC).
//
// JSON (inside results.json as "meta", see results_io.h): one object with the
// field names below; started_utc / finished_utc are written as readable
// ISO 8601 companions and ignored on read.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "support/core/host_environment.h"
#include "support/core/result.h"

namespace fvbench {

struct RunMeta {
  std::string fvbench_version;      // e.g. "0.1.0"
  std::string engine;               // "k6" | "wrk"
  std::string engine_version;       // as the engine printed it
  // The next three are absent from JSON when empty.
  std::string k6_pinned;            // K6_VER the loadgen installs k6 at ("v0.54.0"); empty for wrk
  std::string sut_os;               // the SUT host's OS, e.g. "ubuntu 24.04 (noble)" (os_release.h)
  std::string loadgen_os;           // the loadgen host's OS
  std::string sut_runtime;          // "openresty" | "nginx" (distro nginx + lua module)
  std::string sut_runtime_version;  // `nginx -v` / `openresty -v` text
  std::string lua_module_version;   // lua-nginx-module version when known, else empty
  std::string edge_source;          // FAIRVISOR_EDGE_SRC (URL or path)
  std::string edge_commit;          // commit of the edge checkout, empty if unknown
  std::string mode;                 // "local" | "remote"
  std::string sut_host;             // "local" or the ssh target
  std::string loadgen_host;         // "local" or the ssh target
  int sut_cores = 0;                // CPUs the SUT host's processes may use (affinity within cgroup cpuset), 0 = unknown
  int loadgen_cores = 0;            // the same on the loadgen host
  std::string sut_cpuset;           // ORESTY_CPUSET, empty = unpinned
  std::string loadgen_cpuset;       // K6_CPUSET (applies to any engine), empty = unpinned
  bool cpusets_auto = false;        // split 50/50 automatically (>= 8 cores)
  // Remote mode: which hosts (and the controller) run one kernel, by their
  // boot_id (run/loadgen_hosts.h MachineNote): "one machine: the SUT host
  // ..., loadgen host ... and the controller run one kernel (boot_id
  // 1a2b3c4d): they share its CPUs and its clock"; "" = each its own machine
  // (or unknown). Absent from JSON when empty.
  std::string machines;
  // nginx worker_processes on the SUT (sut/nginx_conf.h NginxWorkerProcesses):
  // raw nginx and the backend, the edge, and the CPUs they may use (the
  // cpuset's, or the host's usable CPUs). 0 = not recorded (then not written).
  int sut_nginx_workers = 0;
  int sut_edge_workers = 0;
  int sut_nginx_cpus = 0;
  double latency_rps = 0;           // LATENCY_RPS
  double latency_dur_s = 0;         // LATENCY_DUR
  double warmup_s = 0;              // WARMUP_DUR
  double step_dur_s = 0;            // STEP_DUR
  double search_max = 0;            // THROUGHPUT_SEARCH_MAX, RPS
  std::string thresholds_profile;   // profile file used, empty = none
  std::string reference_source;     // reference file used, empty = none
  // The machine facts per host (host_environment.h): the SUT host first,
  // then each loadgen host. JSON "environment", absent when empty.
  std::vector<HostEnvironment> environments;
  // The preflight lint's findings (judge/environment_lint.h DescribeFinding)
  // at the run's busiest phase, as the provision step printed them. JSON
  // "preflight", absent when empty.
  std::vector<std::string> preflight;
  double started_unix = 0;
  double finished_unix = 0;
  // Written as true when a run starts (report/run_outputs.h) and gone once
  // the provision step wrote the full meta: true means this run's hosts were
  // never provisioned, so nothing in it was measured. JSON only when true.
  bool provision_incomplete = false;
  // A/B mode (ab_compare.h): what each side ran. Written to JSON only when
  // `ab` is true (an "ab" object); optional on read.
  bool ab = false;
  std::string edge_ref;           // FAIRVISOR_EDGE_REF of side A ("" = as checked out / default branch)
  std::string policy_dir;         // FVBENCH_POLICY_DIR of side A
  std::string edge_source_b;      // FAIRVISOR_EDGE_SRC_B
  std::string edge_ref_b;         // FAIRVISOR_EDGE_REF_B
  std::string edge_commit_b;      // commit of B's tree (" (dirty)" appended when modified)
  std::string policy_dir_b;       // FVBENCH_POLICY_DIR_B
  int ab_pairs = 0;               // REPEAT: A/B pairs per measured phase
  double ab_rate_fraction = 0;    // AB_RATE_FRACTION (throughput A/B runs, of A's maximum)
  bool ab_gate = false;           // AB_GATE: B significantly worse fails a scenario; "gate" in JSON only when true
  // AB_GATE_METRICS: the metrics the gate is on (kAbMetricNames); empty =
  // every metric. "gate_metrics" in JSON only when not empty (absent in
  // runs recorded before it: every metric).
  std::vector<std::string> ab_gate_metrics;
};

// Unix seconds -> "2026-03-04T12:34:56Z"; "" for 0, a negative or non-finite
// value, or one after 9999-12-31T23:59:59Z.
std::string FormatUtc(double unix_seconds);

// Now, in Unix seconds (the system clock): started_unix / finished_unix.
double NowUnix();

namespace detail {
class JsonWriter;  // json_writer.h
}
// Both directions of the JSON object. WriteRunMeta writes it at the writer's
// position. FromJson: missing fields keep their defaults; a field of the
// wrong type is an Error naming `path`.<field>.
void WriteRunMeta(detail::JsonWriter& w, const RunMeta& meta);
Result<RunMeta> RunMetaFromJsonValue(const nlohmann::json& v, const std::string& path);

namespace detail {
// "gate_metrics" of `obj` (meta.ab, and a scenario's "ab", report/ab_json.h):
// absent or null -> {} (every metric); otherwise an array of names of
// metric_names.h kAbMetricNames, each once. Throws JsonFieldError naming
// `path`.gate_metrics[i] for anything else.
std::vector<std::string> AbGateMetricsFromJson(const nlohmann::json& obj, const std::string& path);
}  // namespace detail

std::string RunMetaToJson(const RunMeta& meta);
Result<RunMeta> RunMetaFromJson(std::string_view text, const std::string& source_name);

// "1 worker per CPU (raw nginx and backend 1, edge 1 worker_processes on 1
// CPU of cpuset 0; in reverse_proxy the edge and its backend share them)";
// "" when not recorded.
std::string DescribeNginxWorkers(const RunMeta& m);

}  // namespace fvbench
