// How one phase's rate is split across N load-generator instances.
// Pure.
//
// wrk shards: instance i of n paces rate / n on its own absolute schedule,
// offset by i / rate seconds, so the merged arrivals stay evenly spaced at
// 1 / rate (instance i's slot k is at start + offset_i + k x n / rate); all
// share one start time on the wall clock (StartEpochUs), far enough ahead for
// every instance to be launched, so all start together.
//
// k6: every instance runs the same script with its segment of one sequence
// (k6 docs "Execution segment": `--execution-segment 1/3:2/3
// --execution-segment-sequence 0,1/3,2/3,1`); k6 splits the
// constant-arrival-rate itself, so the instances together keep exactly the
// target rate.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace fvbench {

struct ShardPlan {
  size_t index = 0;          // 0-based
  size_t count = 1;
  double rate_rps = 0;       // this instance's share
  double offset_us = 0;      // wrk: schedule offset of its slot 0 after the common start
  std::string k6_segment;    // "i/n:(i+1)/n" ("0:1" for one instance)
  std::string k6_sequence;   // "0,1/n,...,1"
};

// n >= 1 equal shares of total_rps (> 0).
std::vector<ShardPlan> PlanShards(double total_rps, size_t n);

// The common start time: now + lead_us, rounded up to a whole millisecond
// (µs since the Unix epoch).
double StartEpochUs(double now_epoch_us, double lead_us);

}  // namespace fvbench
