// phase_monitor: /proc parsing on recorded samples (fixtures/proc/, see its
// README) and the monitor's orchestration on a scripted host that replays them.
#include "support/run/phase_monitor.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <cctype>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

#include "support/host/local_host.h"
#include "support/host/shell_quote.h"
#include "support/judge/validity.h"
#include "support/run/hop_counters.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::phase_monitor_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using namespace detail;

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  std::string path = std::string((dir && *dir) ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/proc/" + name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open fixture " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ProcParse, StatCpuLinesAndPidRecords) {
  ProcSample s = ParseProcSample(Fixture("load_after.txt"));
  ASSERT_EQ(s.cpus.size(), 2u);  // the aggregate "cpu" line is not a cpu
  const CpuTicks& c0 = s.cpus.at(0);
  EXPECT_GT(c0.total, c0.busy);
  ASSERT_EQ(s.procs.size(), 2u);
  EXPECT_EQ(s.procs[0].pid, 31817);
  EXPECT_EQ(s.procs[0].ppid, 31811);
  EXPECT_EQ(s.procs[0].comm, "nginx");
  EXPECT_EQ(s.procs[0].state, 'S');
  EXPECT_EQ(s.procs[0].utime, 13u);
  EXPECT_EQ(s.procs[0].stime, 54u);
  EXPECT_EQ(s.procs[0].rss_pages, 975);
}

TEST(ProcParse, CpuLineArithmetic) {
  // busy = total - idle - iowait; guest (fields 9-10) is inside user already.
  ProcSample s = ParseProcSample("cpu  1 2 3 4 5 6 7 8 100 100\ncpu3 10 0 10 70 10 0 0 0 50 0\n");
  ASSERT_EQ(s.cpus.size(), 1u);
  EXPECT_EQ(s.cpus.at(3).total, 100u);
  EXPECT_EQ(s.cpus.at(3).busy, 20u);
}

TEST(ProcParse, CommWithSpacesAndParentheses) {
  std::string line =
      "4242 (my (odd) name) R 17 4242 4242 0 -1 4194304 10 0 0 0 250 75 0 0 20 0 3 0 100 1000 321 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  ProcSample s = ParseProcSample(line);
  ASSERT_EQ(s.procs.size(), 1u);
  EXPECT_EQ(s.procs[0].comm, "my (odd) name");
  EXPECT_EQ(s.procs[0].ppid, 17);
  EXPECT_EQ(s.procs[0].utime, 250u);
  EXPECT_EQ(s.procs[0].stime, 75u);
  EXPECT_EQ(s.procs[0].rss_pages, 321);
}

TEST(ProcParse, TruncatedAndForeignLinesAreIgnored) {
  ProcSample s = ParseProcSample("4242 (nginx) S 1 2 3\nintr 1 2 3\ncpuX 1 2 3 4\ncpu0 1 2\n");
  EXPECT_TRUE(s.procs.empty());
  EXPECT_TRUE(s.cpus.empty());
}

TEST(MonitorStartParse, FactsLogSizesAndScan) {
  MonitorStartRead r = ParseMonitorStart(
      "100\n4096\n@@fvbench-logs\n1234\n0\n-\n@@fvbench-procs\n4242 (nginx) S 1 2 3\n", 3);
  EXPECT_EQ(r.clk_tck, 100);
  EXPECT_EQ(r.page_size, 4096);
  ASSERT_EQ(r.log_sizes.size(), 3u);
  EXPECT_EQ(r.log_sizes[0], 1234u);
  EXPECT_EQ(r.log_sizes[1], 0u);  // an empty log
  EXPECT_FALSE(r.log_sizes[2].has_value());
  EXPECT_EQ(r.log_texts[2], "-");
  EXPECT_EQ(r.scan, "4242 (nginx) S 1 2 3\n");
}

TEST(MonitorStartParse, BadFactsAndAMissingMarkerLeaveNothingMeasured) {
  MonitorStartRead r = ParseMonitorStart("sh: getconf: not found\n", 1);
  EXPECT_EQ(r.clk_tck, 0);
  EXPECT_EQ(r.page_size, 0);
  EXPECT_EQ(r.conf_text, "sh: getconf: not found");
  ASSERT_EQ(r.log_sizes.size(), 1u);
  EXPECT_FALSE(r.log_sizes[0].has_value());
  EXPECT_TRUE(r.scan.empty());
  MonitorStartRead neg = ParseMonitorStart("-1\n4096x\n@@fvbench-logs\n12a\n@@fvbench-procs\n", 1);
  EXPECT_EQ(neg.clk_tck, 0);
  EXPECT_EQ(neg.page_size, 0);
  EXPECT_FALSE(neg.log_sizes[0].has_value());
}

TEST(CpuList, Syntax) {
  EXPECT_THAT(*ParseCpuList("0-3,6"), ElementsAre(0, 1, 2, 3, 6));
  EXPECT_THAT(*ParseCpuList("1,1,0"), ElementsAre(0, 1));
  EXPECT_TRUE(ParseCpuList("")->empty());
  auto bad = ParseCpuList("3-1");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("'3-1'"));
  EXPECT_FALSE(ParseCpuList("a").ok());
  EXPECT_FALSE(ParseCpuList("0,").ok());
}

TEST(Busy, PinnedOntoTheSutCoreIsSaturated) {
  // Engine and nginx both under taskset -c 0: cpu0 had no idle tick.
  ProcSample b = ParseProcSample(Fixture("pinned_before.txt"));
  ProcSample a = ParseProcSample(Fixture("pinned_after.txt"));
  auto busy = BusyFraction(b.cpus, a.cpus, {0});
  ASSERT_TRUE(busy.has_value());
  EXPECT_DOUBLE_EQ(*busy, 1.0);
  EXPECT_GT(*busy, 0.8);
}

TEST(Busy, SelectsCpusAndHandlesNoElapsedTicks) {
  std::map<int, CpuTicks> b = {{0, {10, 100}}, {1, {50, 100}}};
  std::map<int, CpuTicks> a = {{0, {20, 200}}, {1, {140, 200}}};
  EXPECT_DOUBLE_EQ(*BusyFraction(b, a, {0}), 0.1);
  EXPECT_DOUBLE_EQ(*BusyFraction(b, a, {1}), 0.9);
  EXPECT_DOUBLE_EQ(*BusyFraction(b, a, {}), 0.5);
  EXPECT_FALSE(BusyFraction(b, b, {}).has_value());
  EXPECT_FALSE(BusyFraction(b, a, {7}).has_value());  // cpu not on this host
  EXPECT_DOUBLE_EQ(*ElapsedTicksPerCpu(b, a), 100.0);
}

TEST(SutUsage, WorkersOfRecordedLoad) {
  ProcSample b = ParseProcSample(Fixture("load_before.txt"));
  ProcSample a = ParseProcSample(Fixture("load_after.txt"));
  auto ticks = ElapsedTicksPerCpu(b.cpus, a.cpus);
  ASSERT_TRUE(ticks.has_value());
  EXPECT_DOUBLE_EQ(*ticks, 309.0);
  ServiceUsage u = UsageBetween("baseline", {31817, 31818}, b, a, *ticks, 4096);
  EXPECT_EQ(u.service, "baseline");
  EXPECT_EQ(u.processes, 2);
  // (13+54) + (17+61) = 145 ticks over 309 ticks of one cpu.
  EXPECT_NEAR(u.cpu_cores, 145.0 / 309.0, 1e-9);
  EXPECT_NEAR(u.rss_mib, 2 * 975 * 4096 / 1048576.0, 1e-9);
  // A pid that vanished counts nowhere.
  ServiceUsage gone = UsageBetween("baseline", {31817, 99999}, b, a, *ticks, 4096);
  EXPECT_EQ(gone.processes, 1);
  EXPECT_NEAR(gone.cpu_cores, 67.0 / 309.0, 1e-9);
}

TEST(SutUsage, DescendantsOfMasterFromScan) {
  ProcSample scan = ParseProcSample(Fixture("pid_scan.txt"));
  EXPECT_GT(scan.procs.size(), 50u);
  EXPECT_THAT(Descendants(scan.procs, 32634), ElementsAre(32635, 32636));
  EXPECT_TRUE(Descendants(scan.procs, 32635).empty());
  // Transitive: the shell that started nginx has it and its workers below.
  auto under_shell = Descendants(scan.procs, 32630);
  EXPECT_THAT(under_shell, ::testing::IsSupersetOf({32634, 32635, 32636}));
}

TEST(LoadAvgParse, RecordedAndBad) {
  auto l = ParseLoadAvg(Fixture("loadavg.txt"));
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_DOUBLE_EQ(l->load1, 8.68);
  EXPECT_DOUBLE_EQ(l->load15, 3.81);
  EXPECT_EQ(l->running, 14);
  EXPECT_EQ(l->total, 187);
  auto bad = ParseLoadAvg("8.68 4.92\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("/proc/loadavg"));
}

TEST(ErrorLog, AlertsAndLineCounts) {
  std::string emfile = Fixture("error_emfile.log");
  EXPECT_EQ(NginxAlertLines(emfile).size(), CountLines(emfile));
  EXPECT_GE(CountLines(emfile), 1u);
  auto alerts = NginxAlertLines(Fixture("error_alerts.log"));
  ASSERT_EQ(alerts.size(), 3u);  // the ordinary [error] line is not an alert
  EXPECT_THAT(alerts[0], HasSubstr("worker_connections are not enough"));
  EXPECT_THAT(alerts[2], HasSubstr("[emerg]"));
  EXPECT_EQ(CountLines(""), 0u);
  EXPECT_EQ(CountLines("a\nb"), 2u);
  EXPECT_EQ(CountLines("a\nb\n"), 2u);
}

// nginx's master logs each child that ended (ngx_process.c
// ngx_process_get_status: "%s %P exited on signal %d%s"); only workers
// count, a clean exit does not.
TEST(ErrorLog, WorkerExitsOnASignalAreCounted) {
  const std::string log =
      "2026/12/03 10:00:00 [alert] 41#41: worker process 47 exited on signal 9\n"
      "2026/12/03 10:00:00 [notice] 41#41: start worker process 52\n"
      "2026/12/03 10:00:01 [alert] 41#41: worker process 48 exited on signal 11 (core dumped)\n"
      "2026/12/03 10:00:02 [notice] 41#41: worker process 49 exited with code 0\n"
      "2026/12/03 10:00:03 [alert] 41#41: cache manager process 50 exited on signal 9";
  EXPECT_EQ(NginxWorkerExits(log), 2u);
  EXPECT_EQ(NginxWorkerExits(""), 0u);
  EXPECT_EQ(NginxWorkerExits(Fixture("error_alerts.log")), 0u);
}

// The recorded kernel counters (fixtures/proc: a listen-queue overflow
// between the two readings): each file's first read answers its `before`
// recording, the later ones its `after`.
void ReplayKernelCounters(testing_fakes::FakeHost& host) {
  for (const char* file : {"netstat", "snmp"}) {
    auto reads = std::make_shared<int>(0);
    host.OnRead(std::string("/proc/net/") + file, [reads, file]() -> Result<std::string> {
      return Fixture(std::string(file) + ((*reads)++ == 0 ? "_before.txt" : "_after.txt"));
    });
  }
}

// The recorded /proc files of a pinned phase (fixtures/proc: /proc/stat and
// the workers' /proc/<pid>/stat lines, as `cat` printed them), replayed
// through the shared fake host's ReadFile: the first /proc/stat read
// answers `before`, the later ones `after`; each /proc/<pid>/stat its line
// of the same sample, and a pid not in it is gone (as when a worker exited).
struct Replay {
  std::string before, after, scan, log_growth;
  int stat_reads = 0;
  std::vector<std::vector<std::string>> start_reads;  // argv of each start-up read
  testing_fakes::FakeHost host{"replay"};

  Replay() {
    using testing_fakes::FakeHost;
    host.unmatched = FakeHost::Exit(127, "", "unexpected command");
    host.On("getconf CLK_TCK; getconf PAGESIZE", [this](const Command& c) -> Result<ExecResult> {
      start_reads.push_back(c.argv);
      return FakeHost::Exit(0, "100\n4096\n@@fvbench-logs\n1234\n@@fvbench-procs\n" + scan);
    });
    // Every log's growth in one command: its arguments are the cap, then "<size+1> <path>" per log.
    host.On("@@fvbench-tail", [this](const Command& c) -> Result<ExecResult> {
      if (c.argv.size() != 7 || c.argv[5] != "1235") return FakeHost::Exit(1, "", "unexpected tail arguments");
      return FakeHost::Exit(0, fmt::format("@@fvbench-tail 0 0 {}\n", log_growth.size()) + log_growth);
    });
    host.OnRead("/proc/stat", [this]() -> Result<std::string> { return Lines(Sample(stat_reads++), false, ""); });
    ReplayKernelCounters(host);
    for (const char* pid : {"32635", "32636", "99999"}) {
      host.OnRead(fmt::format("/proc/{}/stat", pid), [this, pid]() -> Result<std::string> {
        std::string line = Lines(Sample(stat_reads - 1), true, pid);
        if (line.empty()) return Error{fmt::format("replay: cannot read /proc/{}/stat: no such file", pid)};
        return line;
      });
    }
  }
  const std::string& Sample(int read) const { return read == 0 ? before : after; }
  // The sample's lines of /proc/stat (pid_lines false) or of one pid.
  static std::string Lines(const std::string& sample, bool pid_lines, const std::string& pid) {
    std::istringstream in(sample);
    std::string out, line;
    while (std::getline(in, line)) {
      const bool is_pid = !line.empty() && std::isdigit(static_cast<unsigned char>(line[0]));
      if (is_pid == pid_lines && (!pid_lines || line.rfind(pid + " ", 0) == 0)) out += line + "\n";
    }
    return out;
  }
};

TEST(Monitor, ReplaysPinnedPhaseOnOneHost) {
  Replay replay;
  replay.before = Fixture("pinned_before.txt");
  replay.after = Fixture("pinned_after.txt");
  replay.scan = Fixture("pid_scan.txt");
  replay.log_growth = Fixture("error_alerts.log");
  testing_fakes::FakeHost& host = replay.host;
  MonitorOptions opt;
  opt.loadgen_cpuset = "0";
  opt.sut_cpus = "1";
  opt.period = std::chrono::minutes(10);  // only the first and the last sample
  PhaseMonitor m(host, host, {{"baseline", 32634, "/b/logs/error.log"}}, opt);
  const double before_us =
      std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(m.Start().ok());
  PhaseObservation o = m.Stop();
  const double after_us =
      std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
  ASSERT_TRUE(o.problems.empty()) << o.problems.front();
  // The timeline: one window between the two samples, on the controller's
  // wall clock, with the totals' figures (two samples: the same window).
  ASSERT_EQ(o.sut_timeline.points.size(), 1u);
  EXPECT_EQ(o.sut_timeline.services, std::vector<std::string>{"baseline"});
  const SutTimelinePoint& w = o.sut_timeline.points[0];
  EXPECT_GE(w.start_epoch_us, before_us);
  EXPECT_LE(w.start_epoch_us, w.end_epoch_us);
  EXPECT_LE(w.end_epoch_us, after_us);
  ASSERT_EQ(w.cpu_cores.size(), 1u);
  ASSERT_TRUE(w.cpu_cores[0].has_value());
  EXPECT_NEAR(*w.cpu_cores[0], 60.0 / 306.5, 1e-9);
  EXPECT_NEAR(w.rss_mib[0].value_or(0), 2 * 1074 * 4096 / 1048576.0, 1e-9);
  EXPECT_EQ(w.sut_busy, std::optional<double>(1.0));
  EXPECT_EQ(w.loadgen_busy, std::optional<double>(1.0));
  // cpu1's idle did not move between the two reads: the SUT's CPU was busy throughout.
  ASSERT_TRUE(o.sut_busy.has_value());
  EXPECT_DOUBLE_EQ(*o.sut_busy, 1.0);
  ASSERT_TRUE(o.loadgen_busy.has_value());
  EXPECT_DOUBLE_EQ(*o.loadgen_busy, 1.0);
  EXPECT_DOUBLE_EQ(o.loadgen_busy_peak, 1.0);
  EXPECT_EQ(o.loadgen_cpus, 1);
  EXPECT_EQ(o.samples, 2);
  ASSERT_EQ(o.sut_usage.size(), 1u);
  EXPECT_EQ(o.sut_usage[0].processes, 2);
  EXPECT_NEAR(o.sut_usage[0].cpu_cores, 60.0 / 306.5, 1e-9);
  EXPECT_NEAR(o.sut_usage[0].rss_peak_mib, 2 * 1074 * 4096 / 1048576.0, 1e-9);
  ASSERT_EQ(o.logs.size(), 1u);
  EXPECT_EQ(o.logs[0].lines, 4u);
  EXPECT_EQ(o.logs[0].alert_count, 3u);
  // One host in both roles: its kernel counters read once at each end.
  ASSERT_EQ(o.kernel.size(), 1u);
  EXPECT_EQ(o.kernel[0].host, "replay");
  EXPECT_TRUE(o.kernel[0].sut);
  EXPECT_TRUE(o.kernel[0].loadgen);
  EXPECT_EQ(o.kernel[0].delta.deltas.at("TcpExt.ListenOverflows"), 36u);
  EXPECT_EQ(o.kernel[0].delta.deltas.at("Tcp.RetransSegs"), 30u);
  // The start-up facts in one command, the error log as its argument.
  ASSERT_EQ(replay.start_reads.size(), 1u);
  EXPECT_EQ(replay.start_reads[0].back(), "/b/logs/error.log");
  // Each sample reads /proc/stat and the workers found by the scan, and
  // starts no process on the host: the only commands are the start-up facts
  // and the error log's growth.
  EXPECT_GE(host.EventIndex("read /proc/32635/stat"), 0);
  EXPECT_GE(host.EventIndex("read /proc/32636/stat"), 0);
  ASSERT_EQ(host.Calls().size(), 2u);
  // Every log's growth since the start, at most kErrorLogGrowthBytes (file_caps.h) of each.
  EXPECT_THAT(host.Calls()[1].argv,
              ElementsAre("sh", "-c", HasSubstr("tail -c"), "sh", "16777216", "1235", "/b/logs/error.log"));
}

// A worker that exited during the phase: its /proc/<pid>/stat is gone and the
// sample goes on without it, as `cat` did; a missing /proc/stat is a problem
// named with host and path.
TEST(Monitor, AVanishedWorkerIsSkippedAndAMissingProcStatIsNamed) {
  Replay replay;
  replay.before = Fixture("pinned_before.txt");
  std::istringstream in(Fixture("pinned_after.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("32636 ", 0) != 0) replay.after += line + "\n";  // 32636 exited
  }
  replay.scan = Fixture("pid_scan.txt");
  MonitorOptions opt;
  opt.loadgen_cpuset = "0";
  opt.sut_cpus = "1";
  opt.period = std::chrono::minutes(10);
  PhaseMonitor m(replay.host, replay.host, {{"baseline", 32634, "/b/logs/error.log"}}, opt);
  ASSERT_TRUE(m.Start().ok());
  PhaseObservation o = m.Stop();
  ASSERT_TRUE(o.sut_busy.has_value());
  EXPECT_DOUBLE_EQ(*o.sut_busy, 1.0);
  EXPECT_EQ(o.samples, 2);

  testing_fakes::FakeHost bare{"bare"};
  PhaseMonitor none(bare, bare, {}, MonitorOptions{});
  ASSERT_TRUE(none.Start().ok());
  PhaseObservation p = none.Stop();
  EXPECT_THAT(p.problems, ::testing::Contains(HasSubstr("host bare: reading /proc/stat: ")));
  auto q = WaitQuiet(bare, "0", 0.5, 1);
  ASSERT_FALSE(q.ok());
  EXPECT_THAT(q.error().message, HasSubstr("host bare: reading /proc/stat: "));
}

// The kernel counters of every host, each Host object once (a load
// generator given twice is read once), at the phase's start and end, through
// ReadFile: no process starts for them. A host whose file is missing is a
// problem naming host and file, and absent from the observation; the
// others are judged.
TEST(Monitor, KernelCountersAreReadOnEveryHostAtBothEnds) {
  testing_fakes::FakeHost sut{"sut"}, lg{"lg"}, lg2{"lg2"};
  for (testing_fakes::FakeHost* h : {&sut, &lg, &lg2}) h->SetFile("/proc/stat", "cpu0 10 0 0 90 0 0 0 0 0 0\n");
  sut.On("getconf", testing_fakes::FakeHost::Exit(0, "100\n4096\n@@fvbench-logs\n@@fvbench-procs\n"));
  ReplayKernelCounters(sut);
  ReplayKernelCounters(lg);
  lg2.SetFile("/proc/net/netstat", Fixture("netstat_before.txt"));  // and no /proc/net/snmp
  MonitorOptions opt;
  opt.period = std::chrono::minutes(10);
  opt.more_loadgens = {&lg, &lg2};
  PhaseMonitor m(sut, lg, {}, opt);
  ASSERT_TRUE(m.Start().ok());
  PhaseObservation o = m.Stop();
  ASSERT_EQ(o.kernel.size(), 2u);
  EXPECT_EQ(o.kernel[0].host, "sut");
  EXPECT_TRUE(o.kernel[0].sut);
  EXPECT_FALSE(o.kernel[0].loadgen);
  EXPECT_EQ(o.kernel[1].host, "lg");
  EXPECT_FALSE(o.kernel[1].sut);
  EXPECT_TRUE(o.kernel[1].loadgen);
  EXPECT_EQ(o.kernel[1].delta.deltas.at("TcpExt.TCPSynRetrans"), 30u);
  EXPECT_THAT(o.problems, ::testing::Contains(::testing::AllOf(HasSubstr("host lg2: reading /proc/net/snmp: "),
                                                     HasSubstr("at the phase's start"))));
  auto count = [](const testing_fakes::FakeHost& h, const std::string& event) {
    auto ev = h.Events();
    return std::count(ev.begin(), ev.end(), event);
  };
  for (const testing_fakes::FakeHost* h : {&sut, &lg}) {
    EXPECT_EQ(count(*h, "read /proc/net/netstat"), 2) << h->name();
    EXPECT_EQ(count(*h, "read /proc/net/snmp"), 2) << h->name();
  }
  EXPECT_EQ(count(lg2, "read /proc/net/snmp"), 1);  // its first reading failed: none at the end
  EXPECT_EQ(sut.Calls().size(), 1u);                // the start-up facts only
  EXPECT_TRUE(lg.Calls().empty());
  EXPECT_TRUE(lg2.Calls().empty());

  // A file gone at the end: a problem, the host absent, the phase goes on.
  testing_fakes::FakeHost late{"late"};
  late.SetFile("/proc/stat", "cpu0 10 0 0 90 0 0 0 0 0 0\n");
  auto reads = std::make_shared<int>(0);
  late.OnRead("/proc/net/netstat", [reads]() -> Result<std::string> {
    if ((*reads)++ == 0) return Fixture("netstat_before.txt");
    return Error{"late: cannot read /proc/net/netstat: no such file"};
  });
  late.SetFile("/proc/net/snmp", Fixture("snmp_before.txt"));
  MonitorOptions late_opt;
  late_opt.period = std::chrono::minutes(10);
  PhaseMonitor lm(late, late, {}, late_opt);
  ASSERT_TRUE(lm.Start().ok());
  PhaseObservation l = lm.Stop();
  EXPECT_TRUE(l.kernel.empty());
  EXPECT_THAT(l.problems, ::testing::Contains(::testing::AllOf(HasSubstr("host late: reading /proc/net/netstat: "),
                                                     HasSubstr("at the phase's end"))));
}

// A listen-queue overflow on this machine's kernel, measured by the monitor
// on LocalHost and judged by CheckPhase: a loopback socket listening with
// backlog 1 that never accepts, and 20 clients connecting at once (at most
// 2 get in; the kernel drops the others' SYNs, counting ListenOverflows, and
// they send them again after 1 s). Bounded: 20 sockets, ~1.3 s.
TEST(Monitor, AListenQueueOverflowOnThisKernelFailsThePhase) {
  const int server = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(::bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ASSERT_EQ(::listen(server, 1), 0);

  LocalHost host;
  MonitorOptions opt;
  opt.period = std::chrono::minutes(10);
  PhaseMonitor m(host, host, {}, opt);
  ASSERT_TRUE(m.Start().ok());
  std::vector<int> clients;
  for (int i = 0; i < 20; ++i) {
    const int c = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ASSERT_GE(c, 0);
    (void)::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr);  // EINPROGRESS
    clients.push_back(c);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // past the first SYN retransmission (1 s)
  PhaseObservation o = m.Stop();
  for (int c : clients) ::close(c);
  ::close(server);

  ASSERT_EQ(o.kernel.size(), 1u) << (o.problems.empty() ? "" : o.problems[0]);
  EXPECT_GE(o.kernel[0].delta.deltas.at("TcpExt.ListenOverflows"), 1u);
  // The interfaces' and, where loaded, connection tracking's counters too.
  EXPECT_EQ(o.kernel[0].delta.deltas.count("Dev.RxDrop"), 1u);
  if (std::ifstream("/proc/net/stat/nf_conntrack").good()) {
    EXPECT_EQ(o.kernel[0].delta.deltas.count("Conntrack.drop"), 1u);
  }
  LoadResult load;
  load.engine = "wrk";
  load.kept_up = true;
  std::vector<ValidityCheck> v = CheckPhase(load, o, PhaseContext{}, ValidityParams{});
  const ValidityCheck* drops = nullptr;
  for (const ValidityCheck& c : v) {
    if (c.name == "kernel_listen_drops") drops = &c;
  }
  ASSERT_NE(drops, nullptr);
  EXPECT_FALSE(drops->passed);
  EXPECT_GE(drops->measured, 1);
  EXPECT_THAT(drops->detail, HasSubstr("host local: ListenOverflows +"));
  EXPECT_THAT(drops->detail, HasSubstr("net.core.somaxconn"));
  EXPECT_THAT(FailedValidity(v), HasSubstr("kernel_listen_drops: measured"));
}

// /proc/stat answers in turn: cpu0 busy for 10 of 10 ticks, then idle.
testing_fakes::FakeHost& BusyThenQuiet(testing_fakes::FakeHost& host, int busy_reads) {
  auto reads = std::make_shared<int>(0);
  host.OnRead("/proc/stat", [reads, busy_reads]() -> Result<std::string> {
    const int n = (*reads)++;
    const int busy = std::min(n, busy_reads) * 10;
    const int idle = 1000 + std::max(0, n - busy_reads) * 10;
    return fmt::format("cpu  0 0 0 0\ncpu0 {} 0 0 {} 0 0 0 0 0 0\n", busy, idle);
  });
  host.SetFile("/proc/loadavg", "0.50 0.40 0.30 1/100 4242\n");
  return host;
}

TEST(WaitQuiet, AQuietSutIsJudgedOnTheFirstShortWindow) {
  testing_fakes::FakeHost host;
  auto q = WaitQuiet(BusyThenQuiet(host, 0), "0", 0.5, 30);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_TRUE(q->reached);
  EXPECT_DOUBLE_EQ(q->busy_per_core, 0.0);
  EXPECT_DOUBLE_EQ(q->window_s, 0.1);
  EXPECT_EQ(q->cpus, 1);
  EXPECT_DOUBLE_EQ(q->load1_per_core, 0.5);
  EXPECT_TRUE(host.Calls().empty());  // files read; no process started on the SUT
}

TEST(WaitQuiet, ABusySutIsJudgedAgainOnOneSecondWindows) {
  testing_fakes::FakeHost host;
  auto q = WaitQuiet(BusyThenQuiet(host, 1), "0", 0.5, 30);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_TRUE(q->reached);
  EXPECT_DOUBLE_EQ(q->window_s, 1.0);  // the first (0.1 s) window was busy
}

TEST(Monitor, BadCpusetIsAnErrorAndUnstartedStopSaysSo) {
  testing_fakes::FakeHost host;
  MonitorOptions opt;
  opt.loadgen_cpuset = "1-";
  PhaseMonitor m(host, host, {}, opt);
  auto r = m.Start();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("K6_CPUSET"));
  PhaseObservation o = m.Stop();
  ASSERT_FALSE(o.problems.empty());
  EXPECT_THAT(o.problems[0], HasSubstr("not started"));
  MonitorOptions sut_opt;
  sut_opt.sut_cpus = "3-1";
  PhaseMonitor sut_m(host, host, {}, sut_opt);
  auto sut_r = sut_m.Start();
  ASSERT_FALSE(sut_r.ok());
  EXPECT_THAT(sut_r.error().message, HasSubstr("the SUT's CPUs"));
}

// Every log's growth in one command: sections by byte count, so a log line
// that looks like a section header is content.
TEST(LogTails, SectionsAreCutByTheirByteCounts) {
  const std::string a = "line 1\n@@fvbench-tail 1 0 3\nabc\n";
  const std::string out = fmt::format("@@fvbench-tail 0 0 {}\n{}@@fvbench-tail 1 1 22\ntail: cannot open 'x'\n",
                                      a.size(), a);
  auto t = ParseLogTails(out, 3);
  ASSERT_EQ(t.size(), 3u);
  ASSERT_TRUE(t[0]);
  EXPECT_TRUE(t[0]->ok);
  EXPECT_EQ(t[0]->text, a);
  ASSERT_TRUE(t[1]);
  EXPECT_FALSE(t[1]->ok);
  EXPECT_EQ(t[1]->text, "tail: cannot open 'x'\n");
  EXPECT_FALSE(t[2]);  // no section
  EXPECT_FALSE(ParseLogTails("@@fvbench-tail 0 0 99\nshort", 1)[0]);  // cut short
  EXPECT_FALSE(ParseLogTails("@@fvbench-tail 5 0 0\n", 1)[0]);        // another log's index
}

// The monitor's commands on this machine's real shell: the start-up facts
// and the error log's growth, the growth holding a line like a section header.
TEST(Monitor, ErrorLogGrowthOnTheRealShell) {
  const std::string dir = std::filesystem::temp_directory_path() / ("fvbench-mon-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string log = dir + "/error.log";
  std::ofstream(log) << "before the phase\n";
  LocalHost host;
  MonitorOptions opt;
  opt.period = std::chrono::minutes(10);
  PhaseMonitor m(host, host, {{"baseline", static_cast<int>(::getpid()), log}}, opt);
  ASSERT_TRUE(m.Start().ok());
  std::ofstream(log, std::ios::app) << "[alert] one\n@@fvbench-tail 0 0 3\n[emerg] two\n";
  PhaseObservation o = m.Stop();
  ASSERT_EQ(o.logs.size(), 1u) << (o.problems.empty() ? "" : o.problems[0]);
  EXPECT_EQ(o.logs[0].lines, 3u);
  EXPECT_EQ(o.logs[0].alert_count, 2u);
  // A flood: its first kErrorLogGrowthBytes are counted, the rest is said.
  PhaseMonitor flood(host, host, {{"baseline", static_cast<int>(::getpid()), log}}, opt);
  ASSERT_TRUE(flood.Start().ok());
  {
    std::ofstream out(log, std::ios::app);
    const std::string line(1023, 'x');
    for (uint64_t i = 0; i < kErrorLogGrowthBytes / 1024 + 100; ++i) out << line << '\n';
  }
  PhaseObservation f = flood.Stop();
  ASSERT_EQ(f.logs.size(), 1u) << (f.problems.empty() ? "" : f.problems[0]);
  EXPECT_EQ(f.logs[0].lines, kErrorLogGrowthBytes / 1024);
  ASSERT_EQ(f.problems.size(), 1u);
  EXPECT_THAT(f.problems[0], HasSubstr(log + " grew by more than 16777216 bytes during the phase"));
  std::filesystem::remove_all(dir);
}

// Every hop's reads in one command: its output by hop and read; a read that
// failed (or was not asked for) leaves its fields unknown.
TEST(HopReads, OneCommandForEveryHop) {
  const std::string status = "Active connections: 1 \nserver accepts handled requests\n 7 7 40 \nReading: 0 Writing: 1 Waiting: 0 \n";
  auto h = ParseHopReads("@@s 0 0\n" + status + "@@t 0 0\nTIME-WAIT 0 0 a b\nTIME-WAIT 0 0 c d\n@@s 1 7\n@@t 1 0\n", 3);
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].accepts, 7u);
  EXPECT_EQ(h[0].requests, 40u);
  EXPECT_EQ(h[0].time_wait, 2u);
  EXPECT_FALSE(h[1].requests);  // curl failed
  EXPECT_EQ(h[1].time_wait, 0u);
  EXPECT_FALSE(h[2].requests);
  EXPECT_FALSE(h[2].time_wait);
  // On this machine's shell: no status socket, an absent one; ss answers for both.
  LocalHost local;
  auto real = ReadHops(local, {{"a", "", 1}, {"b", "/nonexistent/fvbench.sock", 2}});
  ASSERT_EQ(real.size(), 2u);
  EXPECT_FALSE(real[0].requests);
  EXPECT_FALSE(real[1].requests);
  EXPECT_TRUE(real[0].time_wait);
  EXPECT_TRUE(real[1].time_wait);
}

}  // namespace
}  // namespace fvbench::phase_monitor_test
