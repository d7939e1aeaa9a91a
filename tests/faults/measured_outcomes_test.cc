// Measured outcomes on the real local stack: real
// wrk with pace.lua (WrkEngine on LocalHost) against a real Debian nginx on
// loopback that this file starts (ports 18300-18349), each time with the
// truth counted independently from nginx's own access log:
//
//   OutageOf200msIsReportedWithinOnePoint  200 RPS for 4 s; 1.5 s in, nginx
//       is stopped (SIGTERM: its connections close, new ones are refused)
//       and started again 200 ms later. fvbench's error rate must be within
//       1 percentage point of (rate x runtime - 2xx responses in the access
//       log) / (rate x runtime), runtime being wrk's own (-d plus the up to
//       100 ms its threads take to stop): the share of scheduled requests
//       that got no successful response. (wrk's socket-error counters summed to 88 % of
//       the attempts on such a run.)
//   TimeoutsAreCensoredAndFailAP999Gate  200 RPS for 20 s; nginx answers the
//       requests of one of the 254 client addresses the decision kind cycles
//       through (0.39 % of them) at 13 bytes/s (limit_rate), ~12 s for its
//       ~160 bytes: beyond wrk's 10 s timeout. p99.9 and max must read
//       ">= 10 s" (censored), p99 stay a measured value, and a p99.9 gate
//       fail naming the censoring.
//   StallOf300msIsFlaggedInItsIntervalsOnly  200 RPS for 10 s, counted per
//       100 ms interval (pace.lua FVBENCH_INTERVAL_US); 5 s in, nginx's one
//       worker is stopped (SIGSTOP) for 300 ms, then continued. The
//       intervals wholly inside the stop complete nothing, every interval
//       without a completion overlaps the stop, every other full interval
//       completes at least half its slots, and the phase's validity fails on
//       interval_stalls. A PhaseMonitor samples the worker meanwhile: its SUT
//       timeline (one point per ~500 ms window, back to back) has the
//       worker's CPU and RSS in every window, and is printed beside the stop.
//
// Label `faults` (preset `faults`), root only like the other fault tests;
// skips without nginx or wrk. The figures are printed as MEASURED lines.
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "support/engine/load_engine.h"
#include "support/host/local_host.h"
#include "support/judge/thresholds.h"
#include "support/judge/proc_sample.h"
#include "support/judge/validity.h"
#include "support/run/phase_monitor.h"
#include "fvbench/source_dir.h"

namespace fvbench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using ::testing::HasSubstr;

bool OnPath(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (!dir.empty() && ::access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool Accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

bool Bindable(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  if (fd >= 0) ::close(fd);
  return ok;
}

double Secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One access-log line per response: "<status> <request_time s>".
struct AccessLog {
  uint64_t lines = 0, ok_2xx = 0, slower_than_10s = 0;
};

AccessLog ReadAccessLog(const std::string& path) {
  AccessLog a;
  std::ifstream in(path);
  int status = 0;
  double secs = 0;
  while (in >> status >> secs) {
    ++a.lines;
    if (status >= 200 && status <= 299) ++a.ok_2xx;
    if (secs > 10) ++a.slower_than_10s;
  }
  return a;
}

class MeasuredOutcomes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, like the other fault tests (preset faults)";
    if (!OnPath("nginx") || !OnPath("wrk")) GTEST_SKIP() << "nginx or wrk not installed (support/setup-debian.sh)";
    dir_ = "/tmp/fvb-measured-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/logs");
    for (int p = 18300; p < 18350 && port_ == 0; ++p) {
      if (Bindable(p)) port_ = p;
    }
    ASSERT_NE(port_, 0) << "no free port in 18300-18349";
  }
  void TearDown() override {
    StopNginx();
    if (!dir_.empty() && !HasFailure()) fs::remove_all(dir_);
  }

  // nginx, one worker, access log "<status> <request_time>"; `locations` is
  // the server block's body.
  void WriteConfig(const std::string& http_extra, const std::string& locations) {
    std::ofstream(dir_ + "/nginx.conf")
        << main_extra_ << "worker_processes 1;\ndaemon off;\npid " << dir_ << "/nginx.pid;\nerror_log " << dir_
        << "/logs/error.log;\nevents { worker_connections 1024; }\nhttp {\n  log_format st '$status "
           "$request_time';\n  access_log "
        << dir_ << "/logs/access.log st;\n  keepalive_requests 100000;\n" << http_extra << "  server {\n    listen 127.0.0.1:"
        << port_ << ";\n" << locations << "  }\n}\n";
  }
  void StartNginx() {
    Command c;
    c.argv = {"nginx", "-p", dir_, "-c", dir_ + "/nginx.conf", "-e", dir_ + "/logs/error.log"};
    auto svc = host_.StartService("nginx-measured", c, dir_ + "/logs/out", dir_ + "/logs/err");
    ASSERT_TRUE(svc.ok()) << svc.error().message;
    nginx_ = *svc;
    for (int i = 0; i < 500 && !Accepts(port_); ++i) std::this_thread::sleep_for(milliseconds(2));
    ASSERT_TRUE(Accepts(port_)) << "nginx does not accept on " << port_;
  }
  void StopNginx() {
    if (nginx_.pid <= 0) return;
    (void)host_.StopService(nginx_, std::chrono::seconds(5));
    nginx_ = ServiceHandle{};
  }
  LoadSpec Spec(const std::string& phase, double rate, double secs) const {
    LoadSpec s;
    s.phase = phase;
    s.url = "http://127.0.0.1:" + std::to_string(port_) + "/";
    s.rate_rps = rate;
    s.duration_s = secs;
    return s;
  }

  LocalHost host_;
  std::string main_extra_;  // directives before worker_processes
  std::string dir_;
  int port_ = 0;
  ServiceHandle nginx_;
};

TEST_F(MeasuredOutcomes, OutageOf200msIsReportedWithinOnePoint) {
  WriteConfig("", "    location / { return 200 \"ok\\n\"; }\n");
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto engine = MakeWrkEngine(host_, FVBENCH_SOURCE_DIR "/support/engine");
  LoadSpec s = Spec("measured_outage", 200, 4);
  // 10 connections: 50 ms of the schedule in flight, so the outage loses
  // requests. The derived pool (rate / 5 = 40, wrk_engine.h) covers 200 ms:
  // then the requests due in the outage wait for a connection and are sent
  // late instead (measured: 800 of 802 answered 2xx, fvbench 0.25 % failed,
  // truth 0.21 %), and this test would have nothing to count.
  s.connections = 10;
  auto run = std::async(std::launch::async, [&] { return engine->Run(s, dir_ + "/remote", dir_ + "/ctl"); });
  std::this_thread::sleep_for(milliseconds(1500));
  // The outage: from SIGTERM (nginx closes its connections, refuses new
  // ones) until the new nginx accepts again; started 200 ms after the kill.
  const auto down = Clock::now();
  ASSERT_EQ(::kill(nginx_.pid, SIGTERM), 0);
  nginx_ = ServiceHandle{};
  std::this_thread::sleep_until(down + milliseconds(200));
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  const double outage_s = Secs(Clock::now() - down);
  auto r = run.get();
  ASSERT_TRUE(r.ok()) << r.error().message;
  StopNginx();

  const AccessLog log = ReadAccessLog(dir_ + "/logs/access.log");
  // The schedule offered rate x the time wrk ran (its runtime: its threads
  // stop up to 100 ms after -d and keep pacing until then; a healthy run
  // answers all of them).
  const double scheduled_truth = s.rate_rps * r->duration_s;
  const double truth = (scheduled_truth - static_cast<double>(log.ok_2xx)) / scheduled_truth;
  std::printf("MEASURED | 200 ms outage at 200 RPS, 4 s | outage %.3f s | truth %.2f %% (%llu of %.0f scheduled "
              "answered 2xx, nginx access log; over rate x -d: %.2f %%) | fvbench %.2f %% (%llu failed of %llu scheduled: sut %llu, engine "
              "%llu) | diff %.2f points\n",
              outage_s, 100 * truth, static_cast<unsigned long long>(log.ok_2xx), scheduled_truth,
              100 * (s.rate_rps * s.duration_s - static_cast<double>(log.ok_2xx)) / (s.rate_rps * s.duration_s),
              100 * r->error_rate, static_cast<unsigned long long>(r->failed),
              static_cast<unsigned long long>(r->scheduled), static_cast<unsigned long long>(r->failed_sut),
              static_cast<unsigned long long>(r->failed_engine), 100 * (r->error_rate - truth));
  EXPECT_GT(truth, 0.02) << "the outage lost too few requests to test anything";
  EXPECT_NEAR(r->error_rate, truth, 0.01) << "raw: " << r->raw_path;
  EXPECT_NEAR(static_cast<double>(r->scheduled), scheduled_truth, 0.01 * scheduled_truth);
}

// The first child of `master` in /proc (its one worker), or 0.
int FirstChildOf(int master) {
  std::string scan;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "stat");
    std::string line;
    if (std::getline(f, line)) scan += line + "\n";
  }
  const std::vector<int> kids = detail::Descendants(detail::ParseProcSample(scan).procs, master);
  return kids.empty() ? 0 : kids.front();
}

// The master's worker, waited for up to 2 s: the master listens before it
// forks the worker, so nginx accepts connections a moment before there is one.
int WorkerOf(int master) {
  for (int i = 0; i < 200; ++i) {
    if (int w = FirstChildOf(master); w > 0) return w;
    std::this_thread::sleep_for(milliseconds(10));
  }
  return 0;
}

double EpochUs() {
  return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TEST_F(MeasuredOutcomes, StallOf300msIsFlaggedInItsIntervalsOnly) {
  WriteConfig("", "    location / { return 200 \"ok\\n\"; }\n");
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  const int worker = WorkerOf(nginx_.pid);
  ASSERT_GT(worker, 0) << "no worker under nginx's master " << nginx_.pid;
  auto engine = MakeWrkEngine(host_, FVBENCH_SOURCE_DIR "/support/engine");
  LoadSpec s = Spec("measured_stall", 200, 10);
  s.interval_us = 100000;
  PhaseMonitor monitor(host_, host_, {{"nginx", nginx_.pid, dir_ + "/logs/error.log"}}, MonitorOptions{});
  ASSERT_TRUE(monitor.Start().ok());
  auto run = std::async(std::launch::async, [&] { return engine->Run(s, dir_ + "/remote", dir_ + "/ctl"); });
  std::this_thread::sleep_for(milliseconds(5000));
  const double stop_us = EpochUs();
  ASSERT_EQ(::kill(worker, SIGSTOP), 0);
  std::this_thread::sleep_for(milliseconds(300));
  const double cont_us = EpochUs();
  ASSERT_EQ(::kill(worker, SIGCONT), 0);
  auto r = run.get();
  const PhaseObservation obs = monitor.Stop();
  ASSERT_TRUE(r.ok()) << r.error().message;
  StopNginx();

  const IntervalSeries& iv = r->intervals;
  ASSERT_FALSE(iv.empty()) << "raw: " << r->raw_path;
  EXPECT_EQ(iv.width_us, 100000);
  const double w = iv.width_us;
  std::string series;
  size_t stalled = 0, inside = 0;
  for (size_t i = 0; i < iv.size(); ++i) {
    const double from = iv.start_epoch_us + static_cast<double>(i) * w, to = from + w;
    series += fmt::format("{}{}/{}", i == 0 ? "" : " ", iv.completed[i], iv.scheduled[i]);
    const bool judged = iv.scheduled[i] >= 10;  // half of a full interval's 20 slots
    const bool overlaps = from < cont_us + 5000 && to > stop_us;
    if (from >= stop_us + 5000 && to <= cont_us) {  // wholly inside the stop
      ++inside;
      EXPECT_EQ(iv.completed[i], 0u) << "interval " << i << " lies inside the stop";
    }
    if (judged && iv.completed[i] == 0) {
      ++stalled;
      EXPECT_TRUE(overlaps) << "interval " << i << " completed nothing outside the stop";
    }
    // away from the stop (its neighbours may hold the backlog or lose a few)
    if (judged && (to <= stop_us - w || from >= cont_us + w)) {
      EXPECT_GE(2 * iv.completed[i], iv.scheduled[i]) << "interval " << i << " far below its schedule";
    }
  }
  const auto checks = CheckPhase(*r, PhaseObservation{}, PhaseContext{}, ValidityParams{});
  const std::string failed = FailedValidity(checks);
  std::printf("MEASURED | SIGSTOP 300 ms at 5 s of a 10 s phase, 200 RPS, 100 ms intervals | stop at %.3f s of the "
              "series, %.3f s long | %zu intervals without a completion (%zu wholly inside) | completed/scheduled "
              "per interval: %s | failed validity: %s\n",
              (stop_us - iv.start_epoch_us) / 1e6, (cont_us - stop_us) / 1e6, stalled, inside, series.c_str(),
              failed.c_str());
  EXPECT_GE(inside, 2u);
  EXPECT_GE(stalled, inside);
  EXPECT_LE(stalled, inside + 2);
  EXPECT_THAT(failed, HasSubstr("interval_stalls: measured"));

  // The SUT's timeline beside it: the worker's CPU per window, the window
  // holding the stop marked.
  const SutTimeline& t = obs.sut_timeline;
  EXPECT_GE(t.points.size(), 15u);  // ~10 s at 500 ms
  ASSERT_EQ(t.services, std::vector<std::string>{"nginx"});
  std::string cpu;
  for (size_t i = 0; i < t.points.size(); ++i) {
    const SutTimelinePoint& p = t.points[i];
    EXPECT_LT(p.start_epoch_us, p.end_epoch_us) << i;
    if (i > 0) {
      EXPECT_DOUBLE_EQ(p.start_epoch_us, t.points[i - 1].end_epoch_us) << i;
    }
    EXPECT_TRUE(p.cpu_cores[0].has_value()) << "window " << i << " has no CPU: " << ::testing::PrintToString(obs.problems);
    EXPECT_TRUE(p.rss_mib[0].has_value()) << i;
    const bool holds_stop = p.start_epoch_us < cont_us && p.end_epoch_us > stop_us;
    cpu += fmt::format("{}{}{:.3f}{}", i == 0 ? "" : " ", holds_stop ? "[" : "", p.cpu_cores[0].value_or(-1),
                       holds_stop ? "]" : "");
  }
  EXPECT_TRUE(t.points.empty() || t.points.front().start_epoch_us <= iv.start_epoch_us + 1e6);
  std::printf("MEASURED | the same phase's SUT timeline | nginx worker CPU cores per window from %.3f s of the "
              "series ([..]: the windows overlapping the stop): %s\n",
              t.points.empty() ? 0.0 : (t.points.front().start_epoch_us - iv.start_epoch_us) / 1e6, cpu.c_str());
}

TEST_F(MeasuredOutcomes, TimeoutsAreCensoredAndFailAP999Gate) {
  // The decision kind cycles X-Forwarded-For through 203.0.113.1-254: one
  // address in 254 is answered at 13 bytes/s (~160 bytes: ~12 s).
  WriteConfig("  map $http_x_forwarded_for $slow { 203.0.113.7 1; default \"\"; }\n",
              "    location / { if ($slow) { rewrite ^ /slow last; } return 200 \"ok\\n\"; }\n"
              "    location /slow { internal; limit_rate 13; return 200 \"slow\\n\"; }\n");
  ASSERT_NO_FATAL_FAILURE(StartNginx());
  auto engine = MakeWrkEngine(host_, FVBENCH_SOURCE_DIR "/support/engine");
  LoadSpec s = Spec("measured_timeouts", 200, 20);
  s.kind = RequestKind::kDecision;
  s.connections = 40;  // ~10 connections are held by slow responses at any time
  auto r = engine->Run(s, dir_ + "/remote", dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  StopNginx();
  const AccessLog log = ReadAccessLog(dir_ + "/logs/access.log");
  const LatencyUs& l = r->latency_us;
  std::printf("MEASURED | responses beyond the 10 s timeout, 200 RPS, 20 s | nginx: %llu of %llu responses took "
              "> 10 s (%.2f %%) | fvbench: p99 %.0f us, p99.9 %s%.0f us, max %s%.0f us, censored at %.0f us\n",
              static_cast<unsigned long long>(log.slower_than_10s), static_cast<unsigned long long>(log.lines),
              log.lines ? 100.0 * log.slower_than_10s / log.lines : 0.0, l.p99, l.IsCensored(l.p999) ? ">= " : "",
              l.p999, l.IsCensored(l.max) ? ">= " : "", l.max, l.censored_at_us);
  ASSERT_GT(log.slower_than_10s, 0u) << "no response exceeded the timeout: the test proves nothing";
  EXPECT_EQ(l.censored_at_us, 10e6);
  EXPECT_TRUE(l.IsCensored(l.p999)) << "p99.9 " << l.p999;
  EXPECT_TRUE(l.IsCensored(l.max)) << "max " << l.max;
  EXPECT_FALSE(l.IsCensored(l.p99)) << "p99 is below the 0.4 % of slow responses and must stay measured";
  EXPECT_LT(l.p99, 1e6);

  auto profile = ParseThresholdProfile(
      R"({"schema_version":1,"scenarios":{"latency.raw_nginx":{"p999_us":{"<=":100000}}}})", "gate.json");
  ASSERT_TRUE(profile.ok()) << profile.error().message;
  ScenarioResult sr;
  sr.id = "latency.raw_nginx";
  sr.measured = true;
  sr.load = *r;
  auto checks = Evaluate(*profile, sr, nullptr);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_THAT(DescribeCheck(checks[0]), HasSubstr(">= "));
  std::printf("MEASURED | p99.9 gate <= 100 ms: %s\n", DescribeCheck(checks[0]).c_str());
}

}  // namespace
}  // namespace fvbench
