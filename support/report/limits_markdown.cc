#include "support/report/limits_markdown.h"

#include <fmt/format.h>

#include <functional>
#include <optional>

#include "support/core/units_format.h"
#include "support/report/console_outcome.h"
#include "support/report/limits_plot.h"
#include "support/judge/key_sweep_break.h"
#include "support/report/markdown_text.h"

namespace fvbench {

namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatUs;
using detail::MarkdownCell;

std::string Workers(const LimitRun& run, bool sweep) {
  if (sweep) return fmt::format("{} keys", run.accuracy.keys_planned);
  return run.workers > 0 ? fmt::format("{} worker{}", run.workers, run.workers == 1 ? "" : "s") : run.phase;
}

std::string KeyNamed(double fraction, const std::string& key, int count) {
  if (count == 0) return "none";
  return fmt::format("{} ({}; {} key{})", FormatPercent(fraction), key.empty() ? "—" : key, count,
                     count == 1 ? "" : "s");
}

struct Row {
  const char* label;
  std::function<std::string(const LimitRun&)> cell;
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> kRows = {
      {"keys seen / sent", [](const LimitRun& r) {
         return fmt::format("{} / {}", r.accuracy.keys_seen, r.accuracy.keys_planned);
       }},
      {"offered", [](const LimitRun& r) {
         return fmt::format("{} RPS for {} s (access log window)", FormatNumber(r.accuracy.offered_rps),
                            FormatNumber(r.accuracy.window_s));
       }},
      {"allowed per key (rate × window + burst)", [](const LimitRun& r) {
         return FormatNumber(r.accuracy.allowed_per_key);
       }},
      {"floor per key (rate × window − burst)", [](const LimitRun& r) {
         return FormatNumber(r.accuracy.floor_per_key);
       }},
      {"admitted per key min / median / max", [](const LimitRun& r) {
         return fmt::format("{} / {} / {}", FormatNumber(r.accuracy.admitted_min),
                            FormatNumber(r.accuracy.admitted_median), FormatNumber(r.accuracy.admitted_max));
       }},
      {"over-admission (worst key)", [](const LimitRun& r) {
         return KeyNamed(r.accuracy.over_admission, r.accuracy.over_admission_key, r.accuracy.keys_over);
       }},
      {"under-admission", [](const LimitRun& r) {
         return KeyNamed(r.accuracy.under_admission, "", r.accuracy.keys_under);
       }},
      {"worst 1 s window (rate + burst)", [](const LimitRun& r) {
         return fmt::format("{} of {} ({})", r.accuracy.worst_window_admitted,
                            FormatNumber(r.accuracy.window_allowed),
                            r.accuracy.worst_window_key.empty() ? "—" : r.accuracy.worst_window_key);
       }},
      {"429 share (a correct limiter's least)", [](const LimitRun& r) {
         return fmt::format("{} ({})", FormatPercent(r.accuracy.reject_share),
                            FormatPercent(r.accuracy.expected_reject_share));
       }},
      {"admitted / rejected / other", [](const LimitRun& r) {
         return fmt::format("{} / {} / {}", r.accuracy.admitted, r.accuracy.rejected, r.accuracy.other);
       }},
      {"log lines before the phase, left out", [](const LimitRun& r) {
         return fmt::format("{}", r.accuracy.before_window);
       }},
      {"p50 / p99, all statuses", [](const LimitRun& r) {
         return fmt::format("{} / {}", FormatUs(r.load.latency_us.p50), FormatUs(r.load.latency_us.p99));
       }},
  };
  return kRows;
}

void AppendScenario(std::string& out, const ScenarioResult& r, const Reference* comparison) {
  const LimitAccuracy& first = r.limits.front().accuracy;
  out += fmt::format("### Limiter accuracy: {}\n\n", MarkdownCell(r.id));
  out += fmt::format(
      "Token bucket per key: {} requests/s, burst {}; counted by edge's access log on the SUT host. A correct "
      "limiter admits to a key at most rate × window + burst, and in any 1 s at most rate + burst.\n\n",
      FormatNumber(first.limit.rate_per_s), FormatNumber(first.limit.burst));
  out += "| |";
  for (const LimitRun& run : r.limits) out += " " + MarkdownCell(Workers(run, !r.key_sweep.empty())) + " |";
  out += "\n|---|";
  for (size_t i = 0; i < r.limits.size(); ++i) out += "---|";
  out += "\n";
  for (const Row& row : Rows()) {
    out += fmt::format("| {} |", row.label);
    for (const LimitRun& run : r.limits) out += " " + MarkdownCell(row.cell(run)) + " |";
    out += "\n";
  }
  out += "\nWorst phase, as a threshold profile gates it: " + MarkdownCell(LimitWorstLine(r, comparison)) + ".\n";
  const std::vector<std::string> plots = LimitsPlotFiles(r);
  out += fmt::format(
      "\nPlots beside this file: [{0}]({0}) (admitted per key, sorted, against allowed and floor), [{1}]({1}) "
      "(admitted per second, all keys, against keys × rate).\n\n",
      plots[0], plots[1]);
}

std::string Mib(const std::optional<double>& v) { return v ? fmt::format("{:.1f} MiB", *v) : "not sampled"; }

// limits.keys: one row per point and the break line (key_sweep_break.h).
void AppendSweep(std::string& out, const ScenarioResult& r) {
  out += fmt::format("#### Limiter state at scale: {}\n\n", MarkdownCell(r.id));
  out += "| keys | measured | achieved | p50 / p99 | over-admission (keys over) | admitted per key max / allowed "
         "| 429 share | edge RSS end / peak |\n|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.key_sweep.size() && i < r.limits.size(); ++i) {
    const KeySweepPoint& p = r.key_sweep[i];
    const LimitRun& run = r.limits[i];
    const LimitAccuracy& a = run.accuracy;
    out += fmt::format("| {} | {} s | {} RPS | {} / {} | {} ({}) | {} / {} | {} | {} / {} |\n", p.keys,
                       FormatNumber(p.duration_s), FormatNumber(run.load.achieved_rps),
                       FormatUs(run.load.latency_us.p50), FormatUs(run.load.latency_us.p99),
                       FormatPercent(a.over_admission), a.keys_over, FormatNumber(a.admitted_max),
                       FormatNumber(a.allowed_per_key), FormatPercent(a.reject_share), Mib(p.fv_rss_mib),
                       Mib(p.fv_rss_peak_mib));
  }
  out += fmt::format("\nBreak point: {}. The shared dict's free space is not exposed by edge.\n\n",
                     MarkdownCell(KeySweepBreakLine(r)));
}

}  // namespace

void AppendLimitsMarkdown(std::string& out, const std::vector<ScenarioResult>& results,
                          const Reference* comparison) {
  for (const ScenarioResult& r : results) {
    if (!r.limits.empty()) AppendScenario(out, r, comparison);
    if (!r.key_sweep.empty()) AppendSweep(out, r);
  }
}

}  // namespace fvbench
