// DRY_RUN provisioning plans per supported OS, checked against golden files
// (fixtures/golden/provision/<os>-<role>.plan): a dry-run host that answers
// the probe with a fixture host's recorded os-release and probe output
// (fixtures/hosts/README.md) and the OpenResty reachability check with
// "reachable" (a host with internet access; an offline host answers nothing),
// and records every other command as DryRunHost does. Regenerate with
// FVBENCH_UPDATE_GOLDEN=1.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/host/dry_run_host.h"
#include "support/sut/provision.h"
#include "support/host/shell_quote.h"
#include "tests/unit/golden.h"

namespace fvbench::provision_plans_test {
namespace {

std::string ReadFixture(const std::string& rel) {
  std::ifstream in(testing_golden::FixturesDir() + "/" + rel);
  EXPECT_TRUE(in) << "missing fixture " << rel;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What the probe prints on fixture host `os`: its probe lines, then its
// os-release prefixed as the probe's `sed 's/^/os_release./'` does.
std::string ProbeOutput(const std::string& os) {
  std::string out = ReadFixture("hosts/" + os + "/probe");
  std::istringstream rel(ReadFixture("hosts/" + os + "/os-release"));
  std::string line;
  while (std::getline(rel, line)) out += "os_release." + line + "\n";
  return out;
}

class FixtureHost : public DryRunHost {
 public:
  FixtureHost(std::string name, std::string probe_output, bool online = true)
      : DryRunHost(std::move(name), std::make_shared<DryRunPlan>()), probe_(std::move(probe_output)), online_(online) {}

  Result<ExecResult> Run(const Command& cmd) override {
    auto r = DryRunHost::Run(cmd);
    if (!r) return r;
    const std::string j = ShellJoin(cmd.argv);
    if (j.find("p nproc") != std::string::npos) r->out = probe_;
    if (j.find("&& echo reachable") != std::string::npos && online_) r->out = "reachable\n";
    return r;
  }

 private:
  std::string probe_;
  bool online_;
};

Config DryRun() {
  Config c;
  c.dry_run = true;
  c.engine = Engine::kK6;
  c.runtime = NginxRuntime::kAuto;
  c.k6_version = "v0.54.0";
  c.edge_src = "https://github.com/fairvisor/edge.git";
  c.fv_dir = "/opt/fairvisor";
  return c;
}

// The plan, headed by what provisioning decided.
std::string Plan(FixtureHost& h, const Result<ProvisionInfo>& info) {
  std::string head;
  if (info.ok()) {
    head = "# os: " + info->os + "\n";
    if (!info->runtime.empty()) head += "# runtime: " + info->runtime + " (" + info->runtime_choice + ")\n";
    if (!info->engine.empty()) head += "# engine: " + info->engine + "\n";
    head += "# installed:";
    for (const auto& i : info->installed) head += " [" + i + "]";
    head += "\n";
  } else {
    head = "# error: " + info.error().message + "\n";
  }
  return head + h.plan()->text();
}

struct PlanCase {
  const char* os;
  const char* user;  // the SSH user of the seed's examples for that OS
};
// gtest prints a parameter with this (test lists, failures), not as raw bytes.
void PrintTo(const PlanCase& c, std::ostream* os) { *os << c.user << "@" << c.os; }

class ProvisionPlans : public ::testing::TestWithParam<PlanCase> {};

TEST_P(ProvisionPlans, Sut) {
  const PlanCase& p = GetParam();
  FixtureHost h(std::string(p.user) + "@sut", ProbeOutput(p.os));
  auto info = ProvisionSut(h, DryRun());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "openresty");
  testing_golden::CompareGolden(std::string("provision/") + p.os + "-sut.plan", Plan(h, info));
}

TEST_P(ProvisionPlans, Loadgen) {
  const PlanCase& p = GetParam();
  FixtureHost h(std::string(p.user) + "@loadgen", ProbeOutput(p.os));
  auto info = ProvisionLoadgen(h, DryRun());
  ASSERT_TRUE(info.ok()) << info.error().message;
  testing_golden::CompareGolden(std::string("provision/") + p.os + "-loadgen.plan", Plan(h, info));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ProvisionPlans,
                         ::testing::Values(PlanCase{"ubuntu-24.04", "ubuntu"}, PlanCase{"ubuntu-22.04", "ubuntu"},
                                           PlanCase{"debian-12", "root"}, PlanCase{"amzn-2023", "ec2-user"},
                                           PlanCase{"rocky-9", "rocky"}, PlanCase{"alma-9", "almalinux"}),
                         [](const auto& info) {
                           std::string n = info.param.os;
                           for (char& ch : n) ch = ch == '-' || ch == '.' ? '_' : ch;
                           return n;
                         });

// NGINX_RUNTIME=auto on a Debian host: online it installs OpenResty from
// OpenResty's repository (debian-12-sut.plan); offline (openresty.org does not
// answer) it stays Debian's nginx with the Lua module.
TEST(ProvisionPlans, OfflineDebianKeepsDebiansNginx) {
  FixtureHost h("root@sut", ProbeOutput("debian-12"), /*online=*/false);
  auto info = ProvisionSut(h, DryRun());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "nginx");
  EXPECT_EQ(h.plan()->text().find("openresty.org/package/debian"), std::string::npos);
  testing_golden::CompareGolden("provision/debian-12-sut-offline.plan", Plan(h, info));
}

TEST(ProvisionPlans, K6FromTheReleaseArchive) {
  FixtureHost h("ubuntu@loadgen", ProbeOutput("ubuntu-24.04"));
  Config c = DryRun();
  c.k6_source = "archive";
  auto info = ProvisionLoadgen(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  testing_golden::CompareGolden("provision/ubuntu-24.04-loadgen-archive.plan", Plan(h, info));
}

TEST(ProvisionPlans, UnsupportedOsFailsNamingIt) {
  for (const char* os : {"alpine-3.20", "amzn-2"}) {
    FixtureHost sut("root@sut", ProbeOutput(os));
    auto s = ProvisionSut(sut, DryRun());
    ASSERT_FALSE(s.ok()) << os;
    EXPECT_NE(s.error().message.find("unsupported OS ID='"), std::string::npos) << s.error().message;
    FixtureHost lg("root@loadgen", ProbeOutput(os));
    auto l = ProvisionLoadgen(lg, DryRun());
    ASSERT_FALSE(l.ok()) << os;
    EXPECT_EQ(lg.plan()->lines().size(), 1u) << "only the probe ran:\n" << lg.plan()->text();
  }
  FixtureHost alpine("root@sut", ProbeOutput("alpine-3.20"));
  auto a = ProvisionSut(alpine, DryRun());
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message,
            "provision on host root@sut: /etc/os-release: unsupported OS ID='alpine' VERSION_ID='3.20.3' "
            "ID_LIKE=''; fvbench provisions ubuntu 22.04/24.04, debian 12, amzn 2023 (Amazon Linux 2023) and "
            "RHEL-compatible 9 hosts");
}

}  // namespace
}  // namespace fvbench::provision_plans_test
