// Several load-generator processes driving one phase (issue 14): a
// LoadEngine whose run() splits the phase's rate into equal shards
// (judge/loadgen_shards.h), starts every process on one common wall-clock
// start, collects each one's output and merges them (judge/loadgen_merge.h)
// into the LoadResult the search, repeats, A/B mode, thresholds and reports
// already take.
//
// All processes run the same engine, wrk or k6 (run() refuses a mix). The
// start is StartEpochUs(now, lead): the lead (below) after the controller
// launches the processes, rounded up to a millisecond.
//   wrk: process i of n runs pace.lua with rate R / n, schedule offset i / R
//     after the common start (so the merged arrivals stay evenly spaced at
//     1 / R), FVBENCH_START_EPOCH_US = the start, its own CPUs (its cpuset)
//     and FVBENCH_HISTOGRAM=1; every wrk waits for the start (its -d covers
//     the wait). Its start: its first send mapped back to the common start.
//   k6: instance i of n runs the same script with execution segment
//     "i/n:(i+1)/n" of the sequence "0,1/n,...,1" (PlanShards), started
//     --paused and resumed at the common start through its REST API, its raw
//     samples reduced to the histogram (k6_engine.h "Synchronised start";
//     read back from <phase>_lg<i>.instance.json). Its start: when its
//     `k6 resume` returned; its launch: when its REST API first answered.
//
// Per phase, in controller_dir:
//   <phase>_lg<i>.{cmd.txt,stdout.txt,json}   each wrk process's own files (wrk_engine.h)
//   <phase>_lg<i>.{cmd.txt,k6.log,json,instance.json,histogram.json|samples.csv}
//                                             each k6 instance's (k6_engine.h)
//   <phase>.json   what was merged: schema "fvbench.loadgens/1", the common
//                  start and lead, each process's name, share, offset,
//                  cpuset, output file, launch time and measured start;
//                  LoadResult::raw_path
//
// The merged result: sums and the merged histogram's percentiles (exact
// within 1/2048, never averaged), loadgens listed (LoadResult::loadgens,
// each with its CPU: its wrk's user + system time (bash `times`, wrk_engine.h
// ChildCpuSeconds) / (window x the cores its threads could use)),
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
// their common start is. The first phase takes kLoadgenStartLeadS; each
// later one twice the slowest launch seen so far (the controller's launch
// to wrk's own start, pace.lua window.wrk_start_epoch_us) plus
// kLoadgenLeadMarginS, within [kLoadgenMinLeadS, kLoadgenStartLeadS]. For
// k6 the launch ends when its REST API answers (its VUs initialised).
// Measured on the namespace test hosts (3 hosts over SSH on 2 busy cores):
// launches of up to 270 ms, so a fixed 0.5 s lead started the last host
// 270 ms late (start_skew failed); locally launches take ~10 ms.
inline constexpr double kLoadgenStartLeadS = 2.0;
inline constexpr double kLoadgenMinLeadS = 0.25;
inline constexpr double kLoadgenLeadMarginS = 0.1;

// The lead of the next phase from the slowest launch seen (s; < 0: none yet).
double NextLoadgenLeadS(double slowest_launch_s);

struct LoadgenProcess {
  std::string name;                   // "<host>#<i>", e.g. "local#1", "10.213.3.1#2"
  std::unique_ptr<LoadEngine> engine; // a wrk or k6 engine on its own host connection
  std::string cpuset;                 // its CPUs on its host (taskset list); "" = unpinned
};

struct MultiLoadgenOptions {
  ValidityParams validity;            // each process's checks (loadgen_merge.h)
  double lead_s = kLoadgenStartLeadS;  // the first phase's lead; later ones adapt (NextLoadgenLeadS)
  bool parallel = true;               // false: one after another (a dry run records its plan in order)
  // The controller's wall clock (µs since the Unix epoch); tests replace it.
  std::function<double()> now_epoch_us;
};

// n >= 2 processes (one process needs no merge: use its engine directly).
std::unique_ptr<LoadEngine> MakeMultiLoadgenEngine(std::vector<LoadgenProcess> processes,
                                                   MultiLoadgenOptions options);

// The LoadSpec process i of `n` runs (pure): its phase name "<phase>_lg<i+1>",
// its share of the rate, offset (wrk), k6 segment and sequence (k6) and
// connections (spec.connections / n rounded up, 0 = derived), its cpuset,
// the common start and start_wait_s = lead, and the histogram on.
LoadSpec ProcessSpec(const LoadSpec& spec, size_t i, size_t n, const std::string& cpuset,
                     double start_epoch_us, double lead_s);

}  // namespace fvbench
