// Package installs wait for the package manager's lock (support/sut/
// package_lock.h, step_runner.h): the wrapper script run for real here with
// a stand-in package manager, the holder's parser, and what provisioning
// says and returns around a held lock (scripted host). The whole path on a
// real apt with a real lock holder is tests/faults/package-lock-test.sh.
#include "support/sut/package_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "support/host/local_host.h"
#include "support/host/shell_quote.h"
#include "support/sut/os_packages.h"
#include "support/sut/step_runner.h"
#include "tests/unit/edge_repo.h"
#include "tests/unit/fake_host.h"

namespace fvbench::package_lock_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Clock = std::chrono::steady_clock;

// A stand-in package manager in a scratch directory: it records each call's
// arguments and fails with `message` (exit 100) for its first `fails` calls.
class StandIn : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing_edge::TempDir("fvb-lock-test"); }
  void TearDown() override { testing_edge::Sh("rm -rf " + ShellQuote(dir_)); }

  std::string Make(int fails, const std::string& message) {
    const std::string bin = dir_ + "/pkg";
    std::ofstream(bin) << "#!/bin/sh\n"
                       << "d=" << ShellQuote(dir_) << "\n"
                       << "n=$(cat \"$d/count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$d/count\"\n"
                       << "printf '%s\\n' \"$*\" >> \"$d/args\"\n"
                       << "if [ $n -le " << fails << " ]; then echo " << ShellQuote(message) << " >&2; exit 100; fi\n"
                       << "echo installed\n";
    testing_edge::Sh("chmod 755 " + ShellQuote(bin));
    return bin;
  }
  Result<ExecResult> Run(PackageFamily family, std::vector<std::string> argv, int wait_s) {
    LocalHost local;
    Command c;
    c.argv = LockWaitArgv(family, std::move(argv), wait_s);
    c.timeout = std::chrono::seconds(60);
    return local.Run(c);
  }
  int Calls() { return std::atoi(testing_edge::Sh("cat " + ShellQuote(dir_ + "/count")).c_str()); }
  std::string Args() { return testing_edge::Sh("cat " + ShellQuote(dir_ + "/args")); }
  std::string dir_;
};

TEST_F(StandIn, AptLockIsWaitedForThenTheCommandRuns) {
  const std::string pkg = Make(1, "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 812 (apt-get)");
  const auto t0 = Clock::now();
  auto r = Run(PackageFamily::kApt, {pkg, "install", "git"}, 20);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_THAT(r->out, HasSubstr("installed"));
  EXPECT_EQ(Calls(), 2);
  EXPECT_GE(Clock::now() - t0, std::chrono::seconds(2));
  // apt waits for the dpkg frontend lock itself, for the time that is left.
  EXPECT_THAT(Args(), ::testing::MatchesRegex("install git -o DPkg::Lock::Timeout=(20|19)\n"
                                              "install git -o DPkg::Lock::Timeout=1[5-8]\n"));
}

TEST_F(StandIn, WaitEndsWithTempfailAndTheLastTrysMessage) {
  const std::string pkg = Make(1000, "E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend)");
  const auto t0 = Clock::now();
  auto r = Run(PackageFamily::kApt, {pkg, "install", "git"}, 1);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, kLockWaitExpired);
  EXPECT_THAT(r->err, HasSubstr("Unable to acquire the dpkg frontend lock"));
  EXPECT_THAT(r->err, HasSubstr("fvbench: the package manager's lock is still held after 1 s"));
  EXPECT_LT(Clock::now() - t0, std::chrono::seconds(10));
}

TEST_F(StandIn, OtherFailuresAreTheCommandsOwnAtOnce) {
  const std::string pkg = Make(1000, "E: Unable to locate package git");
  auto r = Run(PackageFamily::kApt, {pkg, "install", "git"}, 20);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 100);
  EXPECT_THAT(r->err, HasSubstr("Unable to locate package git"));
  EXPECT_EQ(Calls(), 1);
}

TEST_F(StandIn, DnfLockIsRetriedWithoutAptsOption) {
  const std::string pkg = Make(1, "RPMDB already locked by 812");
  auto r = Run(PackageFamily::kDnf, {pkg, "install", "-y", "git"}, 20);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(Calls(), 2);
  EXPECT_EQ(Args(), "install -y git\ninstall -y git\n");
}

TEST_F(StandIn, TheCommandsWordsAreDataToTheWrapper) {
  const std::string pkg = Make(0, "");
  auto r = Run(PackageFamily::kDnf, {pkg, "$(touch " + dir_ + "/pwned)", "`id`;x"}, 5);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_code, 0) << r->err;
  EXPECT_EQ(Args(), "$(touch " + dir_ + "/pwned) `id`;x\n");
  EXPECT_THAT(testing_edge::Markers(dir_ + "/pwned"), ::testing::IsEmpty());
}

TEST(LockHolders, ParsedOncePerProcess) {
  auto h = ParseLockHolders(
      "held=/var/lib/dpkg/lock-frontend 812 unattended-upgr\n"
      "held=/var/lib/dpkg/lock 812 unattended-upgr\n"
      "held=/var/lib/apt/lists/lock 901 apt-get\n"
      "held=/var/lib/rpm/.rpm.lock 0 nothing\n"
      "held=/var/lib/dnf/rpmdb_lock.pid 77 \n"
      "noise\n");
  ASSERT_EQ(h.size(), 3u);
  EXPECT_EQ(h[0].file, "/var/lib/dpkg/lock-frontend");
  EXPECT_EQ(h[0].pid, 812);
  EXPECT_EQ(h[0].comm, "unattended-upgr");
  EXPECT_EQ(DescribeLockHolders(h),
            "process 812 (unattended-upgr) holding /var/lib/dpkg/lock-frontend, process 901 (apt-get) holding "
            "/var/lib/apt/lists/lock, process 77 (gone) holding /var/lib/dnf/rpmdb_lock.pid");
  EXPECT_EQ(DescribeLockHolders({}), "");
}

TEST(LockHolders, InstallAndRefreshArgvWaitForTheLock) {
  auto a = InstallArgv(PackageFamily::kApt, {"git"}, false, 120);
  EXPECT_TRUE(IsLockWaitArgv(a));
  EXPECT_EQ(ShellJoin(LockWaitedCommand(a)),
            "sudo -n env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git");
  EXPECT_EQ(a[4], "120");
  EXPECT_EQ(a[5], "apt");
  auto d = RefreshArgv(PackageFamily::kDnf, true, 0);
  EXPECT_EQ(ShellJoin(LockWaitedCommand(d)), "env LC_ALL=C dnf makecache --setopt=exit_on_lock=True");
  EXPECT_EQ(d[5], "dnf");
  EXPECT_FALSE(IsLockWaitArgv({"sh", "-c", "true"}));
}

// What provisioning says before a package step while another process holds
// the lock, and what it returns when the wait ends.
using testing_fakes::FakeHost;

const char kHeld[] = "held=/var/lib/dpkg/lock-frontend 812 unattended-upgr\n";

TEST(StepRunnerLock, SaysWhoHoldsTheLockAndHowLongItWaits) {
  FakeHost h("sut");
  h.On("held=%s", FakeHost::Exit(0, kHeld));
  Config c;
  c.package_lock_wait_s = 120;
  StepRunner r(h, c);
  ::testing::internal::CaptureStderr();
  auto ok = r.Install("apt-get install git", PackageFamily::kApt, {"git"}, true);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_THAT(said, HasSubstr("fvbench provision: host sut: process 812 (unattended-upgr) holding "
                              "/var/lib/dpkg/lock-frontend: apt-get install git waits up to 120 s for it "
                              "(FVBENCH_PACKAGE_LOCK_WAIT_S)"));
  auto install = h.Find("apt-get install");
  ASSERT_TRUE(install.has_value());
  EXPECT_EQ(install->timeout, std::chrono::minutes(10) + std::chrono::seconds(120)) << "its own time and the wait";
}

TEST(StepRunnerLock, ExpiredWaitNamesTheHolderAndRefreshesNothing) {
  FakeHost h("sut");
  h.On("held=%s", FakeHost::Exit(0, kHeld));
  h.On("apt-get install", FakeHost::Exit(kLockWaitExpired, "", "E: Could not get lock /var/lib/dpkg/lock-frontend"));
  Config c;
  StepRunner r(h, c);
  ::testing::internal::CaptureStderr();
  auto e = r.Install("apt-get install git", PackageFamily::kApt, {"git"}, true);
  ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(e.ok());
  const std::string& m = e.error().message;
  EXPECT_THAT(m, HasSubstr("provision apt-get install git on host sut: the package manager's lock was still held "
                           "after 300 s (FVBENCH_PACKAGE_LOCK_WAIT_S)"));
  EXPECT_THAT(m, HasSubstr("held now by process 812 (unattended-upgr) holding /var/lib/dpkg/lock-frontend"));
  EXPECT_THAT(m, HasSubstr("`env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                           "git` said: E: Could not get lock"));
  EXPECT_THAT(m, Not(HasSubstr("kind=$2"))) << "the wrapper's text is not the command shown";
  EXPECT_FALSE(h.Ran("apt-get update"));
}

TEST(StepRunnerLock, ExpiredWaitWhoseHolderHasJustEndedSaysRunAgain) {
  FakeHost h("sut");
  h.On("apt-get update", FakeHost::Exit(kLockWaitExpired, "", "E: Could not get lock /var/lib/apt/lists/lock"));
  Config c;
  c.package_lock_wait_s = 5;
  StepRunner r(h, c);
  auto e = r.Must("openresty apt-get update", RefreshArgv(PackageFamily::kApt, true, 5));
  ASSERT_FALSE(e.ok());
  EXPECT_THAT(e.error().message, HasSubstr("still held after 5 s"));
  EXPECT_THAT(e.error().message, HasSubstr("no process holds it now: run again"));
}

}  // namespace
}  // namespace fvbench::package_lock_test
