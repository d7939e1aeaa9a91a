// The Markdown report of a run, BENCH_DIR/report/report.md, written by the
// fvbench.report fixture beside summary.txt and results.json. GitHub-flavoured
// Markdown a CI job can append to its job summary:
//
//   cat "$BENCH_DIR/report/report.md" >> "$GITHUB_STEP_SUMMARY"
//
// Sections, in order (a section with nothing to show is left out):
//   verdict line   "**FAIL** — 3 PASS, 2 FAIL, 1 INVALID of 6 scenarios" and a
//                  table scenario -> verdict -> why (verdict.h);
//   latency        p50 / p90 / p99 / p99.9 / max per path (µs or ms cells), each
//                  with the comparison value and its signed delta, "304 µs (ref
//                  112 µs, +171.4 %)"; errors, achieved rate, kept up;
//   throughput     per policy: result ("at least N (ceiling reached)"),
//                  comparison + delta, confirmed or not, resolution, seconds of
//                  load, errors; every search step in a collapsible <details>;
//   plots          links to the SVG plots of the scenarios run (PlotFilesOfRun;
//                  the limits plots are linked from their own section);
//   same-run ratios (ratios.h), threshold checks (measured, limit, reference,
//                  the change each catches: threshold_headroom.h) and same-run
//                  ratio checks (with the change each catches);
//   validity       per scenario valid / INVALID, failed checks with measured
//                  and limit, informational notes, errors, notes;
//   SUT resources  CPU (cores) and RSS (MiB) of each SUT service per scenario;
//   environment    engine + version, SUT runtime, edge source and commit,
//                  hosts and cores, cpusets or "unpinned: engine and SUT share
//                  cores", run times, profile, comparison source;
//   host environment  the machine facts per host (host_environment_markdown.h),
//                  only when the run meta has them.
//
// `comparison` is the reference (reference.h) or, with FVBENCH_BASELINE, the
// baseline (baseline.h; comparison->baseline is then true and cells say
// "base"); null: no comparison values. Deltas are (measured − comparison) /
// comparison, computed in the RunReport (run_report.h).
//
// Text from results and meta (ids, messages, paths, notes) is shown as
// written: cells and inline text through detail::MarkdownCell, ids and edge
// sources as code spans, error messages in fenced blocks
// (markdown_text.h). A cell longer than 4 KiB and an error message longer
// than 16 KiB are cut, saying so. The whole report stays within
// kMaxReportMdBytes: should it not, the sections that can grow (steps, A/B
// runs, checks, validity, errors, notes, resources) are shortened at line
// ends, each with a line saying where its whole text is in results.json.
// A reporter: it formats the RunReport and computes nothing. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"
#include "support/judge/reference.h"
#include "support/report/markdown_text.h"
#include "support/report/run_report.h"

namespace fvbench {

// The most report.md holds: GitHub drops a job summary (GITHUB_STEP_SUMMARY)
// over 1 MiB; 1000000 bytes leave room for a line or two around it.
inline constexpr size_t kMaxReportMdBytes = 1000000;

std::string RenderMarkdownReport(const RunReport& report);
// The same for results not yet in a RunReport (tests, benchmarks):
// RenderMarkdownReport(BuildRunReport(results, meta, comparison)).
std::string RenderMarkdownReport(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                                 const Reference* comparison);

// The SVG plots (svg_plot.h RenderPlots) the report step writes beside
// report.md, in RenderPlots' order: "latency.svg" when any latency scenario
// has a result in `results`, "throughput_<policy>.svg" for each throughput
// scenario that has one (throughput.simple -> throughput_simple.svg), then
// each limits scenario's two (limits_plot.h LimitsPlotFiles), then the
// timeline of each result whose phase has intervals (timeline_plot.h
// TimelinePlotFile: none for k6 or an older result), then the steps
// timeline of each result whose search steps have intervals
// (steps_timeline_plot.h StepsTimelinePlotFile), then the A/B timeline of
// each result whose A/B runs have intervals (ab_timeline_plot.h
// AbTimelinePlotFile). A
// scenario that was not run (no result: not selected, or skipped) gets no
// plot file; report.md links exactly these.
std::vector<std::string> PlotFilesOfRun(const std::vector<ScenarioResult>& results);

}  // namespace fvbench
