// What the hosts did while one measured phase ran (support/run/phase_monitor.h
// samples it; support/judge/validity.h checks it): the load generator's CPU,
// the SUT services' CPU, memory and error logs, the wait for a quiet SUT,
// each host's kernel network counters.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "support/core/scenario_result.h"
#include "support/core/sut_timeline.h"

namespace fvbench {

// The SUT before the load (WaitQuiet).
struct QuietOutcome {
  bool reached = false;       // busy per core fell to <= the bound before the timeout
  double busy_per_core = 0;   // last window: busy cpu time / (window x cpus), 0..1
  double load1_per_core = 0;  // /proc/loadavg load1 / cpus at the end (informational: a 1-minute average)
  double waited_s = 0;
  int cpus = 0;               // cpus considered (the SUT cpuset, or all)
  double window_s = 0;        // the last window's length (0.1 s first, then 1 s), seconds
};

// An error.log's growth during the phase.
struct LogGrowth {
  std::string service;
  std::string path;
  uint64_t lines = 0;
  double lines_per_s = 0;
  std::vector<std::string> alerts;  // alert lines, as logged (at most 10 kept)
  uint64_t alert_count = 0;
  uint64_t worker_exits = 0;  // nginx workers that exited on a signal (each restarted by the master)
};

// How a host's kernel network counters moved between two readings of
// /proc/net/netstat and /proc/net/snmp (support/judge/kernel_counters.h).
struct CounterDelta {
  // Every counter present in both readings and not lower at the end: after -
  // before, by "<prefix>.<name>" ("TcpExt.ListenOverflows", "Tcp.RetransSegs").
  std::map<std::string, uint64_t> deltas;
  std::vector<std::string> went_back;  // lower at the end (reset or wrapped): "TcpExt.X 10 -> 3"
  std::vector<std::string> vanished;   // in the first reading only
};

// One host's counters over the phase, read at its start and its end.
struct HostKernelCounters {
  std::string host;      // Host::name()
  bool sut = false;      // the SUT host
  bool loadgen = false;  // a load-generator host (both in local mode: one host, read once)
  CounterDelta delta;
};

struct PhaseObservation {
  double elapsed_s = 0;  // controller wall time between the first and the last sample
  int samples = 0;       // loadgen samples taken (>= 2 for any figure)
  std::string loadgen_host;
  std::string loadgen_cpuset;  // "" = all cpus
  int loadgen_cpus = 0;
  std::optional<double> loadgen_busy;  // mean busy fraction of the cpuset, 0..1
  double loadgen_busy_peak = 0;        // highest one-interval busy fraction
  std::vector<ServiceUsage> sut_usage;
  // Mean busy fraction 0..1 of the SUT's CPUs (MonitorOptions::sut_cpus)
  // over the phase, from the SUT host's /proc/stat: everything that ran on
  // them, the nginx processes and the kernel's network work (softirq) alike,
  // which the processes' own utime + stime leave out.
  std::optional<double> sut_busy;
  // The same figures per sample interval (core/sut_timeline.h): each
  // service's CPU and RSS, sut_busy and the load generator's busy fraction.
  SutTimeline sut_timeline;
  std::vector<LogGrowth> logs;
  // Per host, read at both ends of the phase; a host whose reads failed is
  // absent (and named in `problems`).
  std::vector<HostKernelCounters> kernel;
  std::optional<QuietOutcome> quiet;   // set by the caller when it waited before the load
  std::vector<std::string> problems;   // sampling failures, named by host and command
};

}  // namespace fvbench
