#include "support/judge/proc_sample.h"

#include "support/core/cpu_list.h"
#include "support/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

namespace fvbench {

namespace detail {
namespace {

template <class T>
bool ToNum(std::string_view s, T& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseCpuLine(std::string_view line, int& cpu, CpuTicks& t) {
  if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') return false;
  auto f = SplitFields(line);
  if (f.size() < 5) return false;
  if (!ToNum(f[0].substr(3), cpu)) return false;
  uint64_t v[8] = {0};
  size_t n = std::min<size_t>(8, f.size() - 1);
  for (size_t i = 0; i < n; ++i) {
    if (!ToNum(f[i + 1], v[i])) return false;
  }
  t.total = 0;
  for (uint64_t x : v) t.total += x;
  uint64_t idle = v[3] + v[4];
  t.busy = t.total >= idle ? t.total - idle : 0;
  return true;
}

bool ParsePidStatLine(std::string_view line, ProcStat& p) {
  size_t open = line.find(" (");
  size_t close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return false;
  if (!ToNum(line.substr(0, open), p.pid)) return false;
  p.comm = std::string(line.substr(open + 2, close - open - 2));
  auto f = SplitFields(line.substr(close + 1));
  // f[0] = field 3 (state); field k is f[k-3].
  if (f.size() < 22 || f[0].size() != 1) return false;
  p.state = f[0][0];
  return ToNum(f[1], p.ppid) && ToNum(f[14 - 3], p.utime) && ToNum(f[15 - 3], p.stime) &&
         ToNum(f[24 - 3], p.rss_pages);
}

}  // namespace

ProcSample ParseProcSample(std::string_view text) {
  ProcSample s;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? text.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    int cpu = 0;
    CpuTicks t;
    ProcStat p;
    if (ParseCpuLine(line, cpu, t)) {
      s.cpus[cpu] = t;
    } else if (!line.empty() && line[0] >= '0' && line[0] <= '9' && ParsePidStatLine(line, p)) {
      s.procs.push_back(std::move(p));
    }
  }
  return s;
}

Result<std::vector<int>> ParseCpuList(std::string_view list) {
  if (list.empty()) return std::vector<int>{};
  auto cpus = fvbench::ParseCpuList(list);  // core/cpu_list.h: the one parser of CPU lists
  if (!cpus) return Error{fmt::format("cpu list '{}': {}", list, cpus.error().message)};
  return cpus;
}

std::optional<double> BusyFraction(const std::map<int, CpuTicks>& before, const std::map<int, CpuTicks>& after,
                                   const std::vector<int>& cpus) {
  uint64_t busy = 0, total = 0;
  int matched = 0;
  auto add = [&](int cpu) {
    auto b = before.find(cpu);
    auto a = after.find(cpu);
    if (b == before.end() || a == after.end()) return;
    if (a->second.total < b->second.total || a->second.busy < b->second.busy) return;
    busy += a->second.busy - b->second.busy;
    total += a->second.total - b->second.total;
    ++matched;
  };
  if (cpus.empty()) {
    for (const auto& [cpu, t] : after) add(cpu);
  } else {
    for (int cpu : cpus) add(cpu);
  }
  if (matched == 0 || total == 0) return std::nullopt;
  return static_cast<double>(busy) / static_cast<double>(total);
}

std::optional<double> ElapsedTicksPerCpu(const std::map<int, CpuTicks>& before,
                                         const std::map<int, CpuTicks>& after) {
  uint64_t total = 0;
  int n = 0;
  for (const auto& [cpu, t] : after) {
    auto b = before.find(cpu);
    if (b == before.end() || t.total < b->second.total) continue;
    total += t.total - b->second.total;
    ++n;
  }
  if (n == 0 || total == 0) return std::nullopt;
  return static_cast<double>(total) / n;
}

std::vector<int> Descendants(const std::vector<ProcStat>& all, int root) {
  std::set<int> found;
  std::vector<int> frontier = {root};
  while (!frontier.empty()) {
    int parent = frontier.back();
    frontier.pop_back();
    for (const ProcStat& p : all) {
      if (p.ppid == parent && p.pid != root && found.insert(p.pid).second) frontier.push_back(p.pid);
    }
  }
  return std::vector<int>(found.begin(), found.end());
}

namespace {
const ProcStat* FindPid(const ProcSample& s, int pid) {
  for (const ProcStat& p : s.procs) {
    if (p.pid == pid) return &p;
  }
  return nullptr;
}
}  // namespace

double RssMib(const std::vector<int>& pids, const ProcSample& s, long page_size) {
  double bytes = 0;
  for (int pid : pids) {
    if (const ProcStat* p = FindPid(s, pid)) bytes += static_cast<double>(p->rss_pages) * page_size;
  }
  return bytes / (1024.0 * 1024.0);
}

ServiceUsage UsageBetween(const std::string& service, const std::vector<int>& pids, const ProcSample& before,
                          const ProcSample& after, double elapsed_ticks_per_cpu, long page_size) {
  ServiceUsage u;
  u.service = service;
  uint64_t ticks = 0;
  for (int pid : pids) {
    const ProcStat* b = FindPid(before, pid);
    const ProcStat* a = FindPid(after, pid);
    if (a != nullptr) ++u.processes;
    if (a == nullptr || b == nullptr) continue;
    uint64_t ta = a->utime + a->stime, tb = b->utime + b->stime;
    if (ta >= tb) ticks += ta - tb;
  }
  u.cpu_cores = elapsed_ticks_per_cpu > 0 ? static_cast<double>(ticks) / elapsed_ticks_per_cpu : 0;
  u.rss_mib = RssMib(pids, after, page_size);
  u.rss_peak_mib = u.rss_mib;
  return u;
}

Result<LoadAvg> ParseLoadAvg(std::string_view text) {
  auto f = SplitFields(text.substr(0, text.find('\n')));
  LoadAvg l;
  size_t slash = f.size() >= 4 ? f[3].find('/') : std::string_view::npos;
  // from_chars(double) is available in GCC 11+.
  if (f.size() < 4 || slash == std::string_view::npos || !ToNum(f[0], l.load1) || !ToNum(f[1], l.load5) ||
      !ToNum(f[2], l.load15) || !ToNum(f[3].substr(0, slash), l.running) ||
      !ToNum(f[3].substr(slash + 1), l.total)) {
    return Error{fmt::format("/proc/loadavg: unexpected text '{}' (expected \"load1 load5 load15 running/total "
                             "lastpid\")",
                             text.substr(0, 80))};
  }
  return l;
}

uint64_t NginxWorkerExits(std::string_view log) {
  uint64_t n = 0;
  for (size_t pos = log.find("exited on signal"); pos != std::string_view::npos;
       pos = log.find("exited on signal", pos + 1)) {
    const size_t nl = log.rfind('\n', pos);
    const size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    if (log.substr(start, pos - start).find("worker process") != std::string_view::npos) ++n;
  }
  return n;
}

std::vector<std::string> NginxAlertLines(std::string_view log) {
  static const char* kMarks[] = {"[alert]", "[emerg]", "worker_connections are not enough",
                                 "Too many open files"};
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t nl = log.find('\n', pos);
    std::string_view line = log.substr(pos, nl == std::string_view::npos ? log.size() - pos : nl - pos);
    pos = nl == std::string_view::npos ? log.size() : nl + 1;
    for (const char* m : kMarks) {
      if (line.find(m) != std::string_view::npos) {
        out.emplace_back(line);
        break;
      }
    }
  }
  return out;
}

uint64_t CountLines(std::string_view text) {
  uint64_t n = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

namespace {

template <typename T>
T PositiveNumber(std::string_view text) {
  T v = 0;
  text = TrimSpace(text);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v > 0 ? v : 0;
}

// The text between `marker`'s line and the next line starting with "@@"
// (or the end); npos when the marker line is missing.
std::string_view Section(std::string_view out, std::string_view marker) {
  size_t at = 0;
  while (true) {
    at = out.find(marker, at);
    if (at == std::string_view::npos) return {};
    const bool line_start = at == 0 || out[at - 1] == '\n';
    const size_t after = at + marker.size();
    if (line_start && (after == out.size() || out[after] == '\n')) {
      const size_t body = std::min(out.size(), after + 1);
      const size_t next = out.find("\n@@", after);
      return out.substr(body, next == std::string_view::npos ? std::string_view::npos : next + 1 - body);
    }
    at = after;
  }
}

}  // namespace

std::vector<std::optional<LogTail>> ParseLogTails(std::string_view out, size_t logs) {
  std::vector<std::optional<LogTail>> tails(logs);
  size_t pos = 0;
  while (pos < out.size()) {
    size_t nl = out.find('\n', pos);
    if (nl == std::string_view::npos) break;
    std::string_view line = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.substr(0, kLogTailMarker.size()) != kLogTailMarker) continue;
    std::istringstream head{std::string(line.substr(kLogTailMarker.size()))};
    size_t index = logs, bytes = 0;
    int status = -1;
    if (!(head >> index >> status >> bytes) || index >= logs || out.size() - pos < bytes) break;
    tails[index] = LogTail{status == 0, std::string(out.substr(pos, bytes))};
    pos += bytes;
  }
  return tails;
}

MonitorStartRead ParseMonitorStart(std::string_view out, size_t logs) {
  MonitorStartRead r;
  const size_t logs_at = out.find(std::string(kMonitorStartMarkerLogs) + "\n");
  std::string_view conf = logs_at == std::string_view::npos ? out : out.substr(0, logs_at);
  r.conf_text = std::string(TrimSpace(conf));
  std::istringstream lines{std::string(conf)};
  std::string tck, page;
  if (std::getline(lines, tck) && std::getline(lines, page)) {
    r.clk_tck = PositiveNumber<int>(tck);
    r.page_size = PositiveNumber<long>(page);
  }
  r.log_sizes.assign(logs, std::nullopt);
  r.log_texts.assign(logs, "");
  std::istringstream sizes{std::string(Section(out, kMonitorStartMarkerLogs))};
  std::string line;
  for (size_t i = 0; i < logs && std::getline(sizes, line); ++i) {
    r.log_texts[i] = std::string(TrimSpace(line));
    if (TrimSpace(line) == "0") {
      r.log_sizes[i] = 0;
    } else if (uint64_t v = PositiveNumber<uint64_t>(line); v > 0) {
      r.log_sizes[i] = v;
    }
  }
  r.scan = std::string(Section(out, kMonitorStartMarkerProcs));
  return r;
}

}  // namespace detail

}  // namespace fvbench
