// Parsing /proc samples taken on a host (support/run/phase_monitor.h runs
// the commands) and the figures computed from two of them. Pure.
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
//    host, once per Start(), in the same command as the error logs' sizes
//    and the process scan (ParseMonitorStart).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"
#include "support/core/scenario_result.h"

namespace fvbench {
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
// The monitor's start-up read, one command on the SUT host
// (kMonitorStartMarkerLogs / kMonitorStartMarkerProcs separate its parts):
//   getconf CLK_TCK; getconf PAGESIZE
//   <marker logs>, then per error log its size in bytes (`stat -c %s`) or "-"
//   <marker procs>, then every /proc/<pid>/stat line
// clk_tck / page_size are 0 when their lines are not positive numbers;
// log_sizes has `logs` entries, nullopt where the size was not a number (a
// missing marker leaves every entry nullopt and the scan empty).
inline constexpr std::string_view kMonitorStartMarkerLogs = "@@fvbench-logs";
inline constexpr std::string_view kMonitorStartMarkerProcs = "@@fvbench-procs";
struct MonitorStartRead {
  int clk_tck = 0;
  long page_size = 0;
  std::string conf_text;  // the getconf lines as printed (for an error message)
  std::vector<std::optional<uint64_t>> log_sizes;
  std::vector<std::string> log_texts;  // each size line as printed
  std::string scan;                    // the /proc/<pid>/stat lines
};
MonitorStartRead ParseMonitorStart(std::string_view out, size_t logs);

// The monitor's end-of-phase read of what each error log gained, one
// command on the SUT host: per log a line "<kLogTailMarker> <index> <exit
// status> <bytes>" and then exactly <bytes> bytes: the growth (`tail -c
// +<size+1>`), or tail's stderr when it failed. One entry per log; nullopt
// where its section is missing or cut short.
inline constexpr std::string_view kLogTailMarker = "@@fvbench-tail";
struct LogTail {
  bool ok = false;   // tail exited 0
  std::string text;  // the growth, or the error
};
std::vector<std::optional<LogTail>> ParseLogTails(std::string_view out, size_t logs);

std::vector<std::string> NginxAlertLines(std::string_view log);
// Lines where nginx's master says a worker process ended on a signal
// ("worker process 4242 exited on signal 11"): the master starts another,
// so each is a worker restart inside the phase.
uint64_t NginxWorkerExits(std::string_view log);
uint64_t CountLines(std::string_view text);  // a last line without '\n' counts

}  // namespace detail
}  // namespace fvbench
