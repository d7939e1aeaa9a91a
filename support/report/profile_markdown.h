// report.md's "Where the SUT's time goes" section: for each scenario with a
// profile (ScenarioResult::profile, core/profile_result.h), the rate and
// length of its profile phases, the profiler's cost (p99 and CPU per request
// without and with it), a link to each flame graph (profile_flames.h) and
// its top frames by self samples. The profile phases are never part of the
// verdict; the section says so. Nothing when no result carries a profile.
// Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

inline constexpr size_t kProfileMarkdownFrames = 5;

void AppendProfileMarkdown(std::string& out, const std::vector<ScenarioResult>& results);

}  // namespace fvbench
