// One load-generator instance of a multi-loadgen phase: an engine
// process on a loadgen host driving its share of the phase's rate. Kept per
// instance beside the merged LoadResult (load_result.h `loadgens`), listed in
// results.json and report.md. Units: rates RPS, times µs, CPU a fraction.
#pragma once

#include <cstdint>
#include <string>

namespace fvbench {

struct LoadgenInstance {
  std::string name;            // "<host>#<process>", e.g. "10.77.0.3#1", "local#0"
  double target_rps = 0;       // its share of the phase's rate
  double achieved_rps = 0;     // its responses / its duration
  double offset_us = 0;        // its schedule offset (wrk shards; 0 for k6 segments)
  std::string segment;         // k6 --execution-segment ("1/3:2/3"); "" for wrk
  // Its outcomes per scheduled request (outcomes.h), by kind.
  uint64_t scheduled = 0;
  uint64_t succeeded = 0;
  uint64_t failed_sut = 0;
  uint64_t failed_engine = 0;
  uint64_t non_2xx = 0;
  bool kept_up = true;         // its engine kept to its schedule (LoadResult::kept_up)
  double max_send_lag_us = 0;  // wrk
  uint64_t dropped_iterations = 0;  // k6
  double cpu_busy = -1;        // busy fraction of its CPUs during the phase (0..1); < 0: not sampled
  // The controller's wall clock (µs since the Unix epoch) of its first and
  // last scheduled request: the measured window is the span in which all
  // instances ran.
  double start_epoch_us = 0;
  double end_epoch_us = 0;
  // The controller's launch of it -> it was ready to send (s; < 0: not
  // known), and its host's clock - the controller's (µs), through which its
  // start and end above were mapped (multi_loadgen.h).
  double launch_s = -1;
  double clock_offset_us = 0;
};

}  // namespace fvbench
