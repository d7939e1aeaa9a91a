// Provisioning once per run (testbed_state.h): the record round trip, and
// Testbed::Open provisioning, then reusing after a fingerprint per host, on
// this machine's own hosts (a remote-mode testbed whose connector gives a
// LocalHost per role: real probes and fingerprints, no SSH).
#include "support/core/bench_layout.h"
#include "support/run/testbed_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/core/json_fields.h"
#include "support/host/local_host.h"
#include "support/run/testbed.h"
#include "fvbench/source_dir.h"

namespace fvbench::testbed_state_test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

TEST(TestbedState, JsonRoundTrip) {
  TestbedState s;
  s.key = "mode=remote sut=root@h";
  HostRecord r;
  r.role = "sut";
  r.host = "root@h";
  r.info.host = "root@h";
  r.info.os = "debian 12 (bookworm)";
  r.info.nginx_bin = "/usr/sbin/nginx";
  r.info.cpus = {0, 1, 3};
  r.info.cores = 3;
  r.info.edge_dirty = true;
  r.info.boot_id = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
  r.info.installed = {"curl"};
  r.files = {"/tmp/fv-bench/policies/simple.json"};
  r.fingerprint = "boot=x\nbin=/usr/sbin/nginx 1 2 3\n";
  s.hosts.push_back(r);
  HostEnvironment env{"sut", "root@h", {}};
  env.Set("kernel_release", "6.1.0");
  s.environments = {env};
  auto back = TestbedStateFromJson(TestbedStateToJson(s), "state.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->key, s.key);
  ASSERT_EQ(back->hosts.size(), 1u);
  EXPECT_EQ(back->hosts[0].fingerprint, r.fingerprint);
  EXPECT_EQ(back->hosts[0].info.cpus, r.info.cpus);
  EXPECT_TRUE(back->hosts[0].info.edge_dirty);
  EXPECT_EQ(back->hosts[0].info.boot_id, r.info.boot_id);  // one kernel, one machine, in a reusing process too
  EXPECT_EQ(back->hosts[0].files, r.files);
  ASSERT_EQ(back->environments.size(), 1u);  // the preflight lint of a reusing process reads them
  EXPECT_EQ(back->environments[0].host, "root@h");
  EXPECT_EQ(back->environments[0].Get("kernel_release"), "6.1.0");
  EXPECT_THAT(TestbedStateFromJson("{}", "state.json").error().message, HasSubstr("state.json"));
  EXPECT_THAT(TestbedStateFromJson("{\"schema_version\": 9}", "s").error().message, HasSubstr("schema_version 9"));
  EXPECT_FALSE(TestbedStateFromJson("not json", "s").ok());
}

TEST(TestbedState, KeyFollowsWhatProvisioningDependsOn) {
  Config a;
  a.fairvisor_remote = "root@sut";
  a.loadgen_remotes = {"root@lg"};
  Config b = a;
  EXPECT_EQ(ProvisionKey(a, "d"), ProvisionKey(b, "d"));
  b.latency_rps = 1;  // not provisioning's business
  EXPECT_EQ(ProvisionKey(a, "d"), ProvisionKey(b, "d"));
  for (auto change : std::vector<std::function<void(Config&)>>{
           [](Config& c) { c.fv_dir = "/other"; }, [](Config& c) { c.engine = Engine::kWrk; },
           [](Config& c) { c.loadgen_cpuset = "2-3"; }, [](Config& c) { c.ssh_opts = "-p 2222"; },
           [](Config& c) { c.loadgen_remotes = {"root@lg", "root@lg2"}; }}) {
    Config c = a;
    change(c);
    EXPECT_NE(ProvisionKey(a, "d"), ProvisionKey(c, "d"));
  }
  EXPECT_NE(ProvisionKey(a, "d"), ProvisionKey(a, "e"));
}

// The tools a wrk + Debian nginx testbed needs here; provisioning would
// install a missing one, which a unit test must not do.
bool HaveLocalTestbedTools() {
  for (const char* p : {"/usr/sbin/nginx", "/usr/bin/wrk", "/usr/bin/curl", "/usr/bin/taskset", "/usr/bin/ss",
                        "/usr/lib/nginx/modules/ngx_http_lua_module.so", "/usr/bin/dpkg-query"}) {
    if (::access(p, X_OK) != 0 && ::access(p, R_OK) != 0) return false;
  }
  return true;
}

class ProvisionOnce : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveLocalTestbedTools()) GTEST_SKIP() << "needs nginx with its Lua module, wrk, curl, taskset, ss here";
    bench_ = fs::temp_directory_path() / ("fvbench-state-" + std::to_string(::getpid()));
    fs::remove_all(bench_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(bench_, ec);
  }
  Result<Config> MakeConfig(EnvMap env = {}) {
    ConfigInputs in;
    in.env = {{"FAIRVISOR_REMOTE", "root@sut.test"}, {"LOADGEN_REMOTE", "root@lg.test"},
              {"FAIRVISOR_TARGET_HOST", "127.0.0.1"},  {"LOADGEN_ENGINE", "wrk"},
              {"NGINX_RUNTIME", "nginx"},               {"FVBENCH_EDGE_OPTIONAL", "1"},
              {"BENCH_DIR", bench_.string()}};
    for (auto& [k, v] : env) in.env[k] = v;
    in.source_dir = FVBENCH_SOURCE_DIR;
    in.cores = 2;
    in.file_exists = [](const std::string& p) { return fs::exists(p); };
    return LoadConfig(in);
  }
  Result<std::unique_ptr<Testbed>> Open(const Config& c, Testbed::Provisioning p) {
    Testbed::HostConnector local = [](const std::string&, const std::string& dest,
                                      const Config&) -> Result<std::unique_ptr<Host>> {
      // A LocalHost named like the remote host (the state records the names).
      class Named : public LocalHost {
       public:
        explicit Named(std::string n) : n_(std::move(n)) {}
        std::string name() const override { return n_; }

       private:
        std::string n_;
      };
      return std::unique_ptr<Host>(std::make_unique<Named>(dest));
    };
    return Testbed::Open(c, local, p);
  }
  fs::path bench_;
};

TEST_F(ProvisionOnce, LaterProcessesReuseItAfterCheckingEachHost) {
  auto c = MakeConfig();
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto first = Open(*c, Testbed::Provisioning::kProvision);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_THAT((*first)->provisioning_note(), HasSubstr("provisioned (the run's first process)"));
  const std::string state = layout::TestbedStatePath(bench_.string());
  ASSERT_TRUE(fs::exists(state));

  auto second = Open(*c, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_THAT((*second)->provisioning_note(), HasSubstr("reused: 2 host(s) checked"));
  EXPECT_EQ((*second)->sut_info().nginx_bin, (*first)->sut_info().nginx_bin);
  EXPECT_EQ((*second)->loadgen_info().engine_version, (*first)->loadgen_info().engine_version);
  EXPECT_EQ((*second)->sut_info().cpus, (*first)->sut_info().cpus);
  // The hosts' environments, read once by the first process (this machine's
  // files under each host's name), reused with the rest.
  ASSERT_EQ((*first)->environments().size(), 2u);
  EXPECT_FALSE((*first)->environments()[0].Get("kernel_release").empty());
  ASSERT_EQ((*second)->environments().size(), 2u);
  EXPECT_EQ((*second)->environments()[1].host, (*first)->environments()[1].host);
  EXPECT_EQ((*second)->environments()[0].Get("kernel_release"), (*first)->environments()[0].Get("kernel_release"));

  // A shipped file changed on a host: that host no longer matches; the
  // process provisions and ships again, and records it.
  std::ofstream(bench_.string() + "/scripts/pace.lua", std::ios::app) << "-- changed\n";
  auto third = Open(*c, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_THAT((*third)->provisioning_note(), HasSubstr("loadgen host root@lg.test changed"));
  auto fourth = Open(*c, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(fourth.ok());
  EXPECT_THAT((*fourth)->provisioning_note(), HasSubstr("reused"));

  // Another configuration, or an unreadable record: provisioned, saying why.
  auto other = MakeConfig({{"FV_DIR", "/opt/fvbench-other"}});
  ASSERT_TRUE(other.ok());
  auto fifth = Open(*other, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(fifth.ok());
  EXPECT_THAT((*fifth)->provisioning_note(), HasSubstr("another configuration"));
  std::ofstream(state) << "{";
  auto sixth = Open(*c, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(sixth.ok());
  EXPECT_THAT((*sixth)->provisioning_note(), HasSubstr("not valid JSON"));
  // The fixture always provisions.
  auto fixture = Open(*c, Testbed::Provisioning::kProvision);
  ASSERT_TRUE(fixture.ok());
  EXPECT_THAT((*fixture)->provisioning_note(), HasSubstr("the run's first process"));
}

// The record lives in the controller's BENCH_DIR: that folder is checked
// (private, this user's: testbed.h) before the record is read, trusted or
// removed; a folder others may write refuses the run and leaves the record
// as it was. Before, the fixture's process removed the record and a
// scenario process read it before the controller's folders were checked.
TEST_F(ProvisionOnce, TheRecordIsNeitherReadNorRemovedInAFolderOthersMayWrite) {
  auto c = MakeConfig();
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto first = Open(*c, Testbed::Provisioning::kProvision);
  ASSERT_TRUE(first.ok()) << first.error().message;
  const std::string dir = bench_.string() + "/controller-results";
  const std::string state = dir + "/testbed_state.json";
  ASSERT_TRUE(fs::exists(state));
  const auto written = fs::last_write_time(state);
  fs::permissions(dir, fs::perms::group_write, fs::perm_options::add);
  for (auto p : {Testbed::Provisioning::kReuse, Testbed::Provisioning::kProvision}) {
    auto opened = Open(*c, p);
    ASSERT_FALSE(opened.ok());
    EXPECT_THAT(opened.error().message, HasSubstr("BENCH_DIR on the controller"));
    EXPECT_THAT(opened.error().message, HasSubstr(dir));
    ASSERT_TRUE(fs::exists(state)) << "the record was removed";
    EXPECT_EQ(fs::last_write_time(state), written);
  }
  fs::permissions(dir, fs::perms::group_write, fs::perm_options::remove);
  auto again = Open(*c, Testbed::Provisioning::kReuse);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_THAT((*again)->provisioning_note(), HasSubstr("reused"));
}

}  // namespace
}  // namespace fvbench::testbed_state_test
