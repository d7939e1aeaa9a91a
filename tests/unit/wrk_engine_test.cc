// WrkEngine: the pure planning helpers, then end to end through LocalHost
// against a loopback Debian nginx this test starts (ports 18250-18299) and
// stops by its pid. The end-to-end tests skip when wrk or nginx is missing.
#include "support/engine/wrk_engine.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/core/latency_histogram_json.h"
#include "support/host/local_host.h"
#include "support/judge/step_search.h"
#include "support/engine/multi_loadgen.h"
#include "support/engine/wrk_output.h"
#include "support/judge/loadgen_merge.h"
#include "fvbench/source_dir.h"

namespace fvbench::wrk_engine_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

const std::string kScripts = FVBENCH_SOURCE_DIR "/support/engine";

TEST(WrkPlan, CountCpuList) {
  EXPECT_EQ(*CountCpuList("0-3,6"), 5);
  EXPECT_EQ(*CountCpuList("1"), 1);
  EXPECT_EQ(*CountCpuList("0,0,1"), 2);
  EXPECT_EQ(*CountCpuList("2-2"), 1);
  for (const char* bad : {"", "a", "3-1", "1,", ",1", "-1", "1-", "0 1"}) {
    auto r = CountCpuList(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("cpu list")) << bad;
  }
}

TEST(WrkPlan, ThreadsFollowTheCpuset) {
  EXPECT_EQ(*WrkThreadsFor(""), kWrkDefaultThreads);
  EXPECT_EQ(*WrkThreadsFor("3"), 1);
  EXPECT_EQ(*WrkThreadsFor("0-2"), 3);
  EXPECT_EQ(*WrkThreadsFor("0-15"), kWrkMaxThreads);
  EXPECT_FALSE(WrkThreadsFor("x").ok());
}

TEST(WrkPlan, ConnectionsDerivedFromRate) {
  EXPECT_EQ(WrkConnectionsFor(2000, 2, 0), 400);      // 5 req/s per connection: 200 ms in flight
  EXPECT_EQ(WrkConnectionsFor(10, 2, 0), 4);          // floor 2*T
  EXPECT_EQ(WrkConnectionsFor(5, 2, 0), 4);
  EXPECT_EQ(WrkConnectionsFor(1e6, 2, 0), 1000);      // cap
  EXPECT_EQ(WrkConnectionsFor(5000, 2, 0), 1000);     // 1000: exactly the cap
  EXPECT_EQ(WrkConnectionsFor(1250, 3, 0), 250 + 2);  // 250 rounded up to a multiple of T
  EXPECT_EQ(WrkConnectionsFor(5000, 4, 2), 4);        // asked 2 < T: wrk needs C >= T
  EXPECT_EQ(WrkConnectionsFor(5000, 2, 7), 8);        // asked, rounded to a multiple of T
  EXPECT_EQ(WrkConnectionsFor(5000, 2, 64), 64);      // asked, kept
}

TEST(WrkPlan, VersionLineOfDebianWrk) {
  // Recorded: `wrk --version` of Debian's wrk 4.1.0-3+b2, exit status 1.
  const std::string out =
      "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer\n"
      "Usage: wrk <options> <url>                            \n"
      "  Options:                                            \n";
  auto v = ParseWrkVersion(out);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, "wrk debian/4.1.0-3+b2 [epoll]");
  EXPECT_EQ(*ParseWrkVersion("noise\nwrk 4.2.0 [kqueue] Copyright (C) 2012 Will Glozer\n"),
            "wrk 4.2.0 [kqueue]");
  EXPECT_FALSE(ParseWrkVersion("").ok());
  EXPECT_FALSE(ParseWrkVersion("sh: 1: wrk: not found\n").ok());
}

LoadSpec Spec() {
  LoadSpec s;
  s.phase = "latency_raw_nginx";
  s.url = "http://127.0.0.1:8082/";
  s.rate_rps = 2000;
  s.duration_s = 5;
  return s;
}

TEST(WrkPlan, CommandForAGetPhase) {
  auto cmd = PlanWrkCommand(Spec(), "/opt/s", "/r/latency_raw_nginx.json", "");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_THAT(cmd->argv, ElementsAre("wrk", "-t2", "-c400", "-d5s", "--timeout=10s", "--latency", "-s",
                                     "/opt/s/pace.lua", "http://127.0.0.1:8082/"));
  EXPECT_EQ(cmd->env.at("FVBENCH_RATE"), "2000");
  EXPECT_EQ(cmd->env.at("FVBENCH_THREADS"), "2");
  EXPECT_EQ(cmd->env.at("FVBENCH_CONNECTIONS"), "400");
  EXPECT_EQ(cmd->env.at("FVBENCH_KIND"), "get");
  EXPECT_EQ(cmd->env.at("FVBENCH_OUT"), "/r/latency_raw_nginx.json");
  // Unused variables are set empty / 0 so the caller's environment cannot leak in.
  EXPECT_EQ(cmd->env.at("FVBENCH_JWT"), "");
  EXPECT_EQ(cmd->env.at("FVBENCH_BODY_FILE"), "");
  EXPECT_EQ(cmd->env.at("FVBENCH_COUNT_RATELIMIT"), "0");
  EXPECT_EQ(cmd->env.at("FVBENCH_DURATION_S"), "5");  // each thread's schedule lasts -d
  EXPECT_EQ(cmd->timeout, std::chrono::seconds(20));  // -d + kWrkStartupS + kPhaseGraceS
}

TEST(WrkPlan, CommandForAPinnedPostPhase) {
  LoadSpec s = Spec();
  s.kind = RequestKind::kPostJson;
  s.body = "{}";
  s.jwt = "h.p.s";
  s.cpuset = "2-4";
  s.rate_rps = 1500.5;
  s.duration_s = 2.2;  // wrk takes whole seconds: rounded up
  s.connections = 10;
  s.count_ratelimit = true;
  auto cmd = PlanWrkCommand(s, "/opt/s", "/r/x.json", "/r/x.body.json");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_THAT(cmd->argv, ElementsAre("taskset", "-c", "2-4", "wrk", "-t3", "-c12", "-d3s", "--timeout=10s",
                                     "--latency", "-s", "/opt/s/pace.lua", "http://127.0.0.1:8082/"));
  EXPECT_EQ(cmd->env.at("FVBENCH_RATE"), "1500.5");
  EXPECT_EQ(cmd->env.at("FVBENCH_THREADS"), "3");
  EXPECT_EQ(cmd->env.at("FVBENCH_KIND"), "post");
  EXPECT_EQ(cmd->env.at("FVBENCH_JWT"), "h.p.s");
  EXPECT_EQ(cmd->env.at("FVBENCH_BODY_FILE"), "/r/x.body.json");
  EXPECT_EQ(cmd->env.at("FVBENCH_COUNT_RATELIMIT"), "1");
  EXPECT_EQ(cmd->timeout, std::chrono::seconds(18));

  const std::string line = WrkCommandLine(*cmd);
  EXPECT_THAT(line, HasSubstr("FVBENCH_JWT='<redacted>' "));
  EXPECT_THAT(line, Not(HasSubstr("h.p.s")));
  EXPECT_THAT(line, HasSubstr("FVBENCH_BODY_FILE=/r/x.body.json "));
  EXPECT_THAT(line, HasSubstr("taskset -c 2-4 wrk -t3 -c12 -d3s --timeout=10s --latency -s /opt/s/pace.lua"));
}

TEST(WrkPlan, DecisionKindName) {
  LoadSpec s = Spec();
  s.kind = RequestKind::kDecision;
  auto cmd = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(cmd.ok());
  EXPECT_EQ(cmd->env.at("FVBENCH_KIND"), "decision");
}

// Rate-limit keys reach pace.lua as FVBENCH_KEYS, always set (0: none) so
// that the caller's environment cannot add keys; outside [0, kMaxBenchKeys]
// the spec is refused, naming the number and the bound.
TEST(WrkPlan, KeysAreAlwaysPassedAndBounded) {
  auto plain = PlanWrkCommand(Spec(), "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->env.at("FVBENCH_KEYS"), "0");
  LoadSpec s = Spec();
  s.keys = 7;
  auto keyed = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(keyed.ok()) << keyed.error().message;
  EXPECT_EQ(keyed->env.at("FVBENCH_KEYS"), "7");
  EXPECT_EQ(keyed->argv, plain->argv);  // the keys change the requests, not wrk's options
  EXPECT_THAT(WrkCommandLine(*keyed), HasSubstr("FVBENCH_KEYS=7 "));
  s.keys = kMaxBenchKeys;
  EXPECT_TRUE(PlanWrkCommand(s, "/opt/s", "/r/x.json", "").ok());
  for (int bad : {-1, kMaxBenchKeys + 1}) {
    s.keys = bad;
    auto r = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, fmt::format("keys {}: the number of X-Bench-Key keys must be between 0 (none) and "
                                             "100000", bad));
  }
}

// The width of pace.lua's counts per interval: not passed unless asked
// (pace.lua's 1 s), passed as whole µs when asked, refused out of range.
TEST(WrkPlan, IntervalWidthOnlyWhenAskedAndBounded) {
  auto plain = PlanWrkCommand(Spec(), "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(plain->env.count("FVBENCH_INTERVAL_US"), 0u);
  LoadSpec s = Spec();
  s.interval_us = 100000;
  auto tenth = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(tenth.ok()) << tenth.error().message;
  EXPECT_EQ(tenth->env.at("FVBENCH_INTERVAL_US"), "100000");
  for (double bad : {-1.0, 999.0, 1500.5, 3601e6}) {
    s.interval_us = bad;
    auto r = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error().message, HasSubstr("is not a whole number of µs in 1000..3600000000"));
  }
}

TEST(WrkPlan, BenchKeyNames) {
  EXPECT_STREQ(kBenchKeyHeader, "X-Bench-Key");
  EXPECT_EQ(BenchKey(0), "k0");
  EXPECT_EQ(BenchKey(41), "k41");
}

// Several load generators: a common start, this process's offset,
// and a -d that covers the wait for the start and 0.25 s for the window's
// last responses; the schedule window stays the duration.
TEST(WrkPlan, SynchronisedStartCommand) {
  LoadSpec s = Spec();
  s.duration_s = 10;
  s.start_epoch_us = 1700000000123000;
  s.offset_us = 2500;
  s.start_wait_s = 1.5;
  auto cmd = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  EXPECT_THAT(cmd->argv, ::testing::Contains("-d12s"));  // ceil(1.5 + 10 + 0.25)
  EXPECT_EQ(cmd->env.at("FVBENCH_START_EPOCH_US"), "1700000000123000");
  EXPECT_EQ(cmd->env.at("FVBENCH_OFFSET_US"), "2500.000");
  EXPECT_EQ(cmd->env.at("FVBENCH_DURATION_S"), "10");
  // -d, the lead (a launch up to it still meets the start), the shell's start, the grace.
  EXPECT_EQ(cmd->timeout, std::chrono::seconds(12 + 2 + static_cast<long>(kWrkStartupS + kPhaseGraceS)));
  // Unsynchronised: no start variables.
  auto plain = PlanWrkCommand(Spec(), "/opt/s", "/r/x.json", "");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->env.count("FVBENCH_START_EPOCH_US"), 0u);
  for (double bad : {-1.0, std::nan(""), HUGE_VAL}) {
    LoadSpec b = s;
    b.offset_us = bad;
    EXPECT_FALSE(PlanWrkCommand(b, "/opt/s", "/r/x.json", "").ok()) << bad;
    b = s;
    b.start_wait_s = bad;
    EXPECT_FALSE(PlanWrkCommand(b, "/opt/s", "/r/x.json", "").ok()) << bad;
  }
}

// bash's `times` after the command: the children's user + system seconds.
TEST(WrkPlan, ChildCpuSecondsFromBashTimes) {
  EXPECT_DOUBLE_EQ(*ChildCpuSeconds("0m0.004s 0m0.000s\n0m1.512s 0m0.346s\n"), 1.858);
  EXPECT_DOUBLE_EQ(*ChildCpuSeconds("wrk noise\n0m0.001s 0m0.002s\n1m2.500s 0m0.500s"), 63);
  EXPECT_FALSE(ChildCpuSeconds("").has_value());
  EXPECT_FALSE(ChildCpuSeconds("0m1.5s\n").has_value());
  EXPECT_FALSE(ChildCpuSeconds("0m1.5s 0m2.0s trailing\n").has_value());
}

TEST(WrkPlan, BadSpecsAreErrors) {
  struct Case {
    void (*edit)(LoadSpec&);
    const char* expect;
  };
  const Case cases[] = {
      {[](LoadSpec& s) { s.rate_rps = 0; }, "rate_rps"},
      {[](LoadSpec& s) { s.duration_s = -1; }, "duration_s"},
      // -d-9223372036854775808s once (long-duration.sh): beyond what -d and the timeout hold.
      {[](LoadSpec& s) { s.duration_s = 1e300; }, "duration 1e+300 s at 2000 RPS: above the longest phase"},
      {[](LoadSpec& s) { s.duration_s = 1e16; }, "above the longest phase (1000000000 s)"},
      {[](LoadSpec& s) { s.rate_rps = 1e300; }, "or the highest rate (1000000000 RPS)"},
      {[](LoadSpec& s) { s.url.clear(); }, "url"},
      {[](LoadSpec& s) { s.phase = "a/b"; }, "phase"},
      {[](LoadSpec& s) { s.cpuset = "x"; }, "cpuset"},
      {[](LoadSpec& s) { s.connections = -3; }, "connections"},
      {[](LoadSpec& s) { s.kind = RequestKind::kPostJson; }, "body"},
  };
  for (const Case& c : cases) {
    LoadSpec s = Spec();
    c.edit(s);
    auto cmd = PlanWrkCommand(s, "/opt/s", "/r/x.json", "");
    ASSERT_FALSE(cmd.ok()) << c.expect;
    EXPECT_THAT(cmd.error().message, HasSubstr(c.expect));
  }
}

// ---------------------------------------------------------------- end to end

bool OnPath(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool PortAccepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

bool PortFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class WrkEngineLocal : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!OnPath("wrk") || !OnPath("nginx")) return;
    char tmpl[] = "/tmp/fvbench-wrk-test-XXXXXX";
    if (!::mkdtemp(tmpl)) return;
    dir_ = new std::string(tmpl);
    host_ = new LocalHost();
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 10 && port_ == 0; ++attempt) {
      int port = 18250 + static_cast<int>(rng() % 50);
      if (!PortFree(port)) continue;
      std::ofstream(*dir_ + "/nginx.conf") << "worker_processes 1;\n"
          << "pid " << *dir_ << "/nginx.pid;\n"
          << "error_log " << *dir_ << "/error.log warn;\n"
          << "events { worker_connections 1024; }\n"
          << "http {\n  access_log off;\n"
          << "  client_body_temp_path " << *dir_ << "/body;\n"
          << "  proxy_temp_path " << *dir_ << "/proxy;\n  fastcgi_temp_path " << *dir_ << "/fcgi;\n"
          << "  uwsgi_temp_path " << *dir_ << "/uwsgi;\n  scgi_temp_path " << *dir_ << "/scgi;\n"
          << "  server {\n    listen 127.0.0.1:" << port << ";\n"
          << "    location / { return 200 \"ok\\n\"; }\n"
          << "    location /limited { add_header RateLimit \"limit=1, remaining=0, reset=1\" always;"
          << " return 429 \"limited\\n\"; }\n  }\n}\n";
      Command cmd;
      cmd.argv = {"nginx", "-p", *dir_, "-c", *dir_ + "/nginx.conf", "-e", *dir_ + "/error.log",
                  "-g", "daemon off;"};
      // nginx writes its pid file only after binding its listen sockets, so
      // pid file + alive + accepting means this nginx (not another test
      // process's, racing for the same port) serves the port.
      const std::string pidfile = *dir_ + "/nginx.pid";
      std::filesystem::remove(pidfile);
      auto svc = host_->StartService("nginx-wrk-test", cmd, *dir_ + "/nginx.out",
                                      *dir_ + "/nginx.err");
      if (!svc) continue;
      auto ready = [&] {
        return host_->IsAlive(*svc) && std::filesystem::exists(pidfile) && PortAccepts(port);
      };
      for (int i = 0; i < 60 && host_->IsAlive(*svc) && !ready(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (ready()) {
        port_ = port;
        nginx_ = new ServiceHandle(*svc);
      } else {
        (void)host_->StopService(*svc, std::chrono::seconds(2));
      }
    }
  }

  static void TearDownTestSuite() {
    if (nginx_) (void)host_->StopService(*nginx_, std::chrono::seconds(5));
    if (dir_) {
      std::error_code ec;
      std::filesystem::remove_all(*dir_, ec);
    }
    delete nginx_;
    delete host_;
    delete dir_;
    nginx_ = nullptr;
    host_ = nullptr;
    dir_ = nullptr;
  }

  void SetUp() override {
    if (!OnPath("wrk") || !OnPath("nginx")) GTEST_SKIP() << "wrk or nginx not installed";
    ASSERT_NE(port_, 0) << "could not start a loopback nginx in 18250-18299";
  }

  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  static LoadSpec Small(const std::string& phase, const std::string& url) {
    LoadSpec s;
    s.phase = phase;
    s.url = url;
    s.rate_rps = 200;
    s.duration_s = 1;
    return s;
  }

  // Paced: wrk cannot complete more than the schedule allows, whatever the
  // machine's speed (unpaced wrk would do tens of thousands here).
  static void ExpectPaced(const LoadResult& r, const LoadSpec& s) {
    EXPECT_GT(r.requests, 0u);
    EXPECT_LE(static_cast<double>(r.requests), 1.5 * s.rate_rps * std::ceil(s.duration_s) + 50);
  }

  static inline std::string* dir_ = nullptr;
  static inline LocalHost* host_ = nullptr;
  static inline ServiceHandle* nginx_ = nullptr;
  static inline int port_ = 0;
};

TEST_F(WrkEngineLocal, VersionDespiteExitStatusOne) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  EXPECT_EQ(engine->name(), "wrk");
  auto v = engine->Version();
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_THAT(*v, StartsWith("wrk "));
  EXPECT_THAT(*v, Not(HasSubstr("Copyright")));
}

TEST_F(WrkEngineLocal, GetPhaseLeavesCommandStdoutAndJson) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_get", Url("/"));
  const std::string remote = *dir_ + "/remote", ctl = *dir_ + "/ctl";
  auto r = engine->Run(s, remote, ctl);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectPaced(*r, s);
  EXPECT_EQ(r->engine, "wrk");
  EXPECT_THAT(r->engine_version, StartsWith("wrk "));
  EXPECT_EQ(r->target_rps, 200);
  EXPECT_EQ(r->raw_path, ctl + "/e2e_get.json");
  EXPECT_EQ(r->non_2xx, 0u);
  // Nothing lost: every scheduled request answered; a request in flight when
  // wrk stops at -d is interrupted, not failed (core/outcomes.h), at most one
  // per connection.
  EXPECT_EQ(r->failed, 0u) << "scheduled " << r->scheduled << ", responses " << r->requests << ", never sent "
                           << r->failed_engine;
  EXPECT_LE(r->interrupted, 10u);
  EXPECT_THAT(Slurp(ctl + "/e2e_get.cmd.txt"),
              HasSubstr("wrk -t2 -c40 -d1s --timeout=10s --latency -s " + kScripts + "/pace.lua " + Url("/")));
  EXPECT_THAT(Slurp(ctl + "/e2e_get.stdout.txt"), HasSubstr("Requests/sec:"));
  // The controller copy is the file that was parsed.
  auto again = ParseWrkOutput(Slurp(r->raw_path), r->raw_path, 200);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->requests, r->requests);
  // The mergeable histogram only when asked (LoadSpec::latency_histogram).
  EXPECT_FALSE(nlohmann::json::parse(Slurp(r->raw_path)).contains("histogram"));
}

// pace.lua's mergeable histogram holds wrk's samples in fvbench's
// layout: every recorded response (requests - timeouts), wrk's maximum.
TEST_F(WrkEngineLocal, HistogramWhenAskedHoldsEveryRecordedResponse) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_hist", Url("/"));
  s.latency_histogram = true;
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto doc = nlohmann::json::parse(Slurp(r->raw_path));
  auto hist = HistogramFromJson(doc.at("histogram"), r->raw_path);
  ASSERT_TRUE(hist.ok()) << hist.error().message;
  EXPECT_EQ(hist->recorded(), doc.at("requests").get<uint64_t>() - doc.at("errors").at("timeout").get<uint64_t>());
  EXPECT_GT(hist->recorded(), 0u);
  EXPECT_EQ(static_cast<double>(hist->max_ns()), 1000 * doc.at("latency_us").at("max").get<double>());
  EXPECT_EQ(hist->ToLatencyUs().max, doc.at("latency_us").at("max").get<double>());
}

// A common start on the wall clock: wrk launched 1.5 s early waits for it,
// paces exactly the window (rate x duration slots, none after it), and its
// first send leaves within a timer tick of the start.
TEST_F(WrkEngineLocal, SynchronisedStartWaitsAndPacesTheWindow) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_sync", Url("/"));
  s.start_wait_s = 2.5;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  s.start_epoch_us = std::ceil(std::chrono::duration<double, std::micro>(now).count() + 1.5e6);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GE(wall, 2.5);
  auto out = ParseWrkPaceOutput(Slurp(r->raw_path), r->raw_path, s.rate_rps);
  ASSERT_TRUE(out.ok()) << out.error().message;
  EXPECT_TRUE(out->window.synchronised);
  EXPECT_DOUBLE_EQ(out->window.start_epoch_us, s.start_epoch_us);
  EXPECT_DOUBLE_EQ(out->window.end_epoch_us, s.start_epoch_us + 1e6);
  EXPECT_DOUBLE_EQ(r->duration_s, 1.0);
  EXPECT_EQ(r->scheduled, 200u);  // rate x window: no slot before the start or after the window
  EXPECT_LE(out->sent, 200u);
  ASSERT_TRUE(out->window.first_send_lag_us.has_value());
  // Not before the start by more than the 10 ms an early send may be
  // (pace.lua max_early; measured -7 ms under the unit suite's load), and not
  // a launch late; how close depends on this machine's load, which a unit
  // test does not time (measured runs: docs/load-generators.md "Several load generators").
  EXPECT_GT(*out->window.first_send_lag_us, -kDefaultMaxSendLagUs) << "first send before the common start";
  EXPECT_LT(*out->window.first_send_lag_us, 1e6) << "first send vs the common start";
}

// A synchronised phase's command runs under bash (for `times`). Started by
// an SSH session's command runner, its environment says sshd started it
// (SSH_CLIENT, SHLVL < 2), and bash then reads ~/.bashrc (Debian's
// SSH_SOURCE_BASHRC): a conda or pyenv start-up paid in every phase's
// launch, not in the warmup's (no bash): the lead the warmup measured was
// too short for every first phase. The wrapper must not read it.
TEST_F(WrkEngineLocal, SynchronisedPhaseReadsNoBashrcWhenRunOverSsh) {
  const std::string home = *dir_ + "/home";
  std::filesystem::create_directories(home);
  const std::string marker = *dir_ + "/bashrc-was-read";
  std::ofstream(home + "/.bashrc") << "touch " << marker << "\n";
  struct Env {
    std::string name;
    std::optional<std::string> old;
  };
  std::vector<Env> saved;
  for (const char* n : {"HOME", "SSH_CLIENT", "SHLVL"}) {
    const char* v = std::getenv(n);
    saved.push_back({n, v ? std::optional<std::string>(v) : std::nullopt});
  }
  ::setenv("HOME", home.c_str(), 1);
  ::setenv("SSH_CLIENT", "10.0.0.1 50000 22", 1);
  ::unsetenv("SHLVL");
  // (the environment as a command runner started by sshd has it, shown to be
  // what makes bash read ~/.bashrc)
  LocalHost local;
  Command probe;
  probe.argv = {"bash", "-c", "true"};
  probe.timeout = std::chrono::seconds(10);
  auto p = local.Run(probe);
  const bool bash_reads_it = std::filesystem::exists(marker);
  std::filesystem::remove(marker);
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_sync_norc", Url("/"));
  s.start_wait_s = 1;
  s.start_epoch_us = std::ceil(std::chrono::duration<double, std::micro>(
                                   std::chrono::system_clock::now().time_since_epoch()).count() + 0.5e6);
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  for (const Env& e : saved) {
    if (e.old) ::setenv(e.name.c_str(), e.old->c_str(), 1);
    else ::unsetenv(e.name.c_str());
  }
  ASSERT_TRUE(p.ok() && p->success());
  if (!bash_reads_it) GTEST_SKIP() << "this bash reads no ~/.bashrc for sshd (built without SSH_SOURCE_BASHRC)";
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the phase's bash read ~/.bashrc";
  EXPECT_GE(r->engine_cpu_s, 0) << "its `times` still read";
}

// Two processes share one phase (engine/multi_loadgen.h): each paces half
// the rate from one common start, offset by 1 / rate; the merge sums their
// outcomes, takes the percentiles of the merged histogram, and keeps each
// process's own checks and files.
TEST_F(WrkEngineLocal, TwoProcessesShareAPhaseFromOneStart) {
  LocalHost second;
  std::vector<LoadgenProcess> processes;
  processes.push_back({"local#1", MakeWrkEngine(*host_, kScripts), ""});
  processes.push_back({"local#2", MakeWrkEngine(second, kScripts), ""});
  auto engine = MakeMultiLoadgenEngine(std::move(processes), MultiLoadgenOptions{});
  LoadSpec s = Small("e2e_multi", Url("/"));
  s.rate_rps = 400;
  s.duration_s = 2;
  const std::string ctl = *dir_ + "/ctl";
  auto r = engine->Run(s, *dir_ + "/remote", ctl);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->engine, "wrk");
  EXPECT_EQ(r->target_rps, 400);
  ASSERT_EQ(r->loadgens.size(), 2u);
  EXPECT_EQ(r->loadgens[0].name, "local#1");
  EXPECT_EQ(r->loadgens[1].target_rps, 200);
  EXPECT_EQ(r->loadgens[1].offset_us, 2500);  // 1 / 400 s
  EXPECT_EQ(r->scheduled, 800u);
  EXPECT_EQ(r->failed, 0u);
  EXPECT_NEAR(r->achieved_rps, 400, 400 * 0.02);
  EXPECT_GT(r->latency_us.p50, 0);
  EXPECT_GE(r->latency_us.p99, r->latency_us.p50);
  EXPECT_GE(r->loadgen_start_skew_us, 0);
  // The load's wall time runs from the common start: each wrk's -d5s also
  // covers the 2 s lead before it, which a search must not count against its
  // budget (the fresh-user trial: a 3 s step charged 6.02 s).
  EXPECT_GE(r->wall_s, 2.0);
  EXPECT_LT(r->wall_s, 5.0 - kLoadgenStartLeadS / 2);
  // Each process's checks (engine_kept_up, achieved_rate, loadgen_cpu: its
  // own CPU time over the window, per core its threads could use) and the
  // start skew. Whether they pass depends on this machine's load (a unit
  // test times nothing): the names and the CPU figures are checked here.
  std::vector<std::string> names;
  for (const auto& c : r->loadgen_checks) names.push_back(c.name);
  EXPECT_THAT(names, ElementsAre("loadgen local#1: engine_kept_up", "loadgen local#1: achieved_rate",
                                 "loadgen local#1: loadgen_cpu", "loadgen local#2: engine_kept_up",
                                 "loadgen local#2: achieved_rate", "loadgen local#2: loadgen_cpu", "start_skew",
                                 "loadgen_start"));
  for (const auto& lg : r->loadgens) {
    EXPECT_GE(lg.cpu_busy, 0) << lg.name;
    EXPECT_LE(lg.cpu_busy, 1) << lg.name;
  }
  // The files: each process's own, and what was merged.
  EXPECT_EQ(r->raw_path, ctl + "/e2e_multi.json");
  const auto summary = nlohmann::json::parse(Slurp(r->raw_path));
  EXPECT_EQ(summary.at("schema"), "fvbench.loadgens/1");
  ASSERT_EQ(summary.at("instances").size(), 2u);
  EXPECT_EQ(summary.at("instances")[1].at("raw_path"), ctl + "/e2e_multi_lg2.json");
  EXPECT_THAT(Slurp(ctl + "/e2e_multi_lg2.cmd.txt"), HasSubstr("FVBENCH_OFFSET_US=2500.000"));
  EXPECT_THAT(Slurp(ctl + "/e2e_multi_lg1.cmd.txt"), HasSubstr("FVBENCH_START_EPOCH_US="));
  EXPECT_THAT(Slurp(ctl + "/e2e_multi_lg1.stdout.txt"),
              StartsWith("# fvbench: wrk's own summary below spans its whole -d5s: the wait for the common start, "
                         "the 2 s schedule window and the tail"));
}

// Three processes at 500 RPS: each paces 166.666... RPS, which pace.lua
// writes back at full precision. Seen: it wrote 166.667 (3 decimals) and
// every phase failed on the reader's 1e-6 check ("target_rate is 166.667 but
// the phase asked for 166.66666666666666 req/s").
TEST_F(WrkEngineLocal, ThreeProcessesShareARateNotWholeEach) {
  std::vector<std::unique_ptr<LocalHost>> hosts;
  std::vector<LoadgenProcess> processes;
  for (int i = 1; i <= 3; ++i) {
    hosts.push_back(std::make_unique<LocalHost>());
    processes.push_back({"local#" + std::to_string(i), MakeWrkEngine(*hosts.back(), kScripts), ""});
  }
  MultiLoadgenOptions options;
  options.lead_s = 1;
  auto engine = MakeMultiLoadgenEngine(std::move(processes), options);
  LoadSpec s = Small("e2e_thirds", Url("/"));
  s.rate_rps = 500;
  s.duration_s = 1;
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->loadgens.size(), 3u);
  EXPECT_EQ(r->loadgens[2].target_rps, 500.0 / 3);
  const auto doc = nlohmann::json::parse(Slurp(*dir_ + "/ctl/e2e_thirds_lg3.json"));
  EXPECT_EQ(doc.at("target_rate").get<double>(), 500.0 / 3);  // the same double, not 166.667
  // Each process's window is its own 1 s from its offset: 167 slots each.
  EXPECT_NEAR(static_cast<double>(r->scheduled), 500, 3);
}

// A wrk not ready at its common start skips the slots that fell due before
// it was up and keeps to the schedule from there; a window missed entirely
// sends nothing. Seen: a process that started after its whole 6 s window
// sent the schedule in a burst, overran -d and was killed.
TEST_F(WrkEngineLocal, LateStartSkipsTheMissedSlotsNeverABurst) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  auto now_us = [] {
    return std::chrono::duration<double, std::micro>(std::chrono::system_clock::now().time_since_epoch()).count();
  };
  LoadSpec s = Small("e2e_late", Url("/"));
  s.duration_s = 2;
  s.start_epoch_us = std::floor(now_us() - 1e6);  // its start passed 1 s ago
  s.start_wait_s = 0;
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto out = ParseWrkPaceOutput(Slurp(r->raw_path), r->raw_path, s.rate_rps);
  ASSERT_TRUE(out.ok()) << out.error().message;
  // ~1 s of the 2 s window (200 slots of 400) skipped, more when wrk is slow
  // to start on a loaded machine, never all; the rest sent on time. A burst
  // would send the missed slots ~1 s late: the lag bound sits halfway.
  EXPECT_GT(out->window.missed_slots, 150u);
  EXPECT_LT(out->window.missed_slots, 400u);
  EXPECT_LT(r->max_send_lag_us, 500000) << "the missed slots were sent late, in a burst";
  EXPECT_LE(out->sent, 400u - out->window.missed_slots + 2);

  LoadSpec gone = Small("e2e_missed", Url("/"));
  gone.duration_s = 1;
  gone.start_epoch_us = std::floor(now_us() - 3e6);  // its whole window passed
  gone.start_wait_s = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto g = engine->Run(gone, *dir_ + "/remote", *dir_ + "/ctl");
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(g.ok()) << g.error().message;
  auto gout = ParseWrkPaceOutput(Slurp(g->raw_path), g->raw_path, gone.rate_rps);
  ASSERT_TRUE(gout.ok()) << gout.error().message;
  EXPECT_EQ(gout->sent, 0u);
  EXPECT_EQ(gout->window.missed_slots, 200u);
  EXPECT_LT(wall, 2 + 2) << "wrk ran past its -d2s";
}

// The pid of a running wrk whose environment has FVBENCH_OUT ending in
// `out_suffix` (0 when none).
pid_t FindWrk(const std::string& out_suffix) {
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream comm(e.path() / "comm");
    std::string name;
    if (!std::getline(comm, name) || name != "wrk") continue;
    std::ifstream env(e.path() / "environ", std::ios::binary);
    std::string var;
    while (std::getline(env, var, '\0')) {
      if (var.rfind("FVBENCH_OUT=", 0) == 0 && var.size() >= out_suffix.size() &&
          var.compare(var.size() - out_suffix.size(), out_suffix.size(), out_suffix) == 0) {
        return static_cast<pid_t>(std::stol(pid));
      }
    }
  }
  return 0;
}

// The children of `parent` (nginx's worker under its master).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string pid = e.path().filename();
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == parent) out.push_back(static_cast<pid_t>(std::stol(pid)));
  }
  return out;
}

// Stops `pids()`'s processes for `stall` once `delay` has passed after wrk
// (FVBENCH_OUT ending in `out_suffix`) started.
std::thread StallAfterWrkStarts(std::string out_suffix, std::function<std::vector<pid_t>()> pids,
                                std::chrono::milliseconds delay, std::chrono::milliseconds stall) {
  return std::thread([=] {
    pid_t wrk = 0;
    for (int i = 0; i < 500 && wrk == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(4));
      wrk = FindWrk(out_suffix);
    }
    if (wrk == 0) return;
    std::this_thread::sleep_for(delay);
    const std::vector<pid_t> stopped = pids();
    for (pid_t p : stopped) ::kill(p, SIGSTOP);
    std::this_thread::sleep_for(stall);
    for (pid_t p : stopped) ::kill(p, SIGCONT);
  });
}

// One process that falls behind (its wrk stopped for 300 ms mid-phase, as a
// descheduled or overloaded load generator would be) invalidates the phase,
// and its own check names it; the other's checks pass.
TEST_F(WrkEngineLocal, OneProcessBehindIsNamed) {
  LocalHost second;
  std::vector<LoadgenProcess> processes;
  processes.push_back({"local#1", MakeWrkEngine(*host_, kScripts), ""});
  processes.push_back({"local#2", MakeWrkEngine(second, kScripts), ""});
  MultiLoadgenOptions options;
  options.lead_s = 0.5;
  auto engine = MakeMultiLoadgenEngine(std::move(processes), options);
  LoadSpec s = Small("e2e_stall", Url("/"));
  s.rate_rps = 400;
  s.duration_s = 2;
  std::thread staller = StallAfterWrkStarts(  // 1.2 s: into the window (lead 0.5 s)
      "e2e_stall_lg2.json", [] { return std::vector<pid_t>{FindWrk("e2e_stall_lg2.json")}; },
      std::chrono::milliseconds(1200), std::chrono::milliseconds(300));
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  staller.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->kept_up);
  std::vector<std::string> failed, passed;
  for (const auto& c : r->loadgen_checks) (c.passed ? passed : failed).push_back(c.name);
  EXPECT_THAT(failed, ::testing::Contains("loadgen local#2: engine_kept_up"));
  // (Whether local#1 kept up depends on this machine's load: not asserted.)
  EXPECT_THAT(passed, Not(::testing::Contains("loadgen local#2: engine_kept_up")));
}

// Why sends were late, for real (pace.lua header "Why a send was late"): the
// SUT stopped answering for 300 ms (its nginx worker SIGSTOPped) holds all
// 20 connections of a 400 RPS phase, and its late sends found every
// connection waiting for it; the engine stopped for 300 ms (wrk SIGSTOPped)
// had connections parked on timers that fired late. Only the first is the
// SUT's; EngineLimitedReason reads the difference.
TEST_F(WrkEngineLocal, LateSendsSayWhetherThePoolWasExhausted) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  // One 2 s phase at 400 RPS whose `stopped()` processes stop for 300 ms, 0.8 s in.
  auto stalled = [&](const std::string& phase, std::function<std::vector<pid_t>()> stopped) {
    LoadSpec s = Small(phase, Url("/"));
    s.rate_rps = 400;
    s.duration_s = 2;
    std::thread staller = StallAfterWrkStarts(phase + ".json", std::move(stopped), std::chrono::milliseconds(800),
                                              std::chrono::milliseconds(300));
    auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
    staller.join();
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r) {
      EXPECT_FALSE(r->kept_up) << phase;
      EXPECT_TRUE(r->late_pool_exhausted_share.has_value()) << phase;
    }
    return r;
  };
  const pid_t master = nginx_->pid;
  auto r_sut = stalled("e2e_sut_stall", [master] { return ChildrenOf(master); });
  auto r_eng = stalled("e2e_engine_stall", [] { return std::vector<pid_t>{FindWrk("e2e_engine_stall.json")}; });
  ASSERT_TRUE(r_sut.ok() && r_sut->late_pool_exhausted_share && r_eng.ok() && r_eng->late_pool_exhausted_share);
  // Measured here: 1.0 and 0.0 (12-14 % of sends late). Asserted: the side of
  // the judge's bound each falls on (a busy machine may blur them a little).
  EXPECT_GE(*r_sut->late_pool_exhausted_share, kLateSendsPoolExhaustedShare) << r_sut->late_send_share;
  EXPECT_LT(*r_eng->late_pool_exhausted_share, kLateSendsPoolExhaustedShare) << r_eng->late_send_share;
  for (const auto& [name, r] : {std::pair{"sut_stall", &*r_sut}, std::pair{"engine_stall", &*r_eng}}) {
    RecordProperty(name, fmt::format("{:.4f} of sends late, {:.4f} of them pool-exhausted", r->late_send_share,
                                     *r->late_pool_exhausted_share));
  }
}

// All processes of a phase run the same engine: a mix is refused before any load.
TEST(MultiLoadgen, RefusesMixedEngines) {
  LocalHost host;
  std::vector<LoadgenProcess> processes;
  processes.push_back({"a#1", MakeWrkEngine(host, "/nonexistent"), ""});
  processes.push_back({"a#2", MakeK6Engine(host, "/nonexistent"), ""});
  auto engine = MakeMultiLoadgenEngine(std::move(processes), MultiLoadgenOptions{});
  auto r = engine->Run(Spec(), "/tmp/x", "/tmp/y");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("a#1 runs wrk, a#2 runs k6: all must run the same engine"));
}

TEST_F(WrkEngineLocal, CountedRateLimitResponses) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_limited", Url("/limited"));
  s.count_ratelimit = true;
  s.kind = RequestKind::kDecision;
  s.jwt = "a.b.c";
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectPaced(*r, s);
  EXPECT_EQ(r->non_2xx, r->requests);
  EXPECT_EQ(r->error_rate, 1.0);
  ASSERT_TRUE(r->ratelimit_evidence.has_value());
  EXPECT_EQ(*r->ratelimit_evidence, r->requests);
  EXPECT_THAT(Slurp(*dir_ + "/ctl/e2e_limited.cmd.txt"), Not(HasSubstr("a.b.c")));
}

TEST_F(WrkEngineLocal, PostPhaseAndWarmup) {
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_post", Url("/"));
  s.kind = RequestKind::kPostJson;
  s.body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
  auto w = engine->Warmup(s, *dir_ + "/remote");
  ASSERT_TRUE(w.ok()) << w.error().message;
  // The warmup's body is under the phase's folder (BENCH_DIR), not beside the scripts.
  EXPECT_TRUE(std::filesystem::exists(*dir_ + "/remote/e2e_post.body.json"));
  EXPECT_FALSE(std::filesystem::exists(kScripts + "/e2e_post.warmup.body.json"));
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectPaced(*r, s);
  EXPECT_EQ(r->non_2xx, 0u);
  EXPECT_EQ(Slurp(*dir_ + "/remote/e2e_post.body.json"), s.body);
}

// A link where pace.lua writes its result (someone put it
// there between fvbench's `rm -f` and the end of the phase). pace.lua writes
// a new file and renames it over the name: the link's target is untouched,
// and no temporary file is left.
TEST_F(WrkEngineLocal, PaceLuaNeverWritesThroughALinkAtItsOutput) {
  const std::string dir = *dir_ + "/pace-link";
  std::filesystem::create_directories(dir);
  const std::string victim = dir + "/victim", out = dir + "/latency_raw_nginx.json";
  std::ofstream(victim) << "precious root-only data\n";
  ASSERT_EQ(::symlink(victim.c_str(), out.c_str()), 0);
  auto cmd = PlanWrkCommand(Small("pace_link", Url("/")), kScripts, out, "");
  ASSERT_TRUE(cmd.ok()) << cmd.error().message;
  auto r = host_->Run(*cmd);
  ASSERT_TRUE(r.ok() && r->success()) << (r.ok() ? r->err : r.error().message);
  EXPECT_EQ(Slurp(victim), "precious root-only data\n");
  EXPECT_TRUE(std::filesystem::is_regular_file(std::filesystem::symlink_status(out)));
  EXPECT_TRUE(ParseWrkOutput(Slurp(out), out, 200).ok());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator{}), 2);
}

// What a loadgen does to its result, through the engine: a `wrk` on PATH
// that runs the real one, then does to FVBENCH_OUT what a compromised loadgen
// did: chmod 4777 (the copy arrives 0644), 4 KiB of NUL bytes after the
// document (refused naming the file and the host), 1 GiB of them (refused
// from its size, at once, no copy kept).
TEST_F(WrkEngineLocal, WhatALoadgenDoesToItsResultIsRefusedOrMadeSafe) {
  const std::string bin = *dir_ + "/evilbin", mode_file = *dir_ + "/evil.mode";
  std::filesystem::create_directories(bin);
  std::ofstream(bin + "/wrk") << "#!/bin/sh\n/usr/bin/wrk \"$@\"; rc=$?\n"
                              << "[ -f \"$FVBENCH_OUT\" ] || exit $rc\n"
                              << "case $(cat " << mode_file << ") in\n"
                              << "  setuid) chmod 4777 \"$FVBENCH_OUT\" ;;\n"
                              << "  nul) head -c 4096 /dev/zero >> \"$FVBENCH_OUT\" ;;\n"
                              << "  huge) truncate -s 1G \"$FVBENCH_OUT\" ;;\n"
                              << "esac\nexit $rc\n";
  ASSERT_EQ(::chmod((bin + "/wrk").c_str(), 0755), 0);
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ASSERT_EQ(::setenv("PATH", (bin + ":" + path).c_str(), 1), 0);
  struct RestorePath {
    std::string path;
    ~RestorePath() { ::setenv("PATH", path.c_str(), 1); }
  } restore{path};
  auto engine = MakeWrkEngine(*host_, kScripts);
  const std::string remote = *dir_ + "/remote", ctl = *dir_ + "/ctl-evil";

  std::ofstream(mode_file) << "setuid\n";
  auto setuid = engine->Run(Small("evil_setuid", Url("/")), remote, ctl);
  ASSERT_TRUE(setuid.ok()) << setuid.error().message;
  struct stat st;
  ASSERT_EQ(::stat((remote + "/evil_setuid.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 04777u);  // the wrapper did act
  ASSERT_EQ(::lstat((ctl + "/evil_setuid.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);

  std::ofstream(mode_file, std::ios::trunc) << "nul\n";
  auto nul = engine->Run(Small("evil_nul", Url("/")), remote, ctl);
  ASSERT_FALSE(nul.ok());
  EXPECT_THAT(nul.error().message, HasSubstr("wrk phase evil_nul on local: " + ctl + "/evil_nul.json (fetched from "
                                             "local:" + remote + "/evil_nul.json)"));
  EXPECT_THAT(nul.error().message, HasSubstr("a NUL byte at byte "));

  std::ofstream(mode_file, std::ios::trunc) << "huge\n";
  const auto t0 = std::chrono::steady_clock::now();
  auto huge = engine->Run(Small("evil_huge", Url("/")), remote, ctl);
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.error().message, HasSubstr(remote + "/evil_huge.json (wrk result JSON) is over its cap of 2097152 "
                                              "bytes: it holds 1073741824 bytes; refused, not kept"));
  // The phase's own second plus wrk's start and stop; no 1 GiB copied.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(6));
  EXPECT_FALSE(std::filesystem::exists(ctl + "/evil_huge.json"));
}

TEST_F(WrkEngineLocal, RefusedConnectionsFailThePhase) {
  int closed = 0;
  for (int p = 18299; p >= 18250 && closed == 0; --p) {
    if (p != port_ && PortFree(p)) closed = p;
  }
  ASSERT_NE(closed, 0);
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_refused", "http://127.0.0.1:" + std::to_string(closed) + "/");
  // wrk test-connects while resolving the URL and exits 1 before any load.
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("e2e_refused"));
  EXPECT_THAT(r.error().message, HasSubstr("exit status 1"));
  EXPECT_THAT(r.error().message, HasSubstr("unable to connect"));
}

// Every connection hangs (a listener that never accepts nor answers, like a
// dead link): after the first sends, no connection asks delay() for a slot
// again, yet the schedule offered rate x -d requests. pace.lua counted the
// slots only up to the last delay() (the remote fault test: "610 of 613
// scheduled" for ~1600 in 8 s); each thread's window now runs for -d.
TEST_F(WrkEngineLocal, HungConnectionsStillCountTheWholeSchedule) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 64), 0);  // the kernel completes the handshakes; nobody reads
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_hung", "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/");
  s.duration_s = 2;
  s.connections = 4;
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ::close(fd);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->requests, 0u);
  // 200 RPS x 2 s; each thread's window starts when its first connection is
  // up, a few ms after wrk's start.
  EXPECT_GE(r->scheduled, 390u) << Slurp(r->raw_path);
  EXPECT_LE(r->scheduled, 402u) << Slurp(r->raw_path);
  EXPECT_EQ(r->succeeded, 0u);
  EXPECT_EQ(r->error_rate, 1.0);
}

// The engine's shell may open fewer files than the phase has connections:
// the phase is refused before any load (nothing reaches nginx, no output is
// written), naming the host and both numbers. The soft limit of this test
// process (inherited by the shell LocalHost starts) is lowered for the test.
TEST_F(WrkEngineLocal, TooFewOpenFilesRefusedBeforeLoad) {
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_fds", Url("/"));
  s.connections = 100;  // + 2 threads + 16 of wrk's own
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  auto w = engine->Warmup(s, *dir_ + "/remote");
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &saved), 0);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("refused before load"));
  EXPECT_THAT(r.error().message, HasSubstr("load generator " + host_->name()));
  EXPECT_THAT(r.error().message, HasSubstr("needs 118 open files (100 connections"));
  EXPECT_THAT(r.error().message, HasSubstr("allows 64 (ulimit -Sn)"));
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/ctl/e2e_fds.stdout.txt"));
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.error().message, HasSubstr("allows 64"));
  // Within the limit the phase runs: a fresh engine probes again (each
  // engine caches its probe) and sees the restored limit.
  auto ok = MakeWrkEngine(*host_, kScripts)->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
}

TEST_F(WrkEngineLocal, MissingScriptFailsBeforeAnyLoad) {
  auto engine = MakeWrkEngine(*host_, *dir_ + "/no-such-dir");
  LoadSpec s = Small("e2e_noscript", Url("/"));
  auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("pace.lua"));
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/ctl/e2e_noscript.stdout.txt"));
  auto w = engine->Warmup(s, *dir_ + "/remote");
  ASSERT_FALSE(w.ok());
  EXPECT_THAT(w.error().message, HasSubstr("pace.lua"));
}

TEST_F(WrkEngineLocal, ScriptErrorIsAnEngineFailure) {
  // pace.lua raises in init() (here: the body file does not exist). wrk does
  // not protect that call: it prints "PANIC: unprotected error ..." and exits
  // 1 without a JSON file, which the engine reports as a failed phase.
  auto engine = MakeWrkEngine(*host_, kScripts);
  LoadSpec s = Small("e2e_badbody", Url("/"));
  auto cmd = PlanWrkCommand(s, kScripts, *dir_ + "/remote/e2e_badbody.json", "");
  ASSERT_TRUE(cmd.ok());
  cmd->env["FVBENCH_KIND"] = "post";
  cmd->env["FVBENCH_BODY_FILE"] = *dir_ + "/missing.json";
  auto run = host_->Run(*cmd);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_FALSE(run->success());
  EXPECT_THAT(run->err, HasSubstr("FVBENCH_BODY_FILE"));
  EXPECT_FALSE(std::filesystem::exists(*dir_ + "/remote/e2e_badbody.json"));
}

}  // namespace
}  // namespace fvbench::wrk_engine_test
