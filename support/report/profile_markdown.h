// report.md's "Where the SUT's time goes" section: for each scenario with a
// profile (ScenarioResult::profile, core/profile_result.h), the rate and
// length of its profile phases, the profiler's cost (p99 and CPU per request
// without and with it), a link to each flame graph (profile_flames.h) and
// its top frames by self samples. The profile phases are never part of the
// verdict; the section says so. Nothing when no result carries a profile.
// In A/B mode a scenario has one such part per side and links its
// differential graphs; a scenario drawn against another of the run
// (profile_flames.h kProfileComparisons) lists the frames that grew against
// it. Formats only.
//
// AppendProfileGrowthMarkdown: for the A/B section, side B's differential
// graphs against side A (ProfileResult::diffs): per service and level a link to the graph,
// both sides' CPU µs per request, and the frames whose CPU per request grew
// most. Nothing when there are no diffs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/core/scenario_result.h"

namespace fvbench {

inline constexpr size_t kProfileMarkdownFrames = 5;
// A graph with fewer samples says its shares are rough (one sample is 2 %).
inline constexpr uint64_t kFewProfileSamples = 50;

void AppendProfileMarkdown(std::string& out, const std::vector<ScenarioResult>& results);

void AppendProfileGrowthMarkdown(std::string& out, const ProfileResult& b);

}  // namespace fvbench
