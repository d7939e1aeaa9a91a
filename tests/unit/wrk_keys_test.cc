// WrkEngine's rate-limit keys (LoadSpec::keys, pace.lua FVBENCH_KEYS) end to
// end: Debian's wrk with pace.lua against a loopback Debian nginx this test
// starts (ports 18500-18549) and stops by its pid, whose access log records
// every request's X-Bench-Key header; the log, not the engine, says which key
// each request carried. Skips when wrk or nginx is missing. Run under the
// machine lock (flock /tmp/fvb-real.lock): the phases are paced, at most
// 400 req/s for 2 s.
#include "support/engine/wrk_engine.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/local_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::wrk_keys_test {
namespace {

const std::string kScripts = FVBENCH_SOURCE_DIR "/support/engine";

bool OnPath(const std::string& exe) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + exe).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool PortBinds(int port, bool connect) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect ? ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0
                          : ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// One access-log line: "<msec> <status> <uri> <key> <x-forwarded-for> <method>"
// (nginx writes "-" for an absent header).
struct Line {
  int status = 0;
  std::string uri, key, xff, method;
};

class WrkKeys : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!OnPath("wrk") || !OnPath("nginx")) return;
    char tmpl[] = "/tmp/fvbench-wrk-keys-XXXXXX";
    if (!::mkdtemp(tmpl)) return;
    dir_ = new std::string(tmpl);
    host_ = new LocalHost();
    std::mt19937 rng(std::random_device{}());
    for (int attempt = 0; attempt < 10 && port_ == 0; ++attempt) {
      const int port = 18500 + static_cast<int>(rng() % 50);
      if (!PortBinds(port, false)) continue;
      std::ofstream(*dir_ + "/nginx.conf") << "worker_processes 1;\n"
          << "pid " << *dir_ << "/nginx.pid;\n"
          << "error_log " << *dir_ << "/error.log warn;\n"
          << "events { worker_connections 1024; }\n"
          << "http {\n"
          << "  log_format keys '$msec $status $uri $http_x_bench_key $http_x_forwarded_for $request_method';\n"
          << "  access_log " << *dir_ << "/access.log keys;\n"
          << "  client_body_temp_path " << *dir_ << "/body;\n"
          << "  proxy_temp_path " << *dir_ << "/proxy;\n  fastcgi_temp_path " << *dir_ << "/fcgi;\n"
          << "  uwsgi_temp_path " << *dir_ << "/uwsgi;\n  scgi_temp_path " << *dir_ << "/scgi;\n"
          << "  server {\n    listen 127.0.0.1:" << port << ";\n"
          << "    location / { return 200 \"ok\\n\"; }\n  }\n}\n";
      Command cmd;
      cmd.argv = {"nginx", "-p", *dir_, "-c", *dir_ + "/nginx.conf", "-e", *dir_ + "/error.log",
                  "-g", "daemon off;"};
      // The pid file is written after the listen sockets are bound: pid file
      // + alive + accepting means this nginx serves the port.
      const std::string pidfile = *dir_ + "/nginx.pid";
      std::filesystem::remove(pidfile);
      auto svc = host_->StartService("nginx-wrk-keys", cmd, *dir_ + "/nginx.out", *dir_ + "/nginx.err");
      if (!svc) continue;
      auto ready = [&] { return host_->IsAlive(*svc) && std::filesystem::exists(pidfile) && PortBinds(port, true); };
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
    ASSERT_NE(port_, 0) << "could not start a loopback nginx in 18500-18549";
  }

  // Runs one paced phase against <url>/<phase> and returns the access log's
  // lines for that path (each phase its own path; nginx writes a line per
  // request as it ends it, so the log is read after a short wait).
  static std::vector<Line> RunPhase(LoadSpec s, LoadResult* result) {
    s.url = fmt::format("http://127.0.0.1:{}/{}", port_, s.phase);
    auto engine = MakeWrkEngine(*host_, kScripts);
    auto r = engine->Run(s, *dir_ + "/remote", *dir_ + "/ctl");
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (r.ok() && result != nullptr) *result = *r;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    std::ifstream in(*dir_ + "/access.log");
    std::vector<Line> out;
    std::string text;
    while (std::getline(in, text)) {
      std::istringstream ls(text);
      std::string msec;
      Line l;
      if (!(ls >> msec >> l.status >> l.uri >> l.key >> l.xff >> l.method)) {
        ADD_FAILURE() << "access log line not understood: " << text;
        continue;
      }
      if (l.uri == "/" + s.phase) out.push_back(l);
    }
    return out;
  }

  static LoadSpec Keyed(const std::string& phase, int keys) {
    LoadSpec s;
    s.phase = phase;
    s.rate_rps = 400;
    s.duration_s = 2;  // unpinned: 2 threads
    s.keys = keys;
    return s;
  }

  // Every key k0..k<keys-1> arrived and nothing else; each key's count is
  // within `threads` of total / keys (each thread takes the keys in turn,
  // so over any run of its requests a key gets its share within one).
  static void ExpectSpread(const std::vector<Line>& lines, int keys, int threads) {
    std::map<std::string, int> per_key;
    for (const Line& l : lines) ++per_key[l.key];
    ASSERT_EQ(per_key.size(), static_cast<size_t>(keys));
    const double share = static_cast<double>(lines.size()) / keys;
    for (int i = 0; i < keys; ++i) {
      const std::string k = BenchKey(i);
      ASSERT_EQ(per_key.count(k), 1u) << k << " never arrived";
      EXPECT_LE(std::abs(per_key[k] - share), threads)
          << k << ": " << per_key[k] << " requests of " << lines.size() << " (share " << share << ")";
    }
  }

  // Paced and bounded: about rate x duration requests, all answered 200.
  static void ExpectPaced(const std::vector<Line>& lines, const LoadSpec& s) {
    const double planned = s.rate_rps * s.duration_s;
    EXPECT_GE(static_cast<double>(lines.size()), 0.8 * planned);
    EXPECT_LE(static_cast<double>(lines.size()), 1.1 * planned + 10);
    for (const Line& l : lines) EXPECT_EQ(l.status, 200) << l.key;
  }

  static inline std::string* dir_ = nullptr;
  static inline LocalHost* host_ = nullptr;
  static inline ServiceHandle* nginx_ = nullptr;
  static inline int port_ = 0;
};

TEST_F(WrkKeys, GetSpreadsSevenKeysEvenlyOverTwoThreads) {
  LoadSpec s = Keyed("keys_get", 7);
  LoadResult r;
  const auto lines = RunPhase(s, &r);
  ExpectPaced(lines, s);
  ExpectSpread(lines, 7, 2);
  // wrk counts the responses it read; the log also has those in flight at its stop.
  EXPECT_LE(r.requests, lines.size());
  for (const Line& l : lines) EXPECT_EQ(l.method, "GET");
}

TEST_F(WrkKeys, WithoutKeysNoRequestCarriesTheHeader) {
  LoadSpec s = Keyed("keys_none", 0);
  s.rate_rps = 200;
  s.duration_s = 1;
  const auto lines = RunPhase(s, nullptr);
  ExpectPaced(lines, s);
  for (const Line& l : lines) EXPECT_EQ(l.key, "-");
}

// decision: key i comes from client address 203.0.113.<i % 254 + 1>.
TEST_F(WrkKeys, DecisionKeysKeepTheirClientAddress) {
  LoadSpec s = Keyed("keys_decision", 7);
  s.kind = RequestKind::kDecision;
  s.rate_rps = 210;
  s.duration_s = 1;
  const auto lines = RunPhase(s, nullptr);
  ExpectPaced(lines, s);
  ExpectSpread(lines, 7, 2);
  for (const Line& l : lines) {
    EXPECT_EQ(l.method, "POST");
    EXPECT_EQ(l.xff, fmt::format("203.0.113.{}", std::stoi(l.key.substr(1)) % 254 + 1)) << l.key;
  }
}

TEST_F(WrkKeys, PostSpreadsKeys) {
  LoadSpec s = Keyed("keys_post", 3);
  s.kind = RequestKind::kPostJson;
  s.body = R"({"model":"m","messages":[]})";
  s.rate_rps = 210;
  s.duration_s = 1;
  const auto lines = RunPhase(s, nullptr);
  ExpectPaced(lines, s);
  ExpectSpread(lines, 3, 2);
  for (const Line& l : lines) EXPECT_EQ(l.method, "POST");
}

}  // namespace
}  // namespace fvbench::wrk_keys_test
