// PhaseMonitor: what the hosts did while one measured phase ran, sampled
// from /proc through the Host interface (so it works on LocalHost and over
// SSH alike). Feeds the validity checks (validity.h) and the SUT resource
// columns of the report.
//
//   WaitQuiet(sut ...)          before the load: poll the SUT's CPU until quiet
//   PhaseMonitor m(...); m.Start();   right before engine.run()
//   PhaseObservation o = m.Stop();    right after it
//
// Every ~500 ms a background thread runs ONE command per host:
//   SUT host:     cat /proc/stat /proc/<pid>/stat ...   (the nginx processes)
//   loadgen host: cat /proc/stat
// (one command in all when both roles are the same Host object, local mode).
// Host::run must be thread-safe (LocalHost is); the engine runs on the main
// thread meanwhile.
//
// Facts used (proc(5)):
//  - /proc/stat "cpuN user nice system idle iowait irq softirq steal guest
//    guest_nice", in USER_HZ ticks; guest time is already inside user, so the
//    total is the sum of the first 8 fields and busy = total - idle - iowait.
//  - /proc/<pid>/stat: "pid (comm) state ppid ..." — comm may hold spaces and
//    parentheses, so fields are counted from the LAST ')'; utime is field 14,
//    stime 15, rss 24 (pages).
//  - /proc/loadavg "load1 load5 load15 running/total lastpid".
//  - USER_HZ and the page size from `getconf CLK_TCK; getconf PAGESIZE` on the SUT
//    host, once per Start().
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
// Error logs: each service's error.log size at Start (`stat -c %s`), and what
// it gained by Stop (`tail -c +<size+1>`): lines, lines per second and nginx
// alert lines ([alert], [emerg], "worker_connections are not enough",
// "Too many open files").
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
#include "support/core/scenario_result.h"

namespace fvbench {

// The SUT before the load (WaitQuiet).
struct QuietOutcome {
  bool reached = false;       // busy per core fell to <= the bound before the timeout
  double busy_per_core = 0;   // last 1 s window: busy cpu time / (window x cpus), 0..1
  double load1_per_core = 0;  // /proc/loadavg load1 / cpus at the end (informational: a 1-minute average)
  double waited_s = 0;
  int cpus = 0;               // cpus considered (the SUT cpuset, or all)
};

// An error.log's growth during the phase.
struct LogGrowth {
  std::string service;
  std::string path;
  uint64_t lines = 0;
  double lines_per_s = 0;
  std::vector<std::string> alerts;  // alert lines, as logged (at most 10 kept)
  uint64_t alert_count = 0;
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
  std::vector<LogGrowth> logs;
  std::optional<QuietOutcome> quiet;   // set by the caller when it waited before the load
  std::vector<std::string> problems;   // sampling failures, named by host and command
};

// One service to watch on the SUT host.
struct MonitoredService {
  std::string name;       // baseline | backend | fv
  int master_pid = 0;     // ServiceHandle::pid
  std::string error_log;  // path on the SUT host
};

struct MonitorOptions {
  std::string loadgen_cpuset;  // K6_CPUSET; "" = all cpus
  std::chrono::milliseconds period{500};
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
  struct Sample;
  void Loop();
  void TakeSample();

  Host& sut_;
  Host& loadgen_;
  std::vector<MonitoredService> services_;
  MonitorOptions opt_;
  std::vector<int> loadgen_cpus_;
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
};

// Before a measured phase: polls the SUT host's /proc/stat over 1 s windows
// until the busy fraction of `cpuset` (ORESTY_CPUSET; "" = all cpus) is
// <= max_busy_per_core, for at most timeout_s. Err only when /proc/stat
// cannot be read at all (names host and command).
Result<QuietOutcome> WaitQuiet(Host& sut, const std::string& cpuset, double max_busy_per_core,
                               double timeout_s);

namespace detail {

struct CpuTicks {
  uint64_t busy = 0;
  uint64_t total = 0;
};

struct ProcStat {
  int pid = 0;
  int ppid = 0;
  std::string comm;
  char state = '?';
  uint64_t utime = 0;  // ticks
  uint64_t stime = 0;  // ticks
  int64_t rss_pages = 0;
};

// One read of `cat /proc/stat /proc/<pid>/stat ...`: the per-cpu lines
// ("cpu0".."cpuN"; the aggregate "cpu" line is skipped) and every line that
// parses as a /proc/<pid>/stat record. Unparseable lines are ignored.
struct ProcSample {
  std::map<int, CpuTicks> cpus;
  std::vector<ProcStat> procs;
};
ProcSample ParseProcSample(std::string_view text);

// "0-3,6" -> {0,1,2,3,6}; "" -> {} (all). Err names the bad part.
Result<std::vector<int>> ParseCpuList(std::string_view list);

// Busy fraction 0..1 of `cpus` (empty = every cpu present in both samples)
// between two samples; nullopt when no tick elapsed or no cpu matched.
std::optional<double> BusyFraction(const std::map<int, CpuTicks>& before, const std::map<int, CpuTicks>& after,
                                   const std::vector<int>& cpus);

// Ticks of one cpu between two samples (total ticks over all cpus / cpu count):
// the phase's length in USER_HZ ticks measured on that host.
std::optional<double> ElapsedTicksPerCpu(const std::map<int, CpuTicks>& before,
                                         const std::map<int, CpuTicks>& after);

// All descendants of `root` (children, grandchildren ...), root excluded,
// sorted by pid.
std::vector<int> Descendants(const std::vector<ProcStat>& all, int root);

// Usage of `pids` between two samples: cpu cores (utime+stime delta /
// elapsed_ticks_per_cpu) over pids present in both, RSS of the `after` sample.
// Peak RSS is left to the caller (max over samples of RssMib).
ServiceUsage UsageBetween(const std::string& service, const std::vector<int>& pids, const ProcSample& before,
                          const ProcSample& after, double elapsed_ticks_per_cpu, long page_size);
double RssMib(const std::vector<int>& pids, const ProcSample& s, long page_size);

struct LoadAvg {
  double load1 = 0, load5 = 0, load15 = 0;
  int running = 0, total = 0;
};
Result<LoadAvg> ParseLoadAvg(std::string_view text);

// Lines of an nginx error.log that are alerts: [alert], [emerg],
// "worker_connections are not enough", "Too many open files".
std::vector<std::string> NginxAlertLines(std::string_view log);
uint64_t CountLines(std::string_view text);  // a last line without '\n' counts

}  // namespace detail
}  // namespace fvbench
