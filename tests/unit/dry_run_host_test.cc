// DryRunHost: records one pasteable line per operation, touches nothing.
#include "support/host/dry_run_host.h"

#include <stdlib.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/local_host.h"

namespace fvbench::dry_run_host_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace fs = std::filesystem;
constexpr FileCap kTestCap{"test file", 1 << 20};

class DryRunHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fvbench-dry-run-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::shared_ptr<DryRunPlan> plan_ = std::make_shared<DryRunPlan>();
  DryRunHost sut_{"ubuntu@sut", plan_};
  std::string dir_;
};

TEST_F(DryRunHostTest, RecordsEveryOperationInOrder) {
  EXPECT_EQ(sut_.name(), "ubuntu@sut");
  Command c;
  c.argv = {"taskset", "-c", "0-3", "nginx", "-p", "/tmp/fv bench/run"};
  c.timeout = std::chrono::seconds(30);
  auto r = sut_.Run(c);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->term_signal, 0);
  EXPECT_FALSE(r->timed_out);
  EXPECT_TRUE(r->out.empty());
  EXPECT_TRUE(r->err.empty());

  ASSERT_TRUE(sut_.WriteFile("/tmp/fv-bench/nginx.conf", "worker_processes 1;\n").ok());
  ASSERT_TRUE(sut_.WriteFile("/tmp/fv-bench/run.sh", "#!/bin/sh\n", 0755).ok());
  ASSERT_TRUE(sut_.Fetch("/tmp/fv-bench/k6.json", "results/k6 run.json", kTestCap).ok());

  Command svc;
  svc.argv = {"openresty", "-g", "daemon off;"};
  svc.cwd = "/opt/fairvisor";
  svc.env = {{"FV_MODE", "bench run"}};
  auto h = sut_.StartService("edge", svc, "/tmp/fv-bench/edge.out", "/tmp/fv-bench/edge.err");
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_TRUE(sut_.IsAlive(*h));
  ASSERT_TRUE(sut_.StopService(*h).ok());
  EXPECT_FALSE(sut_.IsAlive(*h));

  EXPECT_THAT(
      plan_->lines(),
      ElementsAre(
          "[ubuntu@sut] run: taskset -c 0-3 nginx -p '/tmp/fv bench/run'  # timeout 30000 ms",
          "[ubuntu@sut] write: /tmp/fv-bench/nginx.conf (20 bytes, mode 0644)",
          "[ubuntu@sut] write: /tmp/fv-bench/run.sh (10 bytes, mode 0755)",
          "[ubuntu@sut] fetch: /tmp/fv-bench/k6.json -> 'results/k6 run.json'",
          "[ubuntu@sut] start: edge: cd /opt/fairvisor && FV_MODE='bench run' openresty -g "
          "'daemon off;' > /tmp/fv-bench/edge.out 2> /tmp/fv-bench/edge.err",
          "[ubuntu@sut] stop: edge pid " + std::to_string(h->pid)));
  EXPECT_EQ(plan_->text().size(), [&] {
    size_t n = 0;
    for (const auto& l : plan_->lines()) n += l.size() + 1;
    return n;
  }());
}

TEST_F(DryRunHostTest, TouchesNothing) {
  std::string marker = dir_ + "/created-by-run";
  Command c;
  c.argv = {"touch", marker};
  ASSERT_TRUE(sut_.Run(c).ok());
  ASSERT_TRUE(sut_.WriteFile(dir_ + "/written", "x").ok());
  ASSERT_TRUE(sut_.Fetch("/etc/hostname", dir_ + "/fetched", kTestCap).ok());
  Command s;
  s.argv = {"sh", "-c", "touch " + dir_ + "/service"};
  auto h = sut_.StartService("svc", s, dir_ + "/svc.out", dir_ + "/svc.err");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(fs::is_empty(dir_)) << "a dry run created files in " << dir_;
  EXPECT_EQ(plan_->lines().size(), 4u);
}

TEST_F(DryRunHostTest, ReadFileIsAnErrorSayingDryRun) {
  auto r = sut_.ReadFile("/etc/hostname", kTestCap);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("dry run"));
  EXPECT_THAT(r.error().message, HasSubstr("/etc/hostname"));
  EXPECT_THAT(r.error().message, HasSubstr("ubuntu@sut"));
}

TEST_F(DryRunHostTest, FakePidsIncreaseAcrossHostsSharingAPlan) {
  DryRunHost loadgen("ubuntu@loadgen", plan_);
  Command c;
  c.argv = {"k6", "run", "script.js"};
  auto a = sut_.StartService("a", c, "a.out", "a.err");
  auto b = loadgen.StartService("b", c, "b.out", "b.err");
  auto d = sut_.StartService("d", c, "d.out", "d.err");
  ASSERT_TRUE(a.ok() && b.ok() && d.ok());
  EXPECT_GT(a->pid, 1);
  EXPECT_LT(a->pid, b->pid);
  EXPECT_LT(b->pid, d->pid);
  EXPECT_THAT(plan_->lines()[1], HasSubstr("[ubuntu@loadgen] start: b: k6 run script.js"));
  // Each host stops only what it started.
  auto wrong = sut_.StopService(*b);
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.error().message, HasSubstr("not started by this host"));
  EXPECT_TRUE(loadgen.StopService(*b).ok());
  ServiceHandle init;
  init.pid = 1;
  EXPECT_FALSE(sut_.StopService(init).ok());
}

TEST_F(DryRunHostTest, EmptyArgvIsAnError) {
  Command c;
  EXPECT_FALSE(sut_.Run(c).ok());
  EXPECT_FALSE(sut_.StartService("x", c, "o", "e").ok());
}

// The command part of a run line, pasted into a real shell, runs the same argv.
TEST_F(DryRunHostTest, RunLinesArePasteable) {
  Command c;
  c.argv = {"printf", "[%s]", "a b", "it's", "$HOME", "x;y", "", "line\nbreak"};
  c.env = {{"FVB_V", "v w"}};
  ASSERT_TRUE(sut_.Run(c).ok());
  std::string line = plan_->lines().back();
  const std::string prefix = "[ubuntu@sut] run: ";
  ASSERT_EQ(line.rfind(prefix, 0), 0u) << line;
  LocalHost local;
  Command sh;
  sh.argv = {"/bin/sh", "-c", line.substr(prefix.size())};
  auto pasted = local.Run(sh);
  ASSERT_TRUE(pasted.ok()) << pasted.error().message;
  Command direct = c;
  auto expected = local.Run(direct);
  ASSERT_TRUE(expected.ok()) << expected.error().message;
  EXPECT_EQ(pasted->exit_code, 0) << pasted->err;
  EXPECT_EQ(pasted->out, expected->out);
  EXPECT_EQ(pasted->out, "[a b][it's][$HOME][x;y][][line\nbreak]");
}

}  // namespace
}  // namespace fvbench::dry_run_host_test
