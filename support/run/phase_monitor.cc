#include "support/run/phase_monitor.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <set>
#include <sstream>

#include "support/core/text.h"
#include "support/host/shell_quote.h"

namespace fvbench {

struct PhaseMonitor::Sample {
  std::chrono::steady_clock::time_point at;
  double epoch_us = 0;         // controller's wall clock at the middle of the SUT host's read
  detail::ProcSample sut;      // SUT host: /proc/stat + the nginx processes
  detail::ProcSample loadgen;  // loadgen host: /proc/stat (== sut's in local mode)
  bool sut_ok = false;
  bool loadgen_ok = false;
};

// A host whose kernel counters are read, its roles and its first reading
// (nullopt when it failed).
struct PhaseMonitor::CounterHost {
  Host* host = nullptr;
  bool sut = false;
  bool loadgen = false;
  std::optional<KernelCounters> before;
};

namespace {

// Runs a read-only command; output even on a non-zero exit (cat of a vanished
// pid exits 1 but prints the rest). Err only when it could not run at all or
// printed nothing.
Result<std::string> Read(Host& host, std::vector<std::string> argv, std::chrono::milliseconds timeout) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = timeout;
  auto r = host.Run(c);
  if (!r) return Error{fmt::format("host {}: `{}`: {}", host.name(), ShellJoin(c.argv), r.error().message)};
  if (r->timed_out || (r->out.empty() && !r->success())) {
    return Error{fmt::format("host {}: `{}` {} {}", host.name(), ShellJoin(c.argv),
                             r->timed_out ? "timed out" : fmt::format("exited {}", r->exit_code),
                             detail::TrimSpace(r->err).substr(0, 200))};
  }
  return r->out;
}

// Reads /proc files through Host::ReadFile, concatenated as `cat` prints
// them; no process starts on the host (header). The first path must be
// read; a later one that is gone (a pid that exited) is skipped, as cat
// skips it.
Result<std::string> ReadFiles(Host& host, const std::vector<std::string>& paths) {
  std::string out;
  for (size_t i = 0; i < paths.size(); ++i) {
    auto r = host.ReadFile(paths[i], kProcFileCap);
    if (r) {
      out += *r;
    } else if (i == 0) {
      return Error{fmt::format("host {}: reading {}: {}", host.name(), paths[i], r.error().message)};
    }
  }
  return out;
}

// One reading of a host's kernel network counters: /proc/net/netstat and
// /proc/net/snmp, and where the host has them /proc/net/dev and connection
// tracking's statistics (absent without nf_conntrack), merged. Err names the
// host and the file: one of the first two unreadable, or any that does not
// parse.
Result<KernelCounters> ReadKernelCounters(Host& host) {
  using Parser = Result<KernelCounters> (*)(std::string_view, std::string_view);
  struct Source {
    const char* path;
    Parser parse;
    bool optional;
  };
  KernelCounters all;
  for (const Source& f : {Source{"/proc/net/netstat", ParseKernelCounters, false},
                          Source{"/proc/net/snmp", ParseKernelCounters, false},
                          Source{"/proc/net/dev", ParseNetDev, true},
                          Source{"/proc/net/stat/nf_conntrack", ParseConntrackStat, true}}) {
    auto text = host.ReadFile(f.path, kProcFileCap);
    if (!text && f.optional) continue;
    if (!text) return Error{fmt::format("host {}: reading {}: {}", host.name(), f.path, text.error().message)};
    auto parsed = f.parse(*text, fmt::format("host {}: {}", host.name(), f.path));
    if (!parsed) return parsed.error();
    all.insert(parsed->begin(), parsed->end());
  }
  return all;
}

double NowEpochUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
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
  auto cpus = detail::ParseCpuList(opt_.loadgen_cpuset.empty() ? opt_.loadgen_usable_cpus : opt_.loadgen_cpuset);
  if (!cpus) return Error{"K6_CPUSET: " + cpus.error().message};
  loadgen_cpus_ = *cpus;
  auto sut_cpus = detail::ParseCpuList(opt_.sut_cpus);
  if (!sut_cpus) return Error{"the SUT's CPUs: " + sut_cpus.error().message};
  sut_cpus_ = *sut_cpus;

  ReadStartFacts();
  ReadKernelCountersAtStart();
  TakeSample();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = false;
    started_ = true;
  }
  thread_ = std::thread([this] { Loop(); });
  return Ok();
}

// USER_HZ and the page size, each error log's size and the nginx processes
// under each master: one command on the SUT host (ParseMonitorStart).
void PhaseMonitor::ReadStartFacts() {
  std::string script = fmt::format("getconf CLK_TCK; getconf PAGESIZE; echo {}; ", detail::kMonitorStartMarkerLogs);
  script += "for f in \"$@\"; do stat -c %s -- \"$f\" 2>/dev/null || echo -; done; ";
  script += fmt::format("echo {}; ", detail::kMonitorStartMarkerProcs);
  if (!services_.empty()) script += "cat /proc/[0-9]*/stat 2>/dev/null; ";
  script += "true";
  std::vector<std::string> argv = {"sh", "-c", script, "sh"};
  std::vector<const MonitoredService*> logged;
  for (const MonitoredService& s : services_) {
    if (s.error_log.empty()) continue;
    argv.push_back(s.error_log);
    logged.push_back(&s);
  }
  auto r = Read(sut_, argv, std::chrono::seconds(20));
  if (!r) {
    problems_.push_back(r.error().message + "; assuming CLK_TCK 100, PAGESIZE 4096");
    return;
  }
  const detail::MonitorStartRead got = detail::ParseMonitorStart(*r, logged.size());
  if (got.clk_tck > 0 && got.page_size > 0) {
    clk_tck_ = got.clk_tck;
    page_size_ = got.page_size;
  } else {
    problems_.push_back(fmt::format("host {}: `getconf CLK_TCK; getconf PAGESIZE` printed '{}'; assuming 100 and 4096",
                                    sut_.name(), got.conf_text));
  }
  for (size_t i = 0; i < logged.size(); ++i) {
    if (got.log_sizes[i]) {
      log_size_[logged[i]->name] = *got.log_sizes[i];
    } else {
      problems_.push_back(fmt::format("host {}: stat of {} printed '{}'", sut_.name(), logged[i]->error_log,
                                      got.log_texts[i]));
    }
  }
  if (services_.empty()) return;
  detail::ProcSample all = detail::ParseProcSample(got.scan);
  for (const MonitoredService& s : services_) {
    pids_[s.name] = detail::Descendants(all.procs, s.master_pid);
    if (pids_[s.name].empty()) {
      problems_.push_back(fmt::format("host {}: no child processes of {} (master pid {}) found in /proc",
                                      sut_.name(), s.name, s.master_pid));
    }
  }
}

// The first reading of each host's kernel counters, each Host object once.
void PhaseMonitor::ReadKernelCountersAtStart() {
  counter_hosts_.clear();
  auto add = [this](Host* h, bool sut) {
    for (CounterHost& c : counter_hosts_) {
      if (c.host == h) {
        (sut ? c.sut : c.loadgen) = true;
        return;
      }
    }
    CounterHost c;
    c.host = h;
    (sut ? c.sut : c.loadgen) = true;
    counter_hosts_.push_back(std::move(c));
  };
  add(&sut_, true);
  add(&loadgen_, false);
  for (Host* h : opt_.more_loadgens) {
    if (h != nullptr) add(h, false);
  }
  for (CounterHost& c : counter_hosts_) {
    auto r = ReadKernelCounters(*c.host);
    if (r) {
      c.before = std::move(*r);
    } else {
      problems_.push_back(r.error().message + " (at the phase's start; its kernel counters are not judged)");
    }
  }
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
  std::vector<std::string> paths = {"/proc/stat"};
  for (const auto& [name, pids] : pids_) {
    for (int pid : pids) paths.push_back(fmt::format("/proc/{}/stat", pid));
  }
  const bool same_host = &sut_ == &loadgen_;
  const double read_from_us = NowEpochUs();
  auto sut_read = ReadFiles(sut_, paths);
  s.epoch_us = (read_from_us + NowEpochUs()) / 2;
  if (sut_read) {
    s.sut = detail::ParseProcSample(*sut_read);
    s.sut_ok = !s.sut.cpus.empty();
  } else {
    problems.push_back(sut_read.error().message);
  }
  if (same_host) {
    s.loadgen = s.sut;
    s.loadgen_ok = s.sut_ok;
  } else if (auto r = ReadFiles(loadgen_, {"/proc/stat"}); r) {
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
  if (!StopSampling()) {
    o.problems.push_back("the phase monitor was not started");
    return o;
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
  ObserveLoadgen(lg, o);
  ObserveSut(sut, o);
  ObserveTimeline(o);
  ObserveLogs(o);
  ObserveKernelCounters(o);
  samples_.clear();
  return o;
}

// Ends the sampling thread and takes the last sample; false when not started.
bool PhaseMonitor::StopSampling() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!started_) return false;
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  TakeSample();
  std::lock_guard<std::mutex> lock(mu_);
  started_ = false;
  return true;
}

// The load generator's cpuset: mean busy fraction over the phase and the
// busiest interval.
void PhaseMonitor::ObserveLoadgen(const std::vector<const Sample*>& lg, PhaseObservation& o) const {
  if (lg.size() < 2) {
    o.problems.push_back(fmt::format("host {}: fewer than 2 /proc/stat samples; load generator CPU not measured",
                                     loadgen_.name()));
    return;
  }
  o.loadgen_busy = detail::BusyFraction(lg.front()->loadgen.cpus, lg.back()->loadgen.cpus, loadgen_cpus_);
  for (size_t i = 1; i < lg.size(); ++i) {
    auto b = detail::BusyFraction(lg[i - 1]->loadgen.cpus, lg[i]->loadgen.cpus, loadgen_cpus_);
    if (b) o.loadgen_busy_peak = std::max(o.loadgen_busy_peak, *b);
  }
  if (loadgen_cpus_.empty()) {
    o.loadgen_cpus = static_cast<int>(lg.back()->loadgen.cpus.size());
    return;
  }
  int n = 0;
  for (int c : loadgen_cpus_) n += lg.back()->loadgen.cpus.count(c) ? 1 : 0;
  o.loadgen_cpus = n;
  if (n == 0) {
    o.problems.push_back(fmt::format("host {}: none of the cpus of K6_CPUSET={} is in /proc/stat", loadgen_.name(),
                                     opt_.loadgen_cpuset));
  }
}

// The SUT's CPUs (busy share) and its services' processes: CPU over the
// phase, RSS at the end and its peak.
void PhaseMonitor::ObserveSut(const std::vector<const Sample*>& sut, PhaseObservation& o) {
  if (sut.size() < 2) return;
  o.sut_busy = detail::BusyFraction(sut.front()->sut.cpus, sut.back()->sut.cpus, sut_cpus_);
  auto ticks = detail::ElapsedTicksPerCpu(sut.front()->sut.cpus, sut.back()->sut.cpus);
  for (const MonitoredService& svc : services_) {
    const std::vector<int>& pids = pids_[svc.name];
    if (pids.empty()) continue;
    ServiceUsage u =
        detail::UsageBetween(svc.name, pids, sut.front()->sut, sut.back()->sut, ticks.value_or(0), page_size_);
    for (const Sample* s : sut) u.rss_peak_mib = std::max(u.rss_peak_mib, detail::RssMib(pids, s->sut, page_size_));
    o.sut_usage.push_back(u);
  }
}

// One point per pair of consecutive samples (judge/sut_timeline_series.h),
// on the controller's clock. The intervals' clock is the controller's in
// local mode and with several load generators; with one remote load
// generator they are on its host's clock, whose offset is not measured
// (header: "Timeline").
void PhaseMonitor::ObserveTimeline(PhaseObservation& o) {
  SutTimelineParams p;
  for (const MonitoredService& svc : services_) {
    const std::vector<int>& pids = pids_[svc.name];
    if (!pids.empty()) p.services.push_back({svc.name, pids});
  }
  p.page_size = page_size_;
  p.sut_cpus = sut_cpus_;
  p.loadgen_cpus = loadgen_cpus_;
  std::vector<SutTimelineSample> in;
  in.reserve(samples_.size());
  for (const Sample& s : samples_) {
    in.push_back({s.epoch_us, s.sut_ok ? &s.sut : nullptr, s.loadgen_ok ? &s.loadgen : nullptr});
  }
  o.sut_timeline = SutTimelineFromSamples(in, p);
}

// What each service's error.log gained during the phase, every log's growth
// in one command (one round trip; detail::ParseLogTails): its first
// kErrorLogGrowthBytes (file_caps.h) cross the link and are counted; a
// larger growth is a flood that says so.
void PhaseMonitor::ObserveLogs(PhaseObservation& o) {
  std::vector<const MonitoredService*> logged;
  std::vector<std::string> argv = {
      "sh", "-c",
      // At most $cap bytes of each growth: cut there, tail ends on SIGPIPE
      // (or EPIPE), which is no failure.
      fmt::format("d=$(mktemp -d) || exit 1; cap=$1; shift; i=0\n"
                  "while [ $# -ge 2 ]; do\n"
                  "  {{ tail -c \"+$1\" -- \"$2\" 2>\"$d/e\"; echo $? >\"$d/r\"; }} | head -c \"$cap\" >\"$d/o\"\n"
                  "  r=$(cat \"$d/r\"); [ \"$(wc -c <\"$d/o\")\" -ge \"$cap\" ] && r=0\n"
                  "  [ \"$r\" -eq 0 ] || mv -f \"$d/e\" \"$d/o\"\n"
                  "  printf '{} %s %s %s\\n' \"$i\" \"$r\" \"$(wc -c <\"$d/o\")\"; cat \"$d/o\"\n"
                  "  shift 2; i=$((i+1))\n"
                  "done\n"
                  "rm -rf \"$d\"\n",
                  detail::kLogTailMarker),
      "sh", std::to_string(kErrorLogGrowthBytes)};
  for (const MonitoredService& svc : services_) {
    auto it = log_size_.find(svc.name);
    if (it == log_size_.end()) continue;
    argv.push_back(std::to_string(it->second + 1));
    argv.push_back(svc.error_log);
    logged.push_back(&svc);
  }
  if (logged.empty()) return;
  auto r = Read(sut_, argv, std::chrono::seconds(30));
  if (!r) {
    o.problems.push_back(r.error().message);
    return;
  }
  const std::vector<std::optional<detail::LogTail>> tails = detail::ParseLogTails(*r, logged.size());
  for (size_t i = 0; i < logged.size(); ++i) {
    const MonitoredService& svc = *logged[i];
    if (!tails[i] || !tails[i]->ok) {
      // An empty growth makes `tail` print nothing and exit 0: only real failures land here.
      o.problems.push_back(fmt::format("host {}: `tail -c +{}` of {}: {}", sut_.name(), log_size_[svc.name] + 1,
                                       svc.error_log,
                                       tails[i] ? detail::TrimSpace(tails[i]->text).substr(0, 200) : "no output"));
      continue;
    }
    const std::string& grown = tails[i]->text;
    if (grown.size() >= kErrorLogGrowthBytes) {
      o.problems.push_back(fmt::format("host {}: {} grew by more than {} bytes during the phase; its first {} bytes "
                                       "were counted",
                                       sut_.name(), svc.error_log, kErrorLogGrowthBytes, kErrorLogGrowthBytes));
    }
    LogGrowth g;
    g.service = svc.name;
    g.path = svc.error_log;
    g.lines = detail::CountLines(grown);
    g.lines_per_s = o.elapsed_s > 0 ? static_cast<double>(g.lines) / o.elapsed_s : 0;
    auto alerts = detail::NginxAlertLines(grown);
    g.alert_count = alerts.size();
    g.worker_exits = detail::NginxWorkerExits(grown);
    if (alerts.size() > 10) alerts.resize(10);
    g.alerts = std::move(alerts);
    o.logs.push_back(std::move(g));
  }
}

// The second reading of each host's kernel counters and the delta since the first.
void PhaseMonitor::ObserveKernelCounters(PhaseObservation& o) {
  for (const CounterHost& c : counter_hosts_) {
    if (!c.before) continue;
    auto after = ReadKernelCounters(*c.host);
    if (!after) {
      o.problems.push_back(after.error().message + " (at the phase's end; its kernel counters are not judged)");
      continue;
    }
    HostKernelCounters k;
    k.host = c.host->name();
    k.sut = c.sut;
    k.loadgen = c.loadgen;
    k.delta = KernelCounterDelta(*c.before, *after);
    o.kernel.push_back(std::move(k));
  }
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
    auto r = ReadFiles(sut, {"/proc/stat"});
    if (!r) return r.error();
    detail::ProcSample s = detail::ParseProcSample(*r);
    if (s.cpus.empty()) return Error{fmt::format("host {}: /proc/stat has no cpuN lines", sut.name())};
    return s;
  };
  auto prev = read();
  if (!prev) return prev.error();
  bool measured = false;
  for (auto window = std::chrono::milliseconds(100);; window = std::chrono::seconds(1)) {
    std::this_thread::sleep_for(window);
    auto cur = read();
    if (!cur) return cur.error();
    if (auto b = detail::BusyFraction(prev->cpus, cur->cpus, *cpus)) {
      q.busy_per_core = *b;
      q.window_s = std::chrono::duration<double>(window).count();
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
  if (auto r = ReadFiles(sut, {"/proc/loadavg"}); r) {
    if (auto l = detail::ParseLoadAvg(*r); l && q.cpus > 0) q.load1_per_core = l->load1 / q.cpus;
  }
  return q;
}

}  // namespace fvbench
