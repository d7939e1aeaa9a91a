// PhaseMonitor: what the hosts did while one measured phase ran, sampled
// from /proc through the Host interface (so it works on LocalHost and over
// SSH alike). Feeds the validity checks (validity.h) and the SUT resource
// columns of the report.
//
//   WaitQuiet(sut ...)          before the load: poll the SUT's CPU until quiet
//   PhaseMonitor m(...); m.Start();   right before engine.Run()
//   PhaseObservation o = m.Stop();    right after it
//
// Every ~500 ms a background thread reads, per host, through Host::ReadFile:
//   SUT host:     /proc/stat /proc/<pid>/stat ...   (its CPUs, the nginx processes)
//   loadgen host: /proc/stat
// (one host in all when both roles are the same Host object, local mode).
// No process starts on either host for a sample, nor for WaitQuiet's reads:
// LocalHost reads the files, SshHost in its command runner's own process
// (remote_runner.h: one round trip per file) or, without one, over SFTP. A
// command would cost a process on the SUT while it is measured, and over
// SSH without the runner a login shell with the user's start-up files:
// measured on the namespace hosts, where root's .bashrc runs `pyenv init`,
// ~93 ms and ~107 ms of CPU per command (20 `true` over one connection:
// 2.13 s of CPU), i.e. ~20 % of one
// CPU at two samples a second. Host::ReadFile must be
// thread-safe (LocalHost and SshHost are); the engine runs on the main
// thread meanwhile.
//
// How /proc is read: support/judge/proc_sample.h.
//
// Start() reads the SUT host's facts in ONE command (one process start, one
// SSH round trip; detail::ParseMonitorStart): USER_HZ and the page size, the
// error logs' sizes and the process scan below.
//
// SUT processes: the descendants of each service's recorded master pid,
// found once at Start() by scanning `cat /proc/[0-9]*/stat` for ppid links
// (/proc/<pid>/task/<tid>/children needs CONFIG_PROC_CHILDREN, often absent).
// CPU is (utime+stime) delta over the phase divided by the elapsed ticks of
// one cpu (from the same /proc/stat reads, so no controller clock skew), i.e.
// cores used. RSS is the sum over those processes, MiB (1 MiB = 2^20 bytes).
//
// Load generator: the busy fraction 0..1 of the cpus of its cpuset (K6_CPUSET;
// all cpus when unset) between the first and the last sample (mean), and the
// highest busy fraction of any one interval (peak). It counts whatever ran on
// those cpus, the engine and anything sharing them (the SUT, in local mode
// without pinning): either way the engine had no headroom.
//
// Timeline: besides the totals, PhaseObservation::sut_timeline keeps one
// point per pair of consecutive samples (judge/sut_timeline_series.h: each
// service's CPU over the window and RSS at its end, the SUT's and the load
// generator's busy fractions), so memory grows with samples, not requests.
// A sample's time is the controller's wall clock at the middle of its SUT
// read (over SSH the file is read somewhere in that round trip). The
// timeline plot places it against LoadResult::intervals, whose clock is the
// controller's in local mode (the load generator is the controller) and with
// several load generators (mapped through each host's measured offset,
// engine/multi_loadgen.h). With ONE remote load generator the intervals are
// on that host's clock, and no offset to it is measured: the alignment is
// off by that host's clock offset (a few ms between NTP-disciplined hosts,
// against 500 ms windows; unbounded for an undisciplined clock).
//
// Error logs: each service's error.log size at Start (`stat -c %s`), and what
// it gained by Stop (`tail -c +<size+1>`, every log in one command:
// detail::ParseLogTails; its first kErrorLogGrowthBytes, file_caps.h, counted
// and a larger growth said): lines, lines per second and nginx alert lines
// ([alert], [emerg], "worker_connections are not enough", "Too many open
// files").
//
// Kernel network counters: /proc/net/netstat, snmp and dev, and
// stat/nf_conntrack where connection tracking is loaded, through
// Host::ReadFile at Start (before the first sample) and at Stop (after the
// last), on the SUT host and on each load-generator host (`loadgen` and
// MonitorOptions::more_loadgens; a Host object given twice, as in local mode,
// is read once); parsed by support/judge/kernel_counters.h into
// PhaseObservation::kernel. A host whose files could not be read or parsed
// at either end is absent there and named in problems.
//
// A sampling failure never aborts the phase: it is recorded in
// PhaseObservation::problems and the affected figure is absent.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/host/host.h"
#include "support/core/result.h"
#include "support/core/phase_observation.h"
#include "support/core/scenario_result.h"
#include "support/judge/kernel_counters.h"
#include "support/judge/proc_sample.h"
#include "support/judge/sut_timeline_series.h"

namespace fvbench {

// One service to watch on the SUT host.
struct MonitoredService {
  std::string name;       // baseline | backend | fv
  int master_pid = 0;     // ServiceHandle::pid
  std::string error_log;  // path on the SUT host
};

struct MonitorOptions {
  std::string loadgen_cpuset;  // K6_CPUSET; "" = unpinned: loadgen_usable_cpus
  // Unpinned, the CPUs the engine may use on its host (a CPU list, Testbed::
  // loadgen_cpus: affinity within the cgroup cpuset); "" = every cpu of /proc/stat.
  std::string loadgen_usable_cpus;
  // The SUT's CPUs (ORESTY_CPUSET, or its usable CPUs: Testbed::sut_cpus);
  // "" = every cpu of the SUT host's /proc/stat. PhaseObservation::sut_busy.
  std::string sut_cpus;
  std::chrono::milliseconds period{500};
  // The load-generator hosts after the first (Testbed::loadgens()): their
  // kernel network counters are read too.
  std::vector<Host*> more_loadgens;
};

class PhaseMonitor {
 public:
  PhaseMonitor(Host& sut, Host& loadgen, std::vector<MonitoredService> services, MonitorOptions options);
  ~PhaseMonitor();  // stops the thread if still running
  PhaseMonitor(const PhaseMonitor&) = delete;
  PhaseMonitor& operator=(const PhaseMonitor&) = delete;

  // Finds the nginx processes, records log sizes, takes the first sample and
  // starts the sampling thread. Err only for a bad cpuset; host problems are
  // recorded and reported by Stop().
  Result<void> Start();
  // Takes the last sample, stops the thread and computes the observation.
  PhaseObservation Stop();

 private:
  void ReadStartFacts();
  struct Sample;
  void Loop();
  void TakeSample();
  bool StopSampling();
  void ObserveLoadgen(const std::vector<const Sample*>& lg, PhaseObservation& o) const;
  void ObserveSut(const std::vector<const Sample*>& sut, PhaseObservation& o);
  void ObserveTimeline(PhaseObservation& o);
  void ObserveLogs(PhaseObservation& o);
  struct CounterHost;
  void ReadKernelCountersAtStart();
  void ObserveKernelCounters(PhaseObservation& o);

  Host& sut_;
  Host& loadgen_;
  std::vector<MonitoredService> services_;
  MonitorOptions opt_;
  std::vector<int> loadgen_cpus_;
  std::vector<int> sut_cpus_;
  std::map<std::string, std::vector<int>> pids_;  // service -> descendants of its master
  std::map<std::string, uint64_t> log_size_;
  int clk_tck_ = 100;
  long page_size_ = 4096;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool started_ = false;
  std::thread thread_;
  std::vector<Sample> samples_;
  std::vector<std::string> problems_;
  std::vector<CounterHost> counter_hosts_;  // each host once, with its first reading
};

// Before a measured phase: polls the SUT host's /proc/stat until the busy
// fraction of `cpuset` (ORESTY_CPUSET; "" = all cpus) is <= max_busy_per_core,
// for at most timeout_s. The first window is 100 ms: 10 clock ticks per cpu
// at USER_HZ 100, so the busy share is known to 1 tick (10 % of one cpu,
// less over several), enough against the 50 % bound (QUIET_LOAD_PER_CORE)
// to tell a busy SUT from a quiet one; it was 250 ms, and before that 1 s,
// of fixed cost in every phase. Later windows are 1 s. Err
// only when /proc/stat cannot be read at all (names host and command).
Result<QuietOutcome> WaitQuiet(Host& sut, const std::string& cpuset, double max_busy_per_core,
                               double timeout_s);

}  // namespace fvbench
