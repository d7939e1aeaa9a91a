// The environment probe (sut/environment_probe.h) run for real on this
// machine through LocalHost: the values it reads are this machine's files,
// and on a SUT host with nginx and its Lua module, the LuaJIT facts from
// inside that nginx.
#include "support/sut/environment_probe.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "support/core/text.h"
#include "support/host/local_host.h"

namespace fvbench::environment_probe_test {
namespace {

std::string FileText(const char* path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return std::string(detail::TrimSpace(s.str()));
}

TEST(EnvironmentProbe, ReadsThisMachinesFiles) {
  LocalHost local;
  auto e = ReadHostEnvironment(local, "loadgen", ProvisionInfo{});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->role, "loadgen");
  EXPECT_EQ(e->host, local.name());
  EXPECT_EQ(e->Get("kernel_release"), FileText("/proc/sys/kernel/osrelease"));
  EXPECT_EQ(e->Get("somaxconn"), FileText("/proc/sys/net/core/somaxconn"));
  EXPECT_EQ(e->Get("clocksource"),
            FileText("/sys/devices/system/clocksource/clocksource0/current_clocksource"));
  EXPECT_FALSE(e->Get("ip_local_port_range").empty());
  EXPECT_EQ(e->Get("ip_local_port_range").find('\t'), std::string::npos);
  EXPECT_FALSE(e->Get("nofile").empty());
  EXPECT_FALSE(e->Get("virtualization").empty());
  // Nothing of the SUT's runtime on a host without nginx_bin.
  EXPECT_EQ(e->Get("nginx_build"), "");
  EXPECT_EQ(e->Get("luajit_version"), "");
}

TEST(EnvironmentProbe, ReadsLuajitInsideTheSutsNginx) {
  const char* nginx = "/usr/sbin/nginx";
  const char* modules = "/usr/lib/nginx/modules";
  if (access(nginx, X_OK) != 0 || access("/usr/lib/nginx/modules/ngx_http_lua_module.so", R_OK) != 0) {
    GTEST_SKIP() << "Debian's nginx with its Lua module is not installed here";
  }
  ProvisionInfo info;
  info.nginx_bin = nginx;
  info.load_lua_modules = true;
  info.module_dir = modules;
  LocalHost local;
  auto e = ReadHostEnvironment(local, "sut", info);
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->Get("nginx_build").rfind("nginx version: nginx/", 0), 0u) << e->Get("nginx_build");
  EXPECT_NE(e->Get("nginx_build").find("configure arguments:"), std::string::npos);
  EXPECT_EQ(e->Get("luajit_version").rfind("LuaJIT 2.", 0), 0u) << e->Get("luajit_version");
  EXPECT_TRUE(e->Get("luajit_jit") == "on" || e->Get("luajit_jit") == "off") << e->Get("luajit_jit");
  EXPECT_TRUE(e->Get("luajit_gc64") == "yes" || e->Get("luajit_gc64") == "no") << e->Get("luajit_gc64");
}

TEST(EnvironmentProbe, ScriptHoldsNoModulePathNginxWouldMisread) {
  ProvisionInfo info;
  info.nginx_bin = "/usr/sbin/nginx";
  info.load_lua_modules = true;
  info.module_dir = "/opt/mods;\nevil";
  const std::string s = EnvironmentProbeScript(info);
  EXPECT_EQ(s.find("evil"), std::string::npos);
  EXPECT_EQ(s.find("@luajit"), std::string::npos);
  EXPECT_NE(s.find("s nginx_v"), std::string::npos);
  EXPECT_EQ(s.find("s luajit"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::environment_probe_test
