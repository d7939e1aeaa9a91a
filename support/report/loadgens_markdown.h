// report.md's "Load generators" table: for every phase driven by
// several load-generator instances (LoadResult::loadgens), one row per
// instance: its share of the rate, achieved rate, failures by kind, kept-up,
// CPU; and the phase's start skew. Nothing when no phase had instances, so
// single-engine reports are unchanged. Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

void AppendLoadgensMarkdown(std::string& out, const std::vector<ScenarioResult>& results);

}  // namespace fvbench
