#include "support/report/reject_cost_markdown.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "support/core/units_format.h"
#include "support/report/markdown_text.h"

namespace fvbench {

namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;
using detail::MarkdownCell;

std::string Ratio(double v) { return std::isnan(v) ? "not known" : fmt::format("{:.2f} ×", v); }

std::string Cpu(const RejectCostPhase& p) {
  if (std::isnan(p.cpu_us_per_request)) return "not sampled";
  return fmt::format("{} µs ({} cores)", FormatNumber(std::round(p.cpu_us_per_request * 10) / 10),
                     detail::FormatFixed(p.fv_cpu_cores, 2));
}

struct Row {
  const char* label;
  std::function<std::string(const RejectCostPhase&)> cell;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> kRows = {
      {"keys (offered per key)", [](const RejectCostPhase& p) {
         return fmt::format("{} ({} RPS)", p.keys, FormatNumber(p.offered_per_key_rps));
       }},
      {"achieved", [](const RejectCostPhase& p) { return FormatNumber(p.load.achieved_rps) + " RPS"; }},
      {"2xx / 429 / other", [](const RejectCostPhase& p) {
         return p.by_status ? fmt::format("{} / {} / {}", p.ok, p.rejected, p.other)
                            : fmt::format("{} / {} non-2xx (not counted per status)", p.ok, p.rejected);
       }},
      {"429 share", [](const RejectCostPhase& p) { return FormatPercent(p.reject_share); }},
      {"p50 / p99 / p99.9, all statuses", [](const RejectCostPhase& p) {
         const LatencyUs& l = p.load.latency_us;
         return fmt::format("{} / {} / {}", FormatUs(l.p50), FormatUs(l.p99), FormatUs(l.p999));
       }},
      {"edge CPU per request", [](const RejectCostPhase& p) { return Cpu(p); }},
  };
  return kRows;
}

void AppendScenario(std::string& out, const ScenarioResult& r) {
  const RejectCostRun& run = *r.reject_cost;
  out += fmt::format("### What a rejection costs: {}\n\n", MarkdownCell(r.id));
  out += fmt::format(
      "Two phases at {} RPS each, token bucket per key {} tokens/s, burst {}: every key offered at most half its "
      "rate (all admitted), then a few keys offered at least 20 × their rate (mostly 429). The engine keeps one "
      "latency histogram per phase over all statuses, so the rejected phase's latency is that of a mix: read it "
      "beside its 429 share.\n\n",
      FormatNumber(run.rate_rps), FormatNumber(run.limit.rate_per_s), FormatNumber(run.limit.burst));
  out += "| | admitted | rejected |\n|---|---|---|\n";
  for (const Row& row : Rows()) {
    out += fmt::format("| {} | {} | {} |\n", row.label, MarkdownCell(row.cell(run.admitted)),
                       MarkdownCell(row.cell(run.rejected)));
  }
  out += fmt::format("\nRejected / admitted: p50 {}, p99 {}, edge CPU per request {}.\n\n", Ratio(run.p50_ratio),
                     Ratio(run.p99_ratio), Ratio(run.cpu_ratio));
}

}  // namespace

void AppendRejectCostMarkdown(std::string& out, const std::vector<ScenarioResult>& results) {
  for (const ScenarioResult& r : results) {
    if (r.reject_cost) AppendScenario(out, r);
  }
}

}  // namespace fvbench
