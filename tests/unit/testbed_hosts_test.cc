// Testbed's load generators as one list (testbed.h, run/loadgen_hosts.h), on
// fake hosts that provisioning probes: two loadgen hosts with different CPU
// sets each get the engine's cpuset from their own CPUs, split among their
// processes; Config is never written for the engine; the pinning note and
// the run's meta name every host; hosts with one boot_id are one machine.
// Seen before: the split came from the first loadgen host's CPUs and was
// applied to all, and the note named only the first host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "support/host/local_host.h"
#include "support/run/testbed.h"
#include "tests/unit/fake_host.h"
#include "fvbench/source_dir.h"

namespace fvbench::testbed_hosts_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing_fakes::FakeHost;
namespace fs = std::filesystem;

const std::string kBootA = "11111111-2222-3333-4444-555555555555";
const std::string kBootB = "66666666-7777-8888-9999-000000000000";

struct HostFacts {
  int cpus = 2;
  std::string boot_id;
};

// What the provisioning probe prints on a Debian 12 host with everything
// installed (provision.cc kProbeScript + usable_cpus.h), with its CPUs and boot_id.
std::string ProbeOut(const HostFacts& f) {
  std::string s =
      "nginx=/usr/sbin/nginx\nlua_so=yes\ncurl=/usr/bin/curl\ngit=/usr/bin/git\ntaskset=/usr/bin/taskset\n"
      "wrk=/usr/bin/wrk\nss=/usr/bin/ss\ndpkg=/usr/bin/dpkg-query\nnofile=65536\nuid=0\narch=x86_64\n"
      "os_release.ID=debian\nos_release.VERSION_ID=\"12\"\n";
  s += "nproc=" + std::to_string(f.cpus) + "\nboot_id=" + f.boot_id + "\n";
  s += "cpus_affinity=0-" + std::to_string(f.cpus - 1) + "\ncpus_cgroup=\ncpus_online=" + std::to_string(f.cpus) + "\n";
  return s;
}

class TestbedHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    bench_ = fs::temp_directory_path() / ("fvbench-tbhosts-" + std::to_string(::getpid()));
    fs::remove_all(bench_);
  }
  void TearDown() override { fs::remove_all(bench_); }

  Config MakeConfig(const std::string& loadgens, EnvMap extra = {}) {
    ConfigInputs in;
    in.env = {{"FAIRVISOR_REMOTE", "root@sut"},
              {"LOADGEN_REMOTE", loadgens},
              {"FAIRVISOR_TARGET_HOST", "10.0.0.2"},
              {"FVBENCH_EDGE_OPTIONAL", "1"},
              {"LOADGEN_ENGINE", "wrk"},
              {"BENCH_DIR", bench_.string()}};
    for (auto& [k, v] : extra) in.env[k] = v;
    in.source_dir = FVBENCH_SOURCE_DIR;
    in.cores = 2;
    in.file_exists = [](const std::string& p) { return fs::exists(p); };
    auto c = LoadConfig(in);
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? *c : Config{};
  }

  // Opens a testbed whose hosts (by target) have the given facts.
  Result<std::unique_ptr<Testbed>> Open(const Config& c, std::map<std::string, HostFacts> facts) {
    return Testbed::Open(c, [facts](const std::string&, const std::string& target,
                                    const Config&) -> Result<std::unique_ptr<Host>> {
      auto h = std::make_unique<FakeHost>(target);
      h->On("p nproc", FakeHost::Exit(0, ProbeOut(facts.at(target))));
      h->On("dpkg-query", FakeHost::Exit(0, "nginx\tinstall ok installed\t1.22.1\n"
                                            "libnginx-mod-http-lua\tinstall ok installed\t1\n"
                                            "lua-cjson:amd64\tinstall ok installed\t2\n"
                                            "lua-resty-core\tinstall ok installed\t0.1\n"));
      h->On("nginx -v", FakeHost::Exit(0, "", "nginx version: nginx/1.22.1\n"));
      // The environment probe (sut/environment_probe.h): a kernel per host;
      // a host with 0 CPUs fails it.
      h->On("f kernel_release", FakeHost::Exit(facts.at(target).cpus == 0 ? 1 : 0,
                                               "@kernel_release\n|6.1.0-" + target + "\n@somaxconn\n|4096\n"
                                               "@nginx_v\n|nginx version: nginx/1.22.1\n"));
      // BENCH_DIR's checks (host/dir_check.h) look at this machine's temporary BENCH_DIR.
      h->On("LC_ALL=C stat", [](const Command& cmd) -> Result<ExecResult> { return LocalHost().Run(cmd); });
      return std::unique_ptr<Host>(std::move(h));
    });
  }

  fs::path bench_;
};

TEST_F(TestbedHosts, EachLoadgenHostPinnedFromItsOwnCpus) {
  const Config c = MakeConfig("root@a,root@b", {{"LOADGEN_PROCS_PER_HOST", "2"}});
  auto tb = Open(c, {{"root@sut", {16, kBootA}}, {"root@a", {16, kBootB}}, {"root@b", {8, ""}}});
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  const std::vector<LoadgenHost>& lg = (*tb)->loadgens();
  ASSERT_EQ(lg.size(), 2u);
  EXPECT_EQ(lg[0].target, "root@a");
  EXPECT_EQ(lg[0].cpuset, "8-15");
  EXPECT_EQ(lg[1].cpuset, "4-7");
  EXPECT_THAT(lg[0].process_cpusets, ElementsAre("8-11", "12-15"));
  EXPECT_THAT(lg[1].process_cpusets, ElementsAre("4-5", "6-7"));
  EXPECT_EQ(lg[0].info.boot_id, kBootB);
  // Config after Open is what was loaded: the SUT's split is the Testbed's,
  // which its services are pinned to (it was written into Config).
  EXPECT_EQ((*tb)->config().loadgen_cpuset, "");
  EXPECT_EQ((*tb)->config().oresty_cpuset, "");
  EXPECT_FALSE((*tb)->config().cpusets_auto);
  EXPECT_EQ((*tb)->sut_cpuset(), "0-7");
  EXPECT_EQ((*tb)->sut_cpus(), "0-7");
  const std::string note = (*tb)->PinningNote();
  EXPECT_THAT(note, HasSubstr("SUT root@sut: nginx cpuset 0-7 (auto 50/50 split; 16 cores, taskset yes)"));
  EXPECT_THAT(note, HasSubstr("loadgen root@a: engine cpuset 8-15 (auto 50/50 split; 16 cores, taskset yes) "
                              "[processes: 8-11 12-15]"));
  EXPECT_THAT(note, HasSubstr("loadgen root@b: engine cpuset 4-7 (auto 50/50 split; 8 cores, taskset yes) "
                              "[processes: 4-5 6-7]"));
  const RunMeta m = (*tb)->Meta();
  EXPECT_EQ(m.loadgen_host, "root@a, root@b");
  EXPECT_EQ(m.loadgen_cpuset, "root@a: 8-15, root@b: 4-7");
  EXPECT_TRUE(m.cpusets_auto);
  EXPECT_EQ(m.sut_cpuset, "0-7");
  EXPECT_EQ(m.machines, "");  // three machines
  EXPECT_EQ((*tb)->core_sharing(), "");
}

// Namespace hosts (one kernel, 2 CPUs): the SUT and a loadgen host are one
// machine, as local mode: the sharing is said, and the report names it.
TEST_F(TestbedHosts, HostsOnOneKernelShareItsCpus) {
  const Config c = MakeConfig("root@a,root@b");
  auto tb = Open(c, {{"root@sut", {2, kBootA}}, {"root@a", {2, kBootA}}, {"root@b", {2, kBootA}}});
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  EXPECT_EQ((*tb)->core_sharing(),
            "one machine (the SUT host and loadgen host root@a run one kernel, boot_id 11111111) without pinning: the "
            "load engine and the SUT share all cores");
  const RunMeta m = (*tb)->Meta();
  EXPECT_EQ(m.machines, "one machine: the SUT host root@sut, loadgen host root@a and loadgen host root@b run one "
                        "kernel (boot_id 11111111): they share its CPUs and its clock");
  EXPECT_THAT((*tb)->PinningNote(), HasSubstr("; one machine: the SUT host root@sut, loadgen host root@a"));
}

// K6_CPUSET given: checked on every host against its own CPUs, naming the one
// that lacks it (not only the first).
TEST_F(TestbedHosts, GivenCpusetCheckedOnEveryHost) {
  const Config c = MakeConfig("root@a,root@b", {{"K6_CPUSET", "10-11"}});
  auto tb = Open(c, {{"root@sut", {16, kBootA}}, {"root@a", {16, kBootB}}, {"root@b", {8, ""}}});
  ASSERT_FALSE(tb.ok());
  EXPECT_THAT(tb.error().message, HasSubstr("K6_CPUSET='10-11': CPU 10 does not exist or may not be used on loadgen "
                                            "host root@b"));
}

// The SUT's cpuset, pure: local mode keeps Config's (its own 50/50 split);
// remote mode checks ORESTY_CPUSET on the SUT host, or splits that host's
// CPUs when it has taskset and >= 8 of them. Config is read only.
TEST(SutCpusetOf, FromConfigAndTheSutHost) {
  Config local;
  local.oresty_cpuset = "0-3";
  local.cpusets_auto = true;
  ProvisionInfo sixteen;
  for (int i = 0; i < 16; ++i) sixteen.cpus.push_back(i);
  sixteen.have_taskset = true;
  auto l = detail::SutCpusetOf(local, sixteen, "local");
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->cpuset, "0-3");
  EXPECT_TRUE(l->automatic);
  Config remote;
  remote.fairvisor_remote = "root@sut";
  remote.loadgen_remotes = {"root@lg"};
  auto split = detail::SutCpusetOf(remote, sixteen, "root@sut");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->cpuset, "0-7");
  EXPECT_TRUE(split->automatic);
  EXPECT_EQ(remote.oresty_cpuset, "");
  ProvisionInfo no_taskset = sixteen;
  no_taskset.have_taskset = false;
  EXPECT_EQ(detail::SutCpusetOf(remote, no_taskset, "root@sut")->cpuset, "");
  remote.oresty_cpuset = "2-5";
  auto given = detail::SutCpusetOf(remote, sixteen, "root@sut");
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(given->cpuset, "2-5");
  EXPECT_FALSE(given->automatic);
  remote.oresty_cpuset = "20";
  auto bad = detail::SutCpusetOf(remote, sixteen, "root@sut");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("ORESTY_CPUSET='20': CPU 20 does not exist or may not be used on host root@sut"));
}

// The machine facts of each host, read once at provisioning, SUT first:
// what each host's probe printed, under its role and name. A host whose
// probe fails is left out (the run goes on).
TEST_F(TestbedHosts, EnvironmentOfEachHost) {
  const Config c = MakeConfig("root@a,root@b");
  auto tb = Open(c, {{"root@sut", {2, kBootA}}, {"root@a", {2, kBootB}}, {"root@b", {2, ""}}});
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  const std::vector<HostEnvironment> envs = (*tb)->Meta().environments;
  ASSERT_EQ(envs.size(), 3u);
  EXPECT_EQ(envs[0].role, "sut");
  EXPECT_EQ(envs[0].host, "root@sut");
  EXPECT_EQ(envs[0].Get("kernel_release"), "6.1.0-root@sut");
  EXPECT_EQ(envs[1].role, "loadgen");
  EXPECT_EQ(envs[1].host, "root@a");
  EXPECT_EQ(envs[1].Get("kernel_release"), "6.1.0-root@a");
  EXPECT_EQ(envs[2].host, "root@b");
  EXPECT_EQ(envs[2].Get("somaxconn"), "4096");
  EXPECT_EQ(envs[2].Get("cpu_governor"), "");  // not exposed
  // The edge's worker_processes as rendered, on the SUT's entry only.
  ASSERT_GT((*tb)->Meta().sut_edge_workers, 0);
  EXPECT_EQ(envs[0].Get("nginx_worker_processes"), std::to_string((*tb)->Meta().sut_edge_workers));
  EXPECT_EQ(envs[1].Get("nginx_worker_processes"), "");
}

// A loadgen on the SUT's host (as local mode): one probe, the host's facts
// under both roles, the loadgen's without the SUT runtime's values.
TEST_F(TestbedHosts, LoadgenOnTheSutsHostIsRecordedInBothRoles) {
  const Config c = MakeConfig("root@sut");
  auto tb = Open(c, {{"root@sut", {2, kBootA}}});
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  const std::vector<HostEnvironment> envs = (*tb)->Meta().environments;
  ASSERT_EQ(envs.size(), 2u);
  EXPECT_EQ(envs[0].role, "sut");
  EXPECT_EQ(envs[0].Get("nginx_build"), "nginx version: nginx/1.22.1");
  EXPECT_EQ(envs[1].role, "loadgen");
  EXPECT_EQ(envs[1].host, "root@sut");
  EXPECT_EQ(envs[1].Get("kernel_release"), "6.1.0-root@sut");
  EXPECT_EQ(envs[1].Get("nginx_build"), "");
}

TEST_F(TestbedHosts, HostWhoseEnvironmentProbeFailsIsLeftOut) {
  const Config c = MakeConfig("root@a,root@b");
  std::map<std::string, HostFacts> facts = {{"root@sut", {2, kBootA}}, {"root@a", {2, kBootB}}, {"root@b", {2, ""}}};
  auto tb = Testbed::Open(c, [facts](const std::string&, const std::string& target,
                                     const Config&) -> Result<std::unique_ptr<Host>> {
    auto h = std::make_unique<FakeHost>(target);
    h->On("p nproc", FakeHost::Exit(0, ProbeOut(facts.at(target))));
    h->On("nginx -v", FakeHost::Exit(0, "", "nginx version: nginx/1.22.1\n"));
    h->On("f kernel_release", FakeHost::Exit(target == "root@a" ? 2 : 0, "@kernel_release\n|6.1.0\n"));
    h->On("LC_ALL=C stat", [](const Command& cmd) -> Result<ExecResult> { return LocalHost().Run(cmd); });
    return std::unique_ptr<Host>(std::move(h));
  });
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  const std::vector<HostEnvironment> envs = (*tb)->Meta().environments;
  ASSERT_EQ(envs.size(), 2u);
  EXPECT_EQ(envs[0].host, "root@sut");
  EXPECT_EQ(envs[1].host, "root@b");
}

// DRY_RUN: the probes are in the plan, and nothing read is recorded.
TEST_F(TestbedHosts, DryRunPlansTheEnvironmentProbesAndRecordsNone) {
  const Config c = MakeConfig("root@a,root@b", {{"DRY_RUN", "1"}});
  auto tb = Testbed::Open(c);
  ASSERT_TRUE(tb.ok()) << tb.error().message;
  EXPECT_TRUE((*tb)->Meta().environments.empty());
  const std::string plan = (*tb)->TakePlan();
  for (const char* host : {"[root@sut] run: sh -c ", "[root@a] run: sh -c ", "[root@b] run: sh -c "}) {
    bool probed = false;
    size_t pos = 0;
    while (!probed && (pos = plan.find(host, pos)) != std::string::npos) {
      const size_t end = plan.find("\n[", pos + 1);
      probed = plan.substr(pos, end - pos).find("f kernel_release") != std::string::npos;
      pos += 1;
    }
    EXPECT_TRUE(probed) << host << " has no environment probe in the plan";
  }
}

}  // namespace
}  // namespace fvbench::testbed_hosts_test
