// The common start of several load-generator processes (engine/
// multi_loadgen.h): how far ahead of their launch it is set (the lead), and
// whether each process met it. Pure.
//
// The lead covers the launch: from the controller's launch of the processes
// to each one being ready to send (wrk started, k6's REST API answering,
// paused). It follows the slowest launch last measured:
//   lead = kLoadgenLeadFactor x slowest + kLoadgenLeadMarginS,
//          within [kLoadgenMinLeadS, kLoadgenMaxLeadS]
// Measured on the namespace test hosts (3 hosts over SSH on 2 busy cores):
// launches of up to 270 ms (lead 0.66 s); locally ~10 ms (0.26 s); a host
// whose login shell takes 5 s to start launches in 5.3 s (lead 8.2 s).
// Until a launch is measured (no warmup, no earlier phase in this run) the
// first phase takes kLoadgenStartLeadS.
//
// A process not ready at the common start (its ready time, on its own
// host's clock, after the start given to it on that clock) did not start
// late because its engine fell behind: it was launched too late. That is a
// harness fault, named as such (LateStarts); the phase is run again once
// with the lead its launch calls for, and never judged.
//
// The last measured launch is kept for the run in BENCH_DIR/controller-
// results/loadgen_lead.json (schema fvbench.loadgen-lead/1), so that a
// scenario process (each is its own) starts from it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

inline constexpr double kLoadgenStartLeadS = 2.0;
inline constexpr double kLoadgenMinLeadS = 0.25;
inline constexpr double kLoadgenMaxLeadS = 60;
inline constexpr double kLoadgenLeadFactor = 1.5;
inline constexpr double kLoadgenLeadMarginS = 0.25;

// The lead (s) for a slowest launch (s); < 0 (none measured): kLoadgenStartLeadS.
double NextLoadgenLeadS(double slowest_launch_s);

// One process's start, on the controller's clock unless said otherwise.
struct ProcessStart {
  std::string name;          // "<host>#<i>"
  std::string host;          // its loadgen host
  double late_us = 0;        // ready - the common start, both on its host's clock (> 0: not ready at the start)
  double launch_s = -1;      // the controller's launch -> ready; < 0: not known
  uint64_t missed_slots = 0; // wrk: slots skipped because they fell due before it was up
};

// The slowest launch of `starts` (s); -1 when any is not known.
double SlowestLaunchS(const std::vector<ProcessStart>& starts);

// "" when every process was ready at the common start; else the harness
// fault, naming each late process, its host, how late, its launch and the
// lead used: "loadgen b#1 (host b) was not ready at the common start: ready
// 3.212 s after it (lead 2 s; its launch took 5.212 s; 410 slots skipped,
// none sent late)".
std::string LateStarts(const std::vector<ProcessStart>& starts, double lead_s);

struct LoadgenLeadRecord {
  std::vector<std::string> hosts;  // the loadgen hosts it was measured on, sorted
  double launch_s = -1;            // the slowest launch last measured (s)
  std::string measured_in;         // the phase (or warmup) that measured it
  double updated_unix = 0;
};

std::string LoadgenLeadToJson(const LoadgenLeadRecord& r);
// Error naming `source` for anything but the schema above.
Result<LoadgenLeadRecord> LoadgenLeadFromJson(const std::string& text, const std::string& source);

}  // namespace fvbench
