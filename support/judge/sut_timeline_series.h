// The phase monitor's raw samples -> the SUT's timeline (core/sut_timeline.h):
// one point per pair of consecutive samples. Pure: the monitor
// (run/phase_monitor.h) collects, this computes.
//
// Per window [sample i-1, sample i]:
//   cpu_cores[s]  service s's (utime + stime) delta over its pids present in
//                 both samples / the window's ticks of one cpu (both from the
//                 SUT host's /proc, so no clock enters: detail::UsageBetween);
//                 absent when either SUT read failed, no tick elapsed, or none
//                 of its pids is in both samples.
//   rss_mib[s]    its pids' summed RSS in sample i; absent when that read
//                 failed or holds none of them.
//   sut_busy      busy fraction of the SUT's CPUs (detail::BusyFraction).
//   loadgen_busy  busy fraction of the load generator's cpuset, from the
//                 load generator's reads (absent when either failed).
// A failed read leaves the windows on both sides of it without those
// figures (a gap), never a zero. Memory: one point per sample.
//
// exits: a service's pid held by a good SUT read and absent from the next
// good one (a read that failed is skipped: it proves nothing), with both
// reads' times. A pid absent from the first good read is not an exit seen
// during the phase and is not listed.
//
// Times: start and end are the two samples' epoch_us (µs since the Unix
// epoch on the controller's clock) + clock_offset_us, the offset of the
// clock LoadResult::intervals is on (core/interval_series.h) against the
// controller's: 0 when the intervals are on the controller's clock (local
// mode: the load generator is the controller; several load generators:
// engine/multi_loadgen.h maps them through each host's measured offset).
#pragma once

#include <string>
#include <vector>

#include "support/core/sut_timeline.h"
#include "support/judge/proc_sample.h"

namespace fvbench {

struct SutTimelineSample {
  double epoch_us = 0;                              // controller's clock, when the SUT host was read
  const detail::ProcSample* sut = nullptr;          // SUT host: /proc/stat + the services' pids; null: failed
  const detail::ProcSample* loadgen = nullptr;      // load generator's /proc/stat; null: failed
};

struct SutTimelineService {
  std::string name;       // baseline | backend | fv
  std::vector<int> pids;  // the nginx processes under its master
};

struct SutTimelineParams {
  std::vector<SutTimelineService> services;
  long page_size = 4096;
  std::vector<int> sut_cpus;      // {} = every cpu in both reads
  std::vector<int> loadgen_cpus;  // {} = every cpu in both reads
  double clock_offset_us = 0;     // (intervals' clock) - (controller's clock)
};

SutTimeline SutTimelineFromSamples(const std::vector<SutTimelineSample>& samples, const SutTimelineParams& params);

}  // namespace fvbench
