// report.md's "Limiter accuracy" section: for each limits scenario
// (ScenarioResult::limits), one column per measured phase (edge's workers)
// and one row per figure of limit_figures.h: what the access log counted
// against what the token bucket allows. Nothing when no result has limits
// runs, so reports of the six scenarios are unchanged. Under each table,
// links to its plots (limits_plot.h), which the report step writes beside
// report.md. Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/judge/reference.h"

namespace fvbench {

// `comparison` (nullable): the reference or baseline whose limits figures
// (baseline.h) are shown beside the worst phase's.
void AppendLimitsMarkdown(std::string& out, const std::vector<ScenarioResult>& results,
                          const Reference* comparison = nullptr);

}  // namespace fvbench
