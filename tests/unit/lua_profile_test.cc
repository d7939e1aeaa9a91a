// Lua profiles (support/sut/lua_profile.h): the state parser and the status
// socket calls against a FakeHost, then for real: a throwaway Debian nginx
// with the Lua module, 2 workers, a handler that spends most of its time in
// one named Lua function, wrk load for 4 s, start / stop / wait / fetch
// (skipped when nginx, its Lua module, wrk or curl is missing; ports
// 18600-18649), and an A/B of two loads where B doubles one function's
// work; and `nginx -t` of edge's own template rendered with profiles
// on, when FAIRVISOR_EDGE_SRC names an edge checkout.
#include "support/sut/lua_profile.h"
#include "support/sut/lua_profiler.h"

#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "support/core/folded_stacks.h"
#include "support/host/local_host.h"
#include "support/report/profile_flames.h"
#include "support/sut/nginx_conf.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::lua_profile_test {
namespace {

using testing_fakes::FakeHost;

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

TEST(LuaProfileState, ParsesEveryKey) {
  auto st = ParseLuaProfileState(
      "gen 3\nworkers 2\nrunning 0\ndone 2\nfile 101 /b/run/fv/lua_profile/lua_profile.101.folded\n"
      "error 102 writing /x: Permission denied\nlater_key 7\n");
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->gen, 3);
  EXPECT_EQ(st->workers, 2);
  EXPECT_FALSE(st->running);
  EXPECT_EQ(st->done, 2);
  ASSERT_EQ(st->files.size(), 1u);
  EXPECT_EQ(st->files.at(101), "/b/run/fv/lua_profile/lua_profile.101.folded");
  EXPECT_EQ(st->errors.at(102), "writing /x: Permission denied");
  EXPECT_TRUE(ParseLuaProfileState("gen 1\r\nrunning 1\r\n")->running);
}

TEST(LuaProfileState, MalformedLinesAreNamed) {
  for (const char* bad : {"gen\n", "workers two\n", "done -1\n", "file 12\n", "file x /p\n"}) {
    auto st = ParseLuaProfileState(bad);
    ASSERT_FALSE(st.ok()) << bad;
    const std::string line(bad, std::string(bad).find('\n'));
    EXPECT_TRUE(Has(st.error().message, "'" + line + "'")) << st.error().message;
  }
}

ExecResult Answer(const std::string& body, int code) { return FakeHost::Exit(0, body + "\n" + std::to_string(code)); }

TEST(LuaProfileCalls, CurlOverTheStatusSocketArgvOnly) {
  FakeHost host("sut1");
  host.On("/fvbench_profile/start", Answer("gen 4\nworkers 2\n", 200));
  auto st = StartLuaProfile(host, "/b/run/fv/logs/status.sock", 5);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(st->gen, 4);
  EXPECT_EQ(st->workers, 2);
  auto c = host.Find("/fvbench_profile/start");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->argv, (std::vector<std::string>{"curl", "-sS", "--max-time", "2", "--unix-socket",
                                               "/b/run/fv/logs/status.sock", "-w", "\n%{http_code}",
                                               "http://localhost/fvbench_profile/start?period_ms=5"}));
  EXPECT_FALSE(StartLuaProfile(host, "/s", 0).ok());
  EXPECT_FALSE(StartLuaProfile(host, "/s", 1001).ok());
}

TEST(LuaProfileCalls, RefusalsNameHostSocketAndAnswer) {
  FakeHost host("sut1");
  host.On("/fvbench_profile/stop", Answer("no profile is running\ngen 4\nworkers 2\n", 409));
  host.On("/fvbench_profile/start", FakeHost::Exit(7, "", "curl: (7) Couldn't connect to server"));
  auto stop = StopLuaProfile(host, "/s.sock");
  ASSERT_FALSE(stop.ok());
  EXPECT_TRUE(Has(stop.error().message, "host sut1: status socket /s.sock: /fvbench_profile/stop answered HTTP "
                                        "409: no profile is running gen 4 workers 2"))
      << stop.error().message;
  auto start = StartLuaProfile(host, "/s.sock");
  ASSERT_FALSE(start.ok());
  EXPECT_TRUE(Has(start.error().message, "host sut1: status socket /s.sock: "));
  EXPECT_TRUE(Has(start.error().message, "exit 7: curl: (7) Couldn't connect")) << start.error().message;
}

TEST(LuaProfileWait, TimeoutCountsWorkersAndFiles) {
  FakeHost host("sut1");
  host.On("/fvbench_profile/state", Answer("gen 2\nrunning 0\nworkers 2\ndone 1\nfile 11 /p/11\n", 200));
  auto st = WaitLuaProfileFiles(host, "/s.sock", 2, std::chrono::milliseconds(250));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(Has(st.error().message, "host sut1: status socket /s.sock: 2 workers, 1 Lua profile file(s) after "
                                      "0.25 s (generation 2)"))
      << st.error().message;
  EXPECT_GE(host.Count("/fvbench_profile/state"), 2u);
}

TEST(LuaProfileWait, WorkerErrorsAndAnotherGenerationFailAtOnce) {
  FakeHost host("sut1");
  host.On("/fvbench_profile/state",
          Answer("gen 2\nworkers 2\ndone 2\nfile 11 /p/11\nerror 12 writing /p/12: Permission denied\n", 200));
  auto st = WaitLuaProfileFiles(host, "/s.sock", 2, std::chrono::seconds(5));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(Has(st.error().message, "1 of 2 workers wrote no Lua profile:\n  worker 12: writing /p/12: "
                                      "Permission denied"))
      << st.error().message;
  EXPECT_EQ(host.Count("/fvbench_profile/state"), 1u);
  auto moved = WaitLuaProfileFiles(host, "/s.sock", 1, std::chrono::seconds(5));
  ASSERT_FALSE(moved.ok());
  EXPECT_TRUE(Has(moved.error().message, "generation is 2, expected 1")) << moved.error().message;
}

TEST(LuaProfileWait, DoneWhenEveryWorkerWroteThenFetchedByPid) {
  FakeHost host("sut1");
  host.On("/fvbench_profile/state",
          Answer("gen 2\nworkers 2\ndone 2\nfile 12 /p/lua_profile.12.folded\nfile 11 /p/lua_profile.11.folded\n",
                 200));
  ASSERT_TRUE(host.WriteFile("/p/lua_profile.11.folded", "a;b;[N] 3\n", 0644).ok());
  ASSERT_TRUE(host.WriteFile("/p/lua_profile.12.folded", "a;[I] 1\n", 0644).ok());
  auto st = WaitLuaProfileFiles(host, "/s.sock", 2, std::chrono::seconds(5));
  ASSERT_TRUE(st.ok()) << st.error().message;
  auto local = FetchLuaProfileFiles(host, *st, "/out");
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_EQ(*local, (std::vector<std::string>{"/out/lua_profile.11.folded", "/out/lua_profile.12.folded"}));
  EXPECT_EQ(host.Caps(), (std::vector<std::string>{kLuaProfileCap.kind, kLuaProfileCap.kind}));
  LuaProfileState missing = *st;
  missing.files[13] = "/p/none";
  auto failed = FetchLuaProfileFiles(host, missing, "/out");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(Has(failed.error().message, "host sut1: worker 13 names '/p/none' as its Lua profile"))
      << failed.error().message;
  missing.files[13] = "/p/lua_profile.13.folded";  // named right, not there
  failed = FetchLuaProfileFiles(host, missing, "/out");
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(Has(failed.error().message, "host sut1: fetching the Lua profile of worker 13 "
                                          "(/p/lua_profile.13.folded)"))
      << failed.error().message;
  for (const char* bad : {"/etc/shadow", "lua_profile.13.folded", "/p/../etc/lua_profile.13.folded",
                          "/p/lua_profile.14.folded"}) {
    missing.files[13] = bad;
    failed = FetchLuaProfileFiles(host, missing, "/out");
    ASSERT_FALSE(failed.ok()) << bad;
    EXPECT_TRUE(Has(failed.error().message, "names '" + std::string(bad) + "'")) << failed.error().message;
  }
}

// ---- real nginx --------------------------------------------------------------

bool OnPath(const std::string& tool) {
  LocalHost h;
  Command c;
  c.argv = {"sh", "-c", "command -v \"$1\" >/dev/null", "sh", tool};
  auto r = h.Run(c);
  return r && r->success();
}

bool PortFree(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Samples in folded text, all and those whose stack holds `frame`.
struct Samples {
  long total = 0;
  long with_frame = 0;
};
Samples Count(const std::string& folded, const std::string& frame) {
  Samples s;
  std::istringstream in(folded);
  for (std::string line; std::getline(in, line);) {
    const size_t sp = line.rfind(' ');
    if (sp == std::string::npos) continue;
    const long n = std::stol(line.substr(sp + 1));
    s.total += n;
    if (line.substr(0, sp).find(frame) != std::string::npos) s.with_frame += n;
  }
  return s;
}

std::string Lines(const std::string& text, size_t n) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; n > 0 && std::getline(in, line); --n) out += "  " + line + "\n";
  return out;
}

class LuaProfileReal : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!OnPath("nginx") || !OnPath("wrk") || !OnPath("curl")) GTEST_SKIP() << "nginx, wrk or curl not installed";
    if (!std::filesystem::exists(std::string(kDebianNginxModuleDir) + "/ngx_http_lua_module.so")) {
      GTEST_SKIP() << "Debian's Lua module (libnginx-mod-http-lua) is not installed";
    }
    char tmpl[] = "/tmp/fvb-luaprof-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                           std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                           std::filesystem::perms::others_exec);
    std::filesystem::create_directories(dir_ + "/logs");
  }
  void TearDown() override {
    if (nginx_) (void)host_.StopService(*nginx_, std::chrono::seconds(5));
    if (!dir_.empty() && !HasFailure()) std::filesystem::remove_all(dir_);
  }

  // nginx with 2 workers: `/` spends most of its time in burn_named_function.
  void StartNginx() {
    ASSERT_TRUE(PlaceLuaProfile(host_, dir_, "").ok());
    // /ab?n=N: double_me loops N times, steady 20000 times.
    std::ofstream(LuaProfileModuleDir(dir_) + "/fvbench_ab_work.lua")
        << "local M = {}\n"
        << "local function double_me(n)\n  local s = 0\n  for i = 1, n do s = (s + i * 7) % 1000003 end\n  return s\nend\n"
        << "local function steady(n)\n  local s = 1\n  for i = 1, n do s = (s * 31 + i) % 999983 end\n  return s\nend\n"
        << "function M.run(n) return double_me(n) + steady(20000) end\nreturn M\n";
    socket_ = dir_ + "/logs/status.sock";
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 10 && !nginx_; ++attempt) {
      port_ = 18600 + static_cast<int>(rng() % 50);
      if (!PortFree(port_)) continue;
      std::ofstream(dir_ + "/nginx.conf")
          << "load_module " << kDebianNginxModuleDir << "/ndk_http_module.so;\n"
          << "load_module " << kDebianNginxModuleDir << "/ngx_http_lua_module.so;\n"
          << "worker_processes 2;\npid " << dir_ << "/logs/nginx.pid;\n"
          << "error_log " << dir_ << "/logs/error.log warn;\nevents { worker_connections 256; }\n"
          << "http {\n  access_log off;\n"
          << "  client_body_temp_path " << dir_ << "/tmp/cb;\n  proxy_temp_path " << dir_ << "/tmp/px;\n"
          << "  fastcgi_temp_path " << dir_ << "/tmp/fc;\n  uwsgi_temp_path " << dir_ << "/tmp/uw;\n"
          << "  scgi_temp_path " << dir_ << "/tmp/sc;\n"
          << "  lua_package_path \"" << LuaProfileModuleDir(dir_) << "/?.lua;;\";\n"
          << "  lua_shared_dict " << kLuaProfileDict << " " << kLuaProfileDictSize << ";\n"
          << "  init_worker_by_lua_block { require(\"" << kLuaProfileModuleName << "\").init_worker(\""
          << LuaProfileOutputDir(dir_) << "\") }\n"
          << RenderStatusServer(socket_, "  ", true)
          << "  server {\n    listen 127.0.0.1:" << port_ << ";\n"
          << "    location / { content_by_lua_block {\n"
          << "      local function burn_named_function(n)\n"
          << "        local s = 0\n        for i = 1, n do s = (s + i * 7) % 1000003 end\n        return s\n"
          << "      end\n"
          << "      local function cheap_part() return ngx.var.uri end\n"
          << "      ngx.say(burn_named_function(100000), cheap_part())\n"
          << "    } }\n"
          << "    location /ab { content_by_lua_block {\n"
          << "      ngx.say(require(\"fvbench_ab_work\").run(tonumber(ngx.var.arg_n)))\n"
          << "    } }\n  }\n}\n";
      std::filesystem::create_directories(dir_ + "/tmp");
      std::filesystem::remove(dir_ + "/logs/nginx.pid");
      Command cmd;
      cmd.argv = {"nginx", "-p", dir_, "-c", dir_ + "/nginx.conf", "-e", dir_ + "/logs/error.log", "-g",
                  "daemon off;"};
      auto svc = host_.StartService("nginx-luaprof-test", cmd, dir_ + "/logs/stdout.log", dir_ + "/logs/stderr.log");
      ASSERT_TRUE(svc.ok()) << svc.error().message;
      for (int i = 0; i < 60 && host_.IsAlive(*svc) && !std::filesystem::exists(dir_ + "/logs/nginx.pid"); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (host_.IsAlive(*svc) && std::filesystem::exists(dir_ + "/logs/nginx.pid")) {
        nginx_ = *svc;
      } else {
        (void)host_.StopService(*svc, std::chrono::seconds(2));
      }
    }
    ASSERT_TRUE(nginx_) << "nginx did not start:\n" << Slurp(dir_ + "/logs/error.log");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the workers' init_worker
  }

  LocalHost host_;
  std::string dir_;
  std::string socket_;
  int port_ = 0;
  std::optional<ServiceHandle> nginx_;
};

TEST_F(LuaProfileReal, TwoWorkersProfileTheNamedHotFunction) {
  StartNginx();
  auto start = StartLuaProfile(host_, socket_, 2);
  ASSERT_TRUE(start.ok()) << start.error().message;
  EXPECT_EQ(start->workers, 2);
  auto again = StartLuaProfile(host_, socket_, 2);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(Has(again.error().message, "HTTP 409: a profile is running")) << again.error().message;

  Command wrk;
  wrk.argv = {"wrk", "-t2", "-c8", "-d4s", "--", "http://127.0.0.1:" + std::to_string(port_) + "/"};
  wrk.timeout = std::chrono::seconds(15);
  auto load = host_.Run(wrk);
  ASSERT_TRUE(load.ok() && load->success()) << (load.ok() ? load->err : load.error().message);

  auto stop = StopLuaProfile(host_, socket_);
  ASSERT_TRUE(stop.ok()) << stop.error().message;
  EXPECT_EQ(stop->gen, start->gen);
  auto done = WaitLuaProfileFiles(host_, socket_, stop->gen, std::chrono::seconds(5));
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->files.size(), 2u);

  const std::string out = dir_ + "/fetched";
  std::filesystem::create_directories(out);
  auto local = FetchLuaProfileFiles(host_, *done, out);
  ASSERT_TRUE(local.ok()) << local.error().message;
  ASSERT_EQ(local->size(), 2u);
  std::string all;
  for (const std::string& f : *local) all += Slurp(f);
  const Samples s = Count(all, ":burn_named_function;");
  EXPECT_GT(s.total, 100) << all;
  EXPECT_GE(2 * s.with_frame, s.total) << s.with_frame << " of " << s.total << " samples:\n" << all;
  std::cout << "burn_named_function: " << s.with_frame << " of " << s.total << " samples; top lines:\n"
            << Lines(Slurp(local->front()), 5);
  // Every line is `stack count` with the VM state as the leaf-most frame.
  std::istringstream lines(all);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(line.find(";[") != std::string::npos || line.rfind("[", 0) == 0) << line;
  }
  // No profile runs now: a second stop is refused.
  EXPECT_FALSE(StopLuaProfile(host_, socket_).ok());
}

// One profiled load of `url` for 3 s (wrk's closed loop, 2 connections) at
// kAbHz samples a second: both workers' stacks merged, and the requests wrk
// completed.
constexpr int kAbHz = 500;
struct ProfiledLoad {
  FoldedStacks stacks;
  uint64_t requests = 0;
};
ProfiledLoad Profiled(LocalHost& host, const std::string& socket, const std::string& url, const std::string& out) {
  ProfiledLoad got;
  auto start = StartLuaProfile(host, socket, LuaProfilePeriodMs(kAbHz));
  EXPECT_TRUE(start.ok()) << start.error().message;
  Command wrk;
  wrk.argv = {"wrk", "-t1", "-c2", "-d3s", "--", url};
  wrk.timeout = std::chrono::seconds(15);
  auto load = host.Run(wrk);
  EXPECT_TRUE(load.ok() && load->success()) << (load.ok() ? load->err : load.error().message);
  auto stop = StopLuaProfile(host, socket);
  EXPECT_TRUE(stop.ok()) << stop.error().message;
  if (!load.ok() || !stop.ok()) return got;
  std::smatch m;  // wrk's "  12345 requests in 3.00s, ..."
  EXPECT_TRUE(std::regex_search(load->out, m, std::regex("([0-9]+) requests in"))) << load->out;
  if (!m.empty()) got.requests = std::stoull(m[1].str());
  auto done = WaitLuaProfileFiles(host, socket, stop->gen, std::chrono::seconds(5));
  EXPECT_TRUE(done.ok()) << done.error().message;
  if (!done.ok()) return got;
  std::filesystem::create_directories(out);
  auto local = FetchLuaProfileFiles(host, *done, out);
  EXPECT_TRUE(local.ok()) << local.error().message;
  for (const std::string& f : local.ok() ? *local : std::vector<std::string>{}) {
    auto folded = ParseFolded(Slurp(f), f);
    EXPECT_TRUE(folded.ok()) << folded.error().message;
    if (folded.ok()) MergeInto(got.stacks, *folded);
  }
  return got;
}

// A real A/B: side B's double_me loops twice as often per request as side
// A's, the rest is the same; ranked by growth per request, double_me is the
// top frame of B against A (report/profile_flames.h DiffProfiles), and its
// own CPU per request about doubled.
TEST_F(LuaProfileReal, SideBDoublingOneFunctionTopsTheDifferential) {
  StartNginx();
  const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/ab?n=";
  const ProfiledLoad a = Profiled(host_, socket_, url + "20000", dir_ + "/a");
  const ProfiledLoad b = Profiled(host_, socket_, url + "40000", dir_ + "/b");
  ASSERT_GT(a.requests, 0u);
  ASSERT_GT(b.requests, 0u);
  ASSERT_GT(a.stacks.total(), 100u) << WriteFolded(a.stacks);
  ASSERT_GT(b.stacks.total(), 100u) << WriteFolded(b.stacks);
  const double sample_us = ProfileSampleUs("lua", kAbHz);
  const ProfileDiff d = DiffProfiles("A", "fv", "lua", DiffSide{a.stacks, a.requests, sample_us, "A"},
                                     DiffSide{b.stacks, b.requests, sample_us, "B"}, "diff.svg");
  ASSERT_FALSE(d.top.empty());
  std::cout << "A " << a.requests << " requests, " << a.stacks.total() << " samples; B " << b.requests << " requests, "
            << b.stacks.total() << " samples; all frames " << d.a_us_per_request << " -> " << d.b_us_per_request
            << " µs per request\n";
  for (size_t i = 0; i < std::min<size_t>(d.top.size(), 4); ++i) {
    std::cout << "  " << d.top[i].frame << ": self " << d.top[i].a_self_us << " -> " << d.top[i].b_self_us
              << " µs per request (" << d.top[i].share_of_a * 100 << " % of A)\n";
  }
  const std::string& top = d.top[0].frame;
  EXPECT_EQ(top.substr(top.size() - std::min<size_t>(top.size(), 10)), ":double_me") << WriteFolded(b.stacks);
  EXPECT_GT(d.top[0].b_self_us, 1.5 * d.top[0].a_self_us);
  EXPECT_LT(d.top[0].b_self_us, 2.5 * d.top[0].a_self_us);
}

// Edge's own template rendered with profiles on (2 workers, port `port`),
// written to <dir>/nginx.conf with the files it includes; "" without an edge checkout.
std::string RenderEdge(LocalHost& host, const std::string& dir, int port, FairvisorParams& p) {
  const char* edge = std::getenv("FAIRVISOR_EDGE_SRC");
  if (!edge || !*edge) return "";
  const std::string tmpl = Slurp(std::string(edge) + "/docker/nginx.conf.template");
  EXPECT_FALSE(tmpl.empty());
  EXPECT_TRUE(PlaceLuaProfile(host, dir, "").ok());
  p.prefix = dir;
  p.port = port;
  p.worker_processes = "2";
  p.mode = "decision_service";
  p.fv_dir = edge;
  p.asn_map_path = dir + "/asn_type.map";
  p.tor_geo_path = dir + "/tor_exits.geo";
  p.load_lua_modules = true;
  p.status_socket = dir + "/logs/status.sock";
  p.lua_profile = true;
  auto conf = RenderFairvisorConf(tmpl, p);
  EXPECT_TRUE(conf.ok()) << conf.error().message;
  if (!conf.ok()) return "";
  std::ofstream(p.asn_map_path) << "";
  std::ofstream(p.tor_geo_path) << "";
  std::filesystem::create_directories(dir + "/tmp");
  std::ofstream(dir + "/nginx.conf") << *conf;
  return *conf;
}

Command EdgeNginx(const std::string& dir, const FairvisorParams& p, std::vector<std::string> extra) {
  Command c;
  c.argv = {"nginx", "-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/logs/error.log"};
  c.argv.insert(c.argv.end(), extra.begin(), extra.end());
  for (const auto& [k, v] : FairvisorTemplateVars(p)) c.env[k] = v;
  c.env["FAIRVISOR_CONFIG_FILE"] = std::string(FVBENCH_SOURCE_DIR) + "/fixtures/policies/simple.json";
  c.env["FAIRVISOR_SAAS_URL"] = "";
  c.timeout = std::chrono::seconds(20);
  return c;
}

// Edge's own template with profiles on passes `nginx -t` (the shared dict,
// the init_worker block and the locations are valid nginx).
TEST_F(LuaProfileReal, EdgeTemplateRenderedWithProfilesPassesNginxT) {
  FairvisorParams p;
  const std::string conf = RenderEdge(host_, dir_, 18650, p);
  if (conf.empty()) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout)";
  auto r = host_.Run(EdgeNginx(dir_, p, {"-t"}));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->success()) << r->err << "\n" << conf;
}

// Edge in decision_service mode with the bench-simple policy under 3 s of
// wrk: both workers profile, and edge's own modules (src/fairvisor/) hold at
// least a quarter of the samples (about two thirds on a 2-core host).
TEST_F(LuaProfileReal, EdgeDecisionServiceUnderLoad) {
  FairvisorParams p;
  port_ = 18651;
  if (!PortFree(port_)) GTEST_SKIP() << "port " << port_ << " is taken";
  const std::string conf = RenderEdge(host_, dir_, port_, p);
  if (conf.empty()) GTEST_SKIP() << "FAIRVISOR_EDGE_SRC is not set (an edge checkout)";
  socket_ = p.status_socket;
  auto svc = host_.StartService("edge-luaprof-test", EdgeNginx(dir_, p, {"-g", "daemon off;"}),
                                dir_ + "/logs/stdout.log", dir_ + "/logs/stderr.log");
  ASSERT_TRUE(svc.ok()) << svc.error().message;
  nginx_ = *svc;
  const std::string base = "http://127.0.0.1:" + std::to_string(port_);
  bool ready = false;
  for (int i = 0; i < 100 && !ready && host_.IsAlive(*svc); ++i) {
    Command c;
    c.argv = {"curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "1", base + "/readyz"};
    auto r = host_.Run(c);
    ready = r.ok() && r->out == "200";
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(ready) << Slurp(dir_ + "/logs/error.log");
  std::ofstream(dir_ + "/decision.lua")
      << "wrk.method = \"POST\"\nwrk.body = \"{}\"\n"
      << "wrk.headers[\"Content-Type\"] = \"application/json\"\n"
      << "wrk.headers[\"X-Original-Method\"] = \"POST\"\n"
      << "wrk.headers[\"X-Original-URI\"] = \"/v1/chat/completions\"\n"
      << "wrk.headers[\"X-Forwarded-For\"] = \"203.0.113.1\"\n";
  auto start = StartLuaProfile(host_, socket_, 1);
  ASSERT_TRUE(start.ok()) << start.error().message;
  Command wrk;
  wrk.argv = {"wrk", "-t2", "-c8", "-d3s", "-s", dir_ + "/decision.lua", "--", base + "/v1/decision"};
  wrk.timeout = std::chrono::seconds(15);
  auto load = host_.Run(wrk);
  ASSERT_TRUE(load.ok() && load->success()) << (load.ok() ? load->err : load.error().message);
  auto stop = StopLuaProfile(host_, socket_);
  ASSERT_TRUE(stop.ok()) << stop.error().message;
  auto done = WaitLuaProfileFiles(host_, socket_, stop->gen, std::chrono::seconds(5));
  ASSERT_TRUE(done.ok()) << done.error().message;
  EXPECT_EQ(done->files.size(), 2u);
  std::string all;
  for (const auto& [pid, path] : done->files) all += Slurp(path);
  const Samples s = Count(all, "/fairvisor/");
  EXPECT_GT(s.total, 50) << all;
  EXPECT_GE(4 * s.with_frame, s.total) << "edge's modules in " << s.with_frame << " of " << s.total
                                       << " samples:\n" << all;
  std::cout << "edge modules: " << s.with_frame << " of " << s.total << " samples; wrk: "
            << load->out.substr(load->out.find("Requests/sec")) << "top lines of one worker:\n"
            << Lines(Slurp(done->files.begin()->second), 8);
}

}  // namespace
}  // namespace fvbench::lua_profile_test

namespace fvbench::lua_profiler_test {
namespace {

TEST(LuaProfiler, PeriodIsTheSamplingRateInWholeMilliseconds) {
  EXPECT_EQ(LuaProfilePeriodMs(99), 10);
  EXPECT_EQ(LuaProfilePeriodMs(1000), 1);
  EXPECT_EQ(LuaProfilePeriodMs(1), 1000);
  EXPECT_EQ(LuaProfilePeriodMs(0), kLuaProfileDefaultPeriodMs);
}

TEST(LuaProfiler, WithoutAStatusSocketItIsLeftOutNamingWhy) {
  LocalHost host;
  LuaProfiler p(host, "", 10, false);
  auto r = p.Prepare();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no status socket"), std::string::npos) << r.error().message;
  LuaProfiler dry(host, "/tmp/none.sock", 10, true);
  EXPECT_TRUE(dry.Prepare().ok());
  EXPECT_TRUE(dry.Start(1).ok());
  EXPECT_TRUE(dry.Finish("/tmp/unused").files.empty());
}

}  // namespace
}  // namespace fvbench::lua_profiler_test
