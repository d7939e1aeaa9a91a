#include "support/report/markdown_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "support/core/metric_names.h"
#include "support/report/host_environment_markdown.h"
#include "support/report/limits_markdown.h"
#include "support/report/limits_plot.h"
#include "support/report/ab_timeline_plot.h"
#include "support/report/steps_timeline_plot.h"
#include "support/report/timeline_plot.h"
#include "support/report/profile_markdown.h"
#include "support/report/reject_cost_markdown.h"
#include "support/report/loadgens_markdown.h"
#include "support/core/units_format.h"
#include "support/judge/threshold_headroom.h"
#include "support/judge/thresholds.h"
#include "support/judge/validity.h"
#include "support/judge/verdict.h"
#include "support/report/ab_report.h"
#include "support/report/markdown_text.h"

namespace fvbench {

namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatRps;
using detail::FormatUs;
using detail::MarkdownCell;

struct Path {
  const char* id;
  const char* title;
};
constexpr Path kLatencyPaths[] = {{"latency.decision_service", "Decision Svc"},
                                  {"latency.reverse_proxy", "Reverse Proxy"},
                                  {"latency.raw_nginx", "Raw nginx"}};
constexpr Path kThroughputPaths[] = {{"throughput.simple", "Simple rate limit (1 rule)"},
                                     {"throughput.complex", "Complex policy (5 rules, JWT + loop detection)"},
                                     {"throughput.llm", "LLM token-budget policy"}};

// One table cell: text shown as written, or (Strong) the report's own bold
// verdict word.
struct Cell {
  Cell(const std::string& t) : text(t) {}  // NOLINT: every string is a cell
  Cell(const char* t) : text(t) {}          // NOLINT
  static Cell Strong(const char* t) {
    Cell c(t);
    c.strong = true;
    return c;
  }
  std::string text;
  bool strong = false;
};

void AppendRow(std::string& out, const std::vector<Cell>& cells) {
  out += '|';
  for (const Cell& c : cells) {
    out += c.strong ? " **" : " ";
    detail::AppendMarkdownCell(out, c.text);
    out += c.strong ? "** |" : " |";
  }
  out += '\n';
}

std::string OrUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

// " (ref 112 µs, +171.4 %)": the comparison's value and the delta of the
// RunReport (run_report.h ComparedMetric).
std::string Compare(const Reference* cmp, const std::string& value, const ComparedMetric& c) {
  std::string delta = c.delta ? detail::FormatDeltaFraction(*c.delta) : "";
  return delta.empty() ? fmt::format(" ({} {})", cmp->label(), value)
                       : fmt::format(" ({} {}, {})", cmp->label(), value, delta);
}

// REPEAT: " (812 µs–1.10 ms, n=3)"; "" without repeats.
std::string SpreadText(const ScenarioResult& r, const char* metric, bool rps) {
  auto it = r.spread.find(metric);
  if (it == r.spread.end() || r.repeats.size() < 2) return "";
  const Spread& s = it->second;
  return rps ? fmt::format(" ({}–{}, n={})", FormatRps(s.min), FormatRps(s.max), r.repeats.size())
             : fmt::format(" ({}–{}, n={})", FormatUs(s.min), FormatUs(s.max), r.repeats.size());
}

std::string StateCell(const ScenarioResult* r) { return r == nullptr ? "not run" : "FAILED"; }

void VerdictSection(std::string& out, const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  const Reference* cmp = report.cmp();
  const VerdictCounts& n = report.counts;
  int total = static_cast<int>(results.size());
  const char* overall = n.fail > 0 ? "FAIL" : (n.invalid > 0 ? "INVALID" : (total > 0 ? "PASS" : "FAIL"));
  int not_run = 0;
  for (const char* id : kLatencyScenarios) not_run += FindResult(results, id) == nullptr;
  for (const char* id : kThroughputScenarios) not_run += FindResult(results, id) == nullptr;
  out += fmt::format("**{}** — {} PASS, {} FAIL, {} INVALID of {} scenario{} run", overall, n.pass, n.fail,
                     n.invalid, total, total == 1 ? "" : "s");
  if (not_run > 0) out += fmt::format(" ({} not run)", not_run);
  if (total == 0) out += " (no results: nothing was measured)";
  out += "\n\n";
  if (cmp != nullptr) {
    out += fmt::format("Cells show the {} value and the delta (measured − {}) / {}; {}: {}.\n\n",
                       cmp->baseline ? "baseline" : "reference", cmp->label(), cmp->label(),
                       cmp->baseline ? "baseline" : "reference", MarkdownCell(cmp->describe()));
  } else {
    out += "No reference or baseline: cells show measured values only.\n\n";
  }
  if (!report.environment_mismatch.empty()) out += "**Warning:** " + MarkdownCell(report.environment_mismatch) + ".\n\n";
  for (const std::string& p : report.meta.preflight) out += "**Preflight:** " + MarkdownCell(p) + "\n\n";
  if (results.empty()) return;
  out += "| Scenario | Verdict | Why |\n|---|---|---|\n";
  for (const VerdictLine& v : report.verdicts) {
    AppendRow(out, {v.id, VerdictName(v.verdict), v.reason.empty() ? "—" : v.reason});
  }
  out += "\n";
}

void LatencySection(std::string& out, const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  const RunMeta& m = report.meta;
  const Reference* cmp = report.cmp();
  bool any = false;
  for (const Path& p : kLatencyPaths) any = any || FindResult(results, p.id) != nullptr;
  if (!any) return;
  out += fmt::format("### Latency @ {} RPS ({} s measured after {} s warmup)\n\n", FormatNumber(m.latency_rps),
                     FormatNumber(m.latency_dur_s), FormatNumber(m.warmup_s));
  if (!report.load_mismatch.empty()) out += "**Warning:** " + MarkdownCell(report.load_mismatch) + ".\n\n";
  out += "| Pct |";
  for (const Path& p : kLatencyPaths) out += fmt::format(" {} |", p.title);
  out += "\n|---|";
  for (size_t i = 0; i < std::size(kLatencyPaths); ++i) out += "---:|";
  out += "\n";
  for (const LatencyMetric& pct : kLatencyMetrics) {
    std::vector<Cell> cells = {pct.label};
    for (const Path& p : kLatencyPaths) {
      const ScenarioResult* r = FindResult(results, p.id);
      if (r == nullptr || !r->measured) {
        cells.push_back(StateCell(r));
        continue;
      }
      double us = r->load.latency_us.*pct.field;
      std::string cell = detail::FormatLatency(r->load.latency_us, us);
      if (std::string(pct.name) != kMetricMax) cell += SpreadText(*r, pct.name, false);
      if (const ComparedMetric* c = report.Compared(p.id, pct.name)) cell += Compare(cmp, FormatUs(c->comparison), *c);
      cells.push_back(cell);
    }
    AppendRow(out, cells);
  }
  std::vector<Cell> errors = {"errors"}, achieved = {"achieved"};
  for (const Path& p : kLatencyPaths) {
    const ScenarioResult* r = FindResult(results, p.id);
    if (r == nullptr || !r->measured) {
      errors.push_back(StateCell(r));
      achieved.push_back(StateCell(r));
      continue;
    }
    const LoadResult& l = r->load;
    errors.push_back(detail::FormatErrors(l));
    achieved.push_back(fmt::format("{} of {} RPS, {}", FormatRps(l.achieved_rps), FormatRps(l.target_rps),
                                   l.kept_up ? "kept up" : fmt::format("NOT kept up ({} dropped)",
                                                                       l.dropped_iterations)));
  }
  AppendRow(out, errors);
  AppendRow(out, achieved);
  out += "\n";
}

std::string ThroughputValue(const ScenarioResult& r) {
  std::string v;
  if (r.engine_limited) {
    v = fmt::format("at least {} (engine-limited: the load generator, not the SUT, was the limit)",
                    FormatRps(r.throughput_rps));
  } else if (r.ceiling_reached) {
    v = fmt::format("at least {} (ceiling reached)", FormatRps(r.throughput_rps));
  } else if (r.search == "bisect" && !r.search_resolution) {
    v = fmt::format("at least {} (no step failed)", FormatRps(r.throughput_rps));
  } else {
    v = FormatRps(r.throughput_rps);
  }
  return v + SpreadText(r, "rps", true);
}

void StepsDetails(std::string& out, const ScenarioResult& r) {
  if (r.steps.empty()) return;
  out += fmt::format("<details><summary>{}: {} step{} ({} search)</summary>\n\n", r.id, r.steps.size(),
                     r.steps.size() == 1 ? "" : "s", r.search.empty() ? "seed" : r.search);
  out += "| # | Role | Target RPS | Measured RPS | Duration | p99 | Errors | Step |\n"
         "|---:|---|---:|---:|---:|---:|---:|---|\n";
  for (size_t i = 0; i < r.steps.size(); ++i) {
    const StepResult& s = r.steps[i];
    AppendRow(out, {std::to_string(i + 1), s.role.empty() ? "step" : s.role, FormatRps(s.target_rps),
                FormatRps(s.load.achieved_rps), FormatNumber(s.load.duration_s) + " s", detail::FormatLatency(s.load.latency_us, s.load.latency_us.p99),
                FormatPercent(s.load.error_rate), s.verdict.empty() ? (s.passed ? "pass" : "fail") : s.verdict});
  }
  out += "\n</details>\n\n";
}

void ThroughputSection(std::string& out, const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  const RunMeta& m = report.meta;
  const Reference* cmp = report.cmp();
  bool any = false;
  for (const Path& p : kThroughputPaths) any = any || FindResult(results, p.id) != nullptr;
  if (!any) return;
  out += fmt::format("### Max sustained throughput (cap {} RPS, {} s steps)\n\n", FormatNumber(m.search_max),
                     FormatNumber(m.step_dur_s));
  out += "| Configuration | Result (RPS, measured) | Confirmed | Resolution | Load time | Errors |\n"
         "|---|---:|---|---:|---:|---:|\n";
  for (const Path& p : kThroughputPaths) {
    const ScenarioResult* r = FindResult(results, p.id);
    if (r == nullptr || !r->measured) {
      std::string s = StateCell(r);
      // A search that ran steps and found no number still says why and what load it used.
      const bool searched = r != nullptr && !r->search.empty() && !r->steps.empty();
      AppendRow(out, {p.title, s, "—", searched ? fmt::format("none ({})", NoResolutionReason(*r)) : "—",
                      searched && r->search_load_s > 0 ? FormatNumber(r->search_load_s) + " s" : "—", "—"});
      continue;
    }
    std::string value = ThroughputValue(*r);
    if (const ComparedMetric* c = report.Compared(p.id, kMetricRps)) {
      value += Compare(cmp, (c->comparison_lower_bound ? "≥ " : "") + FormatRps(c->comparison), *c);
    }
    std::string confirmed = r->engine_limited       ? "no (engine-limited: add load generators or cores)"
                            : r->search == "bisect" ? (r->confirmed ? "yes" : "NO (UNCONFIRMED)")
                                                    : "— (seed steps: no confirmation)";
    std::string resolution = r->search_resolution ? detail::FormatFixed(*r->search_resolution * 100, 1) + " %"
                                                  : fmt::format("none ({})", NoResolutionReason(*r));
    std::string load = r->search_load_s > 0 ? FormatNumber(r->search_load_s) + " s" : "—";
    if (!r->search_stop.empty()) load += "; stopped early: " + r->search_stop;
    AppendRow(out, {p.title, value, confirmed, resolution, load, FormatPercent(r->load.error_rate)});
  }
  out += "\n";
}

// Every search step of each throughput scenario, collapsed (<details>).
void StepsSection(std::string& out, const std::vector<ScenarioResult>& results) {
  for (const Path& p : kThroughputPaths) {
    if (const ScenarioResult* r = FindResult(results, p.id)) StepsDetails(out, *r);
  }
}

void RatiosSection(std::string& out, const std::vector<Ratio>& ratios) {
  if (ratios.empty()) return;
  out += "### Same-run ratios\n\nLatency over raw nginx, throughput over the simple policy: same run, same hosts.\n\n";
  out += "| Scenario | Yardstick | Metric | Value | Yardstick's | Ratio |\n|---|---|---|---:|---:|---:|\n";
  for (const Ratio& x : ratios) {
    bool rps = x.metric == "rps";
    AppendRow(out, {x.scenario, x.base, MetricLabel(x.metric), rps ? FormatRps(x.value) + " RPS" : FormatUs(x.value),
                rps ? FormatRps(x.base_value) + " RPS" : FormatUs(x.base_value), detail::FormatFixed(x.ratio, 2) + "x"});
  }
  out += "\n";
}

std::string MetricValueText(const std::string& metric, double v, bool is_limit) {
  if (std::isnan(v)) return "not measured";
  if (IsFractionMetric(metric)) return is_limit ? detail::FormatPercentLimit(v) : FormatPercent(v);
  if (metric == "rps" || metric == "achieved_rps") return FormatNumber(v) + " RPS";
  const auto ends_with = [&](std::string_view tail) {
    return metric.size() > tail.size() && metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("_us")) return FormatNumber(v) + " µs";
  if (ends_with("_ratio")) return FormatNumber(v) + " ×";  // reject_p99_ratio, ...
  return FormatNumber(v);
}

void ChecksSection(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any = false, any_ratio = false;
  for (const auto& r : results) {
    any = any || !r.checks.empty();
    any_ratio = any_ratio || !r.ratio_checks.empty();
  }
  if (!any && !any_ratio) return;
  out += "### Threshold checks\n\n";
  if (any) {
    out += "| Scenario | Metric | Measured | Limit | Reference | Check | Catches |\n|---|---|---:|---:|---:|---|---|\n";
    for (const auto& r : results) {
      for (const ThresholdCheck& c : r.checks) {
        AppendRow(out, {r.id, c.metric, MetricValueText(c.metric, c.measured, false),
                    c.op + " " + MetricValueText(c.metric, c.limit, true),
                    c.reference ? MetricValueText(c.metric, *c.reference, false) : "—", c.passed ? Cell("pass") : Cell::Strong("FAIL"),
                    HeadroomCell(CheckHeadroom(c))});
      }
    }
    out += "\n";
  }
  if (any_ratio) {
    out += "Same-run ratio checks (evaluated by fvbench.report):\n\n"
           "| Scenario | Check | Check result | Catches |\n|---|---|---|---|\n";
    for (const auto& r : results) {
      for (const RatioCheck& c : r.ratio_checks) {
        AppendRow(out, {r.id, DescribeRatioCheck(c), c.passed ? Cell("pass") : Cell::Strong("FAIL"),
                        HeadroomCell(RatioCheckHeadroom(c))});
      }
    }
    out += "\n";
  }
}

bool AnyError(const std::vector<ScenarioResult>& results) {
  return std::any_of(results.begin(), results.end(),
                     [](const ScenarioResult& r) { return !r.measured || !r.error.empty(); });
}
bool AnyNotes(const std::vector<ScenarioResult>& results) {
  return std::any_of(results.begin(), results.end(), [](const ScenarioResult& r) { return !r.notes.empty(); });
}

// Its heading, before the validity table, the errors and the notes.
void ValidityHeading(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any_validity = std::any_of(results.begin(), results.end(),
                                  [](const ScenarioResult& r) { return !r.validity.empty(); });
  if (any_validity || AnyError(results) || AnyNotes(results)) out += "### Validity, errors and notes\n\n";
}

void ValiditySection(std::string& out, const std::vector<ScenarioResult>& results) {
  if (std::none_of(results.begin(), results.end(), [](const ScenarioResult& r) { return !r.validity.empty(); })) {
    return;
  }
  out += "| Scenario | Validity | Failed checks (measured vs limit) | Notes | Passed |\n|---|---|---|---|---|\n";
  for (const auto& r : results) {
    if (r.validity.empty()) continue;
    std::vector<std::string> failed, info, ok;
    for (const ValidityCheck& v : r.validity) {
      if (v.informational) info.push_back(DescribeValidity(v));
      else if (!v.passed) failed.push_back(DescribeValidity(v));
      else if (std::find(ok.begin(), ok.end(), v.name) == ok.end()) ok.push_back(v.name);
    }
    AppendRow(out, {r.id, ValidityPassed(r.validity) ? Cell("valid") : Cell::Strong("INVALID"),
                failed.empty() ? "—" : fmt::format("{}", fmt::join(failed, "\n")),
                info.empty() ? "—" : fmt::format("{}", fmt::join(info, "\n")),
                ok.empty() ? "—" : fmt::format("{}", fmt::join(ok, ", "))});
  }
  out += "\n";
}

// An error message in a fenced block, verbatim (the fence is longer than any
// run of backticks in it), its first kMaxErrorBytes.
constexpr size_t kMaxErrorBytes = 16384;

void ErrorsSection(std::string& out, const std::vector<ScenarioResult>& results) {
  if (!AnyError(results)) return;
  out += "Errors:\n\n";
  for (const auto& r : results) {
    if (r.measured && r.error.empty()) continue;
    std::string text = r.error.empty() ? "(no error message recorded)" : r.error;
    if (text.size() > kMaxErrorBytes) {
      size_t cut = kMaxErrorBytes;
      while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      text = fmt::format("{}\n… ({} more bytes; the whole message is in results.json beside this file: "
                         "scenarios[].error)", text.substr(0, cut), text.size() - cut);
    }
    const std::string fence = detail::MarkdownFence(text);
    out += fmt::format("- {} ({}):\n\n  {}text\n", detail::MarkdownCodeSpan(r.id),
                       r.measured ? "after measuring" : "FAILED before measuring", fence);
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      out += "  ";
      out.append(text, start, nl == std::string::npos ? std::string::npos : nl - start);
      out += "\n";
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    out += "  " + fence + "\n\n";
  }
}

void NotesSection(std::string& out, const std::vector<ScenarioResult>& results) {
  if (!AnyNotes(results)) return;
  out += "Notes:\n\n";
  for (const auto& r : results) {
    for (const std::string& n : r.notes) out += fmt::format("- {}: {}\n", detail::MarkdownCodeSpan(r.id), MarkdownCell(n));
  }
  out += "\n";
}

void ResourcesSection(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any = false;
  for (const auto& r : results) any = any || !r.sut_usage.empty();
  if (!any) return;
  out += "### SUT resources (reported phase)\n\n"
         "| Scenario | Service | Processes | CPU (cores) | RSS (MiB) | Peak RSS (MiB) |\n"
         "|---|---|---:|---:|---:|---:|\n";
  for (const auto& r : results) {
    for (const ServiceUsage& u : r.sut_usage) {
      AppendRow(out, {r.id, u.service, std::to_string(u.processes), detail::FormatFixed(u.cpu_cores, 2),
                  detail::FormatFixed(u.rss_mib, 1), detail::FormatFixed(u.rss_peak_mib, 1)});
    }
  }
  out += "\n";
}

std::string Cores(int n) { return n > 0 ? fmt::format("{} cores", n) : "cores unknown"; }

std::string Pinning(const RunMeta& m) {
  if (m.sut_cpuset.empty() && m.loadgen_cpuset.empty()) {
    if (m.mode == "remote" && m.sut_host != m.loadgen_host && m.machines.empty()) {
      return "unpinned (engine and SUT on separate hosts)";
    }
    if (m.mode == "remote" && !m.machines.empty()) return "unpinned: engine and SUT share one kernel's cores";
    return "unpinned: engine and SUT share cores";
  }
  return fmt::format("SUT cpuset {}, engine cpuset {}{}", m.sut_cpuset.empty() ? "unpinned" : m.sut_cpuset,
                     m.loadgen_cpuset.empty() ? "unpinned" : m.loadgen_cpuset, m.cpusets_auto ? " (auto split)" : "");
}

void EnvironmentSection(std::string& out, const RunMeta& m, const Reference* cmp) {
  out += "### Environment\n\n| | |\n|---|---|\n";
  std::string engine = m.engine_version.empty() ? OrUnknown(m.engine) : m.engine_version;
  if (!m.engine.empty() && engine.find(m.engine) == std::string::npos) engine = m.engine + " (" + engine + ")";
  std::string sut = m.sut_runtime_version.empty() ? OrUnknown(m.sut_runtime) : m.sut_runtime_version;
  if (!m.lua_module_version.empty()) sut += ", lua-nginx-module " + m.lua_module_version;
  AppendRow(out, {"Load engine", engine});
  AppendRow(out, {"SUT runtime", sut});
  AppendRow(out, {"fairvisor edge", fmt::format("{} @ {}", OrUnknown(m.edge_source),
                                            m.edge_commit.empty() ? "commit unknown" : m.edge_commit)});
  AppendRow(out, {"Mode", OrUnknown(m.mode)});
  AppendRow(out, {"Hosts", fmt::format("SUT {} ({}), load generator {} ({})", OrUnknown(m.sut_host), Cores(m.sut_cores),
                                   OrUnknown(m.loadgen_host), Cores(m.loadgen_cores))});
  AppendRow(out, {"CPU pinning", Pinning(m)});
  if (!m.machines.empty()) AppendRow(out, {"One machine", m.machines});
  if (std::string w = DescribeNginxWorkers(m); !w.empty()) AppendRow(out, {"nginx workers", w});
  AppendRow(out, {"Run", fmt::format("{} .. {}, fvbench {}", OrUnknown(FormatUtc(m.started_unix)),
                                 OrUnknown(FormatUtc(m.finished_unix)), OrUnknown(m.fvbench_version))});
  AppendRow(out, {"Thresholds", m.thresholds_profile.empty() ? "none" : m.thresholds_profile});
  AppendRow(out, {cmp != nullptr && cmp->baseline ? "Baseline" : "Reference",
              cmp == nullptr ? "none" : cmp->describe()});
  out += "\n";
}

// The SVG plots fvbench.report writes beside report.md (PlotFilesOfRun: only
// those of scenarios that were run). Links, not images: a CI job summary
// cannot show files of the run, a viewer of the report directory can.
void PlotsSection(std::string& out, const std::vector<ScenarioResult>& results) {
  std::vector<std::string> files = PlotFilesOfRun(results);
  // The limits plots are linked from the "Limiter accuracy" section.
  for (const ScenarioResult& r : results) {
    for (const std::string& f : LimitsPlotFiles(r)) files.erase(std::remove(files.begin(), files.end(), f), files.end());
  }
  if (files.empty()) return;
  // Each kind's description after its last file (the kinds come in runs).
  auto kind = [](const std::string& f) {
    if (f == "latency.svg") return " (percentile curves)";
    if (f.rfind("timeline_", 0) == 0) return " (the measured phase per interval: scheduled and completed per second, "
                                             "late sends, stalls shaded)";
    if (f.rfind("steps_timeline_", 0) == 0) return " (every search step per interval on one time axis, stalls "
                                                   "shaded)";
    if (f.rfind("ab_timeline_", 0) == 0) return " (every A/B run per interval on one time axis in run order, "
                                                "side A and side B apart, stalls shaded, edge CPU under it)";
    return " (search steps: p99, errors and achieved rate per target)";
  };
  out += "Plots beside this file: ";
  for (size_t i = 0; i < files.size(); ++i) {
    out += fmt::format("{}[{}]({})", i == 0 ? "" : ", ", files[i], files[i]);
    if (i + 1 == files.size() || std::string_view(kind(files[i])) != kind(files[i + 1])) out += kind(files[i]);
  }
  out += ".\n\n";
}

}  // namespace

std::vector<std::string> PlotFilesOfRun(const std::vector<ScenarioResult>& results) {
  auto has = [&](const char* id) {
    return std::any_of(results.begin(), results.end(), [&](const ScenarioResult& r) { return r.id == id; });
  };
  std::vector<std::string> files;
  if (std::any_of(std::begin(kLatencyScenarios), std::end(kLatencyScenarios), has)) files.push_back("latency.svg");
  for (const char* id : kThroughputScenarios) {
    if (!has(id)) continue;
    std::string name = id;  // throughput.simple -> throughput_simple.svg
    std::replace(name.begin(), name.end(), '.', '_');
    files.push_back(name + ".svg");
  }
  for (const ScenarioResult& r : results) {
    for (std::string& f : LimitsPlotFiles(r)) files.push_back(std::move(f));
  }
  for (const ScenarioResult& r : results) {
    if (std::string f = TimelinePlotFile(r); !f.empty()) files.push_back(std::move(f));
  }
  for (const ScenarioResult& r : results) {
    if (std::string f = StepsTimelinePlotFile(r); !f.empty()) files.push_back(std::move(f));
  }
  for (const ScenarioResult& r : results) {
    if (std::string f = AbTimelinePlotFile(r); !f.empty()) files.push_back(std::move(f));
  }
  return files;
}

std::string RenderMarkdownReport(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                                 const Reference* comparison) {
  return RenderMarkdownReport(BuildRunReport(results, meta, comparison));
}

std::string RenderMarkdownReport(const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  const RunMeta& meta = report.meta;
  const Reference* comparison = report.cmp();
  // Each part rendered on its own; those that can grow without bound (steps,
  // A/B runs, checks, validity, errors, notes) say where their whole text is,
  // should the report have to be shortened (FitMarkdownSections).
  using Render = std::function<void(std::string&)>;
  const std::pair<Render, const char*> parts[] = {
      {[&](std::string& o) { o += fmt::format("## fvbench: fairvisor edge benchmark ({})\n\n", MarkdownCell(OrUnknown(meta.mode))); }, ""},
      {[&](std::string& o) { VerdictSection(o, report); }, ""},
      {[&](std::string& o) { LatencySection(o, report); }, ""},
      {[&](std::string& o) { ThroughputSection(o, report); }, ""},
      {[&](std::string& o) { StepsSection(o, results); }, "scenarios[].steps"},
      {[&](std::string& o) { AppendLimitsMarkdown(o, results, comparison); }, "scenarios[].limits"},  // limits scenarios only
      {[&](std::string& o) { AppendRejectCostMarkdown(o, results); }, "scenarios[].reject_cost"},  // limits.reject_cost only
      {[&](std::string& o) { o += RenderAbMarkdown(results, meta); }, "scenarios[].ab"},  // "" outside A/B mode
      {[&](std::string& o) { AppendProfileMarkdown(o, results); }, "scenarios[].profile"},  // FVBENCH_PROFILE only
      {[&](std::string& o) { PlotsSection(o, results); }, ""},
      {[&](std::string& o) { RatiosSection(o, report.ratios); }, "same_run_ratios"},
      {[&](std::string& o) { ChecksSection(o, results); }, "scenarios[].checks, scenarios[].ratio_checks"},
      {[&](std::string& o) { ValidityHeading(o, results); }, ""},
      {[&](std::string& o) { ValiditySection(o, results); }, "scenarios[].validity"},
      {[&](std::string& o) { ErrorsSection(o, results); }, "scenarios[].error"},
      {[&](std::string& o) { NotesSection(o, results); }, "scenarios[].notes"},
      {[&](std::string& o) { ResourcesSection(o, results); }, "scenarios[].sut_usage"},
      {[&](std::string& o) { AppendLoadgensMarkdown(o, results); }, "scenarios[].load.loadgens"},  // several load generators only
      {[&](std::string& o) { EnvironmentSection(o, meta, comparison); }, ""},
      {[&](std::string& o) { AppendHostEnvironmentMarkdown(o, meta.environments); }, ""},  // recorded environments only
  };
  std::vector<detail::MarkdownSection> sections;
  sections.reserve(std::size(parts));
  for (const auto& [render, whole_text_in] : parts) {
    detail::MarkdownSection s{{}, whole_text_in};
    render(s.text);
    sections.push_back(std::move(s));
  }
  return detail::FitMarkdownSections(sections, kMaxReportMdBytes);
}

}  // namespace fvbench
