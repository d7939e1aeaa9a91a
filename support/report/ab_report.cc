#include "support/report/ab_report.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "support/core/json_fields.h"
#include "support/core/metric_names.h"
#include "support/core/json_writer.h"
#include "support/report/markdown_text.h"
#include "support/report/profile_markdown.h"
#include "support/report/results_io.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

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

std::string RenderAbMarkdown(const std::vector<ScenarioResult>& results, const RunMeta& meta) {
  bool any = false;
  for (const ScenarioResult& r : results) any = any || r.ab.has_value();
  if (!any) return "";
  using detail::MarkdownCodeSpan;
  auto side = [](const char* name, const std::string& src, const std::string& ref, const std::string& commit,
                 const std::string& policies) {
    return fmt::format("- **{}**: edge {}{}{}, policies {}\n", name, MarkdownCodeSpan(src.empty() ? "?" : src),
                       ref.empty() ? "" : " ref " + MarkdownCodeSpan(ref),
                       commit.empty() ? "" : " at " + MarkdownCodeSpan(commit),
                       MarkdownCodeSpan(policies.empty() ? "?" : policies));
  };
  std::string out = "## A/B comparison\n\n";
  out += side("A", meta.edge_source, meta.edge_ref, meta.edge_commit, meta.policy_dir);
  out += side("B", meta.edge_source_b, meta.edge_ref_b, meta.edge_commit_b, meta.policy_dir_b);
  out += "\nRuns alternate A B A B on freshly started edges; delta = exp(mean ln(B/A)) − 1 over the pairs "
         "(errors: mean B − A in percentage points) with a 95 % Student-t CI; significant when the CI "
         "excludes 0 and |delta| exceeds the larger min–max spread of either side. Never significant: pairs whose "
         "differences vary by no more than rounding to the resolution (1 µs, one request) can make them (the CI is "
         "not estimable), or a difference within that resolution.\n";
  if (meta.ab_gate) out += "\nAB_GATE=1: a metric where B is significantly worse fails its scenario.\n";
  for (const ScenarioResult& r : results) {
    if (!r.ab) continue;
    out += fmt::format("\n### {}\n\n{}\n\n", detail::MarkdownCell(r.id),
                       detail::MarkdownCell(r.ab->method.empty() ? "?" : r.ab->method));
    if (!r.ab->error.empty()) out += "Stopped early: " + detail::MarkdownCell(r.ab->error) + "\n\n";
    out += "| metric | A median | B median | delta | 95 % CI | noise | verdict |\n|---|---|---|---|---|---|---|\n";
    for (const AbComparison& c : r.ab->metrics) {
      using detail::MarkdownCell;
      std::string verdict = MarkdownCell(AbVerdictText(c));
      if (Significant(c)) verdict = "**" + verdict + "**";
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", MarkdownCell(AbMetricLabel(c.metric)),
                         MarkdownCell(AbValueText(c.metric, c.a_median)), MarkdownCell(AbValueText(c.metric, c.b_median)),
                         MarkdownCell(AbDeltaText(c)), MarkdownCell(AbCiText(c)), MarkdownCell(AbNoiseText(c)), verdict);
    }
    if (r.profile_b) AppendProfileGrowthMarkdown(out, *r.profile_b);
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
         "  the noise (the larger relative min\u2013max spread of the two sides' own runs); never when the pairs'\n"
         "  differences vary by no more than rounding to the resolution (1 \u00b5s, one request) can make them\n"
         "  (\"not estimable\"), or the difference is within that resolution.\n";
  if (meta.ab_gate) out += "  AB_GATE=1: a metric where B is significantly worse fails its scenario.\n";
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
      out += "  " + PadRight(AbMetricLabel(c.metric), kM) + PadRight(AbValueText(c.metric, c.a_median), kV) +
             PadRight(AbValueText(c.metric, c.b_median), kV) + PadRight(AbDeltaText(c), kD) +
             PadRight(AbCiText(c), kC) + PadRight(AbNoiseText(c), kN) + AbVerdictText(c) + "\n";
      if (Significant(c)) {
        significant.push_back(fmt::format("{} {}: {}", r.id, AbMetricLabel(c.metric), AbVerdictText(c)));
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
