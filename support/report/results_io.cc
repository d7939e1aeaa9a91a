#include "support/report/results_io.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "support/report/ab_report.h"
#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/judge/ratios.h"

namespace fvbench {

using nlohmann::json;

namespace {

constexpr int kSchemaVersion = 1;

// Non-finite numbers (e.g. a check's measured value of a scenario that never
// measured) are written as null (JsonWriter::Number) and read back as NaN.
double ReadNum(const json& obj, std::string_view key, const std::string& path) {
  if (!obj.is_object() || !obj.contains(std::string(key))) {
    throw detail::JsonFieldError{fmt::format("{}: missing", detail::JoinPath(path, key))};
  }
  auto v = detail::OptNumberOrNull(obj, key, path);
  return v ? *v : std::numeric_limits<double>::quiet_NaN();
}

// Validity checks and SUT usage (scenario_result.h): optional arrays, written
// only when non-empty and read as empty when absent (older files).
void WriteValidity(detail::JsonWriter& w, const std::vector<ValidityCheck>& v, const std::vector<ServiceUsage>& u) {
  if (!v.empty()) {
    w.Array("validity", v, [&](const ValidityCheck& c) {
      w.StartObject();
      w.Field("name", c.name);
      w.Field("passed", c.passed);
      w.Field("informational", c.informational);
      w.Field("op", c.op);
      w.Field("measured", c.measured);
      w.Field("limit", c.limit);
      w.Field("detail", c.detail);
      w.EndObject();
    });
  }
  if (!u.empty()) {
    w.Array("sut_usage", u, [&](const ServiceUsage& x) {
      w.StartObject();
      w.Field("service", x.service);
      w.Field("processes", x.processes);
      w.Field("cpu_cores", x.cpu_cores);
      w.Field("rss_mib", x.rss_mib);
      w.Field("rss_peak_mib", x.rss_peak_mib);
      w.EndObject();
    });
  }
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

void WriteStep(detail::JsonWriter& w, const StepResult& s) {
  w.StartObject();
  w.Field("target_rps", s.target_rps);
  w.Field("passed", s.passed);
  w.Field("verdict", s.verdict);
  w.Field("role", s.role);
  w.Key("load");
  detail::WriteLoadResult(w, s.load);
  WriteValidity(w, s.validity, s.sut_usage);
  w.EndObject();
}

void WriteCheck(detail::JsonWriter& w, const ThresholdCheck& c) {
  w.StartObject();
  w.Field("metric", c.metric);
  w.Field("op", c.op);
  w.Field("measured", c.measured);
  w.Field("limit", c.limit);
  w.Field("reference", c.reference);
  w.Field("passed", c.passed);
  w.EndObject();
}

void WriteRatioCheck(detail::JsonWriter& w, const RatioCheck& c) {
  w.StartObject();
  w.Field("metric", c.metric);
  w.Field("op", c.op);
  w.Field("measured", c.measured);
  w.Field("ratio_to", c.ratio_to);
  w.Field("factor", c.factor);
  w.Field("base", c.base);
  w.Field("limit", c.limit);
  w.Field("passed", c.passed);
  w.EndObject();
}

// reference.json key of a scenario id: "latency.raw_nginx" -> ("latency", "raw_nginx").
std::pair<std::string, std::string> SplitId(const std::string& id) {
  auto dot = id.find('.');
  if (dot == std::string::npos) return {id, ""};
  return {id.substr(0, dot), id.substr(dot + 1)};
}

// p50..p999 in µs (reference.json's shape); a LoadResult adds its max.
void WriteLatencyUs(detail::JsonWriter& w, const LatencyUs& l, bool with_max) {
  w.StartObject();
  w.Field("p50", l.p50);
  w.Field("p90", l.p90);
  w.Field("p99", l.p99);
  w.Field("p999", l.p999);
  if (with_max) w.Field("max", l.max);
  w.EndObject();
}

// The summary blocks (latency_us, throughput_rps, throughput_ceiling_reached)
// in reference.json's shape, so a results.json can serve as a reference. Keyed
// by the id's second part; should two results share an id, the later one is
// written (as a JSON object keeps one value per key).
void WriteSummaryBlocks(detail::JsonWriter& w, const std::vector<ScenarioResult>& results) {
  std::map<std::string, const ScenarioResult*> latency, throughput;
  for (const ScenarioResult& r : results) {
    if (!r.measured) continue;
    auto [kind, key] = SplitId(r.id);
    if (kind == "latency") latency[key] = &r;
    if (kind == "throughput") throughput[key] = &r;
  }
  w.Key("latency_us");
  w.StartObject();
  for (const auto& [key, r] : latency) {
    w.Key(key);
    WriteLatencyUs(w, r->load.latency_us, /*with_max=*/false);
  }
  w.EndObject();
  w.Key("throughput_rps");
  w.StartObject();
  bool any_ceiling = false;
  for (const auto& [key, r] : throughput) {
    w.Field(key, r->throughput_rps);
    any_ceiling = any_ceiling || r->ceiling_reached;
  }
  w.EndObject();
  if (!any_ceiling) return;
  w.Key("throughput_ceiling_reached");
  w.StartObject();
  for (const auto& [key, r] : throughput) {
    if (r->ceiling_reached) w.Field(key, true);
  }
  w.EndObject();
}

}  // namespace

namespace detail {

void WriteLoadResult(JsonWriter& w, const LoadResult& r) {
  w.StartObject();
  w.Field("engine", r.engine);
  w.Field("engine_version", r.engine_version);
  w.Field("target_rps", r.target_rps);
  w.Field("duration_s", r.duration_s);
  w.Field("requests", r.requests);
  w.Field("failed", r.failed);
  w.Field("non_2xx", r.non_2xx);
  w.Field("achieved_rps", r.achieved_rps);
  w.Field("error_rate", r.error_rate);
  w.Key("latency_us");
  WriteLatencyUs(w, r.latency_us, /*with_max=*/true);
  w.Field("kept_up", r.kept_up);
  w.Field("dropped_iterations", r.dropped_iterations);
  w.Field("max_send_lag_us", r.max_send_lag_us);
  w.Field("late_send_share", r.late_send_share);
  w.Field("ratelimit_evidence", r.ratelimit_evidence);
  w.Field("raw_path", r.raw_path);
  if (!r.validity_failure.empty()) w.Field("validity_failure", r.validity_failure);
  w.EndObject();
}

void WriteScenarioResult(JsonWriter& w, const ScenarioResult& r) {
  w.StartObject();
  w.Field("id", r.id);
  w.Field("policy", r.policy);
  w.Field("measured", r.measured);
  w.Field("error", r.error);
  w.Field("started_unix", r.started_unix);
  w.Field("finished_unix", r.finished_unix);
  w.Key("load");
  WriteLoadResult(w, r.load);
  w.Field("throughput_rps", r.throughput_rps);
  w.Field("ceiling_reached", r.ceiling_reached);
  w.Field("search", r.search);
  w.Field("confirmed", r.confirmed);
  w.Field("search_resolution", r.search_resolution);
  w.Field("search_load_s", r.search_load_s);
  w.Field("search_stop", r.search_stop);
  w.Array("steps", r.steps, [&](const StepResult& s) { WriteStep(w, s); });
  w.Array("checks", r.checks, [&](const ThresholdCheck& c) { WriteCheck(w, c); });
  w.Array("ratio_checks", r.ratio_checks, [&](const RatioCheck& c) { WriteRatioCheck(w, c); });
  w.Array("notes", r.notes, [&](const std::string& n) { w.String(n); });
  WriteValidity(w, r.validity, r.sut_usage);
  w.Array("repeats", r.repeats, [&](const LoadResult& l) { WriteLoadResult(w, l); });
  w.Key("spread");
  w.StartObject();
  for (const auto& [metric, sp] : r.spread) {
    w.Key(metric);
    w.StartObject();
    w.Field("min", sp.min);
    w.Field("median", sp.median);
    w.Field("max", sp.max);
    w.EndObject();
  }
  w.EndObject();
  if (r.ab) {  // A/B mode only (ab_report.h)
    w.Key("ab");
    WriteAbResult(w, *r.ab);
  }
  w.EndObject();
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
  detail::JsonWriter w;
  w.StartObject();
  w.Field("schema_version", kSchemaVersion);
  w.Key("scenario");
  detail::WriteScenarioResult(w, r);
  w.EndObject();
  return w.Take();
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
  detail::JsonWriter w;
  w.StartObject();
  w.Field("schema_version", kSchemaVersion);
  w.Key("meta");
  WriteRunMeta(w, meta);
  WriteSummaryBlocks(w, results);
  w.Array("same_run_ratios", SameRunRatios(results, meta.started_unix), [&](const Ratio& x) {
    w.StartObject();
    w.Field("scenario", x.scenario);
    w.Field("base", x.base);
    w.Field("metric", x.metric);
    w.Field("value", x.value);
    w.Field("base_value", x.base_value);
    w.Field("ratio", x.ratio);
    w.EndObject();
  });
  w.Array("scenarios", results, [&](const ScenarioResult& r) { detail::WriteScenarioResult(w, r); });
  w.EndObject();
  return w.Take();
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
