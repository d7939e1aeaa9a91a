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
//  - a throughput ceiling shows "≥ 1300 (ceiling)": the top step passed, so
//    the value is a lower bound, not a maximum;
//  - the engine, SUT, cpusets (or "unpinned: engine and SUT share cores"),
//    error rates, whether the engine kept up, every step, every threshold
//    check and every validity note are shown.
// A reporter: it formats the result model and computes nothing.
// `reference` may be null (no reference values shown).
#pragma once

#include <string>
#include <vector>

#include "support/reference.h"
#include "support/run_meta.h"
#include "support/scenario_result.h"

namespace fvbench {

std::string RenderSummaryTable(const std::vector<ScenarioResult>& results, const RunMeta& meta,
                               const Reference* reference);

}  // namespace fvbench
