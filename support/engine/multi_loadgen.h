// Several load-generator processes driving one phase (issue 14): a
// LoadEngine whose run() splits the phase's rate into equal shards
// (judge/loadgen_shards.h), starts every process on one common wall-clock
// start, collects each one's output and merges them (judge/loadgen_merge.h)
// into the LoadResult the search, repeats, A/B mode, thresholds and reports
// already take.
//
// wrk only. Each process i of n runs pace.lua with rate R / n, schedule
// offset i / R after the common start (so the merged arrivals stay evenly
// spaced at 1 / R), FVBENCH_START_EPOCH_US = the start, its own CPUs (its
// cpuset) and FVBENCH_HISTOGRAM=1. The start is StartEpochUs(now, lead):
// `lead_s` after the controller launches the processes, rounded up to a
// millisecond; every wrk waits for it (its -d covers the wait). k6 instances
// (execution segments, paused start) are not built yet: run() refuses them.
//
// Per phase, in controller_dir:
//   <phase>_lg<i>.{cmd.txt,stdout.txt,json}   each process's own files (wrk_engine.h)
//   <phase>.json   what was merged: schema "fvbench.loadgens/1", the common
//                  start, each process's name, share, offset, cpuset, output
//                  file and measured start; LoadResult::raw_path
//
// The merged result: sums and the merged histogram's percentiles (exact
// within 1/2048, never averaged), loadgens listed (LoadResult::loadgens),
// the measured start skew (loadgen_start_skew_us: latest - earliest
// measured start, each start = the process's first send mapped back to the
// common start), the window all processes ran (duration_s), and each
// process's validity checks (LoadResult::loadgen_checks, named "loadgen
// <name>: <check>", plus start_skew <= 10 ms), which the scenario runner
// adds to the phase's checks. Across hosts the measured skew includes the
// hosts' clock offset (NTP keeps it to about a millisecond on a LAN).
//
// Errors: one process that fails (its engine's error) fails the phase,
// naming every failed process; the others' raw files stay in controller_dir.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/core/validity_params.h"
#include "support/engine/load_engine.h"
#include "support/host/host.h"

namespace fvbench {

// The launch lead (s): how long after the controller launches the processes
// their common start is. It covers starting wrk (locally ~10 ms, over SSH one
// round trip and an exec, ~50-200 ms).
inline constexpr double kLoadgenStartLeadS = 0.5;

struct LoadgenProcess {
  std::string name;                   // "<host>#<i>", e.g. "local#1", "10.213.3.1#2"
  std::unique_ptr<LoadEngine> engine; // a wrk engine on its own host connection
  std::string cpuset;                 // its CPUs on its host (taskset list); "" = unpinned
};

struct MultiLoadgenOptions {
  ValidityParams validity;            // each process's checks (loadgen_merge.h)
  double lead_s = kLoadgenStartLeadS;
  bool parallel = true;               // false: one after another (a dry run records its plan in order)
  // The controller's wall clock (µs since the Unix epoch); tests replace it.
  std::function<double()> now_epoch_us;
};

// n >= 2 processes (one process needs no merge: use its engine directly).
std::unique_ptr<LoadEngine> MakeMultiLoadgenEngine(std::vector<LoadgenProcess> processes,
                                                   MultiLoadgenOptions options);

// The LoadSpec process i of `n` runs (pure): its phase name "<phase>_lg<i+1>",
// its share of the rate, offset and connections (spec.connections / n
// rounded up, 0 = derived), its cpuset, the common start and start_wait_s =
// lead, and the histogram on.
LoadSpec ProcessSpec(const LoadSpec& spec, size_t i, size_t n, const std::string& cpuset,
                     double start_epoch_us, double lead_s);

}  // namespace fvbench
