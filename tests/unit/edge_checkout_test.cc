// Provisioning's edge checkout (support/sut/edge_checkout.h) with real git on
// this machine (LocalHost): no program a repository names runs (fsmonitor,
// hooks), option-shaped values and ext:: URLs reach git as data, a checkout
// owned by someone else is refused naming its owner (as root: chown nobody;
// skipped otherwise), git's own opt-in is honoured, and file:// URLs and
// paths holding ':' clone.
#include "support/sut/edge_checkout.h"

#include <stdlib.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>

#include "support/host/local_host.h"
#include "support/sut/provision.h"
#include "tests/unit/edge_repo.h"

namespace fvbench::edge_checkout_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace testing_edge;

Config InPlace(const std::string& src) {
  Config c;
  c.edge_src = src;
  return c;
}

Config Cloned(const std::string& src, const std::string& ref, const std::string& fv_dir) {
  Config c;
  c.edge_src = src;
  c.edge_ref = ref;
  c.fv_dir = fv_dir;
  return c;
}

Result<EdgeCheckoutInfo> Provision(const Config& c) {
  LocalHost local;
  StepRunner r(local, c);
  return ProvisionEdgeCheckout(r, /*root=*/::geteuid() == 0, /*have_git=*/true);
}

// HOME (git's --global config) pointed elsewhere for one test.
class ScopedHome {
 public:
  explicit ScopedHome(const std::string& home) {
    if (const char* h = std::getenv("HOME")) old_ = h;
    ::setenv("HOME", home.c_str(), 1);
  }
  ~ScopedHome() {
    if (old_) ::setenv("HOME", old_->c_str(), 1);
    else ::unsetenv("HOME");
  }

 private:
  std::optional<std::string> old_;
};

class EdgeCheckout : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempDir("fvb-edge-test");
    marker_ = dir_ + "/pwned";
  }
  void TearDown() override { Sh("rm -rf " + ShellQuote(dir_)); }
  std::string dir_;
  std::string marker_;  // the prefix of every marker file
};

TEST_F(EdgeCheckout, OwnCheckoutInPlaceRecordsCommitAndDirtinessRunningNoRepositoryProgram) {
  const std::string edge = dir_ + "/edge";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  auto info = Provision(InPlace(edge));
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(info->edge_in_place);
  EXPECT_EQ(info->edge_dir, edge);
  EXPECT_EQ(info->edge_commit, HeadOf(edge));
  EXPECT_FALSE(info->edge_dirty);
  Sh("echo changed >> " + ShellQuote(edge + "/src/nginx/init_worker.lua"));
  auto dirty = Provision(InPlace(edge));
  ASSERT_TRUE(dirty.ok()) << dirty.error().message;
  EXPECT_TRUE(dirty->edge_dirty);
  // Before: `git -c safe.directory=<dir> status` ran the repository's fsmonitor.
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

// The fingerprint that lets a later process of the run reuse provisioning
// (provision.h, testbed_state.h) reads the checkout with provisioning's own
// git commands: the same commit, no program of the repository run, and a
// checkout git refuses as someone else's shows the refusal, not the commit.
// Before, the fingerprint ran `git -c safe.directory=<dir> status`: the
// armed fsmonitor ran (as root) and the foreign checkout gave its commit.
TEST_F(EdgeCheckout, ProvisioningFingerprintReadsTheCheckoutAsProvisioningDoes) {
  const std::string edge = dir_ + "/edge";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  ProvisionInfo info;
  info.edge_dir = edge;
  const std::string script = ProvisionFingerprintScript(info, {});
  EXPECT_THAT(script, Not(HasSubstr("safe.directory")));
  const std::string head = HeadOf(edge);
  const std::string out = Sh(script);
  EXPECT_THAT(out, HasSubstr("\nedge=" + head + " \n"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
  if (::geteuid() != 0) GTEST_SKIP() << "needs root for the foreign checkout: chown nobody";
  Sh("chown -R nobody " + ShellQuote(edge));
  const std::string foreign = Sh(script);
  EXPECT_THAT(foreign, Not(HasSubstr("edge=" + head)));
  EXPECT_THAT(foreign, HasSubstr("dubious ownership"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

// Case 03: a checkout owned by another user whose config names an fsmonitor.
TEST_F(EdgeCheckout, ForeignCheckoutIsRefusedNamingItsOwnerAndRunsNothing) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the checkout is handed to nobody with chown";
  Sh("chmod 755 " + ShellQuote(dir_));
  const std::string edge = dir_ + "/edge-foreign";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  Sh("chown -R nobody " + ShellQuote(edge));
  ScopedHome home(dir_);  // no safe.directory from this machine's own ~/.gitconfig
  auto info = Provision(InPlace(edge));
  ASSERT_FALSE(info.ok());
  const std::string& m = info.error().message;
  EXPECT_THAT(m, HasSubstr("FAIRVISOR_EDGE_SRC=" + edge + " is owned by nobody (uid 65534), not by root (uid 0)"));
  EXPECT_THAT(m, HasSubstr("git config --global --add safe.directory " + edge));
  EXPECT_THAT(m, HasSubstr("host local"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST_F(EdgeCheckout, ForeignCheckoutAfterGitsOwnOptInIsUsedWithItsProgramsOff) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root: the checkout is handed to nobody with chown";
  Sh("chmod 755 " + ShellQuote(dir_));
  const std::string edge = dir_ + "/edge-foreign";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  const std::string commit = HeadOf(edge);
  Sh("chown -R nobody " + ShellQuote(edge));
  const std::string home_dir = dir_ + "/home";
  Sh("mkdir " + ShellQuote(home_dir));
  ScopedHome home(home_dir);
  Sh("git config --global --add safe.directory " + ShellQuote(edge));  // the user's own, explicit choice
  auto info = Provision(InPlace(edge));
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->edge_commit, commit);
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

// Case 01's value, as if it had got past LoadConfig, with a ref (so it is
// cloned) and an FV_DIR holding ':': a path to git, not an option.
TEST_F(EdgeCheckout, OptionShapedSourceReachingCloneIsAPathNotAnOption) {
  auto info = Provision(Cloned("--upload-pack=touch " + marker_ + "-upload-pack;#://", "main", dir_ + "/fv1b:x"));
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.error().message, HasSubstr("edge clone"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST_F(EdgeCheckout, ExtUrlIsNeverRun) {
  auto info = Provision(Cloned("ext::sh -c touch% " + marker_ + "-ext", "main", dir_ + "/fv"));
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.error().message, HasSubstr("transport 'ext' not allowed"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST_F(EdgeCheckout, OptionShapedRefReachingGitIsARevisionNotAnOption) {
  const std::string src = dir_ + "/src";
  MakeEdgeRepo(src);
  auto info = Provision(Cloned(src, "--output=" + marker_ + "-ref", dir_ + "/fv"));
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.error().message, HasSubstr("is not a branch, tag or commit"));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST_F(EdgeCheckout, PathHoldingAColonAndFileUrlAreCloned) {
  const std::string src = dir_ + "/src:1/edge";
  MakeEdgeRepo(src);
  auto a = Provision(Cloned(src, "v1", dir_ + "/fv:a"));
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_TRUE(a->cloned);
  EXPECT_EQ(a->edge_dir, dir_ + "/fv:a");
  EXPECT_EQ(a->edge_commit, HeadOf(src, "v1^{commit}"));
  auto b = Provision(Cloned("file://" + src, "v1", dir_ + "/fv-b"));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->edge_commit, HeadOf(src, "v1^{commit}"));
}

// An existing clone whose hooks and fsmonitor would run on fetch, checkout
// and status: moved to another ref without running any of them.
TEST_F(EdgeCheckout, ExistingCloneWithHooksMovesToTheRefRunningNone) {
  const std::string src = dir_ + "/src";
  const std::string fv = dir_ + "/fv";
  MakeEdgeRepo(src);
  auto first = Provision(Cloned(src, "v1", fv));
  ASSERT_TRUE(first.ok()) << first.error().message;
  ArmRepo(fv + "/.git", marker_);
  AddCommit(src, "v2");
  auto second = Provision(Cloned(src, "v2", fv));
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE(second->cloned);
  EXPECT_EQ(second->edge_commit, HeadOf(src, "v2^{commit}"));
  // Before: `git -c safe.directory=<dir> checkout` ran post-checkout and reference-transaction.
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST(GitArgv, TurnsRepositoryProgramsOffAndNeverTouchesSafeDirectory) {
  EXPECT_EQ(ShellJoin(detail::GitArgv("/opt/fv", {"status"})),
            "git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c protocol.ext.allow=never "
            "--no-optional-locks -C /opt/fv status");
  EXPECT_EQ(ShellJoin(detail::GitArgv("", {"clone"})),
            "git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c protocol.ext.allow=never "
            "--no-optional-locks clone");
  auto env = detail::GitEnv("/opt/fv");
  EXPECT_EQ(env["GIT_TERMINAL_PROMPT"], "0");
  EXPECT_EQ(env["GIT_CEILING_DIRECTORIES"], "/opt");
  EXPECT_TRUE(detail::IsDubiousOwnership("fatal: detected dubious ownership in repository at '/x'"));
  EXPECT_TRUE(detail::IsDubiousOwnership("fatal: unsafe repository ('/x' is owned by someone else)"));
  EXPECT_FALSE(detail::IsDubiousOwnership("fatal: not a git repository"));
}

}  // namespace
}  // namespace fvbench::edge_checkout_test
