#include "support/results_io.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/ab_report.h"
#include "support/json_fields.h"
#include "support/ratios.h"

namespace fvbench {

using nlohmann::json;

namespace {

constexpr int kSchemaVersion = 1;

// Non-finite numbers (e.g. a check's measured value of a scenario that never
// measured) are written as null and read back as NaN.
json Num(double d) { return std::isfinite(d) ? json(d) : json(nullptr); }

double ReadNum(const json& obj, std::string_view key, const std::string& path) {
  if (!obj.is_object() || !obj.contains(std::string(key))) {
    throw detail::JsonFieldError{fmt::format("{}: missing", detail::JoinPath(path, key))};
  }
  auto v = detail::OptNumberOrNull(obj, key, path);
  return v ? *v : std::numeric_limits<double>::quiet_NaN();
}

json OptToJson(const std::optional<double>& v) { return v ? Num(*v) : json(nullptr); }

// Validity checks and SUT usage (scenario_result.h): optional arrays, written
// only when non-empty and read as empty when absent (older files).
json ValidityToJson(const std::vector<ValidityCheck>& v) {
  json a = json::array();
  for (const ValidityCheck& c : v) {
    a.push_back({{"name", c.name}, {"passed", c.passed}, {"informational", c.informational}, {"op", c.op},
                 {"measured", Num(c.measured)}, {"limit", Num(c.limit)}, {"detail", c.detail}});
  }
  return a;
}

json UsageToJson(const std::vector<ServiceUsage>& v) {
  json a = json::array();
  for (const ServiceUsage& u : v) {
    a.push_back({{"service", u.service}, {"processes", u.processes}, {"cpu_cores", Num(u.cpu_cores)},
                 {"rss_mib", Num(u.rss_mib)}, {"rss_peak_mib", Num(u.rss_peak_mib)}});
  }
  return a;
}

void PutValidity(json& j, const std::vector<ValidityCheck>& v, const std::vector<ServiceUsage>& u) {
  if (!v.empty()) j["validity"] = ValidityToJson(v);
  if (!u.empty()) j["sut_usage"] = UsageToJson(u);
}

void ReadValidity(const json& obj, const std::string& path, std::vector<ValidityCheck>& v,
                  std::vector<ServiceUsage>& u) {
  if (obj.contains("validity")) {
    const json& a = detail::GetArray(obj, "validity", path);
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = fmt::format("{}[{}]", detail::JoinPath(path, "validity"), i);
      detail::RequireObject(a[i], p);
      ValidityCheck c;
      c.name = detail::GetString(a[i], "name", p);
      c.passed = detail::GetBool(a[i], "passed", p);
      c.informational = detail::OptBool(a[i], "informational", p, false);
      c.op = detail::OptString(a[i], "op", p, "");
      c.measured = ReadNum(a[i], "measured", p);
      c.limit = ReadNum(a[i], "limit", p);
      c.detail = detail::OptString(a[i], "detail", p, "");
      v.push_back(std::move(c));
    }
  }
  if (obj.contains("sut_usage")) {
    const json& a = detail::GetArray(obj, "sut_usage", path);
    for (size_t i = 0; i < a.size(); ++i) {
      std::string p = fmt::format("{}[{}]", detail::JoinPath(path, "sut_usage"), i);
      detail::RequireObject(a[i], p);
      ServiceUsage x;
      x.service = detail::GetString(a[i], "service", p);
      x.processes = static_cast<int>(detail::GetUint(a[i], "processes", p));
      x.cpu_cores = ReadNum(a[i], "cpu_cores", p);
      x.rss_mib = ReadNum(a[i], "rss_mib", p);
      x.rss_peak_mib = ReadNum(a[i], "rss_peak_mib", p);
      u.push_back(std::move(x));
    }
  }
}

json StepToJson(const StepResult& s) {
  json j = json::object();
  j["target_rps"] = Num(s.target_rps);
  j["passed"] = s.passed;
  j["verdict"] = s.verdict;
  j["load"] = detail::LoadResultToJsonValue(s.load);
  PutValidity(j, s.validity, s.sut_usage);
  j["role"] = s.role;
  return j;
}

json CheckToJson(const ThresholdCheck& c) {
  json j = json::object();
  j["metric"] = c.metric;
  j["op"] = c.op;
  j["measured"] = Num(c.measured);
  j["limit"] = Num(c.limit);
  j["reference"] = OptToJson(c.reference);
  j["passed"] = c.passed;
  return j;
}

json RatioCheckToJson(const RatioCheck& c) {
  json j = json::object();
  j["metric"] = c.metric;
  j["op"] = c.op;
  j["measured"] = Num(c.measured);
  j["ratio_to"] = c.ratio_to;
  j["factor"] = Num(c.factor);
  j["base"] = Num(c.base);
  j["limit"] = Num(c.limit);
  j["passed"] = c.passed;
  return j;
}

json SpreadToJson(const Spread& s) { return {{"min", Num(s.min)}, {"median", Num(s.median)}, {"max", Num(s.max)}}; }

// reference.json key of a scenario id: "latency.raw_nginx" -> ("latency", "raw_nginx").
std::pair<std::string, std::string> SplitId(const std::string& id) {
  auto dot = id.find('.');
  if (dot == std::string::npos) return {id, ""};
  return {id.substr(0, dot), id.substr(dot + 1)};
}

json RunResultsValue(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  json doc = json::object();
  doc["schema_version"] = kSchemaVersion;
  doc["meta"] = RunMetaToJsonValue(meta);
  json lat = json::object();
  json thr = json::object();
  json ceiling = json::object();
  json all = json::array();
  for (const ScenarioResult& r : results) {
    all.push_back(detail::ScenarioResultToJsonValue(r));
    if (!r.measured) continue;
    auto [kind, key] = SplitId(r.id);
    if (kind == "latency") {
      const LatencyUs& l = r.load.latency_us;
      lat[key] = {{"p50", Num(l.p50)}, {"p90", Num(l.p90)}, {"p99", Num(l.p99)}, {"p999", Num(l.p999)}};
    } else if (kind == "throughput") {
      thr[key] = Num(r.throughput_rps);
      if (r.ceiling_reached) ceiling[key] = true;
    }
  }
  doc["latency_us"] = std::move(lat);
  doc["throughput_rps"] = std::move(thr);
  if (!ceiling.empty()) doc["throughput_ceiling_reached"] = std::move(ceiling);
  doc["scenarios"] = std::move(all);
  json ratios = json::array();
  for (const Ratio& x : SameRunRatios(results)) {
    ratios.push_back({{"scenario", x.scenario}, {"base", x.base}, {"metric", x.metric}, {"value", Num(x.value)},
                      {"base_value", Num(x.base_value)}, {"ratio", Num(x.ratio)}});
  }
  doc["same_run_ratios"] = std::move(ratios);
  return doc;
}

}  // namespace

namespace detail {

json LoadResultToJsonValue(const LoadResult& r) {
  json j = json::object();
  j["engine"] = r.engine;
  j["engine_version"] = r.engine_version;
  j["target_rps"] = Num(r.target_rps);
  j["duration_s"] = Num(r.duration_s);
  j["requests"] = r.requests;
  j["failed"] = r.failed;
  j["non_2xx"] = r.non_2xx;
  j["achieved_rps"] = Num(r.achieved_rps);
  j["error_rate"] = Num(r.error_rate);
  const LatencyUs& l = r.latency_us;
  j["latency_us"] = {{"p50", Num(l.p50)}, {"p90", Num(l.p90)}, {"p99", Num(l.p99)},
                     {"p999", Num(l.p999)}, {"max", Num(l.max)}};
  j["kept_up"] = r.kept_up;
  j["dropped_iterations"] = r.dropped_iterations;
  j["max_send_lag_us"] = Num(r.max_send_lag_us);
  j["late_send_share"] = Num(r.late_send_share);
  j["ratelimit_evidence"] = r.ratelimit_evidence ? json(*r.ratelimit_evidence) : json(nullptr);
  j["raw_path"] = r.raw_path;
  if (!r.validity_failure.empty()) j["validity_failure"] = r.validity_failure;
  return j;
}

json ScenarioResultToJsonValue(const ScenarioResult& r) {
  json j = json::object();
  j["id"] = r.id;
  j["measured"] = r.measured;
  j["error"] = r.error;
  j["load"] = LoadResultToJsonValue(r.load);
  j["throughput_rps"] = Num(r.throughput_rps);
  j["ceiling_reached"] = r.ceiling_reached;
  j["steps"] = json::array();
  for (const StepResult& s : r.steps) j["steps"].push_back(StepToJson(s));
  j["checks"] = json::array();
  for (const ThresholdCheck& c : r.checks) j["checks"].push_back(CheckToJson(c));
  j["ratio_checks"] = json::array();
  for (const RatioCheck& c : r.ratio_checks) j["ratio_checks"].push_back(RatioCheckToJson(c));
  j["notes"] = r.notes;
  PutValidity(j, r.validity, r.sut_usage);
  j["search"] = r.search;
  j["confirmed"] = r.confirmed;
  j["search_resolution"] = OptToJson(r.search_resolution);
  j["search_load_s"] = Num(r.search_load_s);
  j["search_stop"] = r.search_stop;
  j["repeats"] = json::array();
  for (const LoadResult& l : r.repeats) j["repeats"].push_back(LoadResultToJsonValue(l));
  j["spread"] = json::object();
  for (const auto& [metric, sp] : r.spread) j["spread"][metric] = SpreadToJson(sp);
  j["policy"] = r.policy;
  if (r.ab) j["ab"] = AbResultToJsonValue(*r.ab);  // A/B mode only (ab_report.h)
  j["started_unix"] = Num(r.started_unix);
  j["finished_unix"] = Num(r.finished_unix);
  return j;
}

LoadResult LoadResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  LoadResult r;
  r.engine = GetString(v, "engine", path);
  r.engine_version = GetString(v, "engine_version", path);
  r.target_rps = ReadNum(v, "target_rps", path);
  r.duration_s = ReadNum(v, "duration_s", path);
  r.requests = GetUint(v, "requests", path);
  r.failed = GetUint(v, "failed", path);
  r.non_2xx = GetUint(v, "non_2xx", path);
  r.achieved_rps = ReadNum(v, "achieved_rps", path);
  r.error_rate = ReadNum(v, "error_rate", path);
  std::string lpath = JoinPath(path, "latency_us");
  const json& l = GetObject(v, "latency_us", path);
  r.latency_us.p50 = ReadNum(l, "p50", lpath);
  r.latency_us.p90 = ReadNum(l, "p90", lpath);
  r.latency_us.p99 = ReadNum(l, "p99", lpath);
  r.latency_us.p999 = ReadNum(l, "p999", lpath);
  r.latency_us.max = ReadNum(l, "max", lpath);
  r.kept_up = GetBool(v, "kept_up", path);
  r.dropped_iterations = GetUint(v, "dropped_iterations", path);
  r.max_send_lag_us = ReadNum(v, "max_send_lag_us", path);
  // Optional: results written before late_send_share existed lack it.
  if (v.contains("late_send_share")) r.late_send_share = ReadNum(v, "late_send_share", path);
  r.ratelimit_evidence = OptUintOrNull(v, "ratelimit_evidence", path);
  r.raw_path = GetString(v, "raw_path", path);
  r.validity_failure = OptString(v, "validity_failure", path, "");
  return r;
}

ScenarioResult ScenarioResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  ScenarioResult r;
  r.id = GetString(v, "id", path);
  r.measured = GetBool(v, "measured", path);
  r.error = GetString(v, "error", path);
  r.load = LoadResultFromJsonValue(GetObject(v, "load", path), JoinPath(path, "load"));
  r.throughput_rps = ReadNum(v, "throughput_rps", path);
  r.ceiling_reached = GetBool(v, "ceiling_reached", path);
  const json& steps = GetArray(v, "steps", path);
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string sp = fmt::format("{}[{}]", JoinPath(path, "steps"), i);
    RequireObject(steps[i], sp);
    StepResult s;
    s.target_rps = ReadNum(steps[i], "target_rps", sp);
    s.passed = GetBool(steps[i], "passed", sp);
    s.verdict = GetString(steps[i], "verdict", sp);
    s.load = LoadResultFromJsonValue(GetObject(steps[i], "load", sp), JoinPath(sp, "load"));
    ReadValidity(steps[i], sp, s.validity, s.sut_usage);
    s.role = OptString(steps[i], "role", sp, "");
    r.steps.push_back(std::move(s));
  }
  const json& checks = GetArray(v, "checks", path);
  for (size_t i = 0; i < checks.size(); ++i) {
    std::string cp = fmt::format("{}[{}]", JoinPath(path, "checks"), i);
    RequireObject(checks[i], cp);
    ThresholdCheck c;
    c.metric = GetString(checks[i], "metric", cp);
    c.op = GetString(checks[i], "op", cp);
    c.measured = ReadNum(checks[i], "measured", cp);
    c.limit = ReadNum(checks[i], "limit", cp);
    c.reference = OptNumberOrNull(checks[i], "reference", cp);
    c.passed = GetBool(checks[i], "passed", cp);
    r.checks.push_back(std::move(c));
  }
  const json& notes = GetArray(v, "notes", path);
  for (size_t i = 0; i < notes.size(); ++i) {
    if (!notes[i].is_string()) {
      throw JsonFieldError{fmt::format("{}[{}]: expected a string, got {}", JoinPath(path, "notes"), i,
                                       notes[i].type_name())};
    }
    r.notes.push_back(notes[i].get<std::string>());
  }
  // Optional since the search / repeats fields were added (schema_version 1
  // documents without them still read).
  r.search = OptString(v, "search", path, "");
  r.confirmed = OptBool(v, "confirmed", path, false);
  r.search_resolution = OptNumberOrNull(v, "search_resolution", path);
  r.search_load_s = OptNumber(v, "search_load_s", path, 0);
  r.search_stop = OptString(v, "search_stop", path, "");
  if (v.contains("ratio_checks") && !v.at("ratio_checks").is_null()) {
    const json& rc = GetArray(v, "ratio_checks", path);
    for (size_t i = 0; i < rc.size(); ++i) {
      std::string cp = fmt::format("{}[{}]", JoinPath(path, "ratio_checks"), i);
      RequireObject(rc[i], cp);
      RatioCheck c;
      c.metric = GetString(rc[i], "metric", cp);
      c.op = GetString(rc[i], "op", cp);
      c.measured = ReadNum(rc[i], "measured", cp);
      c.ratio_to = GetString(rc[i], "ratio_to", cp);
      c.factor = ReadNum(rc[i], "factor", cp);
      c.base = ReadNum(rc[i], "base", cp);
      c.limit = ReadNum(rc[i], "limit", cp);
      c.passed = GetBool(rc[i], "passed", cp);
      r.ratio_checks.push_back(std::move(c));
    }
  }
  if (v.contains("repeats") && !v.at("repeats").is_null()) {
    const json& reps = GetArray(v, "repeats", path);
    for (size_t i = 0; i < reps.size(); ++i) {
      r.repeats.push_back(LoadResultFromJsonValue(reps[i], fmt::format("{}[{}]", JoinPath(path, "repeats"), i)));
    }
  }
  if (v.contains("spread") && !v.at("spread").is_null()) {
    std::string spath = JoinPath(path, "spread");
    for (const auto& [metric, sp] : GetObject(v, "spread", path).items()) {
      std::string mp = JoinPath(spath, metric);
      RequireObject(sp, mp);
      r.spread[metric] = Spread{ReadNum(sp, "min", mp), ReadNum(sp, "median", mp), ReadNum(sp, "max", mp)};
    }
  }
  ReadValidity(v, path, r.validity, r.sut_usage);
  r.policy = GetString(v, "policy", path);
  if (v.contains("ab") && !v.at("ab").is_null()) r.ab = AbResultFromJsonValue(v.at("ab"), JoinPath(path, "ab"));
  r.started_unix = ReadNum(v, "started_unix", path);
  r.finished_unix = ReadNum(v, "finished_unix", path);
  return r;
}

}  // namespace detail

std::string ScenarioResultToJson(const ScenarioResult& r) {
  json doc = json::object();
  doc["schema_version"] = kSchemaVersion;
  doc["scenario"] = detail::ScenarioResultToJsonValue(r);
  return doc.dump(2) + "\n";
}

Result<ScenarioResult> ScenarioResultFromJson(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  try {
    detail::CheckSchemaVersion(*doc, kSchemaVersion, /*required=*/true);
    return detail::ScenarioResultFromJsonValue(detail::GetObject(*doc, "scenario", ""), "scenario");
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: {}", source_name, e.what())};
  }
}

std::string RunResultsToJson(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  return RunResultsValue(results, meta).dump(2) + "\n";
}

Result<RunResults> RunResultsFromJson(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  RunResults out;
  try {
    detail::CheckSchemaVersion(*doc, kSchemaVersion, /*required=*/true);
    auto meta = RunMetaFromJsonValue(detail::GetObject(*doc, "meta", ""), "meta");
    if (!meta.ok()) return Error{fmt::format("{}: {}", source_name, meta.error().message)};
    out.meta = std::move(*meta);
    const json& all = detail::GetArray(*doc, "scenarios", "");
    for (size_t i = 0; i < all.size(); ++i) {
      out.scenarios.push_back(detail::ScenarioResultFromJsonValue(all[i], fmt::format("scenarios[{}]", i)));
    }
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: {}", source_name, e.what())};
  }
  return out;
}

Result<void> SaveScenarioResult(const std::string& path, const ScenarioResult& r) {
  return detail::WriteTextFile(path, ScenarioResultToJson(r));
}

Result<ScenarioResult> LoadScenarioResult(const std::string& path) {
  auto text = detail::ReadTextFile(path);
  if (!text.ok()) return text.error();
  return ScenarioResultFromJson(*text, path);
}

Result<void> SaveRunResults(const std::string& path, const std::vector<ScenarioResult>& results,
                            const RunMeta& meta) {
  return detail::WriteTextFile(path, RunResultsToJson(results, meta));
}

}  // namespace fvbench
