#include "support/report/results_io.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/core/plausible.h"
#include "support/judge/ratios.h"
#include "support/judge/threshold_headroom.h"
#include "support/report/ab_json.h"
#include "support/report/limits_json.h"
#include "support/core/path_text.h"
#include "support/report/profile_json.h"
#include "support/report/reject_cost_json.h"
#include "support/report/load_result_json.h"
#include "support/report/sut_timeline_json.h"

namespace fvbench {

using nlohmann::json;
using detail::GetNumberOrNaN;
using detail::WriteLatencyUs;

namespace {

constexpr int kSchemaVersion = 1;

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
      c.measured = GetNumberOrNaN(a[i], "measured", p);
      c.limit = GetNumberOrNaN(a[i], "limit", p);
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
      x.cpu_cores = GetNumberOrNaN(a[i], "cpu_cores", p);
      x.rss_mib = GetNumberOrNaN(a[i], "rss_mib", p);
      x.rss_peak_mib = GetNumberOrNaN(a[i], "rss_peak_mib", p);
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
  detail::WriteSutTimeline(w, s.sut_timeline);
  w.EndObject();
}

// What a check catches (threshold_headroom.h), derived from its other
// fields and not read back: {"kind": "rise", "size": 184.8, "unit": "relative"}.
void WriteHeadroom(detail::JsonWriter& w, const Headroom& h) {
  w.Key("headroom");
  w.StartObject();
  w.Field("kind", HeadroomKindName(h.kind));
  w.Field("size", h.size);
  w.Field("unit", h.points ? "points" : "relative");
  w.EndObject();
}

void WriteCheck(detail::JsonWriter& w, const ThresholdCheck& c) {
  w.StartObject();
  w.Field("metric", c.metric);
  w.Field("op", c.op);
  w.Field("measured", c.measured);
  w.Field("limit", c.limit);
  w.Field("reference", c.reference);
  if (c.censored) w.Field("censored", true);  // measured is a lower bound (timeouts)
  w.Field("passed", c.passed);
  WriteHeadroom(w, CheckHeadroom(c));
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
  WriteHeadroom(w, RatioCheckHeadroom(c));
  w.EndObject();
}

// reference.json key of a scenario id: "latency.raw_nginx" -> ("latency", "raw_nginx").
std::pair<std::string, std::string> SplitId(const std::string& id) {
  auto dot = id.find('.');
  if (dot == std::string::npos) return {id, ""};
  return {id.substr(0, dot), id.substr(dot + 1)};
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

void WriteScenarioResult(JsonWriter& w, const ScenarioResult& r) {
  w.StartObject();
  w.Field("id", r.id);
  w.Field("policy", r.policy);
  w.Field("measured", r.measured);
  w.Field("error", r.error);
  if (r.interrupted) w.Field("interrupted", true);  // absent = false (older documents too)
  w.Field("started_unix", r.started_unix);
  w.Field("finished_unix", r.finished_unix);
  if (r.load_s) w.Field("load_s", *r.load_s);
  if (r.fixed_cost_s) w.Field("fixed_cost_s", *r.fixed_cost_s);
  if (!r.fixed_cost_parts_s.empty()) {
    w.Key("fixed_cost_parts_s");
    w.StartObject();
    for (const auto& [part, seconds] : r.fixed_cost_parts_s) w.Field(part, seconds);
    w.EndObject();
  }
  w.Key("load");
  WriteLoadResult(w, r.load);
  w.Field("throughput_rps", r.throughput_rps);
  w.Field("ceiling_reached", r.ceiling_reached);
  w.Field("search", r.search);
  w.Field("confirmed", r.confirmed);
  w.Field("search_resolution", r.search_resolution);
  w.Field("search_load_s", r.search_load_s);
  w.Field("search_stop", r.search_stop);
  if (r.search_rule) {  // absent in results written before the rule was recorded
    w.Key("search_rule");
    w.StartObject();
    w.Field("slo_p99_us", r.search_rule->slo_p99_us);
    w.Field("max_error_rate", r.search_rule->max_error_rate);
    w.Field("min_achieved_fraction", r.search_rule->min_achieved_fraction);
    w.Field("require_kept_up", r.search_rule->require_kept_up);
    w.EndObject();
  }
  if (r.engine_limited) w.Field("engine_limited", true);  // absent = false (older documents too)
  w.Array("steps", r.steps, [&](const StepResult& s) { WriteStep(w, s); });
  w.Array("checks", r.checks, [&](const ThresholdCheck& c) { WriteCheck(w, c); });
  w.Array("ratio_checks", r.ratio_checks, [&](const RatioCheck& c) { WriteRatioCheck(w, c); });
  w.Array("notes", r.notes, [&](const std::string& n) { w.String(n); });
  WriteValidity(w, r.validity, r.sut_usage);
  detail::WriteSutTimeline(w, r.sut_timeline);
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
  if (r.ab) {  // A/B mode only (ab_json.h)
    w.Key("ab");
    WriteAbResult(w, *r.ab);
  }
  if (!r.limits.empty()) {  // limits scenarios only (limits_json.h)
    w.Array("limits", r.limits, [&](const LimitRun& run) { WriteLimitRun(w, run); });
  }
  if (r.reject_cost) {  // limits.reject_cost only (reject_cost_json.h)
    w.Key("reject_cost");
    WriteRejectCostRun(w, *r.reject_cost);
  }
  if (r.profile) {  // FVBENCH_PROFILE on only (profile_json.h)
    w.Key("profile");
    WriteProfileResult(w, *r.profile);
  }
  if (r.profile_b) {  // A/B mode with FVBENCH_PROFILE only: side B's, with the diffs
    w.Key("profile_b");
    WriteProfileResult(w, *r.profile_b);
  }
  if (!r.key_sweep.empty()) {  // limits.keys only: one per point, index for index with "limits"
    w.Array("key_sweep", r.key_sweep, [&](const KeySweepPoint& p) {
      w.StartObject();
      w.Field("keys", p.keys);
      w.Field("duration_s", p.duration_s);
      w.Field("fv_rss_mib", p.fv_rss_mib);
      w.Field("fv_rss_peak_mib", p.fv_rss_peak_mib);
      w.EndObject();
    });
  }
  w.EndObject();
}

namespace {

StepResult StepFromJson(const json& v, const std::string& sp) {
  RequireObject(v, sp);
  StepResult s;
  s.target_rps = GetNumberOrNaN(v, "target_rps", sp);
  s.passed = GetBool(v, "passed", sp);
  s.verdict = GetString(v, "verdict", sp);
  s.load = LoadResultFromJsonValue(GetObject(v, "load", sp), JoinPath(sp, "load"));
  ReadValidity(v, sp, s.validity, s.sut_usage);
  s.sut_timeline = detail::ReadSutTimeline(v, sp);
  s.role = OptString(v, "role", sp, "");
  return s;
}

ThresholdCheck CheckFromJson(const json& v, const std::string& cp) {
  RequireObject(v, cp);
  ThresholdCheck c;
  c.metric = GetString(v, "metric", cp);
  c.op = GetString(v, "op", cp);
  c.measured = GetNumberOrNaN(v, "measured", cp);
  c.limit = GetNumberOrNaN(v, "limit", cp);
  c.reference = OptNumberOrNull(v, "reference", cp);
  c.censored = OptBool(v, "censored", cp, false);
  c.passed = GetBool(v, "passed", cp);
  return c;
}

RatioCheck RatioCheckFromJson(const json& v, const std::string& cp) {
  RequireObject(v, cp);
  RatioCheck c;
  c.metric = GetString(v, "metric", cp);
  c.op = GetString(v, "op", cp);
  c.measured = GetNumberOrNaN(v, "measured", cp);
  c.ratio_to = GetString(v, "ratio_to", cp);
  c.factor = GetNumberOrNaN(v, "factor", cp);
  c.base = GetNumberOrNaN(v, "base", cp);
  c.limit = GetNumberOrNaN(v, "limit", cp);
  c.passed = GetBool(v, "passed", cp);
  return c;
}

// A rule no search can have used is refused, naming the key.
StepPassRule PassRuleFromJson(const json& rule, const std::string& rp) {
  StepPassRule sr;
  sr.slo_p99_us = GetNumber(rule, "slo_p99_us", rp);
  sr.max_error_rate = GetNumber(rule, "max_error_rate", rp);
  sr.min_achieved_fraction = GetNumber(rule, "min_achieved_fraction", rp);
  sr.require_kept_up = GetBool(rule, "require_kept_up", rp);
  if (!(sr.slo_p99_us > 0) || !(sr.max_error_rate >= 0 && sr.max_error_rate <= 1) ||
      !(sr.min_achieved_fraction >= 0 && sr.min_achieved_fraction <= 1)) {
    throw JsonFieldError{fmt::format("{}: slo_p99_us must be > 0 and the rates fractions 0..1", rp)};
  }
  return sr;
}

bool Present(const json& v, const char* key) { return v.contains(key) && !v.at(key).is_null(); }

// "fixed_cost_parts_s": an object of part -> seconds (optional).
std::map<std::string, double> ReadCostParts(const json& v, const std::string& path) {
  std::map<std::string, double> parts;
  if (!Present(v, "fixed_cost_parts_s")) return parts;
  const json& o = v.at("fixed_cost_parts_s");
  const std::string p = JoinPath(path, "fixed_cost_parts_s");
  if (!o.is_object()) throw JsonFieldError{fmt::format("{}: expected an object, got {}", p, o.type_name())};
  for (const auto& [part, seconds] : o.items()) {
    const std::string field = JoinPath(p, part);
    if (std::find(std::begin(kFixedCostPartNames), std::end(kFixedCostPartNames), part) ==
        std::end(kFixedCostPartNames)) {
      throw JsonFieldError{fmt::format("{}: not a part of the fixed cost (expected one of {})", field,
                                       fmt::join(kFixedCostPartNames, ", "))};
    }
    if (!seconds.is_number() || !std::isfinite(seconds.get<double>()) || seconds.get<double>() < 0) {
      throw JsonFieldError{fmt::format("{}: expected seconds (a finite number >= 0), got {}", field, seconds.dump())};
    }
    parts[part] = seconds.get<double>();
  }
  return parts;
}

// The fields added after the first documents: optional on read, so
// schema_version 1 documents without them still read.
void ReadLaterFields(const json& v, const std::string& path, ScenarioResult& r) {
  r.search = OptString(v, "search", path, "");
  r.confirmed = OptBool(v, "confirmed", path, false);
  r.search_resolution = OptNumberOrNull(v, "search_resolution", path);
  r.search_load_s = OptNumber(v, "search_load_s", path, 0);
  r.search_stop = OptString(v, "search_stop", path, "");
  r.engine_limited = OptBool(v, "engine_limited", path, false);
  r.interrupted = OptBool(v, "interrupted", path, false);
  if (Present(v, "search_rule")) {
    r.search_rule = PassRuleFromJson(GetObject(v, "search_rule", path), JoinPath(path, "search_rule"));
  }
  if (Present(v, "ratio_checks")) {
    const json& rc = GetArray(v, "ratio_checks", path);
    for (size_t i = 0; i < rc.size(); ++i) {
      r.ratio_checks.push_back(RatioCheckFromJson(rc[i], fmt::format("{}[{}]", JoinPath(path, "ratio_checks"), i)));
    }
  }
  if (Present(v, "repeats")) {
    const json& reps = GetArray(v, "repeats", path);
    for (size_t i = 0; i < reps.size(); ++i) {
      r.repeats.push_back(LoadResultFromJsonValue(reps[i], fmt::format("{}[{}]", JoinPath(path, "repeats"), i)));
    }
  }
  if (Present(v, "spread")) {
    std::string spath = JoinPath(path, "spread");
    for (const auto& [metric, sp] : GetObject(v, "spread", path).items()) {
      std::string mp = JoinPath(spath, metric);
      RequireObject(sp, mp);
      r.spread[metric] = Spread{GetNumberOrNaN(sp, "min", mp), GetNumberOrNaN(sp, "median", mp), GetNumberOrNaN(sp, "max", mp)};
    }
  }
}

}  // namespace

ScenarioResult ScenarioResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  ScenarioResult r;
  r.id = GetString(v, "id", path);
  if (!detail::IsScenarioId(r.id)) {
    throw JsonFieldError{fmt::format("{}: {:?} is not a scenario id (1 to 100 of A-Z a-z 0-9 . _ -, not starting "
                                     "with '.' or '-'); it would name files",
                                     JoinPath(path, "id"), r.id)};
  }
  r.measured = GetBool(v, "measured", path);
  r.error = GetString(v, "error", path);
  r.load = LoadResultFromJsonValue(GetObject(v, "load", path), JoinPath(path, "load"));
  r.throughput_rps = GetNumberOrNaN(v, "throughput_rps", path);
  r.ceiling_reached = GetBool(v, "ceiling_reached", path);
  const json& steps = GetArray(v, "steps", path);
  for (size_t i = 0; i < steps.size(); ++i) {
    r.steps.push_back(StepFromJson(steps[i], fmt::format("{}[{}]", JoinPath(path, "steps"), i)));
  }
  const json& checks = GetArray(v, "checks", path);
  for (size_t i = 0; i < checks.size(); ++i) {
    r.checks.push_back(CheckFromJson(checks[i], fmt::format("{}[{}]", JoinPath(path, "checks"), i)));
  }
  const json& notes = GetArray(v, "notes", path);
  for (size_t i = 0; i < notes.size(); ++i) {
    if (!notes[i].is_string()) {
      throw JsonFieldError{fmt::format("{}[{}]: expected a string, got {}", JoinPath(path, "notes"), i,
                                       notes[i].type_name())};
    }
    r.notes.push_back(notes[i].get<std::string>());
  }
  ReadLaterFields(v, path, r);
  ReadValidity(v, path, r.validity, r.sut_usage);
  r.sut_timeline = detail::ReadSutTimeline(v, path);
  r.policy = GetString(v, "policy", path);
  if (v.contains("ab") && !v.at("ab").is_null()) r.ab = AbResultFromJsonValue(v.at("ab"), JoinPath(path, "ab"));
  if (Present(v, "limits")) {
    const json& runs = GetArray(v, "limits", path);
    for (size_t i = 0; i < runs.size(); ++i) {
      r.limits.push_back(LimitRunFromJsonValue(runs[i], fmt::format("{}[{}]", JoinPath(path, "limits"), i)));
    }
  }
  if (Present(v, "reject_cost")) {
    r.reject_cost = RejectCostRunFromJsonValue(v.at("reject_cost"), JoinPath(path, "reject_cost"));
  }
  if (Present(v, "profile")) r.profile = ProfileResultFromJsonValue(v.at("profile"), JoinPath(path, "profile"));
  if (Present(v, "profile_b")) {
    r.profile_b = ProfileResultFromJsonValue(v.at("profile_b"), JoinPath(path, "profile_b"));
  }
  if (Present(v, "key_sweep")) {
    const json& points = GetArray(v, "key_sweep", path);
    if (points.size() != r.limits.size()) {
      throw JsonFieldError{fmt::format("{}: {} points, but {} limits runs (one per point)", JoinPath(path, "key_sweep"),
                                       points.size(), r.limits.size())};
    }
    for (size_t i = 0; i < points.size(); ++i) {
      const std::string pp = fmt::format("{}[{}]", JoinPath(path, "key_sweep"), i);
      RequireObject(points[i], pp);
      KeySweepPoint p;
      p.keys = static_cast<int>(GetUint(points[i], "keys", pp));
      p.duration_s = GetNumber(points[i], "duration_s", pp);
      p.fv_rss_mib = OptNumberOrNull(points[i], "fv_rss_mib", pp);
      p.fv_rss_peak_mib = OptNumberOrNull(points[i], "fv_rss_peak_mib", pp);
      r.key_sweep.push_back(p);
    }
  }
  r.started_unix = GetNumberOrNaN(v, "started_unix", path);
  r.finished_unix = GetNumberOrNaN(v, "finished_unix", path);
  r.load_s = OptNumberOrNull(v, "load_s", path);
  r.fixed_cost_s = OptNumberOrNull(v, "fixed_cost_s", path);
  r.fixed_cost_parts_s = ReadCostParts(v, path);
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
  return RunResultsToJson(BuildRunReport(results, meta, nullptr));
}

std::string RunResultsToJson(const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  detail::JsonWriter w;
  w.StartObject();
  w.Field("schema_version", kSchemaVersion);
  w.Key("meta");
  WriteRunMeta(w, report.meta);
  WriteSummaryBlocks(w, results);
  w.Array("same_run_ratios", report.ratios, [&](const Ratio& x) {
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

Result<void> SaveRunResults(const std::string& path, const RunReport& report) {
  return detail::WriteTextFile(path, RunResultsToJson(report));
}

}  // namespace fvbench
