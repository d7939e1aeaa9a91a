#include "support/run/phase_monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

#include "support/host/shell_quote.h"

namespace fvbench {

namespace detail {
namespace {

std::vector<std::string_view> SplitWs(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

template <class T>
bool ToNum(std::string_view s, T& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

bool ParseCpuLine(std::string_view line, int& cpu, CpuTicks& t) {
  if (line.size() < 4 || line.substr(0, 3) != "cpu" || line[3] < '0' || line[3] > '9') return false;
  auto f = SplitWs(line);
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
  auto f = SplitWs(line.substr(close + 1));
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
  std::set<int> cpus;
  if (!list.empty() && list.back() == ',') {
    return Error{fmt::format("cpu list '{}': ends with ',' (expected N or N-M parts, e.g. 0-3,6)", list)};
  }
  size_t pos = 0;
  while (pos < list.size()) {
    size_t comma = list.find(',', pos);
    std::string_view part = list.substr(pos, comma == std::string_view::npos ? list.size() - pos : comma - pos);
    pos = comma == std::string_view::npos ? list.size() : comma + 1;
    size_t dash = part.find('-');
    int a = 0, b = 0;
    bool ok = dash == std::string_view::npos ? ToNum(part, a) && (b = a, true)
                                             : ToNum(part.substr(0, dash), a) && ToNum(part.substr(dash + 1), b);
    if (!ok || a < 0 || b < a || b > 4095) {
      return Error{fmt::format("cpu list '{}': bad part '{}' (expected N or N-M, e.g. 0-3,6)", list, part)};
    }
    for (int c = a; c <= b; ++c) cpus.insert(c);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
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
  auto f = SplitWs(text.substr(0, text.find('\n')));
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

}  // namespace detail

// ---------------------------------------------------------------------------

struct PhaseMonitor::Sample {
  std::chrono::steady_clock::time_point at;
  detail::ProcSample sut;      // SUT host: /proc/stat + the nginx processes
  detail::ProcSample loadgen;  // loadgen host: /proc/stat (== sut's in local mode)
  bool sut_ok = false;
  bool loadgen_ok = false;
};

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

// Runs a read-only command; output even on a non-zero exit (cat of a vanished
// pid exits 1 but prints the rest). Err only when it could not run at all or
// printed nothing.
Result<std::string> Read(Host& host, std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = timeout;
  auto r = host.run(c);
  if (!r) return Error{fmt::format("host {}: `{}`: {}", host.name(), ShellJoin(c.argv), r.error().message)};
  if (r->timed_out || (r->out.empty() && !r->success())) {
    return Error{fmt::format("host {}: `{}` {} {}", host.name(), ShellJoin(c.argv),
                             r->timed_out ? "timed out" : fmt::format("exited {}", r->exit_code),
                             Trim(r->err).substr(0, 200))};
  }
  return r->out;
}

}  // namespace

PhaseMonitor::PhaseMonitor(Host& sut, Host& loadgen, std::vector<MonitoredService> services,
                           MonitorOptions options)
    : sut_(sut), loadgen_(loadgen), services_(std::move(services)), opt_(std::move(options)) {}

PhaseMonitor::~PhaseMonitor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Result<void> PhaseMonitor::Start() {
  auto cpus = detail::ParseCpuList(opt_.loadgen_cpuset);
  if (!cpus) return Error{"K6_CPUSET: " + cpus.error().message};
  loadgen_cpus_ = *cpus;
  using std::chrono::seconds;

  // USER_HZ and page size on the SUT host.
  if (auto r = Read(sut_, {"sh", "-c", "getconf CLK_TCK; getconf PAGESIZE"}, seconds(10)); r) {
    std::istringstream in(*r);
    int tck = 0;
    long page = 0;
    if (in >> tck >> page && tck > 0 && page > 0) {
      clk_tck_ = tck;
      page_size_ = page;
    } else {
      problems_.push_back(fmt::format("host {}: `getconf CLK_TCK; getconf PAGESIZE` printed '{}'; assuming 100 and 4096",
                                      sut_.name(), Trim(*r)));
    }
  } else {
    problems_.push_back(r.error().message + "; assuming CLK_TCK 100, PAGESIZE 4096");
  }

  // The nginx processes under each master.
  std::vector<std::string> scan = {"sh", "-c", "cat /proc/[0-9]*/stat 2>/dev/null; true"};
  if (!services_.empty()) {
    if (auto r = Read(sut_, scan, seconds(20)); r) {
      detail::ProcSample all = detail::ParseProcSample(*r);
      for (const MonitoredService& s : services_) {
        pids_[s.name] = detail::Descendants(all.procs, s.master_pid);
        if (pids_[s.name].empty()) {
          problems_.push_back(fmt::format("host {}: no child processes of {} (master pid {}) found in /proc",
                                          sut_.name(), s.name, s.master_pid));
        }
      }
    } else {
      problems_.push_back(r.error().message);
    }
  }

  // Error log sizes.
  for (const MonitoredService& s : services_) {
    if (s.error_log.empty()) continue;
    auto r = Read(sut_, {"stat", "-c", "%s", s.error_log}, seconds(10));
    uint64_t size = 0;
    if (r && detail::CountLines(*r) >= 1 && (size = std::strtoull(r->c_str(), nullptr, 10), true)) {
      log_size_[s.name] = size;
    } else {
      problems_.push_back(r ? fmt::format("host {}: stat of {} printed '{}'", sut_.name(), s.error_log, Trim(*r))
                            : r.error().message);
    }
  }

  TakeSample();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
    started_ = true;
  }
  thread_ = std::thread([this] { Loop(); });
  return Ok();
}

void PhaseMonitor::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    if (cv_.wait_for(lock, opt_.period, [this] { return stop_; })) break;
    lock.unlock();
    TakeSample();
    lock.lock();
  }
}

void PhaseMonitor::TakeSample() {
  Sample s;
  s.at = std::chrono::steady_clock::now();
  std::vector<std::string> problems;
  std::vector<std::string> argv = {"cat", "/proc/stat"};
  for (const auto& [name, pids] : pids_) {
    for (int pid : pids) argv.push_back(fmt::format("/proc/{}/stat", pid));
  }
  const bool same_host = &sut_ == &loadgen_;
  if (auto r = Read(sut_, argv, std::chrono::seconds(10)); r) {
    s.sut = detail::ParseProcSample(*r);
    s.sut_ok = !s.sut.cpus.empty();
  } else {
    problems.push_back(r.error().message);
  }
  if (same_host) {
    s.loadgen = s.sut;
    s.loadgen_ok = s.sut_ok;
  } else if (auto r = Read(loadgen_, {"cat", "/proc/stat"}, std::chrono::seconds(10)); r) {
    s.loadgen = detail::ParseProcSample(*r);
    s.loadgen_ok = !s.loadgen.cpus.empty();
  } else {
    problems.push_back(r.error().message);
  }
  std::lock_guard<std::mutex> lock(mu_);
  samples_.push_back(std::move(s));
  for (auto& p : problems) {
    if (problems_.size() < 20) problems_.push_back(std::move(p));
  }
}

PhaseObservation PhaseMonitor::Stop() {
  PhaseObservation o;
  o.loadgen_host = loadgen_.name();
  o.loadgen_cpuset = opt_.loadgen_cpuset;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_) {
      o.problems.push_back("the phase monitor was not started");
      return o;
    }
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  TakeSample();
  {
    std::lock_guard<std::mutex> lock(mu_);
    started_ = false;
  }

  o.problems = problems_;
  std::vector<const Sample*> lg, sut;
  for (const Sample& s : samples_) {
    if (s.loadgen_ok) lg.push_back(&s);
    if (s.sut_ok) sut.push_back(&s);
  }
  o.samples = static_cast<int>(lg.size());
  if (!samples_.empty()) {
    o.elapsed_s = std::chrono::duration<double>(samples_.back().at - samples_.front().at).count();
  }

  // Load generator cpuset.
  if (lg.size() >= 2) {
    o.loadgen_busy = detail::BusyFraction(lg.front()->loadgen.cpus, lg.back()->loadgen.cpus, loadgen_cpus_);
    for (size_t i = 1; i < lg.size(); ++i) {
      auto b = detail::BusyFraction(lg[i - 1]->loadgen.cpus, lg[i]->loadgen.cpus, loadgen_cpus_);
      if (b) o.loadgen_busy_peak = std::max(o.loadgen_busy_peak, *b);
    }
    if (loadgen_cpus_.empty()) {
      o.loadgen_cpus = static_cast<int>(lg.back()->loadgen.cpus.size());
    } else {
      int n = 0;
      for (int c : loadgen_cpus_) n += lg.back()->loadgen.cpus.count(c) ? 1 : 0;
      o.loadgen_cpus = n;
      if (n == 0) {
        o.problems.push_back(fmt::format("host {}: none of the cpus of K6_CPUSET={} is in /proc/stat",
                                         loadgen_.name(), opt_.loadgen_cpuset));
      }
    }
  } else {
    o.problems.push_back(fmt::format("host {}: fewer than 2 /proc/stat samples; load generator CPU not measured",
                                     loadgen_.name()));
  }

  // SUT processes.
  if (sut.size() >= 2) {
    auto ticks = detail::ElapsedTicksPerCpu(sut.front()->sut.cpus, sut.back()->sut.cpus);
    for (const MonitoredService& svc : services_) {
      const std::vector<int>& pids = pids_[svc.name];
      if (pids.empty()) continue;
      ServiceUsage u = detail::UsageBetween(svc.name, pids, sut.front()->sut, sut.back()->sut, ticks.value_or(0),
                                            page_size_);
      for (const Sample* s : sut) u.rss_peak_mib = std::max(u.rss_peak_mib, detail::RssMib(pids, s->sut, page_size_));
      o.sut_usage.push_back(u);
    }
  }

  // Error logs.
  for (const MonitoredService& svc : services_) {
    auto it = log_size_.find(svc.name);
    if (it == log_size_.end()) continue;
    auto r = Read(sut_, {"tail", "-c", fmt::format("+{}", it->second + 1), svc.error_log}, std::chrono::seconds(30));
    LogGrowth g;
    g.service = svc.name;
    g.path = svc.error_log;
    if (!r) {
      // An empty growth makes `tail` print nothing and exit 0: only real failures land here.
      o.problems.push_back(r.error().message);
      continue;
    }
    g.lines = detail::CountLines(*r);
    g.lines_per_s = o.elapsed_s > 0 ? static_cast<double>(g.lines) / o.elapsed_s : 0;
    auto alerts = detail::NginxAlertLines(*r);
    g.alert_count = alerts.size();
    if (alerts.size() > 10) alerts.resize(10);
    g.alerts = std::move(alerts);
    o.logs.push_back(std::move(g));
  }
  samples_.clear();
  return o;
}

Result<QuietOutcome> WaitQuiet(Host& sut, const std::string& cpuset, double max_busy_per_core,
                               double timeout_s) {
  auto cpus = detail::ParseCpuList(cpuset);
  if (!cpus) return Error{"ORESTY_CPUSET: " + cpus.error().message};
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto deadline = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  QuietOutcome q;
  auto read = [&]() -> Result<detail::ProcSample> {
    auto r = Read(sut, {"cat", "/proc/stat"}, std::chrono::seconds(10));
    if (!r) return r.error();
    detail::ProcSample s = detail::ParseProcSample(*r);
    if (s.cpus.empty()) return Error{fmt::format("host {}: `cat /proc/stat` has no cpuN lines", sut.name())};
    return s;
  };
  auto prev = read();
  if (!prev) return prev.error();
  bool measured = false;
  while (true) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    auto cur = read();
    if (!cur) return cur.error();
    if (auto b = detail::BusyFraction(prev->cpus, cur->cpus, *cpus)) {
      q.busy_per_core = *b;
      measured = true;
    }
    q.cpus = cpus->empty() ? static_cast<int>(cur->cpus.size()) : static_cast<int>(cpus->size());
    prev = std::move(cur);
    if (measured && q.busy_per_core <= max_busy_per_core) {
      q.reached = true;
      break;
    }
    if (Clock::now() >= deadline) break;
  }
  q.waited_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (auto r = Read(sut, {"cat", "/proc/loadavg"}, std::chrono::seconds(10)); r) {
    if (auto l = detail::ParseLoadAvg(*r); l && q.cpus > 0) q.load1_per_core = l->load1 / q.cpus;
  }
  return q;
}

}  // namespace fvbench
