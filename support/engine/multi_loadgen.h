// Several load-generator processes driving one phase: a
// LoadEngine whose Run() splits the phase's rate into equal shards
// (judge/loadgen_shards.h), starts every process on one common start,
// collects each one's output and merges them (judge/loadgen_merge.h) into
// the LoadResult the search, repeats, A/B mode, thresholds and reports
// already take.
//
// All processes run the same engine, wrk or k6 (Run() refuses a mix). Each
// process runs on a loadgen host (LoadgenProcess::host, an index into
// MultiLoadgenOptions::clock_hosts).
//
// Before the load (Run()), refused with an Error naming the numbers:
//   - a split that gives a process fewer than kMinRequestsPerLoadgenProcess
//     requests in the window (core/loadgen_share.h);
//   - a loadgen host whose clock is more than kMaxLoadgenClockOffsetUs off
//     the controller's (core/clock_offset.h).
// The clocks: each host's offset to this process's clock, measured over
// several round trips (engine/loadgen_clocks.h: at the first phase, again
// when a minute old). The common start is StartEpochUs(launch, lead) on the
// controller's clock; each host is given it in ITS clock (start + its
// offset), and what each host measured (first send, window, ready time) is
// mapped back by subtracting the offset. So the start skew and the window
// are on the controller's clock, to within each offset's uncertainty (half
// its best round trip; ~0.1 ms on a LAN), whatever the hosts' clocks say.
//   wrk: process i of n runs pace.lua with rate R / n, schedule offset i / R
//     after the common start (so the merged arrivals stay evenly spaced at
//     1 / R), FVBENCH_START_EPOCH_US = the start on its host's clock, its own
//     CPUs (its cpuset) and FVBENCH_HISTOGRAM=1; every wrk waits for the
//     start (its -d covers the wait). Its start: its first send mapped back
//     to the common start. Its ready time: wrk's own start.
//   k6: instance i of n runs the same script with execution segment
//     "i/n:(i+1)/n" of the sequence "0,1/n,...,1" (PlanShards), started
//     --paused and resumed at the common start through its REST API, its raw
//     samples reduced to the histogram (k6_engine.h "Synchronised start";
//     read back from <phase>_lg<i>.instance.json). Its start: when its
//     `k6 resume` returned; its ready time: when its REST API first answered.
//
// The lead (judge/loadgen_start.h): from the slowest launch last measured
// (the controller's launch -> ready), by the warmup (each process's warmup
// command's wall time less its duration: an upper bound), by every phase
// (exact), or read from `lead_file` (the run's last, kept across scenario
// processes); kLoadgenStartLeadS until one is known. A process not ready at
// the common start (ready after it on its host's clock) is a harness fault:
// the phase is run again once, at once, with the lead its launch calls for
// (at least twice the lead used); late again, Run() returns an Error
// saying so (host, how late, the lead, the launch), never a result judged
// as an engine that fell behind. A late wrk skips the slots it missed
// (pace.lua), so even a window missed entirely never sends a burst.
//
// Per phase, in controller_dir:
//   <phase>_lg<i>.{cmd.txt,stdout.txt,json}   each wrk process's own files (wrk_engine.h)
//   <phase>_lg<i>.{cmd.txt,k6.log,json,instance.json,histogram.json|samples.csv}
//                                             each k6 instance's (k6_engine.h)
//   <phase>.json   what was merged: schema "fvbench.loadgens/1", the common
//                  start and lead, the clock offsets (per host: offset,
//                  uncertainty, exchanges, when measured), the attempts
//                  (a harness fault's first one named), each process's name,
//                  host, share, offset, cpuset, output file, launch time,
//                  how late it was ready and its measured start;
//                  LoadResult::raw_path
//
// The merged result: sums and the merged histogram's percentiles (exact
// within 1/2048, never averaged), loadgens listed (LoadResult::loadgens,
// each with its CPU: its wrk's user + system time (bash `times`, wrk_engine.h
// ChildCpuSeconds) / (window x the cores its threads could use), its launch
// time and its host's clock offset), the measured start skew
// (loadgen_start_skew_us: latest - earliest measured start on the
// controller's clock), the window all processes ran (duration_s), and each
// process's validity checks (LoadResult::loadgen_checks, named "loadgen
// <name>: <check>", plus start_skew <= 10 ms and an informational
// loadgen_start: the lead, the launches, the offsets, a retry), which the
// scenario runner adds to the phase's checks.
//
// Errors: one process that fails (its engine's error) fails the phase,
// naming every failed process; the others' raw files stay in controller_dir.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/core/clock_offset.h"
#include "support/core/validity_params.h"
#include "support/engine/load_engine.h"
#include "support/host/host.h"
#include "support/judge/loadgen_start.h"

namespace fvbench {

struct LoadgenProcess {
  std::string name;                   // "<host>#<i>", e.g. "local#1", "10.213.3.1#2"
  std::unique_ptr<LoadEngine> engine; // a wrk or k6 engine on its own host connection
  std::string cpuset;                 // its CPUs on its host (taskset list); "" = unpinned
  size_t host = 0;                    // its loadgen host: an index into MultiLoadgenOptions::clock_hosts
};

struct MultiLoadgenOptions {
  ValidityParams validity;            // each process's checks (loadgen_merge.h)
  double lead_s = kLoadgenStartLeadS;  // the lead until a launch is measured (or read from lead_file)
  bool parallel = true;               // false: one after another (a dry run records its plan in order)
  // The controller's wall clock (µs since the Unix epoch); tests replace it.
  std::function<double()> now_epoch_us;
  // Each loadgen host's clock is read through clock_hosts[LoadgenProcess::
  // host] (not owned; outlive the engine). Empty: every process runs on this
  // machine's clock (offset 0, nothing read).
  std::vector<Host*> clock_hosts;
  double max_clock_offset_us = kMaxLoadgenClockOffsetUs;
  // Where the run's last measured launch is kept (judge/loadgen_start.h
  // LoadgenLeadRecord): read at construction when it names the same hosts,
  // written after every warmup and phase that measured one. "" = nowhere.
  std::string lead_file;
};

// n >= 2 processes (one process needs no merge: use its engine directly).
std::unique_ptr<LoadEngine> MakeMultiLoadgenEngine(std::vector<LoadgenProcess> processes,
                                                   MultiLoadgenOptions options);

// The LoadSpec process i of `n` runs (pure): its phase name "<phase>_lg<i+1>",
// its share of the rate, offset (wrk), k6 segment and sequence (k6) and
// connections (spec.connections / n rounded up, 0 = derived), its cpuset,
// the common start (on its host's clock) and start_wait_s = lead, and the
// histogram on.
LoadSpec ProcessSpec(const LoadSpec& spec, size_t i, size_t n, const std::string& cpuset,
                     double start_epoch_us, double lead_s);

}  // namespace fvbench
