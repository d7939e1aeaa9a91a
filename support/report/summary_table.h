// The console summary of a run, in the seed's layout (fairvisor/benchmark
// run-all.sh print_results: a latency block Pct x {Decision Svc, Reverse Proxy,
// Raw nginx} with µs / ms cells, then a throughput block per configuration),
// made honest:
//  - every cell carries the reference value beside it when there is one:
//    "304 µs (ref 112)", "2.00 ms (ref 426 µs)" (the ref keeps its own unit
//    when it differs from the cell's);
//  - a scenario absent from `results` shows "not run"; one that failed before
//    measuring shows "FAILED"; every scenario error (before or after
//    measuring) is listed under the table, in "Errors";
//  - a throughput ceiling shows "at least 1300 (ceiling reached)": the cap
//    passed, so the value is a lower bound, not a maximum; a bisect search
//    that never saw a failing step shows "at least N (no step failed)", one
//    without a passing confirmation "UNCONFIRMED"; under each throughput row
//    the search's resolution, load time and stop reason, then every step
//    with its role (bracket / bisect / confirm) and duration;
//  - limits scenarios: one line per phase (console_outcome.h LimitLine) and
//    the worst phase's gated figures against the comparison (LimitWorstLine);
//  - REPEAT=n: cells show the median with the min–max spread, e.g.
//    "964 µs (812 µs–1.10 ms, n=3)";
//  - the same-run ratios (ratios.h) and the ratio checks the report step
//    evaluated (thresholds.h);
//  - the engine, SUT, cpusets (or "unpinned: engine and SUT share cores"),
//    error rates, whether the engine kept up, every step, every threshold
//    check (a passed one, threshold or ratio, with the change it catches:
//    threshold_headroom.h) and every validity note are shown.
// A reporter: it formats the RunReport (run_report.h: ratios, deltas, the
// load-mismatch warning are computed there) and computes nothing.
#pragma once

#include <string>
#include <vector>

#include "support/core/run_meta.h"
#include "support/core/scenario_result.h"
#include "support/judge/reference.h"
#include "support/report/run_report.h"

namespace fvbench {

std::string RenderSummaryTable(const RunReport& report);
// The same for results not yet in a RunReport (tests, benchmarks):
// RenderSummaryTable(BuildRunReport(results, meta, reference)).
std::string RenderSummaryTable(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                               const Reference* reference);

}  // namespace fvbench
