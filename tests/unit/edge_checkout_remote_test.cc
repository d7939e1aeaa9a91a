// Provisioning's edge checkout on a remote SUT host through a REAL sshd: the
// namespace SUT host of fixtures/testhosts/netns-hosts.sh, which shares this
// machine's filesystem, so the checkouts made here are the host's. A
// checkout used in place there has its commit and dirtiness recorded with
// its fsmonitor and hooks off; one owned by another user is refused naming
// the owner and the host. Hosts from FVBENCH_TESTHOSTS=<state dir> (CTest's
// fixture unit.SshTestHostsUp); without them the tests skip, saying so.
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/host/ssh_host.h"
#include "support/sut/edge_checkout.h"
#include "tests/unit/edge_repo.h"

namespace fvbench::edge_checkout_remote_test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using namespace testing_edge;

struct SutHost {
  std::string dest;
  std::string ssh_opts;
};

// The SUT host of the test hosts that are up, or why there is none.
Result<SutHost> FromEnv() {
  const char* d = std::getenv("FVBENCH_TESTHOSTS");
  if (d == nullptr || *d == '\0') return Error{"FVBENCH_TESTHOSTS is not set (the namespace SSH test hosts are not up)"};
  std::ifstream f(std::string(d) + "/env");
  SutHost h;
  std::string line;
  while (std::getline(f, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') v = v.substr(1, v.size() - 2);
    if (k == "FAIRVISOR_REMOTE") h.dest = v;
    if (k == "SSH_OPTS") h.ssh_opts = v;
  }
  if (h.dest.empty() || h.ssh_opts.empty()) return Error{std::string(d) + "/env names no SUT host"};
  return h;
}

class RemoteEdgeCheckout : public ::testing::Test {
 protected:
  void SetUp() override {
    auto sut = FromEnv();
    if (!sut.ok()) GTEST_SKIP() << sut.error().message;
    auto target = LoadSshTarget(sut->dest, sut->ssh_opts, "/dev/null");
    ASSERT_TRUE(target.ok()) << target.error().message;
    auto host = SshHost::Connect(*target);
    ASSERT_TRUE(host.ok()) << host.error().message;
    host_ = std::move(*host);
    dir_ = TempDir("fvb-edge-remote");
    Sh("chmod 755 " + ShellQuote(dir_));
    marker_ = dir_ + "/pwned";
  }
  void TearDown() override {
    if (!dir_.empty()) Sh("rm -rf " + ShellQuote(dir_));
  }
  Result<EdgeCheckoutInfo> Provision(const std::string& src) {
    Config c;
    c.edge_src = src;
    StepRunner r(*host_, c);
    return ProvisionEdgeCheckout(r, /*root=*/true, /*have_git=*/true);
  }
  std::unique_ptr<SshHost> host_;
  std::string dir_;
  std::string marker_;
};

TEST_F(RemoteEdgeCheckout, OwnCheckoutOnTheSutHostRecordsCommitAndDirtiness) {
  const std::string edge = dir_ + "/edge";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  auto info = Provision(edge);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->edge_commit, HeadOf(edge));
  EXPECT_FALSE(info->edge_dirty);
  Sh("echo changed >> " + ShellQuote(edge + "/src/nginx/init_worker.lua"));
  auto dirty = Provision(edge);
  ASSERT_TRUE(dirty.ok()) << dirty.error().message;
  EXPECT_TRUE(dirty->edge_dirty);
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

TEST_F(RemoteEdgeCheckout, ForeignCheckoutOnTheSutHostIsRefusedNamingOwnerAndHost) {
  const std::string edge = dir_ + "/edge-foreign";
  MakeEdgeRepo(edge);
  ArmRepo(edge + "/.git", marker_);
  Sh("chown -R nobody " + ShellQuote(edge));
  auto info = Provision(edge);
  ASSERT_FALSE(info.ok());
  const std::string& m = info.error().message;
  EXPECT_THAT(m, HasSubstr("on host " + host_->name()));
  EXPECT_THAT(m, HasSubstr("FAIRVISOR_EDGE_SRC=" + edge + " is owned by nobody (uid 65534), not by root (uid 0)"));
  EXPECT_THAT(m, HasSubstr("git config --global --add safe.directory " + edge));
  EXPECT_THAT(Markers(marker_), IsEmpty());
}

}  // namespace
}  // namespace fvbench::edge_checkout_remote_test
