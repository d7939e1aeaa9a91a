// SVG plots of a run, written by the report step (fvbench.report) into
// BENCH_DIR/report/ beside the table and results.json:
//
//   latency.svg  Latency by percentile of the three latency paths (raw nginx,
//       decision_service, reverse_proxy). x: p50, p90, p99, p99.9 on a
//       "nines" scale (position log10(1 / (1 - q)): p90, p99, p99.9 one step
//       apart, p50 at 0.3), then max in its own column (not a percentile:
//       drawn as an unconnected marker). y: log scale, labelled decades in
//       µs / ms / s. Each path has its own colour AND marker shape; the
//       reference (reference.json or a baseline results.json) is a dashed
//       line of the same colour. REPEAT=n: the curve is the per-metric
//       median (ScenarioResult::load) with whiskers from the spread's min to
//       max. A path that failed before measuring, was not run, failed a
//       threshold check or is INVALID says so in the legend; the reason of a
//       failure is printed under the plot. The title carries the target rate
//       (RunMeta::latency_rps) and the engine.
//   throughput_<policy>.svg  (throughput_simple.svg, throughput_complex.svg,
//       throughput_llm.svg; RenderPlots returns all three, the report step
//       writes only those of scenarios run: PlotFilesOfRun, markdown_report.h) The search
//       steps of one throughput scenario, in three panels over one x axis,
//       the step's TARGET rate (RPS): p99 (log scale, with the SLO as a
//       dashed horizontal line), error rate in % (with the error-rate limit),
//       and achieved / target in % (with the minimum achieved fraction), so
//       the reason of every failed step is visible. Passed steps are filled
//       markers, failed steps hollow (and a different colour): never colour
//       alone. Shape is the step's role: circle bracket (or the seed's fixed
//       steps), diamond bisect, square confirm. The reported result is a
//       vertical line labelled with its value, "at least N (ceiling
//       reached)" at a ceiling, "UNCONFIRMED" when not confirmed.
//   limits_<name>_per_key.svg, limits_<name>_per_second.svg  a limits
//       scenario's admitted counts against its token bucket (limits_plot.h).
//   timeline_<scenario>.svg  a scenario's measured phase over time: rates
//       per interval and the stalls (timeline_plot.h); only a phase with
//       counts per interval has one.
//   steps_timeline_<scenario>.svg, ab_timeline_<scenario>.svg  a search's
//       steps, an A/B scenario's runs end to end over time
//       (steps_timeline_plot.h, ab_timeline_plot.h).
//
// Contract: pure functions, result model in, SVG text (UTF-8, SVG 1.1, no
// scripts, no external references) out. Output is deterministic and
// locale-independent: coordinates are printed with integer arithmetic to one
// decimal (half-way cases away from zero), labels with fmt (never the C
// locale), iteration order is the fixed scenario order, and there are no
// timestamps beyond those the model carries. A reporter: it formats the result model and computes
// nothing it does not carry; axis ranges, ticks and the achieved / target
// ratio of a step are layout. A value that a log axis cannot show (<= 0, NaN,
// infinite) is not drawn and is named in a note under the plot; no output
// coordinate is ever NaN.
//
// Why a small writer of our own: Debian 12 ships no maintained C++ library
// that renders plots into memory deterministically. GNU plotutils' libplot
// (2.6, 2009) is unmaintained, draws primitives only (no axes or legends) and
// writes through a FILE* with global state; PLplot (libplplot-dev) and
// gnuplot are plotting tools with file-writing drivers whose SVG output
// (fonts, ids, float formatting) changes between versions, which would break
// golden-file tests on every upgrade and add a runtime dependency on every
// controller. Two plot types with fixed layouts need only lines, markers,
// text and a log axis, which this file draws directly.
//
// Checked by golden files (fixtures/golden/*.svg; FVBENCH_UPDATE_GOLDEN=1
// rewrites them) and by `rsvg-convert` (librsvg2-bin) accepting them.
#pragma once

#include <string>
#include <vector>

#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"
#include "support/judge/reference.h"
#include "support/report/plot_file.h"
#include "support/report/run_report.h"

namespace fvbench {

// `reference` may be null (no reference lines).
std::string RenderLatencyPlot(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                              const Reference* reference);

// `scenario_id` is one of kThroughputScenarios; a scenario absent from
// `results` is drawn as an empty frame saying "not run". The pass rule's
// limit lines are the rule the search used (ScenarioResult::search_rule); a
// result written before the rule was recorded carries none and is drawn
// with StepPassRule's defaults (a run with other THROUGHPUT_SLO_P99_MS then
// shows the wrong SLO line: its file does not say which rule it used).
std::string RenderThroughputPlot(const std::vector<ScenarioResult>& results, const std::string& scenario_id,
                                 const RunMeta& meta, const Reference* reference);

// latency.svg, then throughput_<policy>.svg for each of kThroughputScenarios,
// then the limits plots of each result with limits runs (limits_plot.h),
// then the timeline of each result whose phase has intervals (timeline_plot.h),
// the steps timelines (steps_timeline_plot.h), the A/B timelines
// (ab_timeline_plot.h).
std::vector<PlotFile> RenderPlots(const RunReport& report);
// The same for results not yet in a RunReport (tests, benchmarks).
std::vector<PlotFile> RenderPlots(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                                  const Reference* reference);

}  // namespace fvbench
