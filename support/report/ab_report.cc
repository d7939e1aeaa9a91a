#include "support/report/ab_report.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/report/results_io.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

using nlohmann::json;

void WriteSide(detail::JsonWriter& w, const AbSide& s) {
  w.StartObject();
  w.Field("edge_source", s.edge_source);
  w.Field("edge_ref", s.edge_ref);
  w.Field("edge_commit", s.edge_commit);
  w.Field("policy", s.policy);
  w.Array("runs", s.runs, [&](const LoadResult& r) { detail::WriteLoadResult(w, r); });
  w.Array("fv_cpu_cores", s.fv_cpu_cores, [&](double c) { w.Number(c); });
  w.EndObject();
}

AbSide SideFromJson(const json& v, const std::string& path) {
  using namespace detail;
  RequireObject(v, path);
  AbSide s;
  s.edge_source = OptString(v, "edge_source", path);
  s.edge_ref = OptString(v, "edge_ref", path);
  s.edge_commit = OptString(v, "edge_commit", path);
  s.policy = OptString(v, "policy", path);
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
        s.fv_cpu_cores.push_back(cpu[i].get<double>());
      } else {
        throw JsonFieldError{fmt::format("{}[{}]: expected a number or null, got {}", JoinPath(path, "fv_cpu_cores"),
                                         i, cpu[i].type_name())};
      }
    }
  }
  return s;
}

std::string MetricLabel(const std::string& m) {
  if (m == "p50_us") return "p50";
  if (m == "p90_us") return "p90";
  if (m == "p99_us") return "p99";
  if (m == "p999_us") return "p99.9";
  if (m == "error_rate") return "errors";
  if (m == "achieved_rps") return "achieved";
  if (m == "fv_cpu_cores") return "edge CPU";
  return m;
}

std::string Value(const std::string& m, double v) {
  if (!std::isfinite(v)) return "\u2014";
  if (m == "error_rate") return detail::FormatPercent(v);
  if (m == "achieved_rps") return detail::FormatRps(v) + " RPS";
  if (m == "fv_cpu_cores") return fmt::format("{:.2f} cores", v);
  return detail::FormatUs(v);
}

std::string NoiseText(const AbComparison& c) {
  if (!c.noise) return "\u2014";
  return c.scale == AbScale::kRatio ? fmt::format("{:.1f} %", *c.noise * 100)
                                    : fmt::format("{:.2f} pp", *c.noise * 100);
}

bool Significant(const AbComparison& c) {
  return c.verdict == AbVerdict::kBWorse || c.verdict == AbVerdict::kBBetter;
}

std::string SideLine(const char* name, const std::string& src, const std::string& ref, const std::string& commit,
                     const std::string& policies) {
  return fmt::format("  {}: edge {}{}{}, policies {}\n", name, src.empty() ? "?" : src,
                     ref.empty() ? "" : " ref " + ref, commit.empty() ? "" : " at " + commit,
                     policies.empty() ? "?" : policies);
}

}  // namespace

namespace detail {

void WriteAbResult(JsonWriter& w, const AbResult& ab) {
  w.StartObject();
  w.Field("method", ab.method);
  w.Field("rate_rps", ab.rate_rps);
  w.Field("duration_s", ab.duration_s);
  w.Field("error", ab.error);
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
    w.Field("verdict", AbVerdictName(c.verdict));
    w.Field("verdict_text", AbVerdictText(c));
    w.Field("reason", c.reason);
    w.EndObject();
  });
  w.EndObject();
}

AbResult AbResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  AbResult ab;
  ab.method = OptString(v, "method", path);
  ab.rate_rps = OptNumber(v, "rate_rps", path, 0);
  ab.duration_s = OptNumber(v, "duration_s", path, 0);
  ab.error = OptString(v, "error", path);
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
      throw JsonFieldError{JoinPath(mp, "verdict") + ": expected n/a, insufficient, no_difference, b_worse or b_better"};
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
    c.reason = OptString(m, "reason", mp);
    if ((c.verdict == AbVerdict::kBWorse || c.verdict == AbVerdict::kBBetter) && !(c.delta && c.ci_low && c.ci_high)) {
      throw JsonFieldError{mp + ": a significant verdict needs delta, ci_low and ci_high"};
    }
    ab.metrics.push_back(std::move(c));
  }
  return ab;
}

}  // namespace detail

std::string DescribeAbMetric(const AbComparison& c) {
  return fmt::format("{}: A {}, B {}, delta {} (95 % CI {}, noise {}): {}", MetricLabel(c.metric),
                     Value(c.metric, c.a_median), Value(c.metric, c.b_median), AbDeltaText(c), AbCiText(c),
                     NoiseText(c), AbVerdictText(c));
}

std::string RenderAbMarkdown(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  bool any = false;
  for (const ScenarioResult& r : results) any = any || r.ab.has_value();
  if (!any) return "";
  auto side = [](const char* name, const std::string& src, const std::string& ref, const std::string& commit,
                 const std::string& policies) {
    return fmt::format("- **{}**: edge `{}`{}{}, policies `{}`\n", name, src.empty() ? "?" : src,
                       ref.empty() ? "" : " ref `" + ref + "`", commit.empty() ? "" : " at `" + commit + "`",
                       policies.empty() ? "?" : policies);
  };
  std::string out = "## A/B comparison\n\n";
  out += side("A", meta.edge_source, meta.edge_ref, meta.edge_commit, meta.policy_dir);
  out += side("B", meta.edge_source_b, meta.edge_ref_b, meta.edge_commit_b, meta.policy_dir_b);
  out += "\nRuns alternate A B A B on freshly started edges; delta = exp(mean ln(B/A)) − 1 over the pairs "
         "(errors: mean B − A in percentage points) with a 95 % Student-t CI; significant when the CI "
         "excludes 0 and |delta| exceeds the larger min–max spread of either side.\n";
  for (const ScenarioResult& r : results) {
    if (!r.ab) continue;
    out += fmt::format("\n### {}\n\n{}\n\n", r.id, r.ab->method.empty() ? "?" : r.ab->method);
    if (!r.ab->error.empty()) out += "Stopped early: " + r.ab->error + "\n\n";
    out += "| metric | A median | B median | delta | 95 % CI | noise | verdict |\n|---|---|---|---|---|---|---|\n";
    for (const AbComparison& c : r.ab->metrics) {
      std::string verdict = AbVerdictText(c);
      if (Significant(c)) verdict = "**" + verdict + "**";
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", MetricLabel(c.metric), Value(c.metric, c.a_median),
                         Value(c.metric, c.b_median), AbDeltaText(c), AbCiText(c), NoiseText(c), verdict);
    }
  }
  return out;
}

std::string RenderAbSection(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  bool any = false;
  for (const ScenarioResult& r : results) any = any || r.ab.has_value();
  if (!any) return "";
  std::string out = "A/B comparison\n";
  out += SideLine("A", meta.edge_source, meta.edge_ref, meta.edge_commit, meta.policy_dir);
  out += SideLine("B", meta.edge_source_b, meta.edge_ref_b, meta.edge_commit_b, meta.policy_dir_b);
  out += "  Runs alternate A B A B ..., each on a freshly started edge after the warmup; run i of A and of B\n"
         "  form pair i. delta = exp(mean ln(B/A)) \u2212 1 over the pairs (errors: mean B \u2212 A, percentage\n"
         "  points), 95 % CI from Student's t (n \u2212 1); significant when the CI excludes 0 AND |delta| exceeds\n"
         "  the noise (the larger relative min\u2013max spread of the two sides' own runs).\n";
  // A column wider than its slot still ends with a space before the next one.
  auto PadRight = [](const std::string& cell, size_t width) { return detail::PadRight(cell + " ", width); };
  constexpr size_t kM = 10, kV = 13, kD = 10, kC = 18, kN = 9;
  std::vector<std::string> significant;
  for (const ScenarioResult& r : results) {
    if (!r.ab) continue;
    const AbResult& ab = *r.ab;
    out += fmt::format("\n{}: {}\n", r.id, ab.method.empty() ? "?" : ab.method);
    if (!ab.error.empty()) out += "  stopped early: " + ab.error + "\n";
    out += "  " + PadRight("metric", kM) + PadRight("A median", kV) + PadRight("B median", kV) +
           PadRight("delta", kD) + PadRight("95 % CI", kC) + PadRight("noise", kN) + "verdict\n";
    for (const AbComparison& c : ab.metrics) {
      out += "  " + PadRight(MetricLabel(c.metric), kM) + PadRight(Value(c.metric, c.a_median), kV) +
             PadRight(Value(c.metric, c.b_median), kV) + PadRight(AbDeltaText(c), kD) +
             PadRight(AbCiText(c), kC) + PadRight(NoiseText(c), kN) + AbVerdictText(c) + "\n";
      if (Significant(c)) {
        significant.push_back(fmt::format("{} {}: {}", r.id, MetricLabel(c.metric), AbVerdictText(c)));
      }
    }
  }
  if (significant.empty()) {
    out += "\nA/B: no significant difference on any metric\n";
  } else {
    out += fmt::format("\nA/B: {} significant difference{}:\n", significant.size(), significant.size() == 1 ? "" : "s");
    for (const std::string& s : significant) out += "  " + s + "\n";
  }
  return out;
}

}  // namespace fvbench
