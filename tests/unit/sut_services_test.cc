// SutServices: pure helpers, then end to end with the real LocalHost on
// ports 18400-18402: baseline + backend nginx always; fairvisor edge when
// FAIRVISOR_EDGE_SRC names an edge checkout (skipped otherwise).
#include "support/sut/sut_services.h"
#include "support/sut/lua_profile.h"

#include "support/judge/rule_evidence.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "support/engine/jwt.h"
#include "support/host/local_host.h"
#include "support/run/progress.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::sut_services_test {
namespace {

constexpr int kNginxPort = 18400;
constexpr int kBackendPort = 18401;
constexpr int kFvPort = 18402;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

std::string FixturesDir() {
  const char* f = std::getenv("FVBENCH_FIXTURES");
  return f && *f ? f : FVBENCH_SOURCE_DIR "/fixtures";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- pure helpers ----------------------------------------------------------

TEST(ParseHttpHead, StatusAndHeadersOfLastResponse) {
  std::string out =
      "HTTP/1.1 100 Continue\r\n\r\n"
      "HTTP/1.1 200 OK\r\nServer: nginx\r\nRateLimit: \"bench-simple\";r=9;t=1\r\n"
      "RateLimit-Limit: 10\r\n\r\n{\"body\":1}\n";
  auto h = detail::ParseHttpHead(out);
  EXPECT_EQ(h.status, 200);
  ASSERT_EQ(h.headers.size(), 3u);
  EXPECT_EQ(h.headers[1].first, "RateLimit");
  EXPECT_EQ(h.headers[1].second, "\"bench-simple\";r=9;t=1");
  EXPECT_EQ(detail::ParseHttpHead("curl: (7) Failed to connect").status, 0);
  EXPECT_EQ(detail::ParseHttpHead("HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\n").status, 429);
}

TEST(PolicyFailureLines, FindsEdgesLoadErrorsOnly) {
  std::string log =
      "2026/01/01 [warn] 1#1: could not build optimal map_hash\n"
      "2026/01/01 [error] 2#2: load_from_string validation_error=policy=x rule=loop "
      "invalid_algorithm_config: unsupported algorithm\n"
      "2026/01/01 [error] 2#2: fairvisor module=init_worker standalone_reload_failed err=bundle_expired\n"
      "2026/01/01 [error] 2#2: fairvisor module=init_worker standalone_read_failed file=/p.json\n"
      "2026/01/01 [emerg] 3#3: bind() to 127.0.0.1:1 failed\n"
      "2026/01/01 [notice] 2#2: standalone_policy_reloaded\n";
  auto lines = detail::PolicyFailureLines(log);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(Has(lines[0], "unsupported algorithm"));
  EXPECT_TRUE(Has(lines[3], "[emerg]"));
  EXPECT_TRUE(detail::PolicyFailureLines("[warn] evaluate global_shadow_state active=false\n").empty());
}

TEST(ProbeFor, MatchesLoadShapes) {
  auto d = ProbeFor(RequestKind::kDecision, "/v1/decision", "J");
  EXPECT_EQ(d.method, "POST");
  EXPECT_EQ(d.body, "{}");
  auto has_header = [](const ProbeRequest& p, const std::string& k, const std::string& v) {
    for (const auto& h : p.headers) {
      if (h.first == k && h.second == v) return true;
    }
    return false;
  };
  EXPECT_TRUE(has_header(d, "X-Original-URI", "/v1/chat/completions"));
  EXPECT_TRUE(has_header(d, "X-Original-Method", "POST"));
  EXPECT_TRUE(has_header(d, "Authorization", "Bearer J"));
  auto g = ProbeFor(RequestKind::kGet, "/", "");
  EXPECT_EQ(g.method, "GET");
  EXPECT_TRUE(g.headers.empty());
  auto p = ProbeFor(RequestKind::kPostJson, "/v1/chat/completions", "J", "{\"a\":1}");
  EXPECT_EQ(p.body, "{\"a\":1}");
  EXPECT_TRUE(has_header(p, "Content-Type", "application/json"));
}

// The probe's headers (the bench JWT among them) reach curl in a 0600 file
// that is removed after the request, never on curl's command line; messages
// name the headers with the token redacted. Before, they were `-H
// 'Authorization: Bearer eyJ...'` in curl's argv, readable in ps.
TEST(PolicyProbe, HeadersTravelInA0600FileRemovedAfterUse) {
  testing_fakes::FakeHost host("sut-host");
  host.On("curl ", testing_fakes::FakeHost::Exit(0, "HTTP/1.1 200 OK\r\nRateLimit: \"bench-simple\";r=9;t=1\r\n\r\n"));
  Config cfg;
  cfg.bench_dir = "/b";
  SutServices sut(host, cfg, ProvisionInfo{}, cfg.oresty_cpuset);
  const std::string jwt = BenchJwt();
  auto ev = sut.CheckPolicyLive("bench-simple", ProbeFor(RequestKind::kDecision, "/v1/decision", jwt));
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->status, 200);
  const std::string file = "/b/run/fv/probe.headers";
  for (const Command& c : host.Calls()) {
    for (const std::string& a : c.argv) {
      EXPECT_FALSE(Has(a, jwt)) << a;
      EXPECT_FALSE(Has(a, "Bearer")) << a;
    }
    for (const auto& [k, v] : c.env) EXPECT_FALSE(Has(v, jwt)) << k;
  }
  const int wrote = host.EventIndex("write " + file);
  const int curl = host.EventIndex("run curl -sS -i -m 5 -X POST -H @" + file + " --data-binary '{}' http://");
  const int removed = host.EventIndex("run rm -f -- " + file);
  ASSERT_GE(wrote, 0);
  EXPECT_GT(curl, wrote);
  EXPECT_GT(removed, curl);
  EXPECT_EQ(host.Modes().at(file), 0600);
  EXPECT_EQ(host.Files().at(file),
            "Content-Type: application/json\nX-Original-Method: POST\nX-Original-URI: /v1/chat/completions\n"
            "X-Forwarded-For: 203.0.113.1\nAuthorization: Bearer " + jwt + "\n");

  // A probe without headers writes no file.
  testing_fakes::FakeHost bare("sut-host");
  bare.On("curl ", testing_fakes::FakeHost::Exit(0, "HTTP/1.1 200 OK\r\nRateLimit: \"p\";r=1;t=1\r\n\r\n"));
  SutServices plain(bare, cfg, ProvisionInfo{}, cfg.oresty_cpuset);
  ASSERT_TRUE(plain.CheckPolicyLive("p", ProbeFor(RequestKind::kGet, "/", "")).ok());
  EXPECT_TRUE(bare.Modes().empty());
  EXPECT_FALSE(bare.Ran("-H"));
}

// A failed probe names its headers with the token redacted; a header file
// that cannot be removed is an error naming it.
TEST(PolicyProbe, MessagesNameTheHeadersWithoutTheTokenAndALeftoverFileFails) {
  Config cfg;
  cfg.bench_dir = "/b";
  const std::string jwt = BenchJwt();
  testing_fakes::FakeHost host("sut-host");
  host.On("curl ", testing_fakes::FakeHost::Exit(0, "HTTP/1.1 403 Forbidden\r\n\r\n"));
  SutServices sut(host, cfg, ProvisionInfo{}, cfg.oresty_cpuset);
  auto ev = sut.CheckPolicyLive("bench-simple", ProbeFor(RequestKind::kGet, "/", jwt));
  ASSERT_FALSE(ev.ok());
  EXPECT_TRUE(Has(ev.error().message, "(headers: Authorization: <redacted>)")) << ev.error().message;
  EXPECT_FALSE(Has(ev.error().message, jwt)) << ev.error().message;

  testing_fakes::FakeHost stuck("sut-host");
  stuck.On("curl ", testing_fakes::FakeHost::Exit(0, "HTTP/1.1 200 OK\r\nRateLimit: \"p\";r=1;t=1\r\n\r\n"));
  stuck.On("rm -f -- ", testing_fakes::FakeHost::Exit(1, "", "rm: cannot remove: Operation not permitted"));
  SutServices held(stuck, cfg, ProvisionInfo{}, cfg.oresty_cpuset);
  auto left = held.CheckPolicyLive("p", ProbeFor(RequestKind::kGet, "/", jwt));
  ASSERT_FALSE(left.ok());
  EXPECT_TRUE(Has(left.error().message, "could not remove /b/run/fv/probe.headers")) << left.error().message;
}

// FairvisorOptions: the limits log instead of access.log and a worker count
// for one start; without options the config is as before (FV_WORKER_PROCESSES).
TEST(StartFairvisor, OptionsPlaceTheLimitsLogAndTheWorkerCountOfOneStart) {
  Config cfg;
  cfg.bench_dir = "/b";
  cfg.dry_run = true;  // DRY_RUN's template: no edge checkout read
  cfg.fv_worker_processes = "4";
  ProvisionInfo info;
  info.edge_dir = "/e";
  testing_fakes::FakeHost host("sut-host");
  SutServices sut(host, cfg, info, "");
  const std::string conf = "/b/run/fv/conf/nginx.conf";
  ASSERT_TRUE(sut.StartFairvisor("reverse_proxy", "/b/p.json").ok());
  const std::string plain = host.Files().at(conf);
  EXPECT_TRUE(Has(plain, "worker_processes 4;\n")) << plain;
  EXPECT_TRUE(Has(plain, "  access_log /b/run/fv/logs/access.log;\n")) << plain;
  EXPECT_FALSE(Has(plain, "limits")) << plain;
  EXPECT_EQ(sut.fv_worker_processes(), "4");
  ASSERT_TRUE(sut.StopAll().ok());

  FairvisorOptions o;
  o.limits_log = true;
  o.worker_processes = 1;
  ASSERT_TRUE(sut.StartFairvisor("reverse_proxy", "/b/p.json", o).ok());
  const std::string limits = host.Files().at(conf);
  EXPECT_TRUE(Has(limits, "worker_processes 1;\n")) << limits;
  EXPECT_TRUE(Has(limits, "  log_format fvbench_limits '$msec $status $http_x_bench_key';\n"
                          "  access_log /b/run/fv/logs/limits.log fvbench_limits;\n"))
      << limits;
  EXPECT_FALSE(Has(limits, "access.log")) << limits;
  EXPECT_EQ(sut.fv_worker_processes(), "1");
  EXPECT_EQ(sut.limits_log_path(), "/b/run/fv/logs/limits.log");
  // Each start begins both logs afresh.
  EXPECT_EQ(host.Count("rm -f -- /b/run/fv/logs/access.log /b/run/fv/logs/limits.log"), 2u);
  ASSERT_TRUE(sut.StopAll().ok());

  o.worker_processes = -1;
  auto bad = sut.StartFairvisor("reverse_proxy", "/b/p.json", o);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(Has(bad.error().message, "worker_processes -1")) << bad.error().message;
}

// ---- end to end with LocalHost --------------------------------------------

class SutE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-sut-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    chmod(dir_.c_str(), 0755);  // nginx workers (nobody) read policies below it
    cfg_.bench_dir = dir_ + "/bench";
    cfg_.fv_dir = dir_ + "/fv";
    cfg_.nginx_port = kNginxPort;
    cfg_.backend_port = kBackendPort;
    cfg_.fv_port = kFvPort;
    cfg_.health_timeout_s = 15;
    cfg_.fv_worker_processes = "1";
    const char* edge = std::getenv("FAIRVISOR_EDGE_SRC");
    if (edge && *edge) {
      cfg_.edge_src = edge;
      have_edge_ = true;
    } else {
      // A stand-in checkout so provisioning succeeds for the plain nginx tests.
      cfg_.edge_src = dir_ + "/edge-stub";
      ASSERT_TRUE(host_.WriteFile(cfg_.edge_src + "/docker/nginx.conf.template", "# stub\n").ok());
      ASSERT_TRUE(host_.WriteFile(cfg_.edge_src + "/src/nginx/init_worker.lua", "-- stub\n").ok());
    }
    auto info = ProvisionSut(host_, cfg_);
    ASSERT_TRUE(info.ok()) << info.error().message;
    info_ = *info;
  }
  void TearDown() override {
    if (!dir_.empty() && !HasFailure()) {
      Command rm;
      rm.argv = {"rm", "-rf", dir_};
      (void)host_.Run(rm);
    } else if (!dir_.empty()) {
      std::cerr << "kept " << dir_ << " for inspection\n";
    }
  }

  std::string Curl(int port, const std::string& path) {
    Command c;
    c.argv = {"curl", "-sS", "-m", "2", "http://127.0.0.1:" + std::to_string(port) + path};
    auto r = host_.Run(c);
    return r.ok() ? r->out : "";
  }

  static bool PidGone(int pid) { return kill(pid, 0) == -1 && errno == ESRCH; }

  LocalHost host_;
  Config cfg_;
  ProvisionInfo info_;
  std::string dir_;
  bool have_edge_ = false;
};

TEST_F(SutE2E, ProvisionFindsRuntime) {
  EXPECT_FALSE(info_.runtime.empty());
  EXPECT_FALSE(info_.nginx_bin.empty());
  EXPECT_TRUE(Has(info_.runtime_version, "nginx")) << info_.runtime_version;
  EXPECT_TRUE(info_.edge_in_place);
  EXPECT_EQ(info_.edge_dir, cfg_.edge_src);
  EXPECT_GT(info_.cores, 0);
  EXPECT_TRUE(info_.installed.empty()) << "provisioning installed something on an already provisioned host";
  std::cout << "runtime=" << info_.runtime << " (" << info_.runtime_version << ") lua=" << info_.lua_module_version
            << " edge=" << info_.edge_dir << "@" << info_.edge_commit << (info_.edge_dirty ? " dirty" : "")
            << " cores=" << info_.cores << " taskset=" << info_.have_taskset << " took " << info_.seconds
            << " s\n";

  Config lg = cfg_;
  lg.engine = Engine::kWrk;
  auto wrk = ProvisionLoadgen(host_, lg);
  ASSERT_TRUE(wrk.ok()) << wrk.error().message;
  EXPECT_EQ(wrk->engine, "wrk");
  EXPECT_TRUE(Has(wrk->engine_version, "wrk ")) << wrk->engine_version;
  EXPECT_TRUE(wrk->installed.empty());
  std::cout << "loadgen: " << wrk->engine_version << " took " << wrk->seconds << " s\n";
}

TEST_F(SutE2E, BaselineAndBackendStartServeAndStop) {
  std::vector<int> pids;
  {
    SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
    ASSERT_TRUE(sut.StartBaseline().ok());
    auto b = sut.StartBackend();
    ASSERT_TRUE(b.ok()) << b.error().message;
    EXPECT_EQ(Curl(kNginxPort, "/livez"), "ok\n");
    EXPECT_EQ(Curl(kNginxPort, "/anything"), "ok\n");
    EXPECT_EQ(Curl(kBackendPort, "/livez"), "ok\n");
    std::string body = Curl(kBackendPort, "/v1/chat/completions");
    EXPECT_TRUE(Has(body, "\"object\":\"chat.completion\"")) << body;
    EXPECT_TRUE(Has(body, "\"total_tokens\":11")) << body;
    ASSERT_EQ(sut.handles().size(), 2u);
    for (const auto& h : sut.handles()) {
      pids.push_back(h.pid);
      EXPECT_TRUE(host_.IsAlive(h));
    }

    // A second suite instance must not take (or kill) a port in use.
    SutServices other(host_, cfg_, info_, cfg_.oresty_cpuset);
    auto again = other.StartBaseline();
    ASSERT_FALSE(again.ok());
    EXPECT_TRUE(Has(again.error().message, "port 18400 is already in use")) << again.error().message;
    EXPECT_TRUE(Has(again.error().message, "18400")) << again.error().message;
    EXPECT_TRUE(other.handles().empty());
    EXPECT_EQ(Curl(kNginxPort, "/livez"), "ok\n") << "the running baseline must survive";

    ASSERT_TRUE(sut.StopAll().ok());
    EXPECT_TRUE(sut.handles().empty());
  }
  for (int pid : pids) EXPECT_TRUE(PidGone(pid)) << "pid " << pid << " still exists";
  EXPECT_EQ(Curl(kNginxPort, "/livez"), "");
  // Logs stay.
  struct stat st;
  EXPECT_EQ(stat((cfg_.bench_dir + "/run/baseline/logs/error.log").c_str(), &st), 0);
}

// 08_nginx_workers_vs_cpuset.env (fixtures/odd_inputs): on 2 cores, nginx pinned to cpu 0 started 2 workers
// (`worker_processes auto` counts online CPUs). Every nginx the suite starts
// on the SUT gets one worker per CPU it may use: the CPUs of ORESTY_CPUSET
// when pinned, else the host's usable CPUs. Counted live: the master's
// "nginx: worker process" children.
int WorkerCount(int master_pid) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::ifstream stat(e.path() / "stat");
    std::string pid, comm, state;
    int ppid = 0;
    if (!(stat >> pid >> comm >> state >> ppid) || ppid != master_pid) continue;
    std::ifstream cmd(e.path() / "cmdline");
    std::string line;
    std::getline(cmd, line, '\0');
    if (line.find("worker process") != std::string::npos) ++n;
  }
  return n;
}

TEST_F(SutE2E, Case08OneNginxWorkerPerCpuOfItsCpuset) {
  if (!info_.have_taskset) GTEST_SKIP() << "taskset is not installed";
  ASSERT_FALSE(info_.cpus.empty());
  for (const std::string& cpuset : {std::to_string(info_.cpus.front()), std::string()}) {
    cfg_.oresty_cpuset = cpuset;
    const int expected = cpuset.empty() ? static_cast<int>(info_.cpus.size()) : 1;
    SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
    ASSERT_TRUE(sut.StartBaseline().ok());
    auto b = sut.StartBackend();
    ASSERT_TRUE(b.ok()) << b.error().message;
    for (const auto& h : sut.handles()) {
      int workers = 0;
      for (int i = 0; i < 50 && (workers = WorkerCount(h.pid)) < expected; ++i) usleep(100000);
      usleep(200000);
      workers = WorkerCount(h.pid);
      EXPECT_EQ(workers, expected) << h.name << " with ORESTY_CPUSET='" << cpuset << "' (usable CPUs "
                                   << info_.cores << ")";
      std::cout << h.name << ": " << workers << " worker(s) on cpuset '" << (cpuset.empty() ? "all usable" : cpuset)
                << "'\n";
    }
    ASSERT_TRUE(sut.StopAll().ok());
  }
}

TEST_F(SutE2E, StatusListenerCountsRequestsOffTheMeasuredPort) {
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  // A socket file left by a crashed nginx must not block the start.
  const std::string sock = cfg_.bench_dir + "/run/baseline/logs/status.sock";
  ASSERT_TRUE(host_.WriteFile(sock, "").ok());
  auto started = sut.StartBaseline();
  ASSERT_TRUE(started.ok()) << started.error().message;
  ASSERT_EQ(sut.status_socket("baseline"), sock) << sut.status_unavailable();
  EXPECT_EQ(sut.status_socket("fv"), "");
  auto read = [&]() -> uint64_t {
    Command c;
    c.argv = {"curl", "-sS", "-m", "2", "--unix-socket", sock, "http://localhost/fvbench_status"};
    auto r = host_.Run(c);
    EXPECT_TRUE(r.ok() && r->success()) << (r.ok() ? r->err : r.error().message);
    auto st = ParseStubStatus(r.ok() ? r->out : "");
    EXPECT_TRUE(st.ok()) << (st.ok() ? "" : st.error().message);
    return st.ok() ? st->requests : 0;
  };
  const uint64_t before = read();
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Curl(kNginxPort, "/"), "ok\n");
  // The measured port has no status page: its every path answers "ok".
  EXPECT_EQ(Curl(kNginxPort, "/fvbench_status"), "ok\n");
  EXPECT_EQ(read(), before + 4 + 1);  // 4 GETs + this read
  ASSERT_TRUE(sut.StopAll().ok());
  EXPECT_EQ(sut.status_socket("baseline"), "");
}

TEST_F(SutE2E, LeftoverOfADeadRunIsStoppedOthersAreNot) {
  SutServices earlier(host_, cfg_, info_, cfg_.oresty_cpuset);
  ASSERT_TRUE(earlier.StartBaseline().ok());
  const int leftover = earlier.handles().at(0).pid;
  // Pretend the run that started it was killed: its owner is a dead process.
  pid_t dead = fork();
  if (dead == 0) _exit(0);
  waitpid(dead, nullptr, 0);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  ASSERT_TRUE(host_.WriteFile(cfg_.bench_dir + "/run/baseline/logs/owner",
                               std::string(host) + " " + std::to_string(dead) + "\n").ok());

  SutServices next(host_, cfg_, info_, cfg_.oresty_cpuset);
  auto started = next.StartBaseline();
  ASSERT_TRUE(started.ok()) << started.error().message;
  ASSERT_EQ(next.leftovers_stopped().size(), 1u);
  EXPECT_EQ(next.leftovers_stopped()[0], "baseline pid " + std::to_string(leftover));
  EXPECT_TRUE(PidGone(leftover) || !host_.IsAlive(earlier.handles().at(0)));
  EXPECT_EQ(Curl(kNginxPort, "/livez"), "ok\n");
  ASSERT_TRUE(next.StopAll().ok());
  EXPECT_TRUE(earlier.StopAll().ok()) << "stopping an already stopped service is success";

  // A pid file naming a process that is not the suite's nginx is left alone.
  Command sleeper;
  sleeper.argv = {"sleep", "30"};
  auto other = host_.StartService("unrelated", sleeper, dir_ + "/s.out", dir_ + "/s.err");
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE(host_.WriteFile(cfg_.bench_dir + "/run/baseline/logs/nginx.pid",
                               std::to_string(other->pid) + "\n").ok());
  ASSERT_TRUE(host_.WriteFile(cfg_.bench_dir + "/run/baseline/logs/owner",
                               std::string(host) + " " + std::to_string(dead) + "\n").ok());
  SutServices third(host_, cfg_, info_, cfg_.oresty_cpuset);
  ASSERT_TRUE(third.StartBaseline().ok());
  EXPECT_TRUE(third.leftovers_stopped().empty());
  EXPECT_TRUE(host_.IsAlive(*other)) << "the suite stopped a process it did not start";
  ASSERT_TRUE(third.StopAll().ok());
  ASSERT_TRUE(host_.StopService(*other).ok());
}

// ---- fairvisor edge ------------------------------------------------------

struct PolicyCase {
  const char* file;
  const char* id;
  const char* mode;
};

// gtest prints a parameter with this (ctest's test list, skip lines), not as raw bytes.
void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.file << " " << c.mode; }

std::string CaseName(const ::testing::TestParamInfo<PolicyCase>& p) {
  std::string f = p.param.file;
  f = f.substr(0, f.find('.'));
  return f + "_" + (std::string(p.param.mode) == "reverse_proxy" ? "ReverseProxy" : "DecisionService");
}

class FairvisorPolicy : public SutE2E, public ::testing::WithParamInterface<PolicyCase> {};

// The probe the scenarios send for this policy and mode.
ProbeRequest ScenarioProbe(const PolicyCase& c) {
  std::string jwt = BenchJwt();
  if (std::string(c.mode) == "decision_service") return ProbeFor(RequestKind::kDecision, "/v1/decision", jwt);
  if (std::string(c.file) == "llm.json") {
    return ProbeFor(RequestKind::kPostJson, "/v1/chat/completions", jwt,
                    R"({"model":"bench","messages":[{"role":"user","content":"hello benchmark"}],"max_tokens":16})");
  }
  return ProbeFor(RequestKind::kGet, "/", jwt);
}

TEST_P(FairvisorPolicy, LoadsAndShowsEvidence) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  const PolicyCase& c = GetParam();
  std::string policy = cfg_.bench_dir + "/policies/" + c.file;
  ASSERT_TRUE(host_.WriteFile(policy, ReadFile(FixturesDir() + "/policies/" + c.file)).ok());
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  if (std::string(c.mode) == "reverse_proxy") {
    auto b = sut.StartBackend();
    ASSERT_TRUE(b.ok()) << b.error().message;
  }
  auto s = sut.StartFairvisor(c.mode, policy);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto ev = sut.CheckPolicyLive(c.id, ScenarioProbe(c));
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_GE(ev->status, 200);
  EXPECT_LT(ev->status, 300);
  std::cout << c.file << " " << c.mode << ": " << ev->summary() << "\n";
  RecordProperty("evidence", ev->summary());
  ASSERT_TRUE(sut.StopAll().ok());
}

INSTANTIATE_TEST_SUITE_P(Policies, FairvisorPolicy,
                         ::testing::Values(PolicyCase{"simple.json", "bench-simple", "decision_service"},
                                           PolicyCase{"simple.json", "bench-simple", "reverse_proxy"},
                                           PolicyCase{"complex.json", "bench-complex", "decision_service"},
                                           PolicyCase{"complex.json", "bench-complex", "reverse_proxy"},
                                           PolicyCase{"llm.json", "bench-llm", "decision_service"},
                                           PolicyCase{"llm.json", "bench-llm", "reverse_proxy"}),
                         CaseName);

// FairvisorOptions::lua_profile through SutServices: the module placed in
// the run dir, edge's config wired to it, a profile started and stopped
// through the status socket, one folded file per worker (2 workers).
TEST_F(SutE2E, FairvisorLuaProfileOneFilePerWorker) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  std::string policy = cfg_.bench_dir + "/policies/simple.json";
  ASSERT_TRUE(host_.WriteFile(policy, ReadFile(FixturesDir() + "/policies/simple.json")).ok());
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  FairvisorOptions o;
  o.lua_profile = true;
  o.worker_processes = 2;
  auto s = sut.StartFairvisor("decision_service", policy, o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  const std::string socket = sut.status_socket("fv");
  if (socket.empty()) GTEST_SKIP() << "no status listener: " << sut.status_unavailable();
  auto start = StartLuaProfile(host_, socket, 1);
  ASSERT_TRUE(start.ok()) << start.error().message;
  EXPECT_EQ(start->workers, 2);
  for (int i = 0; i < 50; ++i) (void)Curl(kFvPort, "/readyz");
  auto stop = StopLuaProfile(host_, socket);
  ASSERT_TRUE(stop.ok()) << stop.error().message;
  auto done = WaitLuaProfileFiles(host_, socket, stop->gen, std::chrono::seconds(5));
  ASSERT_TRUE(done.ok()) << done.error().message;
  ASSERT_EQ(done->files.size(), 2u);
  for (const auto& [pid, path] : done->files) {
    EXPECT_EQ(path, fmt::format("{}/lua_profile.{}.folded", LuaProfileOutputDir(sut.run_dir("fv")), pid));
  }
  ASSERT_TRUE(sut.StopAll().ok());
}

// A rule whose limit key the requests never carry (the bench JWT has no
// `tenant` claim) is skipped by edge on every request, with a warn line that
// a quieter FAIRVISOR_LOG_LEVEL hides. Edge's counters name it whatever the
// log level; the bench policies' rules all run (judge/rule_evidence.h).
TEST_F(SutE2E, RuleEvidenceNamesARuleSkippedOnEveryRequest) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  const std::string skipped = R"({"bundle_version":1,"expires_at":"2030-01-01T00:00:00Z","policies":[
  {"id":"bench-skip","spec":{"selector":{"pathPrefix":"/"},"mode":"enforce","rules":[
    {"name":"ip-rate","limit_keys":["ip:address"],"algorithm":"token_bucket",
     "algorithm_config":{"tokens_per_second":100000,"burst":100000}},
    {"name":"tenant-rate","limit_keys":["jwt:tenant"],"algorithm":"token_bucket",
     "algorithm_config":{"tokens_per_second":100000,"burst":100000}}]}}]})";
  struct Case {
    std::string id, json;
  };
  for (const Case& c : {Case{"bench-skip", skipped}, Case{"bench-complex", ReadFile(FixturesDir() + "/policies/complex.json")}}) {
    const std::string policy = cfg_.bench_dir + "/policies/" + c.id + ".json";
    ASSERT_TRUE(host_.WriteFile(policy, c.json).ok());
    SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
    ASSERT_TRUE(sut.StartFairvisor("decision_service", policy).ok());
    for (int i = 0; i < 5; ++i) {
      auto ev = sut.CheckPolicyLive(c.id, ProbeFor(RequestKind::kDecision, "/v1/decision", BenchJwt()));
      ASSERT_TRUE(ev.ok()) << ev.error().message;
    }
    auto text = sut.ReadEdgeMetrics();
    ASSERT_TRUE(text.ok()) << text.error().message;
    auto counters = ParseEdgeRuleCounters(*text);
    ASSERT_TRUE(counters.ok()) << counters.error().message;
    auto rules = LimiterRules(c.json);
    ASSERT_TRUE(rules.ok());
    ValidityCheck v = RuleEvidenceCheck(*counters, *rules);
    std::cout << c.id << ": " << v.detail << "\n";
    if (c.id == "bench-skip") {
      EXPECT_FALSE(v.passed) << v.detail;
      EXPECT_TRUE(Has(v.detail, "missing limit keys (jwt:tenant ")) << v.detail;
      EXPECT_EQ(v.measured, 1);  // ip-rate only
    } else {
      EXPECT_TRUE(v.passed) << v.detail;
      EXPECT_EQ(v.measured, 3);
    }
    ASSERT_TRUE(sut.StopAll().ok());
  }
}

// The seed's complex policy used loop_detector / circuit_breaker as rule
// algorithms; current edge rejects that policy and still turns ready, so only
// the error.log scan catches it.
TEST_F(SutE2E, BrokenPolicyIsCaughtWithEdgesMessage) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  std::string policy = cfg_.bench_dir + "/policies/broken.json";
  ASSERT_TRUE(host_
                  .WriteFile(policy, R"({"bundle_version":1,"expires_at":"2030-01-01T00:00:00Z","policies":[
  {"id":"bench-broken","spec":{"selector":{"pathPrefix":"/"},"mode":"enforce","rules":[
    {"name":"ip-rate","limit_keys":["ip:address"],"algorithm":"token_bucket",
     "algorithm_config":{"tokens_per_second":1000,"burst":1000}},
    {"name":"loop-detect","limit_keys":["ip:address"],"algorithm":"loop_detector",
     "algorithm_config":{"enabled":true,"window_seconds":60,"threshold_identical_requests":99}}]}}]})")
                  .ok());
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  auto s = sut.StartFairvisor("decision_service", policy);
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto ev = sut.CheckPolicyLive("bench-broken", ProbeFor(RequestKind::kDecision, "/v1/decision", BenchJwt()));
  ASSERT_FALSE(ev.ok()) << ev->summary();
  const std::string& m = ev.error().message;
  EXPECT_TRUE(Has(m, "validation_error=policy=bench-broken rule=loop-detect")) << m;
  EXPECT_TRUE(Has(m, "unsupported algorithm")) << m;
  std::cout << m << "\n";
}

TEST_F(SutE2E, UnreadablePolicyFailsStartWithEdgesMessage) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  cfg_.health_timeout_s = 3;
  SutServices sut(host_, cfg_, info_, cfg_.oresty_cpuset);
  auto s = sut.StartFairvisor("decision_service", dir_ + "/no-such-policy.json");
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(Has(s.error().message, "/readyz")) << s.error().message;
  EXPECT_TRUE(Has(s.error().message, "standalone_read_failed")) << s.error().message;
}

}  // namespace
}  // namespace fvbench::sut_services_test

namespace fvbench::sut_services_test {
namespace {

// FAIRVISOR_EDGE_SRC with a ref: a sparse clone into FV_DIR, then left alone.
TEST_F(SutE2E, EdgeWithRefIsClonedSparseOnce) {
  if (!have_edge_) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout to run)";
  Command head;
  head.argv = {"git", "-c", "safe.directory=" + cfg_.edge_src, "-C", cfg_.edge_src, "rev-parse", "HEAD"};
  auto h = host_.Run(head);
  ASSERT_TRUE(h.ok() && h->success());
  std::string commit = h->out.substr(0, 40);
  cfg_.edge_ref = commit;
  auto first = ProvisionSut(host_, cfg_);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->edge_dir, cfg_.fv_dir);
  EXPECT_FALSE(first->edge_in_place);
  EXPECT_EQ(first->edge_commit, commit);
  EXPECT_FALSE(first->edge_dirty);
  EXPECT_FALSE(first->installed.empty());
  struct stat st;
  EXPECT_EQ(stat((cfg_.fv_dir + "/src/nginx/init_worker.lua").c_str(), &st), 0);
  EXPECT_NE(stat((cfg_.fv_dir + "/docs").c_str(), &st), 0) << "sparse checkout must leave docs/ out";
  auto second = ProvisionSut(host_, cfg_);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE(second->installed.empty()) << "the existing clone at the right commit must be left alone";
  EXPECT_EQ(second->edge_commit, commit);
  std::cout << "clone took " << first->seconds << " s, re-provision " << second->seconds << " s\n";
}

}  // namespace
}  // namespace fvbench::sut_services_test

namespace fvbench::sut_services_test {
namespace {

// A rendered config that names a Lua file the edge tree lacks is refused
// before nginx starts, naming the file, its directive and line (nginx -t
// would accept it: Lua files are loaded only when a worker or request needs
// them). Runs with a stand-in edge tree, no real edge needed.
TEST_F(SutE2E, MissingLuaFileOfTheRenderedConfigIsNamedBeforeStart) {
  // Its own stand-in tree, also when FAIRVISOR_EDGE_SRC is set (a real
  // checkout is used in place and is never written to).
  Config cfg = cfg_;
  cfg.edge_src = dir_ + "/edge-stand-in";
  ASSERT_TRUE(host_.WriteFile(cfg.edge_src + "/src/nginx/init_worker.lua", "-- stub\n").ok());
  ASSERT_TRUE(host_.WriteFile(cfg.edge_src + "/docker/nginx.conf.template",
                               "worker_processes 1;\nerror_log /dev/stderr error;\npid /tmp/nginx.pid;\n"
                               "events {\n  worker_connections 64;\n}\nhttp {\n"
                               "  geo $t {\n    include /etc/nginx/iplists/tor_exits.geo;\n  }\n"
                               "  map $x $y {\n    include /etc/fairvisor/asn_type.map;\n  }\n"
                               "  lua_package_path \"/opt/fairvisor/src/?.lua;;\";\n"
                               "  init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;\n"
                               "  server {\n    listen 8080;\n    location / {\n"
                               "      access_by_lua_file /opt/fairvisor/src/nginx/access.lua;\n    }\n  }\n}\n")
                  .ok());
  auto info = ProvisionSut(host_, cfg);
  ASSERT_TRUE(info.ok()) << info.error().message;
  SutServices sut(host_, cfg, *info, cfg.oresty_cpuset);
  auto s = sut.StartFairvisor("decision_service", dir_ + "/policy.json");
  ASSERT_FALSE(s.ok());
  const std::string& m = s.error().message;
  EXPECT_TRUE(Has(m, "refers to files that do not exist")) << m;
  EXPECT_TRUE(Has(m, "access_by_lua_file " + info->edge_dir + "/src/nginx/access.lua")) << m;
  EXPECT_FALSE(Has(m, "init_worker.lua")) << m;  // present in the stand-in tree
}

}  // namespace
}  // namespace fvbench::sut_services_test
