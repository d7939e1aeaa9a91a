#include "support/report/ab_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/plausible.h"
#include "support/core/json_writer.h"
#include "support/core/run_meta.h"
#include "support/judge/ab_compare.h"
#include "support/judge/noise_study.h"
#include "support/report/load_result_json.h"
#include "support/report/sut_timeline_json.h"

namespace fvbench {
namespace {

using nlohmann::json;

void WriteSide(detail::JsonWriter& w, const AbSide& s) {
  w.StartObject();
  w.Field("edge_source", s.edge_source);
  w.Field("edge_ref", s.edge_ref);
  w.Field("edge_commit", s.edge_commit);
  w.Field("policy", s.policy);
  w.Field("policy_source", s.policy_source);
  w.Array("runs", s.runs, [&](const LoadResult& r) { detail::WriteLoadResult(w, r); });
  w.Array("fv_cpu_cores", s.fv_cpu_cores, [&](double c) { w.Number(c); });
  // Only when a run was sampled; a run that was not is null.
  if (std::any_of(s.sut_timelines.begin(), s.sut_timelines.end(), [](const SutTimeline& t) { return !t.empty(); })) {
    w.Array("sut_timelines", s.sut_timelines, [&](const SutTimeline& t) {
      if (t.empty()) {
        w.Null();
      } else {
        detail::WriteSutTimelineValue(w, t);
      }
    });
  }
  w.EndObject();
}

// "sut_timelines": one per run, each a timeline or null; absent or null
// (older files, no run sampled): an empty timeline per run.
std::vector<SutTimeline> SutTimelinesFromJson(const json& v, const std::string& path, size_t runs) {
  using namespace detail;
  if (!v.contains("sut_timelines") || v.at("sut_timelines").is_null()) return std::vector<SutTimeline>(runs);
  const json& a = GetArray(v, "sut_timelines", path);
  const std::string tp = JoinPath(path, "sut_timelines");
  if (a.size() != runs) throw JsonFieldError{fmt::format("{}: {} timelines, but {} runs", tp, a.size(), runs)};
  std::vector<SutTimeline> out;
  for (size_t i = 0; i < a.size(); ++i) {
    out.push_back(a[i].is_null() ? SutTimeline{} : SutTimelineFromJsonValue(a[i], fmt::format("{}[{}]", tp, i)));
  }
  return out;
}

AbSide SideFromJson(const json& v, const std::string& path) {
  using namespace detail;
  RequireObject(v, path);
  AbSide s;
  s.edge_source = OptString(v, "edge_source", path);
  s.edge_ref = OptString(v, "edge_ref", path);
  s.edge_commit = OptString(v, "edge_commit", path);
  s.policy = OptString(v, "policy", path);
  s.policy_source = OptString(v, "policy_source", path);
  const json& runs = GetArray(v, "runs", path);
  for (size_t i = 0; i < runs.size(); ++i) {
    s.runs.push_back(LoadResultFromJsonValue(runs[i], fmt::format("{}[{}]", JoinPath(path, "runs"), i)));
  }
  if (v.contains("fv_cpu_cores") && !v.at("fv_cpu_cores").is_null()) {
    const json& cpu = GetArray(v, "fv_cpu_cores", path);
    for (size_t i = 0; i < cpu.size(); ++i) {
      if (cpu[i].is_null()) {
        s.fv_cpu_cores.push_back(std::numeric_limits<double>::quiet_NaN());
      } else if (cpu[i].is_number()) {
        const double c = cpu[i].get<double>();
        if (std::string why = WhyOutOfRange(c, 0, kMaxHostCores); !why.empty()) {
          throw JsonFieldError{fmt::format("{}[{}]: {}", JoinPath(path, "fv_cpu_cores"), i, why)};
        }
        s.fv_cpu_cores.push_back(c);
      } else {
        throw JsonFieldError{fmt::format("{}[{}]: expected a number or null, got {}", JoinPath(path, "fv_cpu_cores"),
                                         i, cpu[i].type_name())};
      }
    }
  }
  if (!s.fv_cpu_cores.empty() && s.fv_cpu_cores.size() != s.runs.size()) {
    throw JsonFieldError{fmt::format("{}: {} values, but {} runs", JoinPath(path, "fv_cpu_cores"),
                                     s.fv_cpu_cores.size(), s.runs.size())};
  }
  s.sut_timelines = SutTimelinesFromJson(v, path, s.runs.size());
  return s;
}

// "aa": {metric: {"runs", "cv", "spread", "drift"}}, in AbMetrics() order
// where known.
std::vector<AaMetricNoise> AaFromJson(const json& v, const std::string& path) {
  using namespace detail;
  RequireObject(v, path);
  std::vector<AaMetricNoise> out;
  for (const auto& [name, m] : v.items()) {
    const std::string mp = JoinPath(path, name);
    RequireObject(m, mp);
    AaMetricNoise n;
    n.metric = name;
    n.runs = static_cast<int>(OptUint(m, "runs", mp, 0));
    n.cv = OptNumberOrNull(m, "cv", mp);
    n.spread = OptNumberOrNull(m, "spread", mp);
    n.drift = OptNumberOrNull(m, "drift", mp);
    out.push_back(std::move(n));
  }
  auto rank = [](const std::string& name) {
    const auto& ms = AbMetrics();
    for (size_t i = 0; i < ms.size(); ++i) {
      if (ms[i].name == name) return i;
    }
    return ms.size();
  };
  std::stable_sort(out.begin(), out.end(),
                   [&](const AaMetricNoise& x, const AaMetricNoise& y) { return rank(x.metric) < rank(y.metric); });
  return out;
}

}  // namespace

namespace detail {

void WriteAbResult(JsonWriter& w, const AbResult& ab) {
  w.StartObject();
  w.Field("method", ab.method);
  w.Field("rate_rps", ab.rate_rps);
  w.Field("duration_s", ab.duration_s);
  w.Field("error", ab.error);
  if (ab.gate) w.Field("gate", true);  // AB_GATE=1; absent = false (older documents too)
  if (!ab.gate_metrics.empty()) {       // AB_GATE_METRICS; absent = every metric (older documents too)
    w.Array("gate_metrics", ab.gate_metrics, [&](const std::string& m) { w.String(m); });
  }
  w.Field("ci_level", kAbCiLevel);
  w.Key("a");
  WriteSide(w, ab.a);
  w.Key("b");
  WriteSide(w, ab.b);
  w.Array("metrics", ab.metrics, [&](const AbComparison& c) {
    w.StartObject();
    w.Field("metric", c.metric);
    w.Field("scale", AbScaleName(c.scale));
    w.Field("better", AbBetterName(c.better));
    w.Field("pairs", c.pairs);
    w.Field("a_median", c.a_median);
    w.Field("b_median", c.b_median);
    w.Field("delta", c.delta);
    w.Field("ci_low", c.ci_low);
    w.Field("ci_high", c.ci_high);
    w.Field("noise", c.noise);
    w.Field("detectable", c.detectable);
    w.Field("verdict", AbVerdictName(c.verdict));
    w.Field("verdict_text", AbVerdictText(c));
    w.Field("reason", c.reason);
    w.EndObject();
  });
  if (!ab.aa.empty()) {
    w.Key("aa");
    w.StartObject();
    for (const AaMetricNoise& n : ab.aa) {
      w.Key(n.metric);
      w.StartObject();
      w.Field("runs", n.runs);
      w.Field("cv", n.cv);
      w.Field("spread", n.spread);
      w.Field("drift", n.drift);
      w.EndObject();
    }
    w.EndObject();
  }
  w.EndObject();
}

AbResult AbResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  AbResult ab;
  ab.method = OptString(v, "method", path);
  ab.rate_rps = OptNumber(v, "rate_rps", path, 0);
  ab.duration_s = OptNumber(v, "duration_s", path, 0);
  ab.error = OptString(v, "error", path);
  ab.gate = OptBool(v, "gate", path, false);
  ab.gate_metrics = AbGateMetricsFromJson(v, path);
  ab.a = SideFromJson(GetObject(v, "a", path), JoinPath(path, "a"));
  ab.b = SideFromJson(GetObject(v, "b", path), JoinPath(path, "b"));
  const json& ms = GetArray(v, "metrics", path);
  for (size_t i = 0; i < ms.size(); ++i) {
    const std::string mp = fmt::format("{}[{}]", JoinPath(path, "metrics"), i);
    const json& m = ms[i];
    RequireObject(m, mp);
    AbComparison c;
    c.metric = GetString(m, "metric", mp);
    auto scale = AbScaleFromName(GetString(m, "scale", mp));
    auto better = AbBetterFromName(GetString(m, "better", mp));
    auto verdict = AbVerdictFromName(GetString(m, "verdict", mp));
    if (!scale) throw JsonFieldError{JoinPath(mp, "scale") + ": expected ratio or absolute"};
    if (!better) throw JsonFieldError{JoinPath(mp, "better") + ": expected lower or higher"};
    if (!verdict) {
      throw JsonFieldError{JoinPath(mp, "verdict") +
                           ": expected n/a, insufficient, no_difference, b_worse, b_better or not_estimable"};
    }
    c.scale = *scale;
    c.better = *better;
    c.verdict = *verdict;
    c.pairs = static_cast<int>(OptUint(m, "pairs", mp, 0));
    c.a_median = OptNumberOrNull(m, "a_median", mp).value_or(std::numeric_limits<double>::quiet_NaN());
    c.b_median = OptNumberOrNull(m, "b_median", mp).value_or(std::numeric_limits<double>::quiet_NaN());
    c.delta = OptNumberOrNull(m, "delta", mp);
    c.ci_low = OptNumberOrNull(m, "ci_low", mp);
    c.ci_high = OptNumberOrNull(m, "ci_high", mp);
    c.noise = OptNumberOrNull(m, "noise", mp);
    c.detectable = OptNumberOrNull(m, "detectable", mp);
    c.reason = OptString(m, "reason", mp);
    if ((c.verdict == AbVerdict::kBWorse || c.verdict == AbVerdict::kBBetter) && !(c.delta && c.ci_low && c.ci_high)) {
      throw JsonFieldError{mp + ": a significant verdict needs delta, ci_low and ci_high"};
    }
    ab.metrics.push_back(std::move(c));
  }
  if (v.contains("ci_level") && !v.at("ci_level").is_null()) {
    const double level = OptNumber(v, "ci_level", path, kAbCiLevel);
    if (!(level > 0 && level < 1)) {
      throw JsonFieldError{JoinPath(path, "ci_level") + ": expected a confidence level between 0 and 1, got " +
                           v.at("ci_level").dump()};
    }
  }
  if (v.contains("aa") && !v.at("aa").is_null()) AaFromJson(v.at("aa"), JoinPath(path, "aa"));  // checked only
  // The comparisons and the A/A noise are derived data: computed again from
  // the saved runs under this fvbench's rule (ab_json.h).
  ab.metrics = CompareAbRuns(ab.a, ab.b);
  ab.aa = IsAaStudy(ab.a, ab.b) ? NoiseStudy(ab.a, ab.b) : std::vector<AaMetricNoise>{};
  return ab;
}

}  // namespace detail

}  // namespace fvbench
