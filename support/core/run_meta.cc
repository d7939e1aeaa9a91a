#include "support/core/run_meta.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/core/metric_names.h"
#include "support/core/units_format.h"

namespace fvbench {

using nlohmann::json;

double NowUnix() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

std::string FormatUtc(double unix_seconds) {
  // Past 9999-12-31T23:59:59Z: "" (a file may hold any number; converting
  // e.g. 1e83 to time_t is undefined behaviour).
  constexpr double kMaxUnix = 253402300799.0;
  if (unix_seconds <= 0 || !std::isfinite(unix_seconds) || unix_seconds > kMaxUnix) return "";
  std::time_t t = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void WriteRunMeta(detail::JsonWriter& w, const RunMeta& m) {
  w.StartObject();
  w.Field("fvbench_version", m.fvbench_version);
  w.Field("engine", m.engine);
  w.Field("engine_version", m.engine_version);
  // Written only when known, so results of runs before these fields read and
  // rewrite unchanged (fixtures/report/recorded_local_run.json).
  if (!m.k6_pinned.empty()) w.Field("k6_pinned", m.k6_pinned);
  if (!m.sut_os.empty()) w.Field("sut_os", m.sut_os);
  if (!m.loadgen_os.empty()) w.Field("loadgen_os", m.loadgen_os);
  w.Field("sut_runtime", m.sut_runtime);
  w.Field("sut_runtime_version", m.sut_runtime_version);
  w.Field("lua_module_version", m.lua_module_version);
  w.Field("edge_source", m.edge_source);
  w.Field("edge_commit", m.edge_commit);
  w.Field("mode", m.mode);
  w.Field("sut_host", m.sut_host);
  w.Field("loadgen_host", m.loadgen_host);
  w.Field("sut_cores", m.sut_cores);
  w.Field("loadgen_cores", m.loadgen_cores);
  w.Field("sut_cpuset", m.sut_cpuset);
  w.Field("loadgen_cpuset", m.loadgen_cpuset);
  w.Field("cpusets_auto", m.cpusets_auto);
  if (!m.machines.empty()) w.Field("machines", m.machines);
  if (m.sut_nginx_cpus > 0) {  // absent in runs recorded before it existed
    w.Field("sut_nginx_workers", m.sut_nginx_workers);
    w.Field("sut_edge_workers", m.sut_edge_workers);
    w.Field("sut_nginx_cpus", m.sut_nginx_cpus);
  }
  w.Field("latency_rps", m.latency_rps);
  w.Field("latency_dur_s", m.latency_dur_s);
  w.Field("warmup_s", m.warmup_s);
  w.Field("step_dur_s", m.step_dur_s);
  w.Field("search_max", m.search_max);
  w.Field("thresholds_profile", m.thresholds_profile);
  w.Field("reference_source", m.reference_source);
  w.Field("started_unix", m.started_unix);
  w.Field("finished_unix", m.finished_unix);
  w.Field("started_utc", FormatUtc(m.started_unix));
  w.Field("finished_utc", FormatUtc(m.finished_unix));
  if (m.provision_incomplete) w.Field("provision_incomplete", true);
  if (!m.environments.empty()) {
    w.Key("environment");
    WriteEnvironments(w, m.environments);
  }
  if (!m.preflight.empty()) w.Array("preflight", m.preflight, [&](const std::string& f) { w.String(f); });
  if (m.ab) {
    w.Key("ab");
    w.StartObject();
    w.Field("edge_source_a", m.edge_source);
    w.Field("edge_ref_a", m.edge_ref);
    w.Field("edge_commit_a", m.edge_commit);
    w.Field("policy_dir_a", m.policy_dir);
    w.Field("edge_source_b", m.edge_source_b);
    w.Field("edge_ref_b", m.edge_ref_b);
    w.Field("edge_commit_b", m.edge_commit_b);
    w.Field("policy_dir_b", m.policy_dir_b);
    w.Field("pairs", m.ab_pairs);
    w.Field("rate_fraction", m.ab_rate_fraction);
    if (m.ab_gate) w.Field("gate", true);  // absent = false (runs recorded before it too)
    if (!m.ab_gate_metrics.empty()) {  // absent = every metric (runs recorded before it too)
      w.Array("gate_metrics", m.ab_gate_metrics, [&](const std::string& name) { w.String(name); });
    }
    w.EndObject();
  }
  w.EndObject();
}

namespace detail {

std::vector<std::string> AbGateMetricsFromJson(const json& obj, const std::string& path) {
  std::vector<std::string> names;
  if (!obj.contains("gate_metrics") || obj.at("gate_metrics").is_null()) return names;
  const json& a = GetArray(obj, "gate_metrics", path);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", JoinPath(path, "gate_metrics"), i);
    if (!a[i].is_string() || !IsAbMetricName(a[i].get<std::string>())) {
      throw JsonFieldError{fmt::format("{}: expected an A/B metric ({}), got {}", at, fmt::join(kAbMetricNames, ", "),
                                       a[i].dump())};
    }
    const std::string name = a[i].get<std::string>();
    for (const std::string& n : names) {
      if (n == name) throw JsonFieldError{fmt::format("{}: '{}' is listed twice", at, name)};
    }
    names.push_back(name);
  }
  return names;
}

}  // namespace detail

Result<RunMeta> RunMetaFromJsonValue(const json& v, const std::string& path) {
  using namespace detail;
  RunMeta m;
  try {
    RequireObject(v, path);
    m.fvbench_version = OptString(v, "fvbench_version", path);
    m.engine = OptString(v, "engine", path);
    m.engine_version = OptString(v, "engine_version", path);
    m.k6_pinned = OptString(v, "k6_pinned", path);
    m.sut_os = OptString(v, "sut_os", path);
    m.loadgen_os = OptString(v, "loadgen_os", path);
    m.sut_runtime = OptString(v, "sut_runtime", path);
    m.sut_runtime_version = OptString(v, "sut_runtime_version", path);
    m.lua_module_version = OptString(v, "lua_module_version", path);
    m.edge_source = OptString(v, "edge_source", path);
    m.edge_commit = OptString(v, "edge_commit", path);
    m.mode = OptString(v, "mode", path);
    m.sut_host = OptString(v, "sut_host", path);
    m.loadgen_host = OptString(v, "loadgen_host", path);
    m.sut_cores = static_cast<int>(OptUint(v, "sut_cores", path, 0));
    m.loadgen_cores = static_cast<int>(OptUint(v, "loadgen_cores", path, 0));
    m.sut_cpuset = OptString(v, "sut_cpuset", path);
    m.loadgen_cpuset = OptString(v, "loadgen_cpuset", path);
    m.cpusets_auto = OptBool(v, "cpusets_auto", path, false);
    m.machines = OptString(v, "machines", path);
    m.sut_nginx_workers = static_cast<int>(OptUint(v, "sut_nginx_workers", path, 0));
    m.sut_edge_workers = static_cast<int>(OptUint(v, "sut_edge_workers", path, 0));
    m.sut_nginx_cpus = static_cast<int>(OptUint(v, "sut_nginx_cpus", path, 0));
    m.latency_rps = OptNumber(v, "latency_rps", path, 0);
    m.latency_dur_s = OptNumber(v, "latency_dur_s", path, 0);
    m.warmup_s = OptNumber(v, "warmup_s", path, 0);
    m.step_dur_s = OptNumber(v, "step_dur_s", path, 0);
    m.search_max = OptNumber(v, "search_max", path, 0);
    m.thresholds_profile = OptString(v, "thresholds_profile", path);
    m.reference_source = OptString(v, "reference_source", path);
    m.started_unix = OptNumber(v, "started_unix", path, 0);
    m.finished_unix = OptNumber(v, "finished_unix", path, 0);
    m.provision_incomplete = OptBool(v, "provision_incomplete", path, false);
    if (v.contains("environment")) {
      auto envs = EnvironmentsFromJsonValue(v.at("environment"), JoinPath(path, "environment"));
      if (!envs.ok()) return envs.error();
      m.environments = std::move(*envs);
    }
    if (v.contains("preflight")) {
      const json& a = GetArray(v, "preflight", path);
      for (size_t i = 0; i < a.size(); ++i) {
        if (!a[i].is_string()) {
          throw JsonFieldError{fmt::format("{}.preflight[{}]: expected a string", path, i)};
        }
        m.preflight.push_back(a[i].get<std::string>());
      }
    }
    if (v.contains("ab")) {
      const std::string ap = path + ".ab";
      const json& ab = GetObject(v, "ab", path);
      m.ab = true;
      m.edge_ref = OptString(ab, "edge_ref_a", ap);
      m.policy_dir = OptString(ab, "policy_dir_a", ap);
      m.edge_source_b = OptString(ab, "edge_source_b", ap);
      m.edge_ref_b = OptString(ab, "edge_ref_b", ap);
      m.edge_commit_b = OptString(ab, "edge_commit_b", ap);
      m.policy_dir_b = OptString(ab, "policy_dir_b", ap);
      m.ab_pairs = static_cast<int>(OptUint(ab, "pairs", ap, 0));
      m.ab_rate_fraction = OptNumber(ab, "rate_fraction", ap, 0);
      m.ab_gate = OptBool(ab, "gate", ap, false);
      m.ab_gate_metrics = AbGateMetricsFromJson(ab, ap);
    }
  } catch (const JsonFieldError& e) {
    return Error{e.message};
  }
  return m;
}

std::string RunMetaToJson(const RunMeta& meta) {
  detail::JsonWriter w;
  w.StartObject();
  w.Field("schema_version", 1);
  w.Key("meta");
  WriteRunMeta(w, meta);
  w.EndObject();
  return w.Take();
}

Result<RunMeta> RunMetaFromJson(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  try {
    detail::CheckSchemaVersion(*doc, 1, /*required=*/true);
    const json& meta = detail::GetObject(*doc, "meta", "");
    auto m = RunMetaFromJsonValue(meta, "meta");
    if (!m.ok()) return Error{fmt::format("{}: {}", source_name, m.error().message)};
    return m;
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  }
}

std::string DescribeNginxWorkers(const RunMeta& m) {
  if (m.sut_nginx_cpus <= 0 || m.sut_nginx_workers <= 0) return "";
  const int n = m.sut_nginx_cpus;
  auto per_cpu = [n](int w) { return detail::FormatNumber(static_cast<double>(w) / n); };
  const std::string where = m.sut_cpuset.empty() ? fmt::format("{} usable CPU{} of the SUT host", n, n == 1 ? "" : "s")
                                                 : fmt::format("{} CPU{} of cpuset {}", n, n == 1 ? "" : "s", m.sut_cpuset);
  std::string head = m.sut_edge_workers == m.sut_nginx_workers
                         ? fmt::format("{} worker per CPU", per_cpu(m.sut_nginx_workers))
                         : fmt::format("raw nginx and backend {}, edge {} workers per CPU", per_cpu(m.sut_nginx_workers),
                                       per_cpu(m.sut_edge_workers));
  return fmt::format("{} (raw nginx and backend {}, edge {} worker_processes on {}; in reverse_proxy the edge and "
                     "its backend share those CPUs)",
                     head, m.sut_nginx_workers, m.sut_edge_workers, where);
}

}  // namespace fvbench
