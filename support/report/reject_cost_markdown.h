// report.md's "What a rejection costs" section: for limits.reject_cost
// (ScenarioResult::reject_cost, core/reject_cost_figures.h), one column per
// phase (admitted, rejected) and one row per figure (keys, achieved rate,
// statuses, 429 share, latency, edge's CPU per request), then the rejected /
// admitted ratios. Says that the rejected phase's latency is that of a mix
// of statuses. Nothing when no result carries it. Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

void AppendRejectCostMarkdown(std::string& out, const std::vector<ScenarioResult>& results);

}  // namespace fvbench
