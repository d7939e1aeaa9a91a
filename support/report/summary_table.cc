#include "support/report/summary_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>

#include "support/core/metric_names.h"
#include "support/core/units_format.h"
#include "support/judge/threshold_headroom.h"
#include "support/judge/thresholds.h"
#include "support/judge/validity.h"
#include "support/report/ab_report.h"
#include "support/report/console_outcome.h"

namespace fvbench {

namespace {

using detail::FormatNumber;
using detail::FormatPercent;
using detail::FormatRps;
using detail::FormatUs;
using detail::FormatUsBare;
using detail::PadRight;

constexpr size_t kWidth = 92;
constexpr size_t kPctCol = 8;
constexpr size_t kLatCol = 24;
constexpr size_t kThrLabelCol = 48;
constexpr size_t kThrValueCol = 30;

std::string Repeat(const char* s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

// Indents continuation lines of a multi-line message.
std::string Indented(const std::string& text, const std::string& indent) {
  std::string out;
  for (char c : text) {
    out += c;
    if (c == '\n') out += indent;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
  return out;
}

// REPEAT: the min..max of a metric over the runs, e.g. "812 µs–1.10 ms, n=3";
// "" without repeats.
std::string SpreadText(const ScenarioResult& r, const char* metric, bool rps) {
  auto it = r.spread.find(metric);
  if (it == r.spread.end() || r.repeats.size() < 2) return "";
  const Spread& s = it->second;
  std::string range;
  if (rps) {
    range = fmt::format("{}–{}", FormatRps(s.min), FormatRps(s.max));
  } else {
    bool same_unit = (s.min >= 1000) == (s.max >= 1000);
    range = fmt::format("{}–{}", same_unit ? FormatUsBare(s.min, s.max) : FormatUs(s.min), FormatUs(s.max));
  }
  return fmt::format("{}, n={}", range, r.repeats.size());
}

// " (ref 112, +171.4 %)": the comparison value (reference or baseline, named
// by `label`) and the signed change against it (RunReport::compared); no
// delta when the report has none.
std::string CompareText(const char* label, const std::string& value, const ComparedMetric& c) {
  std::string delta = c.delta ? detail::FormatDeltaFraction(*c.delta) : "";
  return delta.empty() ? fmt::format(" ({} {})", label, value) : fmt::format(" ({} {}, {})", label, value, delta);
}

std::string LatencyCellWithSpread(const ScenarioResult& r, const LatencyMetric& m, const ComparedMetric* cmp,
                                  const char* label) {
  const double us = r.load.latency_us.*m.field;
  // The maximum is not a percentile: no spread.
  std::string spread = std::string(m.name) == kMetricMax ? "" : SpreadText(r, m.name, false);
  std::string cell = detail::FormatLatency(r.load.latency_us, us);
  if (!spread.empty()) cell += " (" + spread + ")";
  if (cmp == nullptr) return cell;
  bool same_unit = (us >= 1000) == (cmp->comparison >= 1000);
  return cell + CompareText(label, same_unit ? FormatUsBare(cmp->comparison, us) : FormatUs(cmp->comparison), *cmp);
}

struct LatencyColumn {
  const char* id;
  const char* title;
};
constexpr LatencyColumn kLatencyColumns[] = {{"latency.decision_service", "Decision Svc"},
                                             {"latency.reverse_proxy", "Reverse Proxy"},
                                             {"latency.raw_nginx", "Raw nginx"}};

struct ThroughputRow {
  const char* id;
  const char* label;
};
constexpr ThroughputRow kThroughputRows[] = {
    {"throughput.simple", "Simple rate limit (1 rule)"},
    {"throughput.complex", "Complex policy (5 rules, JWT + loop detection)"},
    {"throughput.llm", "LLM token-budget policy"}};

std::string CpuLine(const RunMeta& m) {
  if (m.sut_cpuset.empty() && m.loadgen_cpuset.empty()) {
    if (m.mode == "remote" && m.sut_host != m.loadgen_host && m.machines.empty()) {
      return "unpinned (engine and SUT on separate hosts)";
    }
    if (m.mode == "remote" && !m.machines.empty()) return "unpinned: engine and SUT share one kernel's cores";
    return "unpinned: engine and SUT share cores";
  }
  return fmt::format("SUT cpuset {}, engine cpuset {}{}", m.sut_cpuset.empty() ? "unpinned" : m.sut_cpuset,
                     m.loadgen_cpuset.empty() ? "unpinned" : m.loadgen_cpuset,
                     m.cpusets_auto ? " (auto split)" : "");
}

std::string Cores(int n) { return n > 0 ? fmt::format("{} cores", n) : "cores unknown"; }

std::string OrUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

void Header(std::string& out, const RunReport& report) {
  const RunMeta& m = report.meta;
  const Reference* ref = report.cmp();
  std::string hr = Repeat("═", kWidth);
  out += hr + "\n";
  out += fmt::format("  FAIRVISOR BENCHMARK RESULTS ({})\n", OrUnknown(m.mode));
  out += hr + "\n\n";
  auto line = [&](const char* k, const std::string& v) { out += fmt::format("  {}{}\n", PadRight(k, 12), v); };
  line("Engine", m.engine_version.empty() ? OrUnknown(m.engine) : m.engine_version);
  std::string sut = m.sut_runtime_version.empty() ? OrUnknown(m.sut_runtime) : m.sut_runtime_version;
  if (!m.lua_module_version.empty()) sut += ", lua-nginx-module " + m.lua_module_version;
  line("SUT", sut);
  line("Edge", fmt::format("{} @ {}", OrUnknown(m.edge_source),
                           m.edge_commit.empty() ? "commit unknown" : m.edge_commit));
  line("Hosts", fmt::format("SUT {} ({}), load generator {} ({})", OrUnknown(m.sut_host), Cores(m.sut_cores),
                            OrUnknown(m.loadgen_host), Cores(m.loadgen_cores)));
  line("CPU", CpuLine(m));
  if (!m.machines.empty()) line("Machine", m.machines);
  if (std::string w = DescribeNginxWorkers(m); !w.empty()) line("Workers", w);
  line("Run", fmt::format("{} .. {}, fvbench {}", OrUnknown(FormatUtc(m.started_unix)),
                          OrUnknown(FormatUtc(m.finished_unix)), OrUnknown(m.fvbench_version)));
  if (ref != nullptr && ref->baseline) {
    line("Baseline", ref->describe() + " (shown as \"(base ..., ±Δ %)\")");
  } else {
    line("Reference", ref == nullptr ? "none (no reference values shown)"
                                     : ref->describe() + " (shown as \"(ref ..., ±Δ %)\")");
  }
  if (!report.load_mismatch.empty()) line("WARNING", report.load_mismatch);
  if (!report.environment_mismatch.empty()) line("WARNING", report.environment_mismatch);
  for (const std::string& p : report.meta.preflight) line("Preflight", p);
  line("Thresholds", m.thresholds_profile.empty() ? "none" : m.thresholds_profile);
}

void LatencyBlock(std::string& out, const RunReport& report) {
  const RunMeta& m = report.meta;
  const Reference* ref = report.cmp();
  out += fmt::format("\n  Latency @ {} RPS steady state ({} s measured after {} s warmup)\n\n",
                     FormatNumber(m.latency_rps), FormatNumber(m.latency_dur_s), FormatNumber(m.warmup_s));
  struct Row {
    const char* label;
    const LatencyMetric* metric;  // nullptr: not a latency metric
  };
  std::vector<Row> kRows;
  for (const LatencyMetric& lm : kLatencyMetrics) kRows.push_back({lm.label, &lm});
  for (const char* label : {"errors", "achieved", "kept up"}) kRows.push_back({label, nullptr});
  // Cells first: a column widens to its widest cell (REPEAT spreads).
  constexpr size_t kCols = std::size(kLatencyColumns);
  const char* rl = ref != nullptr ? ref->label() : "ref";
  std::vector<std::array<std::string, kCols>> grid;
  std::array<size_t, kCols> width;
  width.fill(kLatCol);
  for (const Row& row : kRows) {
    auto& cells = grid.emplace_back();
    for (size_t ci = 0; ci < kCols; ++ci) {
      const auto& c = kLatencyColumns[ci];
      const ScenarioResult* r = report.Find(c.id);
      std::string cell;
      if (r == nullptr) {
        cell = "not run";
      } else if (!r->measured) {
        cell = "FAILED";
      } else {
        const LoadResult& l = r->load;
        std::string label = row.label;
        if (row.metric != nullptr) cell = LatencyCellWithSpread(*r, *row.metric, report.Compared(c.id, row.metric->name), rl);
        else if (label == "errors") cell = detail::FormatErrors(l);
        else if (label == "achieved") cell = fmt::format("{} of {} RPS", FormatRps(l.achieved_rps), FormatRps(l.target_rps));
        else cell = l.kept_up ? "yes" : fmt::format("NO ({} dropped)", l.dropped_iterations);
      }
      width[ci] = std::max(width[ci], detail::DisplayWidth(cell));
      cells[ci] = std::move(cell);
    }
  }
  std::string head = "  " + PadRight("Pct", kPctCol);
  std::string rule = "  " + Repeat("─", kPctCol);
  for (size_t ci = 0; ci < kCols; ++ci) {
    head += "  " + PadRight(kLatencyColumns[ci].title, width[ci]);
    rule += "  " + Repeat("─", width[ci]);
  }
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out += head + "\n" + rule + "\n";
  for (size_t ri = 0; ri < grid.size(); ++ri) {
    std::string line = "  " + PadRight(kRows[ri].label, kPctCol);
    for (size_t ci = 0; ci < kCols; ++ci) line += "  " + PadRight(grid[ri][ci], width[ci]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
}

// The limits scenarios (none in a run of the six: nothing printed): each
// phase's LimitLine and the worst phase's gated figures against the
// comparison (console_outcome.h).
void LimitsBlock(std::string& out, const RunReport& report) {
  bool any = false;
  for (const ScenarioResult& r : report.results) {
    if (r.limits.empty()) continue;
    if (!any) out += "\n  Limiter accuracy — admitted per key against the token bucket (docs/limits.md)\n";
    any = true;
    const LimitAccuracy& a = r.limits.front().accuracy;
    out += fmt::format("\n  {}: token bucket {}/s, burst {} per key, {} keys\n", r.id, FormatNumber(a.limit.rate_per_s),
                       FormatNumber(a.limit.burst), a.keys_planned);
    for (const LimitRun& run : r.limits) out += "    " + LimitLine(run) + "\n";
    out += "    worst phase: " + LimitWorstLine(r, report.cmp()) + "\n";
  }
}

void ThroughputBlock(std::string& out, const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  const RunMeta& m = report.meta;
  const Reference* ref = report.cmp();
  out += "\n  Max Sustained Throughput — single fairvisor instance\n";
  // A throughput result without a search name is a seed search (files
  // written before the name was recorded).
  bool bisect = false, searched = false;
  for (const auto& r : results) {
    bisect = bisect || r.search == "bisect";
    searched = searched || (r.id.rfind("throughput.", 0) == 0 && (r.measured || !r.steps.empty()));
  }
  if (!searched && !bisect) {
    out += "  (no throughput search ran in this run)\n\n";
  } else if (bisect) {
    out += fmt::format(
        "  (search: double from the start rate until a step fails, bisect between pass and fail, confirm\n"
        "   with a longer run; cap {} RPS, {} s steps; value = the confirmed run's measured rate)\n\n",
        FormatNumber(m.search_max), FormatNumber(m.step_dur_s));
  } else {
    out += fmt::format(
        "  (steps at 50/70/90/100/115/130% of {} RPS, {} s each, stop at the first failing step;\n"
        "   value = the best passing step's measured rate)\n\n",
        FormatNumber(m.search_max), FormatNumber(m.step_dur_s));
  }
  out += fmt::format("  {}  {}  {}\n", PadRight("Configuration", kThrLabelCol), PadRight("Measured RPS", kThrValueCol),
                     "Errors");
  out += fmt::format("  {}  {}  {}\n", Repeat("─", kThrLabelCol), Repeat("─", kThrValueCol), Repeat("─", 8));
  for (const auto& row : kThroughputRows) {
    const ScenarioResult* r = report.Find(row.id);
    std::string value, errors;
    if (r == nullptr) {
      value = "not run";
    } else if (!r->measured) {
      value = "FAILED";
    } else {
      if (r->engine_limited) {
        value = fmt::format("at least {} (engine-limited: the load generator, not the SUT, was the limit)",
                            FormatRps(r->throughput_rps));
      } else if (r->ceiling_reached) {
        value = fmt::format("at least {} (ceiling reached)", FormatRps(r->throughput_rps));
      } else if (r->search == "bisect" && !r->search_resolution) {
        value = fmt::format("at least {} (no step failed)", FormatRps(r->throughput_rps));
      } else {
        value = FormatRps(r->throughput_rps);
      }
      if (std::string sp = SpreadText(*r, "rps", true); !sp.empty()) value += " (" + sp + ")";
      if (r->search == "bisect" && !r->confirmed && !r->engine_limited) value += " UNCONFIRMED";
      if (const ComparedMetric* c = report.Compared(row.id, kMetricRps)) {
        value += CompareText(ref->label(), (c->comparison_lower_bound ? "≥ " : "") + FormatRps(c->comparison), *c);
      }
      errors = FormatPercent(r->load.error_rate);
      if (!r->error.empty()) errors += ", see Errors";
    }
    std::string line =
        fmt::format("  {}  {}  {}", PadRight(row.label, kThrLabelCol), PadRight(value, kThrValueCol), errors);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (r != nullptr && !r->search.empty() && !r->steps.empty()) {
      std::string res = r->search_resolution ? "resolution " + detail::FormatFixed(*r->search_resolution * 100, 1) + " %"
                                             : fmt::format("no resolution ({})", NoResolutionReason(*r));
      out += fmt::format("      {} search: {}, {} s of load, {}{}\n", r->search, res, FormatNumber(r->search_load_s),
                         r->search == "seed"   ? "no confirmation"
                         : r->engine_limited ? "engine-limited (add load generators or cores)"
                                             : (r->confirmed ? "confirmed" : "UNCONFIRMED"),
                         r->search_stop.empty() ? "" : "; stopped early: " + r->search_stop);
    }
    if (r != nullptr) {
      for (const StepResult& s : r->steps) {
        if (s.role.empty()) {
          out += fmt::format("      step {:>8} RPS -> {:>8} RPS measured  {}\n", FormatRps(s.target_rps),
                             FormatRps(s.load.achieved_rps), s.verdict);
        } else {
          out += fmt::format("      {:<7} {:>8} RPS for {:>3} s -> {:>8} RPS measured  {}\n", s.role,
                             FormatRps(s.target_rps), FormatNumber(s.load.duration_s),
                             FormatRps(s.load.achieved_rps), s.verdict);
        }
      }
    }
  }
}

// Every same-run ratio (ratios.h), gated or not.
void RatiosBlock(std::string& out, const std::vector<Ratio>& ratios) {
  if (ratios.empty()) return;
  out += "\n  Same-run ratios (latency / raw nginx, throughput / simple policy; same run, same hosts)\n";
  std::string line, key;
  auto flush = [&] {
    if (!line.empty()) out += line + "\n";
    line.clear();
  };
  for (const Ratio& x : ratios) {
    std::string k = x.scenario + " / " + x.base;
    if (k != key) {
      flush();
      key = k;
      line = "    " + PadRight(k, 46);
    }
    line += fmt::format("  {} {}x", MetricLabel(x.metric), detail::FormatFixed(x.ratio, 2));
  }
  flush();
}

void ChecksBlock(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any = false;
  for (const auto& r : results) any = any || !r.checks.empty() || !r.ratio_checks.empty();
  if (!any) return;
  out += "\n  Threshold checks\n";
  for (const auto& r : results) {
    for (const auto& c : r.checks) {
      out += fmt::format("    {}  {}: {}{}\n", c.passed ? "pass" : "FAIL", r.id, DescribeCheck(c),
                         c.passed ? ": " + DescribeHeadroom(CheckHeadroom(c)) : "");
    }
  }
  bool any_ratio = false;
  for (const auto& r : results) any_ratio = any_ratio || !r.ratio_checks.empty();
  if (!any_ratio) return;
  out += "\n  Same-run ratio checks (evaluated by fvbench.report)\n";
  for (const auto& r : results) {
    for (const auto& c : r.ratio_checks) {
      out += fmt::format("    {}  {}: {}{}\n", c.passed ? "pass" : "FAIL", r.id, DescribeRatioCheck(c),
                         c.passed ? ": " + DescribeHeadroom(RatioCheckHeadroom(c)) : "");
    }
  }
}

// Validity of each measured phase (validity.h) and the SUT's CPU / RSS
// beside it: "valid" or "INVALID" per scenario, every failed check with its
// measured value and limit, informational entries (shared cores), the checks
// that passed by name. Absent when no result carries validity or usage.
void ValidityBlock(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any = false;
  for (const auto& r : results) any = any || !r.validity.empty() || !r.sut_usage.empty();
  if (!any) return;
  out += "\n  Validity (checks of the reported phase) and SUT resources\n";
  for (const auto& r : results) {
    if (r.validity.empty() && r.sut_usage.empty()) continue;
    out += fmt::format("    {}  {}\n", ValidityPassed(r.validity) ? "valid  " : "INVALID", r.id);
    std::vector<std::string> ok;
    for (const ValidityCheck& v : r.validity) {
      if (v.informational) {
        out += fmt::format("        note  {}\n", Indented(DescribeValidity(v), "              "));
      } else if (!v.passed) {
        out += fmt::format("        FAIL  {}\n", Indented(DescribeValidity(v), "              "));
      } else if (std::find(ok.begin(), ok.end(), v.name) == ok.end()) {
        ok.push_back(v.name);
      }
    }
    if (!ok.empty()) out += fmt::format("        ok    {}\n", fmt::join(ok, ", "));
    if (!r.sut_usage.empty()) out += fmt::format("        SUT   {}\n", DescribeUsage(r.sut_usage));
  }
}

void FailuresAndNotes(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any_error = false;
  for (const auto& r : results) any_error = any_error || !r.measured || !r.error.empty();
  if (any_error) {
    out += "\n  Errors\n";
    for (const auto& r : results) {
      if (r.measured && r.error.empty()) continue;
      std::string prefix = fmt::format("    {} ({}): ", r.id, r.measured ? "after measuring" : "FAILED before measuring");
      out += prefix + Indented(r.error.empty() ? "(no error message recorded)" : r.error,
                               std::string(detail::DisplayWidth(prefix), ' ')) +
             "\n";
    }
  }
  bool any_notes = false;
  for (const auto& r : results) any_notes = any_notes || !r.notes.empty();
  if (any_notes) {
    out += "\n  Notes\n";
    for (const auto& r : results) {
      for (const auto& n : r.notes) out += fmt::format("    {}: {}\n", r.id, Indented(n, "      "));
    }
  }
}

}  // namespace

std::string RenderSummaryTable(const RunReport& report) {
  const std::vector<ScenarioResult>& results = report.results;
  std::string out;
  out.reserve(4096);
  out += "\n";
  Header(out, report);
  LatencyBlock(out, report);
  ThroughputBlock(out, report);
  LimitsBlock(out, report);
  RatiosBlock(out, report.ratios);
  ChecksBlock(out, results);
  ValidityBlock(out, results);
  FailuresAndNotes(out, results);
  if (std::string ab = RenderAbSection(results, report.meta); !ab.empty()) out += "\n" + ab;  // A/B mode only
  out += "\n" + Repeat("═", kWidth) + "\n";
  return out;
}

std::string RenderSummaryTable(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                               const Reference* reference) {
  return RenderSummaryTable(BuildRunReport(results, meta, reference));
}

}  // namespace fvbench
