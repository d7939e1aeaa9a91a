// PerfProfiler (support/sut/perf_capture.h) on the real local stack: a
// throwaway Debian nginx (one worker, loopback ports 18350-18399) under a
// short wrk load, perf attached to its worker for 3 s; the perf script text
// fetched to the "controller" folder must hold samples of that worker with
// kernel frames ([kernel.kallsyms]) and nginx's own (ngx_http_*) in at least
// a fifth of them (DWARF unwinding: measured 117 of 216; frame pointers gave
// 8 of 192, perf_capture.h), and the SUT-side perf.data and text must be gone.
//
// Label `faults` (preset `faults`), root only like the other fault tests;
// fails without nginx, wrk or a working perf (support/setup-debian.sh installs them). About 6 s.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "support/host/local_host.h"
#include "support/sut/perf_capture.h"

namespace fvbench {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

bool Runs(LocalHost& h, std::vector<std::string> argv) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = std::chrono::seconds(10);
  auto r = h.Run(c);
  return r.ok() && r->success();
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

TEST(PerfCaptureReal, SamplesTheWorkerWithKernelAndNginxFrames) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, like the other fault tests (preset faults)";
  LocalHost host;
  ASSERT_TRUE(Runs(host, {"sh", "-c", "command -v nginx && command -v wrk && perf --version"}))
      << "nginx, wrk or perf not installed: run support/setup-debian.sh (perf: linux-perf)";
  const std::string dir = "/tmp/fvb-perf-real-" + std::to_string(::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir + "/logs");
  int port = 0;
  for (int p = 18350; p < 18400 && port == 0; ++p) {
    if (Bindable(p)) port = p;
  }
  ASSERT_NE(port, 0) << "no free port in 18350-18399";
  std::ofstream(dir + "/nginx.conf") << "worker_processes 1;\ndaemon off;\npid " << dir << "/nginx.pid;\nerror_log "
                                     << dir << "/logs/error.log;\nevents { worker_connections 1024; }\nhttp {\n"
                                     << "  access_log off;\n  keepalive_requests 100000;\n  server {\n    listen 127.0.0.1:"
                                     << port << ";\n    location / { return 200 \"ok\\n\"; }\n  }\n}\n";
  Command start;
  start.argv = {"nginx", "-p", dir, "-c", dir + "/nginx.conf", "-e", dir + "/logs/error.log"};
  auto svc = host.StartService("nginx-perf", start, dir + "/logs/out", dir + "/logs/err");
  ASSERT_TRUE(svc.ok()) << svc.error().message;
  for (int i = 0; i < 500 && !Accepts(port); ++i) std::this_thread::sleep_for(milliseconds(2));
  ASSERT_TRUE(Accepts(port)) << "nginx does not accept on " << port;

  auto workers = WorkerPids(host, svc->pid);
  ASSERT_TRUE(workers.ok()) << workers.error().message;
  ASSERT_EQ(workers->size(), 1u) << "worker_processes 1";
  PerfProfiler perf(host, {{"baseline", svc->pid, dir}}, PerfOptions{99, false});
  auto prepared = perf.Prepare();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;

  Command load;
  load.argv = {"wrk", "-t1", "-c20", "-d5s", "http://127.0.0.1:" + std::to_string(port) + "/"};
  load.timeout = std::chrono::seconds(15);
  auto wrk = std::async(std::launch::async, [&] { return host.Run(load); });
  std::this_thread::sleep_for(milliseconds(500));
  ASSERT_TRUE(perf.Start(3).ok());
  auto ran = wrk.get();
  ProfileFetch got = perf.Finish(dir + "/controller");
  (void)host.StopService(*svc, std::chrono::seconds(5));
  ASSERT_TRUE(ran.ok() && ran->success()) << (ran.ok() ? ran->err : ran.error().message);
  ASSERT_TRUE(got.errors.empty()) << got.errors.front();
  ASSERT_EQ(got.files.size(), 1u);
  EXPECT_EQ(got.files[0].path, dir + "/controller/baseline.perf.txt");

  std::ifstream in(got.files[0].path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  // perf script's sample header: "<comm> <pid> [...] <time>: <period> cpu-clock..."
  const std::string worker = " " + std::to_string(workers->front()) + " ";
  size_t samples = 0, of_worker = 0;
  std::istringstream lines(s);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '\t' || line[0] == ' ') continue;
    ++samples;
    if (line.find(worker) != std::string::npos && line.find("cpu-clock") != std::string::npos) ++of_worker;
  }
  std::printf("MEASURED | perf at 99 Hz for 3 s on one nginx worker under wrk -c20 | %zu samples, %zu of the worker, "
              "%zu bytes of perf script text\n",
              samples, of_worker, s.size());
  EXPECT_GT(of_worker, 30u) << "a busy worker for 3 s at 99 Hz gives ~300 samples";
  EXPECT_EQ(of_worker, samples) << "only the worker is sampled (-p)";
  EXPECT_NE(s.find("[kernel.kallsyms]"), std::string::npos) << "no kernel frames";
  EXPECT_NE(s.find("ngx_http_"), std::string::npos) << "no nginx frames";
  size_t with_ngx = 0, blocks = 0;
  for (size_t at = 0; at < s.size();) {
    const size_t end = std::min(s.find("\n\n", at), s.size());
    ++blocks;
    if (s.substr(at, end - at).find("ngx_http_") != std::string::npos) ++with_ngx;
    at = end + 2;
  }
  std::printf("MEASURED | %zu of %zu stacks hold an ngx_http_ frame\n", with_ngx, blocks);
  EXPECT_GE(with_ngx * 5, blocks) << "the user stacks are not unwound (frame pointers?)";
  EXPECT_FALSE(fs::exists(dir + "/baseline.perf.data"));
  EXPECT_FALSE(fs::exists(dir + "/baseline.perf.txt"));
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace fvbench
