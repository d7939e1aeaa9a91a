// Provisioning logic against a scripted Host: which commands run, what is
// installed, what is reported, and the error messages.
#include "support/sut/provision.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>

#include "support/host/shell_quote.h"
#include "support/sut/package_lock.h"
#include "support/sut/step_runner.h"
#include "tests/unit/fake_host.h"

namespace fvbench::provision_test {
namespace {

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

ExecResult Ok(std::string out = "", std::string err = "") {
  ExecResult r;
  r.exit_code = 0;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}
ExecResult Fail(int code, std::string err) {
  ExecResult r;
  r.exit_code = code;
  r.err = std::move(err);
  return r;
}

// The shared fake host (fake_host.h): the first rule whose needle occurs in
// the shell-joined argv answers; otherwise exit 0 with no output.
using ScriptedHost = testing_fakes::FakeHost;

const char kProbeMarker[] = "p nproc";  // a line of the probe script

std::string ProbeOut(std::map<std::string, std::string> over = {}) {
  std::map<std::string, std::string> kv = {
      {"openresty", ""},       {"nginx", "/usr/sbin/nginx"}, {"lua_so", "yes"},
      {"curl", "/usr/bin/curl"}, {"git", "/usr/bin/git"},   {"taskset", "/usr/bin/taskset"},
      {"wrk", "/usr/bin/wrk"}, {"k6", ""},                   {"dpkg", "/usr/bin/dpkg-query"},
      {"nproc", "8"},          {"nofile", "65536"},          {"uid", "0"},
      {"arch", "x86_64"},      {"ss", "/usr/bin/ss"},       {"gpg", "/usr/bin/gpg"},
      {"cacerts", "yes"},
      // A Debian 12 host's /etc/os-release, as the probe prints it.
      {"os_release.ID", "debian"}, {"os_release.VERSION_ID", "\"12\""},
      {"os_release.VERSION_CODENAME", "bookworm"}};
  for (auto& [k, v] : over) kv[k] = v;
  std::string s;
  for (auto& [k, v] : kv) s += k + "=" + v + "\n";
  return s;
}

const char kDpkgAll[] =
    "nginx\tinstall ok installed\t1.22.1-9+deb12u11\n"
    "libnginx-mod-http-lua\tinstall ok installed\t1:0.10.23-1+deb12u1\n"
    "lua-cjson:amd64\tinstall ok installed\t2.1.0+dfsg-2.2\n"
    "lua-resty-core\tinstall ok installed\t0.1.25-1\n";

// The first probe answers `before`, later ones (after installs) `after`.
void ProbeBeforeAfter(ScriptedHost& h, std::map<std::string, std::string> before,
                      std::map<std::string, std::string> after) {
  auto n = std::make_shared<int>(0);
  h.On(kProbeMarker, [n, before, after](const Command&) -> Result<ExecResult> {
    return Ok(ProbeOut(++*n == 1 ? before : after));
  });
}

Config LocalEdge() {
  Config c;
  c.edge_src = "/srv/edge";
  return c;
}

void EdgeOk(ScriptedHost& h) {
  h.On("init_worker", Ok("template=yes\ninit_worker=yes\nasn=/srv/edge/asn_type.map\n"));
  h.On("rev-parse --verify HEAD", Ok("abc123\n"));
}

// The git options every git command of provisioning starts with (edge_checkout.h).
const char kGit[] = "git -c core.fsmonitor=false -c core.hooksPath=/dev/null -c protocol.ext.allow=never "
                    "--no-optional-locks";

TEST(ProvisionSut, AlreadyProvisionedOnlyLooksUp) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("nginx -v", Ok("", "nginx version: nginx/1.22.1\n"));
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "nginx");
  EXPECT_EQ(info->nginx_bin, "/usr/sbin/nginx");
  EXPECT_EQ(info->runtime_version, "nginx version: nginx/1.22.1");
  EXPECT_EQ(info->lua_module_version, "libnginx-mod-http-lua 1:0.10.23-1+deb12u1");
  EXPECT_TRUE(info->load_lua_modules);
  EXPECT_TRUE(info->edge_in_place);
  EXPECT_EQ(info->edge_dir, "/srv/edge");
  EXPECT_EQ(info->edge_commit, "abc123");
  EXPECT_FALSE(info->edge_dirty);
  EXPECT_EQ(info->asn_map_path, "/srv/edge/asn_type.map");
  EXPECT_EQ(info->cores, 8);
  EXPECT_EQ(info->nofile, 65536);
  EXPECT_TRUE(info->have_taskset);
  EXPECT_TRUE(info->installed.empty());
  EXPECT_FALSE(h.Ran("apt-get"));
  EXPECT_FALSE(h.Ran("git clone"));
  EXPECT_EQ(info->os, "debian 12 (bookworm)");
  EXPECT_EQ(h.Calls().size(), 7u)
      << "probe, openresty.org reachable (auto), dpkg-query, nginx -v, edge check, git rev-parse, git status";
  EXPECT_TRUE(h.Ran(std::string(kGit) + " -C /srv/edge rev-parse --verify HEAD"));
  EXPECT_TRUE(h.Ran(std::string(kGit) + " -C /srv/edge status --porcelain --untracked-files=no"));
  EXPECT_FALSE(h.Ran("safe.directory"));
}

TEST(ProvisionSut, EdgeSkippedTouchesNoCheckout) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("nginx -v", Ok("", "nginx version: nginx/1.22.1\n"));
  Config c;  // default edge_src is the GitHub URL: it must not be cloned
  c.edge_skipped = true;
  auto info = ProvisionSut(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "nginx");
  EXPECT_TRUE(info->edge_dir.empty());
  EXPECT_FALSE(h.Ran("git clone"));
  EXPECT_FALSE(h.Ran("rev-parse"));
  EXPECT_FALSE(h.Ran("init_worker"));
}

TEST(ProvisionSut, InstallsOnlyMissingPackages) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"git", ""}})));
  h.On("dpkg-query", Ok("nginx\tinstall ok installed\t1\nlibnginx-mod-http-lua\tinstall ok installed\t2\n"
                        "lua-resty-core\tinstall ok installed\t3\n"
                        "lua-cjson\tdeinstall ok config-files\t2.1\n"));
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  auto apt = h.Find("apt-get install");
  ASSERT_TRUE(apt.has_value());
  // git is missing too, but an edge checkout used in place needs no clone.
  EXPECT_EQ(ShellJoin(LockWaitedCommand(apt->argv)),
            "env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends lua-cjson");
  EXPECT_TRUE(Has(ShellJoin(apt->argv), " fvbench-lock-wait 300 apt env ")) << "waits for the lock (package_lock.h)";
  EXPECT_EQ(info->installed, (std::vector<std::string>{"lua-cjson"}));
}

// FVBENCH_PROFILE=cpu: perf is probed (`perf --version`'s status) and its
// package installed when it does not run (Debian: linux-perf; Ubuntu: the
// wrapper and the running kernel's tools); off, the probe asks nothing of
// perf and nothing more is installed.
TEST(ProvisionSut, PerfIsProbedAndInstalledOnlyWhenCpuProfilesAreOn) {
  ScriptedHost off;
  off.On(kProbeMarker, Ok(ProbeOut()));
  off.On("dpkg-query", Ok(kDpkgAll));
  EdgeOk(off);
  auto plain = ProvisionSut(off, LocalEdge());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(off.Ran("perf"));
  EXPECT_FALSE(off.Ran("apt-get install"));

  ScriptedHost debian;
  debian.On(kProbeMarker, Ok(ProbeOut({{"perf_rc", "127"}, {"uname_r", "6.1.0-18-amd64"}})));
  debian.On("dpkg-query", Ok(kDpkgAll));
  EdgeOk(debian);
  Config c = LocalEdge();
  c.profile.cpu = true;
  auto info = ProvisionSut(debian, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(debian.Ran("perf --version"));
  EXPECT_TRUE(debian.Ran("apt-get install -y --no-install-recommends linux-perf"));

  ScriptedHost ubuntu;
  ubuntu.On(kProbeMarker, Ok(ProbeOut({{"perf_rc", "2"}, {"uname_r", "6.8.0-1012-aws"}, {"os_release.ID", "ubuntu"},
                                       {"os_release.VERSION_ID", "\"24.04\""},
                                       {"os_release.VERSION_CODENAME", "noble"}})));
  ubuntu.On("dpkg-query", Ok(kDpkgAll));
  EdgeOk(ubuntu);
  auto u = ProvisionSut(ubuntu, c);
  ASSERT_TRUE(u.ok()) << u.error().message;
  EXPECT_TRUE(ubuntu.Ran("apt-get install -y --no-install-recommends linux-tools-common linux-tools-6.8.0-1012-aws"));

  ScriptedHost present;
  present.On(kProbeMarker, Ok(ProbeOut({{"perf_rc", "0"}})));
  present.On("dpkg-query", Ok(kDpkgAll));
  EdgeOk(present);
  ASSERT_TRUE(ProvisionSut(present, c).ok());
  EXPECT_FALSE(present.Ran("apt-get install"));
}

TEST(ProvisionSut, GitIsInstalledOnlyWhenEdgeIsCloned) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"git", ""}, {"ss", ""}})));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("echo occupied", Ok("empty\n"));
  h.On("symbolic-ref", Ok("main\n"));
  h.On("init_worker", Ok("template=yes\ninit_worker=yes\ncommit=def456\ndirty=\n"));
  Config c;
  c.edge_src = "https://example.invalid/edge.git";
  auto info = ProvisionSut(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(h.Ran("apt-get install -y --no-install-recommends iproute2 git"));
  EXPECT_EQ(info->installed,
            (std::vector<std::string>{"iproute2", "git", "edge clone https://example.invalid/edge.git"}));
}

TEST(ProvisionSut, AutoOnAnOfflineAptHostKeepsDebianNginx) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("openresty.org/package/pubkey.gpg && echo reachable",
       Fail(6, "curl: (6) Could not resolve host: openresty.org"));
  h.On("dpkg-query", Ok(kDpkgAll));
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "nginx");
  EXPECT_FALSE(h.Ran("gpg --batch"));
}

TEST(ProvisionSut, AutoInstallsOpenRestyWhereReachable) {
  ScriptedHost h;
  ProbeBeforeAfter(h, {}, {{"openresty", "/usr/bin/openresty"}});
  h.On("echo reachable", Ok("reachable\n"));
  h.On("openresty -V", Ok("", "nginx version: openresty/1.27.1.2\n--add-module=../ngx_lua-0.10.28\n"));
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "openresty");
  EXPECT_EQ(info->nginx_bin, "/usr/bin/openresty");
  // The key is trusted only with its published fingerprint (vendor_keys.h).
  EXPECT_TRUE(h.Ran("curl -fsSL --max-time 60 -o \"$t/key\" https://openresty.org/package/pubkey.gpg"));
  EXPECT_TRUE(h.Ran("[ \"$found\" != E52218E7087897DC6DEA6D6D97DB7443D5EDEB74 ]"));
  EXPECT_TRUE(h.Ran("install -m 0644 \"$t/verified\" /etc/apt/trusted.gpg.d/openresty.gpg"));
  EXPECT_EQ(info->runtime_choice,
            "NGINX_RUNTIME=auto: OpenResty not installed, openresty.org reachable: installed from OpenResty's "
            "repository");
  EXPECT_TRUE(h.Ran("deb http://openresty.org/package/debian bookworm openresty"));
  EXPECT_TRUE(h.Ran("apt-get install -y --no-install-recommends openresty"));
  EXPECT_FALSE(h.Ran("dpkg-query -W"));
  EXPECT_EQ(info->installed, std::vector<std::string>{"openresty (openresty.org package repository)"});
}

TEST(ProvisionSut, UnsupportedOsIsRefusedNamingIt) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"os_release.ID", "alpine"}, {"os_release.VERSION_ID", "3.20.3"},
                                  {"os_release.VERSION_CODENAME", ""}})));
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "host test-host: /etc/os-release: unsupported OS ID='alpine' "
                                        "VERSION_ID='3.20.3'")) << info.error().message;
  EXPECT_EQ(h.Calls().size(), 1u) << "nothing after the probe";
}

TEST(ProvisionSut, NoOsReleaseIsAnError) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"os_release.ID", ""}, {"os_release.VERSION_ID", ""}})));
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "neither /etc/os-release nor /usr/lib/os-release")) << info.error().message;
}

TEST(ProvisionSut, DebianNginxOnTheDnfFamilyIsRefused) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"os_release.ID", "amzn"}, {"os_release.VERSION_ID", "2023"}})));
  Config c = LocalEdge();
  c.runtime = NginxRuntime::kDistro;
  auto info = ProvisionSut(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "NGINX_RUNTIME=nginx means Debian's nginx")) << info.error().message;
  EXPECT_TRUE(Has(info.error().message, "amzn 2023")) << info.error().message;
}

TEST(ProvisionSut, AutoOnAnOfflineDnfHostSaysOpenRestyIsTheOnlyRuntime) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"os_release.ID", "amzn"}, {"os_release.VERSION_ID", "2023"}})));
  h.On("echo reachable", Fail(6, "curl: (6) Could not resolve host: openresty.org"));
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "OpenResty is the only runtime")) << info.error().message;
  EXPECT_TRUE(Has(info.error().message, "Could not resolve host")) << info.error().message;
}

TEST(ProvisionSut, NonRootUsesSudoAndRetriesAfterUpdate) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"uid", "1000"}, {"curl", ""}})));
  h.On("dpkg-query", Ok(kDpkgAll));
  int installs = 0;
  h.On("apt-get install", [&](const Command&) -> Result<ExecResult> {
    return ++installs == 1 ? Fail(100, "E: Unable to locate package curl") : Ok();
  });
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(installs, 2);
  EXPECT_TRUE(h.Ran("sudo -n env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get update"));
  EXPECT_TRUE(h.Ran("sudo -n env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                    "curl"));
}

TEST(ProvisionSut, FailedInstallNamesStepHostAndStderr) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"nginx", ""}, {"lua_so", ""}})));
  h.On("dpkg-query", Ok(""));
  h.On("apt-get", Fail(100, "E: Could not get lock /var/lib/dpkg/lock-frontend"));
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_FALSE(info.ok());
  const std::string& m = info.error().message;
  EXPECT_TRUE(Has(m, "apt-get install nginx libnginx-mod-http-lua lua-cjson lua-resty-core")) << m;
  EXPECT_TRUE(Has(m, "test-host")) << m;
  EXPECT_TRUE(Has(m, "Could not get lock")) << m;
}

TEST(ProvisionSut, AutoPrefersOpenResty) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"openresty", "/usr/local/openresty/bin/openresty"}, {"dpkg", ""}})));
  h.On("openresty -V", Ok("", "nginx version: openresty/1.25.3.1\nbuilt by gcc\nconfigure arguments: "
                              "--add-module=../ngx_lua-0.10.26 --with-http_ssl_module\n"));
  EdgeOk(h);
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->runtime, "openresty");
  EXPECT_EQ(info->runtime_version, "nginx version: openresty/1.25.3.1");
  EXPECT_EQ(info->lua_module_version, "ngx_lua-0.10.26");
  EXPECT_FALSE(info->load_lua_modules);
  EXPECT_FALSE(h.Ran("dpkg-query -W"));
}

TEST(ProvisionSut, ExplicitOpenRestyStillMissingAfterItsInstallIsAnError) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  Config c = LocalEdge();
  c.runtime = NginxRuntime::kOpenResty;
  auto info = ProvisionSut(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(h.Ran("apt-get install -y --no-install-recommends openresty"));
  EXPECT_TRUE(Has(info.error().message, "no openresty on PATH or at /usr/local/openresty/bin/openresty after "
                                        "installing it from openresty.org")) << info.error().message;
}

TEST(ProvisionSut, FailedOpenRestyRepositoryStepNamesTheVendorDoc) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"uid", "1000"}})));
  h.On("gpg --batch", Fail(2, "curl: (6) Could not resolve host: openresty.org"));
  Config c = LocalEdge();
  c.runtime = NginxRuntime::kOpenResty;
  auto info = ProvisionSut(h, c);
  ASSERT_FALSE(info.ok());
  const std::string& m = info.error().message;
  EXPECT_TRUE(Has(m, "provision openresty key on host test-host: `sudo -n sh -c")) << m;
  EXPECT_TRUE(Has(m, "https://openresty.org/en/linux-packages.html")) << m;
  EXPECT_FALSE(h.Ran("install -y --no-install-recommends openresty"));
}

TEST(ProvisionSut, NotAnEdgeCheckoutIsAnError) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("init_worker", Ok("init_worker=yes\ncommit=\n"));
  auto info = ProvisionSut(h, LocalEdge());
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "/srv/edge is not a fairvisor edge checkout")) << info.error().message;
  EXPECT_TRUE(Has(info.error().message, "docker/nginx.conf.template missing")) << info.error().message;
}

TEST(ProvisionSut, UrlIsClonedSparse) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("echo occupied", Ok("empty\n"));
  h.On("symbolic-ref", Ok("main\n"));
  h.On("init_worker", Ok("template=yes\ninit_worker=yes\n"));
  h.On("rev-parse --verify HEAD", Ok("def456\n"));
  Config c;
  c.edge_src = "https://example.invalid/edge.git";
  c.fv_dir = "/opt/fv";
  auto info = ProvisionSut(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  const std::string git = kGit;
  EXPECT_TRUE(h.Ran(git + " clone --quiet --no-checkout -- https://example.invalid/edge.git /opt/fv"));
  EXPECT_TRUE(h.Ran(git + " -C /opt/fv sparse-checkout set src docker data"));
  EXPECT_TRUE(h.Ran(git + " -C /opt/fv checkout --quiet main --"));
  EXPECT_FALSE(h.Ran("safe.directory"));
  auto clone = h.Find(" clone ");
  ASSERT_TRUE(clone.has_value());
  EXPECT_EQ(clone->env.at("GIT_TERMINAL_PROMPT"), "0");
  EXPECT_EQ(info->edge_dir, "/opt/fv");
  EXPECT_FALSE(info->edge_in_place);
  EXPECT_EQ(info->edge_commit, "def456");
}

TEST(ProvisionSut, ExistingCloneAtWantedRefIsLeftAlone) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("echo occupied", Ok("git\n"));
  h.On("remote get-url", Ok("/srv/edge\n"));
  h.On("rev-parse --verify --quiet --end-of-options 'origin/v1.2^{commit}'", Ok("c0ffee\n"));
  h.On("-C /opt/fv rev-parse --verify HEAD", Ok("c0ffee\n"));
  h.On("init_worker", Ok("template=yes\ninit_worker=yes\n"));
  Config c = LocalEdge();
  c.edge_ref = "v1.2";
  c.fv_dir = "/opt/fv";
  auto info = ProvisionSut(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_FALSE(h.Ran("clone"));
  EXPECT_FALSE(h.Ran("fetch"));
  EXPECT_FALSE(h.Ran("checkout --quiet"));
  EXPECT_EQ(info->edge_commit, "c0ffee");
}

TEST(ProvisionSut, ForeignDirectoryIsNotClonedOver) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("dpkg-query", Ok(kDpkgAll));
  h.On("echo occupied", Ok("occupied\n"));
  Config c;
  c.edge_src = "https://example.invalid/edge.git";
  c.fv_dir = "/opt/fv";
  auto info = ProvisionSut(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "FV_DIR=/opt/fv exists")) << info.error().message;
  EXPECT_FALSE(h.Ran("clone"));
}

TEST(ProvisionLoadgen, WrkPresentReportsVersion) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  ExecResult v = Fail(1, "");
  v.out = "wrk 4.1.0 [epoll] Copyright (C) 2012 Will Glozer\nUsage: wrk <options> <url>\n";
  h.On("wrk -v", v);
  Config c;
  c.engine = Engine::kWrk;
  auto info = ProvisionLoadgen(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->engine, "wrk");
  EXPECT_EQ(info->engine_version, "wrk 4.1.0 [epoll] Copyright (C) 2012 Will Glozer");
  EXPECT_FALSE(h.Ran("apt-get"));
  EXPECT_EQ(info->cores, 8);
}

// The kernel's boot_id is read with the other facts (one round trip): hosts
// with the same one are one machine (testbed.h). What a host answers is
// data: anything but a boot_id's form is dropped.
TEST(ProvisionLoadgen, BootIdReadAndChecked) {
  Config c;
  c.engine = Engine::kWrk;
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"boot_id", "5f3c2a10-1b2c-4d5e-8f90-0123456789ab"}})));
  auto info = ProvisionLoadgen(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->boot_id, "5f3c2a10-1b2c-4d5e-8f90-0123456789ab");
  EXPECT_EQ(h.Count("boot_id"), 1u);  // in the probe, not a command of its own
  for (const char* bad : {"", "5F3C2A10-1B2C-4D5E-8F90-0123456789AB", "5f3c2a10-1b2c-4d5e-8f90-0123456789a",
                          "5f3c2a10;1b2c-4d5e-8f90-0123456789ab", "$(touch /tmp/x)-1b2c-4d5e-8f90-01234567"}) {
    ScriptedHost b;
    b.On(kProbeMarker, Ok(ProbeOut({{"boot_id", bad}})));
    auto i = ProvisionLoadgen(b, c);
    ASSERT_TRUE(i.ok()) << i.error().message;
    EXPECT_EQ(i->boot_id, "") << bad;
  }
}

TEST(ProvisionLoadgen, WrkMissingIsInstalled) {
  ScriptedHost h;
  ProbeBeforeAfter(h, {{"wrk", ""}}, {});
  Config c;
  c.engine = Engine::kWrk;
  auto info = ProvisionLoadgen(h, c);
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(h.Ran("apt-get install -y --no-install-recommends wrk"));
  EXPECT_EQ(info->installed, std::vector<std::string>{"wrk"});
}

TEST(ProvisionLoadgen, K6DownloadFailureSuggestsWrk) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut()));
  h.On("curl -fsSL", Fail(6, "curl: (6) Could not resolve host: github.com"));
  Config c;
  c.k6_version = "v0.54.0";
  c.k6_source = "archive";
  auto info = ProvisionLoadgen(h, c);
  ASSERT_FALSE(info.ok());
  const std::string& m = info.error().message;
  EXPECT_TRUE(Has(m, "k6 is not installed and could not be installed")) << m;
  EXPECT_TRUE(Has(m, "LOADGEN_ENGINE=wrk")) << m;
  EXPECT_TRUE(Has(m, "Could not resolve host")) << m;
  EXPECT_TRUE(h.Ran("https://github.com/grafana/k6/releases/download/v0.54.0/k6-v0.54.0-linux-amd64.tar.gz"));
}

TEST(ProvisionLoadgen, K6FromGrafanasRepositoryPinnedWithSudo) {
  ScriptedHost h;
  ProbeBeforeAfter(h, {{"uid", "1000"}, {"gpg", ""}, {"taskset", ""}}, {{"k6", "/usr/bin/k6"}});
  h.On("k6 version", Ok("k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)\n"));
  auto info = ProvisionLoadgen(h, Config{});
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_TRUE(h.Ran("sudo -n env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                    "util-linux gnupg"));
  EXPECT_TRUE(h.Ran("sudo -n sh -c 'set -e"));
  EXPECT_TRUE(h.Ran("curl -fsSL --max-time 60 -o \"$t/key\" https://dl.k6.io/key.gpg"));
  EXPECT_TRUE(h.Ran("[ \"$found\" != C5AD17C747E3415A3642D57D77C6C491D6AC1D69 ]"));
  EXPECT_TRUE(h.Ran("install -m 0644 \"$t/verified\" /usr/share/keyrings/k6-archive-keyring.gpg"));
  EXPECT_TRUE(h.Ran("deb [signed-by=/usr/share/keyrings/k6-archive-keyring.gpg] https://dl.k6.io/deb stable main"));
  EXPECT_TRUE(h.Ran("sudo -n env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "
                    "k6=0.54.0"));
  EXPECT_EQ(info->installed,
            (std::vector<std::string>{"util-linux", "gnupg", "k6 v0.54.0 (dl.k6.io package repository)"}));
}

TEST(ProvisionLoadgen, InstalledK6OfAnotherVersionIsAnError) {
  ScriptedHost h;
  ProbeBeforeAfter(h, {}, {{"k6", "/usr/bin/k6"}});
  h.On("k6 version", Ok("k6 v1.0.0 (commit/abc, go1.24.1, linux/amd64)\n"));
  auto info = ProvisionLoadgen(h, Config{});
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "installed k6 v0.54.0 but `/usr/bin/k6 version` says 'k6 v1.0.0"))
      << info.error().message;
}

TEST(ProvisionLoadgen, WrkOnTheDnfFamilyIsRefused) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"wrk", ""}, {"os_release.ID", "rocky"}, {"os_release.ID_LIKE", "\"rhel centos fedora\""},
                                  {"os_release.VERSION_ID", "9.4"}})));
  Config c;
  c.engine = Engine::kWrk;
  auto info = ProvisionLoadgen(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "rocky 9.4 (rhel 9) does not package it")) << info.error().message;
}

TEST(ProvisionLoadgen, EngineStillMissingAfterItsInstallIsAnError) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"wrk", ""}})));
  Config c;
  c.engine = Engine::kWrk;
  auto info = ProvisionLoadgen(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(Has(info.error().message, "provision wrk on host test-host: no wrk on PATH after installing it"))
      << info.error().message;
}

// The probe's answer names programs that are run by that name: a host that
// answers something other than an absolute path has no such program.
TEST(ProvisionLoadgen, ProgramNamedWithoutAnAbsolutePathIsMissing) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"wrk", "--version"}})));
  Config c;
  c.engine = Engine::kWrk;
  auto info = ProvisionLoadgen(h, c);
  ASSERT_FALSE(info.ok());
  EXPECT_TRUE(h.Ran("apt-get install -y --no-install-recommends wrk"));
  EXPECT_TRUE(Has(info.error().message, "no wrk on PATH after installing it")) << info.error().message;
  EXPECT_FALSE(h.Ran("--version -v"));
}

TEST(ProvisionLoadgen, K6PresentIsNotDownloaded) {
  ScriptedHost h;
  h.On(kProbeMarker, Ok(ProbeOut({{"k6", "/usr/local/bin/k6"}})));
  h.On("k6 version", Ok("k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)\n"));
  auto info = ProvisionLoadgen(h, Config{});
  ASSERT_TRUE(info.ok()) << info.error().message;
  EXPECT_EQ(info->engine_version, "k6 v0.54.0 (commit/baba871c8a, go1.23.1, linux/amd64)");
  EXPECT_FALSE(h.Ran("curl -fsSL"));
}

TEST(ProvisionParsers, Helpers) {
  auto d = detail::ParseDpkgInstalled(kDpkgAll + std::string("foo\tdeinstall ok config-files\t1\n"));
  EXPECT_EQ(d.size(), 4u);
  EXPECT_EQ(d.at("lua-cjson"), "2.1.0+dfsg-2.2");
  EXPECT_FALSE(d.count("foo"));
  EXPECT_EQ(detail::LuaModuleFromNginxV("--add-module=../ngx_lua-0.10.26 --x"), "ngx_lua-0.10.26");
  EXPECT_EQ(detail::LuaModuleFromNginxV("nginx version: nginx/1.22.1"), "");
  EXPECT_EQ(detail::K6Arch("x86_64"), "amd64");
  EXPECT_EQ(detail::K6Arch("aarch64"), "arm64");
  EXPECT_EQ(detail::K6Arch("riscv64"), "");
  auto kv = detail::ParseKeyValues("a=1\nb=x=y\nnoeq\n=z\n");
  EXPECT_EQ(kv.size(), 2u);
  EXPECT_EQ(kv.at("b"), "x=y");
}

}  // namespace
}  // namespace fvbench::provision_test
