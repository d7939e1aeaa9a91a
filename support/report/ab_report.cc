#include "support/report/ab_report.h"

#include <fmt/format.h>

#include <algorithm>
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

// Under the gate, B significantly worse on a metric AB_GATE_METRICS leaves
// out: reported, marked "(not gated)".
bool WorseNotGated(const AbResult& ab, const AbComparison& c) {
  return ab.gate && c.verdict == AbVerdict::kBWorse && !ab.Gates(c.metric);
}
constexpr const char* kNotGated = " (not gated)";

// The AB_GATE line, "" without the gate: "AB_GATE=1: a metric where B is
// significantly worse fails its scenario." (every metric), or "AB_GATE=1 on
// edge CPU/req (AB_GATE_METRICS=fv_cpu_us_per_request): B significantly
// worse there fails its scenario; other metrics are reported, not gated.";
// `code` formats the variable's value (a Markdown code span or as is).
std::string GateLine(const RunMeta& meta, std::string (*code)(const std::string&)) {
  if (!meta.ab_gate) return "";
  if (meta.ab_gate_metrics.empty()) return "AB_GATE=1: a metric where B is significantly worse fails its scenario.";
  std::vector<std::string> labels;
  for (const std::string& m : meta.ab_gate_metrics) labels.push_back(AbMetricLabel(m));
  return fmt::format("AB_GATE=1 on {} ({}): B significantly worse there fails its scenario; other metrics are "
                     "reported, not gated.",
                     fmt::join(labels, ", "),
                     code(fmt::format("AB_GATE_METRICS={}", fmt::join(meta.ab_gate_metrics, ","))));
}
std::string AsIs(const std::string& s) { return s; }
std::string CodeSpan(const std::string& s) { return detail::MarkdownCodeSpan(s); }

std::string SideLine(const char* name, const std::string& src, const std::string& ref, const std::string& commit,
                     const std::string& policies) {
  return fmt::format("  {}: edge {}{}{}, policies {}\n", name, src.empty() ? "?" : src,
                     ref.empty() ? "" : " ref " + ref, commit.empty() ? "" : " at " + commit,
                     policies.empty() ? "?" : policies);
}

// "With 10 pairs this comparison could detect changes of p99 40.0 % or more,
// edge CPU/req 6.0 % or more (90 % power, 99 % CI)."; "" when no metric has
// a detectable change.
std::string DetectableSentence(const AbResult& ab) {
  std::string list;
  int pairs = 0;
  for (const AbComparison& c : ab.metrics) {
    if (!c.detectable || !std::isfinite(*c.detectable)) continue;
    pairs = std::max(pairs, c.pairs);
    list += fmt::format("{}{} {} or more", list.empty() ? "" : ", ", AbMetricLabel(c.metric), AbDetectableText(c));
  }
  if (list.empty()) return "";
  return fmt::format("With {} pairs this comparison could detect changes of {} (90 % power, {} CI).", pairs, list,
                     CiLevelText());
}

// The A/A study's heading words and its noise rows (cells: metric, runs, CV,
// spread, drift).
constexpr const char* kAaHeading = "A/A noise study";
constexpr const char* kAaWhat =
    "Both sides are the same edge (source, ref, commit) and policy: every difference is run-to-run noise.";

std::vector<std::string> AaCells(const AaMetricNoise& n) {
  auto rel = [](const std::optional<double>& v) {
    return v && std::isfinite(*v) ? detail::FormatFixed(*v * 100, 1) + " %" : std::string("\u2014");
  };
  const std::string drift = n.drift && std::isfinite(*n.drift) ? detail::FormatDeltaFraction(*n.drift) : "\u2014";
  return {AbMetricLabel(n.metric), std::to_string(n.runs), rel(n.cv), rel(n.spread), drift};
}

std::string AaIntro(const AbResult& ab) {
  int runs = 0;
  for (const AaMetricNoise& n : ab.aa) runs = std::max(runs, n.runs);
  return fmt::format("Noise over all {} runs of both sides in the order they ran: CV = SD / mean, spread = "
                     "(max \u2212 min) / median, drift = mean of the later half against the earlier half.",
                     runs);
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
  out += fmt::format(
      "\nRuns alternate A B A B on freshly started edges; delta = exp(mean ln(B/A)) − 1 over the pairs "
      "(errors: mean B − A in percentage points) with a {0} Student-t CI; significant when the CI "
      "excludes 0. Noise: the larger min–max spread of either side's runs (shown, not a criterion). Never "
      "significant: pairs whose differences vary by no more than rounding to the resolution (1 µs, one request) "
      "can make them (the CI is not estimable), unless every pair differs by more than the resolution in the same "
      "direction (then significant, the CI being the pairs' differences widened by the resolution), or a difference "
      "within that resolution. Detectable: the smallest "
      "change these pairs would call significant with 90 % power (docs/ab.md \"Detectable change\").\n",
      CiLevelText());
  if (std::string gate = GateLine(meta, CodeSpan); !gate.empty()) out += "\n" + gate + "\n";
  for (const ScenarioResult& r : results) {
    if (!r.ab) continue;
    const bool aa = !r.ab->aa.empty();
    out += fmt::format("\n### {}{}\n\n{}\n\n", detail::MarkdownCell(r.id), aa ? std::string(": ") + kAaHeading : "",
                       detail::MarkdownCell(r.ab->method.empty() ? "?" : r.ab->method));
    if (aa) out += std::string(kAaWhat) + "\n\n";
    if (!r.ab->error.empty()) out += "Stopped early: " + detail::MarkdownCell(r.ab->error) + "\n\n";
    out += "| metric | A median | B median | delta | " + CiLevelText() + " CI | noise | detectable | verdict |\n"
           "|---|---|---|---|---|---|---|---|\n";
    for (const AbComparison& c : r.ab->metrics) {
      using detail::MarkdownCell;
      std::string verdict = MarkdownCell(AbVerdictText(c));
      if (Significant(c)) verdict = "**" + verdict + "**";
      if (WorseNotGated(*r.ab, c)) verdict += kNotGated;
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", MarkdownCell(AbMetricLabel(c.metric)),
                         MarkdownCell(AbValueText(c.metric, c.a_median)), MarkdownCell(AbValueText(c.metric, c.b_median)),
                         MarkdownCell(AbDeltaText(c)), MarkdownCell(AbCiText(c)), MarkdownCell(AbNoiseText(c)),
                         MarkdownCell(AbDetectableText(c)), verdict);
    }
    if (std::string d = DetectableSentence(*r.ab); !d.empty()) out += "\n" + d + "\n";
    if (aa) {
      out += "\n" + AaIntro(*r.ab) + "\n\n| metric | runs | CV | spread | drift |\n|---|---|---|---|---|\n";
      for (const AaMetricNoise& n : r.ab->aa) {
        std::vector<std::string> cells = AaCells(n);
        out += fmt::format("| {} | {} | {} | {} | {} |\n", detail::MarkdownCell(cells[0]), cells[1], cells[2], cells[3],
                           cells[4]);
      }
    }
    if (r.profile_b) AppendProfileGrowthMarkdown(out, *r.profile_b);
  }
  // A blank line ends the last table: the next section's first line would
  // otherwise be read as one more row.
  if (!out.ends_with("\n\n")) out += "\n";
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
         "  points), " + CiLevelText() + " CI from Student's t (n \u2212 1); significant when the CI excludes 0\n"
         "  (noise, the larger relative min\u2013max spread of the two sides' own runs, is shown, not a criterion);\n"
         "  never when the pairs' differences vary by no more than rounding to the resolution (1 \u00b5s, one\n"
         "  request) can make them (\"not estimable\") unless every pair differs by more than the resolution in\n"
         "  the same direction (then significant, the CI being the pairs' differences widened by the resolution),\n"
         "  or the difference is within that resolution. Detectable:\n"
         "  the smallest change these pairs would call significant with 90 % power.\n";
  if (std::string gate = GateLine(meta, AsIs); !gate.empty()) out += "  " + gate + "\n";
  // A column wider than its slot still ends with a space before the next one.
  auto PadRight = [](const std::string& cell, size_t width) { return detail::PadRight(cell + " ", width); };
  constexpr size_t kM = 13, kV = 13, kD = 10, kC = 18, kN = 9, kT = 11;
  std::vector<std::string> significant;
  for (const ScenarioResult& r : results) {
    if (!r.ab) continue;
    const AbResult& ab = *r.ab;
    const bool aa = !ab.aa.empty();
    out += fmt::format("\n{}{}: {}\n", r.id, aa ? std::string(" (") + kAaHeading + ")" : "",
                       ab.method.empty() ? "?" : ab.method);
    if (aa) out += "  " + std::string(kAaWhat) + "\n";
    if (!ab.error.empty()) out += "  stopped early: " + ab.error + "\n";
    out += "  " + PadRight("metric", kM) + PadRight("A median", kV) + PadRight("B median", kV) +
           PadRight("delta", kD) + PadRight(CiLevelText() + " CI", kC) + PadRight("noise", kN) + PadRight("detectable", kT) +
           "verdict\n";
    for (const AbComparison& c : ab.metrics) {
      out += "  " + PadRight(AbMetricLabel(c.metric), kM) + PadRight(AbValueText(c.metric, c.a_median), kV) +
             PadRight(AbValueText(c.metric, c.b_median), kV) + PadRight(AbDeltaText(c), kD) +
             PadRight(AbCiText(c), kC) + PadRight(AbNoiseText(c), kN) + PadRight(AbDetectableText(c), kT) +
             AbVerdictText(c) + (WorseNotGated(ab, c) ? kNotGated : "") + "\n";
      if (Significant(c)) {
        significant.push_back(fmt::format("{} {}: {}{}", r.id, AbMetricLabel(c.metric), AbVerdictText(c),
                                          WorseNotGated(ab, c) ? kNotGated : ""));
      }
    }
    if (std::string d = DetectableSentence(ab); !d.empty()) out += "  " + d + "\n";
    if (aa) {
      out += "  " + AaIntro(ab) + "\n";
      out += "  " + PadRight("metric", kM) + PadRight("runs", 6) + PadRight("CV", 9) + PadRight("spread", 9) + "drift\n";
      for (const AaMetricNoise& n : ab.aa) {
        std::vector<std::string> cells = AaCells(n);
        out += "  " + PadRight(cells[0], kM) + PadRight(cells[1], 6) + PadRight(cells[2], 9) + PadRight(cells[3], 9) +
               cells[4] + "\n";
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
