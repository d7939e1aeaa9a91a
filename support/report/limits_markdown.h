// report.md's "Limiter accuracy" section: for each limits scenario
// (ScenarioResult::limits), one column per measured phase (edge's workers)
// and one row per figure of limit_figures.h: what the access log counted
// against what the token bucket allows. Nothing when no result has limits
// runs, so reports of the six scenarios are unchanged. Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

void AppendLimitsMarkdown(std::string& out, const std::vector<ScenarioResult>& results);

}  // namespace fvbench
