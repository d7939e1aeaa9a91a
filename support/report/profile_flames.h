// The flame graphs of a run's profiles (ScenarioResult::profile): the files
// the profilers fetched (perf script text at level "cpu", folded Lua stacks
// at level "lua", one per edge worker) folded per service and level, written
// beside report.md as
//   flame_<scenario id>_<service>_<level>.folded   (flamegraph.pl / inferno / speedscope read it)
//   flame_<scenario id>_<service>_<level>.svg      (flame_svg.h; no scripts needed)
// and summarised in ProfileResult::flames (samples, the top frames by self
// samples). In A/B mode each side's graphs carry its side in the stem
// (flame_<id>_A_<service>_<level>, flame_<id>_B_...), and each service and
// level profiled on both sides gets a differential graph
//   flame_<scenario id>_diff_<service>_<level>.svg  (B's shape, coloured by the change per request)
// summarised in side B's ProfileResult::diffs (DiffProfiles). Outside A/B
// mode a scenario of kProfileComparisons profiled in the same run as the
// scenario it is compared with is drawn against it the same way,
//   flame_<scenario id>_vs_<other id>_<service>_<level>.svg
// in its own diffs (each at its own profile rate; per request). Paths in
// flames and diffs are relative to the report directory.
//
// FoldProfileText and SummariseFlame are pure; WriteProfileFlames reads the
// files under the controller's results directory (ProfileFile::path is
// relative to it) and writes into the report directory. A file it cannot
// read or fold is a problem named by path and line; the other graphs are
// still drawn, and no measured figure changes.
#pragma once

#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "support/core/folded_stacks.h"
#include "support/core/profile_result.h"
#include "support/core/result.h"
#include "support/core/scenario_result.h"

namespace fvbench {

inline constexpr size_t kProfileTopFrames = 10;

// level "cpu": CollapsePerfScript; "lua": ParseFolded; any other level is an Error.
Result<FoldedStacks> FoldProfileText(const std::string& level, std::string_view text, const std::string& where);

// File stem of one graph: flame_<scenario id>_<service>_<level>, with
// "_<side>" after the id when side is not empty ("A", "B", or "diff").
std::string FlameFileStem(const std::string& scenario_id, const std::string& side, const std::string& service,
                          const std::string& level);

// The summary of one graph; paths as given. At level "lua" the top frames
// are ranked without the VM-state leaf ([N], [I], [C], [G], [J]), so they
// name Lua functions; the graph and the folded file keep it.
ProfileFlame SummariseFlame(const std::string& service, const std::string& level, const FoldedStacks& f,
                            const std::string& folded_path, const std::string& svg_path);

inline constexpr size_t kProfileTopGrowth = 10;

// {scenario, the scenario it is drawn against}: the policies of the
// throughput scenarios over the same reverse-proxy setup, each against the
// one-rule policy, so "why is complex slower" has an answer.
inline constexpr std::pair<const char*, const char*> kProfileComparisons[] = {
    {"throughput.complex", "throughput.simple"}, {"throughput.llm", "throughput.simple"}};

// One side of a comparison: its stacks of one service and level, the
// requests of its phase with the profiler, and the CPU µs one sample stands
// for (SampleUs).
struct DiffSide {
  const FoldedStacks& stacks;
  uint64_t requests = 0;
  double sample_us = 0;
  std::string name;  // "A", "B" or a scenario id: in not_compared
};

// What one sample of `p`'s graph of `service` at `level` (with `samples`
// samples) stands for, in CPU µs: for the service whose CPU the phase
// measured, that CPU time divided among the samples (cpu_us_per_request x
// requests / samples), so the graph's shares divide the measured cost and a
// profiler that missed samples (jit.profile does) does not shrink it; for
// another service the sampling period (ProfileSampleUs). The docs:
// docs/running.md "CPU profiles and flame graphs".
double SampleUs(const ProfileResult& p, const std::string& service, const std::string& level, uint64_t samples);

// B against A for one service and level: the frames ranked by the growth of
// their self CPU µs per request (samples / requests x sample_us; self from
// judge/flame_profile.h TopSelfGrowth), with their total beside; at level
// "lua" without the VM-state leaf, so a Lua function's self is its own code.
// A side without samples or requests is not compared: no frames, and
// not_compared says why. svg_path as given.
ProfileDiff DiffProfiles(const std::string& against, const std::string& service, const std::string& level,
                         const DiffSide& a, const DiffSide& b, const std::string& svg_path);

// Folds, draws and summarises every profile of `results` (fills each
// ProfileResult::flames, and side B's diffs); returns the problems met, one
// sentence each. A ProfileFile path that is absolute or climbs out of the
// controller's directory ("..") is a problem and is not read.
std::vector<std::string> WriteProfileFlames(std::vector<ScenarioResult>& results, const std::string& controller_dir,
                                            const std::string& report_dir);

}  // namespace fvbench
