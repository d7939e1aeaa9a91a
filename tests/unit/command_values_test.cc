// Values that reach commands (support/core/command_values.h) and LoadConfig's
// use of them: no option-shaped value of any variable that reaches git,
// curl, ssh, nginx or a URL is accepted, and "URL" means a URL.
#include "support/core/command_values.h"

#include <gtest/gtest.h>

#include "support/core/config.h"

namespace fvbench::command_values_test {
namespace {

ConfigInputs Inputs(EnvMap env) {
  ConfigInputs in;
  in.env = std::move(env);
  in.source_dir = "/src";
  in.cores = 2;
  in.file_exists = [](const std::string&) { return true; };
  return in;
}

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

// Case 01 as handed: the value counted as a URL because it held "://" and
// reached `git clone` as an option; FV_DIR held ':'.
TEST(OptionShapedValues, CaseOneIsRefusedAtConfigTimeNamingTheVariable) {
  auto c = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC", "--upload-pack=touch /tmp/scratch/pwned-src;#://"},
                              {"FV_DIR", "/tmp/scratch/fv1b:x"},
                              {"BENCH_DIR", "/tmp/scratch/b1b"},
                              {"NGINX_RUNTIME", "nginx"},
                              {"LOADGEN_ENGINE", "wrk"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message.rfind("FAIRVISOR_EDGE_SRC='--upload-pack=touch /tmp/scratch/pwned-src;#://': starts "
                                    "with '-', so git would read it as an option",
                                    0),
            0u)
      << c.error().message;
}

// Every variable whose value reaches a command, with option-shaped values
// of the kinds git, ssh and curl read: refused, naming the variable and the
// value. The _B twins are A/B mode's (any of them set turns it on).
TEST(OptionShapedValues, EveryVariableThatReachesACommandRefusesThem) {
  const char* vars[] = {"FAIRVISOR_EDGE_SRC", "FAIRVISOR_EDGE_SRC_B", "FAIRVISOR_EDGE_REF", "FAIRVISOR_EDGE_REF_B",
                        "FV_DIR",             "FV_DIR_B",             "BENCH_DIR",          "FVBENCH_POLICY_DIR",
                        "FVBENCH_POLICY_DIR_B", "FVBENCH_THRESHOLDS", "FVBENCH_REFERENCE",  "FVBENCH_BASELINE",
                        "K6_RELEASE_URL",     "FAIRVISOR_TARGET_HOST", "FV_LISTEN_ADDR",    "FAIRVISOR_REMOTE",
                        "LOADGEN_REMOTE"};
  const char* values[] = {"--upload-pack=touch /tmp/pwned;#://", "-c", "--config=/tmp/x", "--template=/tmp/t",
                          "-oProxyCommand=touch /tmp/pwned", "-", "--"};
  for (const char* var : vars) {
    for (const char* value : values) {
      auto c = LoadConfig(Inputs({{var, value}}));
      ASSERT_FALSE(c.ok()) << var << "=" << value << " was accepted";
      EXPECT_TRUE(Has(c.error().message, std::string(var) + "='" + value + "'")) << c.error().message;
    }
  }
}

TEST(OptionShapedValues, SideBIsCheckedLikeSideA) {
  for (const auto& [var, value, expect] : std::vector<std::tuple<const char*, const char*, const char*>>{
           {"FAIRVISOR_EDGE_SRC_B", "ext::sh -c touch% /tmp/pwned", "expected a git URL or an absolute path"},
           {"FAIRVISOR_EDGE_SRC_B", "ssh://-oProxyCommand=touch%20/tmp/pwned/x", "not a git URL"},
           {"FAIRVISOR_EDGE_SRC_B", "/srv/edge b", "whitespace"},
           {"FAIRVISOR_EDGE_REF_B", "--output=/tmp/x", "starts with '-'"},
           {"FAIRVISOR_EDGE_REF_B", "main..x", "'..'"},
       }) {
    auto c = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC", "/srv/edge"}, {var, value}}));
    ASSERT_FALSE(c.ok()) << var << "=" << value;
    EXPECT_TRUE(Has(c.error().message, std::string(var) + "='" + value + "'")) << c.error().message;
    EXPECT_TRUE(Has(c.error().message, expect)) << c.error().message;
  }
  auto ok = LoadConfig(Inputs({{"FAIRVISOR_EDGE_SRC", "/srv/edge"}, {"FAIRVISOR_EDGE_SRC_B", "/srv/edge-b/"}}));
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->edge_src_b, "/srv/edge-b");
}

TEST(EdgeSource, UrlsAndPathsThatGitReadsAsSuch) {
  for (const char* url : {"https://github.com/fairvisor/edge", "https://github.com/fairvisor/edge.git",
                          "http://git.example:8080/edge", "https://ci:token@git.example/edge.git",
                          "ssh://git@github.com:22/fairvisor/edge.git", "ssh://[fd00::1]:2222/srv/edge",
                          "git://git.example/edge", "git+ssh://git.example/edge", "file:///srv/edge",
                          "file://localhost/srv/edge", "git@github.com:fairvisor/edge.git", "deploy@10.0.0.5:edge",
                          "git@[fd00::1]:srv/edge"}) {
    auto k = CheckEdgeSource("FAIRVISOR_EDGE_SRC", url);
    ASSERT_TRUE(k.ok()) << url << ": " << k.error().message;
    EXPECT_EQ(*k, EdgeSourceKind::kUrl) << url;
    EXPECT_TRUE(IsGitUrl(url)) << url;
  }
  // An absolute path is a path to git whatever ':' it holds.
  for (const char* path : {"/srv/edge", "/tmp/a:b/edge", "/srv/x::y", "/srv/ssh://host/x"}) {
    auto k = CheckEdgeSource("FAIRVISOR_EDGE_SRC", path);
    ASSERT_TRUE(k.ok()) << path << ": " << k.error().message;
    EXPECT_EQ(*k, EdgeSourceKind::kPath) << path;
    EXPECT_FALSE(IsGitUrl(path)) << path;
  }
}

TEST(EdgeSource, NeitherAUrlNorAPathIsRefusedSayingWhy) {
  const std::pair<const char*, const char*> bad[] = {
      {"--upload-pack=touch /tmp/x;#://", "starts with '-'"},
      {"-oProxyCommand=x@host:edge", "starts with '-'"},
      {"ext::sh -c touch% /tmp/x", "expected a git URL or an absolute path"},
      {"ext::touch%20/tmp/x;#://", "'ext::touch%20/tmp/x;#' before :// is not a git URL scheme"},
      {"fd::3", "expected a git URL or an absolute path"},
      {"ftp://host/edge", "'ftp' before :// is not a git URL scheme"},
      {"ssh://-oProxyCommand=touch%20/tmp/x/edge", "the host '-oProxyCommand=touch%20' is empty, starts with '-'"},
      {"ssh://-oProxyCommand=x@host/edge", "the user before '@' is empty, starts with '-'"},
      {"https:///edge", "the host '' is empty"},
      {"https://host:port/edge", "the port 'port' is not a number"},
      {"git@-oProxyCommand=x:edge", "the host '-oProxyCommand=x' is empty, starts with '-'"},
      {"git@host:-upload-pack", "the path after ':' is empty or starts with '-'"},
      {"file://relative/edge", "file:///path"},
      {"host:edge", "expected a git URL or an absolute path"},
      {"relative/edge", "expected a git URL or an absolute path"},
      {"https://git.example/ed ge", "whitespace"},
      {"/srv/edge\n", "control characters"},
      {"", "expected a git URL or an absolute path"},
  };
  for (const auto& [value, why] : bad) {
    auto k = CheckEdgeSource("FAIRVISOR_EDGE_SRC", value);
    ASSERT_FALSE(k.ok()) << "accepted: " << value;
    EXPECT_TRUE(Has(k.error().message, std::string("FAIRVISOR_EDGE_SRC='") + value + "'")) << k.error().message;
    EXPECT_TRUE(Has(k.error().message, why)) << k.error().message;
    EXPECT_FALSE(IsGitUrl(value)) << value;
  }
}

TEST(GitRef, BranchesTagsAndCommitsOnly) {
  for (const char* ok : {"", "main", "v1.2.3", "release/1.x", "refs/tags/v1", "4764bbc8150bb9fcfe4f6aeee296fd356c12ff56",
                         "feature-x_y"}) {
    EXPECT_TRUE(CheckGitRef("FAIRVISOR_EDGE_REF", ok).ok()) << ok;
  }
  for (const char* bad : {"-x", "--upload-pack=touch /tmp/x", "--output=/tmp/x", "a..b", "a b", "a~1", "a^", "a:b",
                          "a?", "a*", "a[", "a\\b", "@", "x.lock", "/x", "x/", ".x", "x.", "a@{1}", "a//b", "a\tb"}) {
    auto r = CheckGitRef("FAIRVISOR_EDGE_REF", bad);
    ASSERT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_TRUE(Has(r.error().message, std::string("FAIRVISOR_EDGE_REF='") + bad + "'")) << r.error().message;
  }
}

TEST(HostAddress, NamesAndAddressesOnly) {
  for (const char* ok : {"127.0.0.1", "0.0.0.0", "sut.example", "10.213.3.2", "::1", "[::1]", "fd00::2", "my_host"}) {
    EXPECT_TRUE(CheckHostAddress("FAIRVISOR_TARGET_HOST", ok).ok()) << ok;
  }
  for (const char* bad : {"", "-x", ".x", "host/path", "user@host", "1.2.3.4; evil", "h ost", "a'b", "x?y", "x#y"}) {
    auto r = CheckHostAddress("FAIRVISOR_TARGET_HOST", bad);
    ASSERT_FALSE(r.ok()) << "accepted: " << bad;
    EXPECT_TRUE(Has(r.error().message, std::string("FAIRVISOR_TARGET_HOST='") + bad + "'")) << r.error().message;
  }
}

TEST(DownloadUrl, HttpHttpsAndFileOnly) {
  for (const char* ok : {"https://github.com/grafana/k6/releases/download", "http://mirror.lan/k6", "file:///srv/k6"}) {
    EXPECT_TRUE(CheckDownloadUrl("K6_RELEASE_URL", ok).ok()) << ok;
  }
  for (const char* bad : {"--config=/tmp/x", "-K/tmp/x", "ftp://x/y", "file://relative", "https://x/y z",
                          "https://x/'y", "https://x/\"y", "https://x/`id`"}) {
    EXPECT_FALSE(CheckDownloadUrl("K6_RELEASE_URL", bad).ok()) << bad;
  }
}

TEST(SshDestination, NeitherItNorItsHostStartsWithADash) {
  for (const char* ok : {"root@10.0.0.1", "sut", "ubuntu@sut:2222", "a-b@c-d", "[fd00::1]:22"}) {
    EXPECT_TRUE(CheckSshDestination("FAIRVISOR_REMOTE", ok).ok()) << ok;
  }
  for (const char* bad : {"-oProxyCommand=x", "root@-oProxyCommand=x", "-l@host"}) {
    EXPECT_FALSE(CheckSshDestination("FAIRVISOR_REMOTE", bad).ok()) << bad;
  }
  auto c = LoadConfig(Inputs({{"FAIRVISOR_REMOTE", "root@sut"}, {"LOADGEN_REMOTE", "root@lg1, root@-oProxyCommand=x"}}));
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Has(c.error().message, "LOADGEN_REMOTE='root@-oProxyCommand=x'")) << c.error().message;
}

TEST(PackageLockWait, StatedAndBounded) {
  auto d = LoadConfig(Inputs({}));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->package_lock_wait_s, 300);
  auto z = LoadConfig(Inputs({{"FVBENCH_PACKAGE_LOCK_WAIT_S", "0"}}));
  ASSERT_TRUE(z.ok()) << z.error().message;
  EXPECT_EQ(z->package_lock_wait_s, 0);
  auto bad = LoadConfig(Inputs({{"FVBENCH_PACKAGE_LOCK_WAIT_S", "3601"}}));
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(Has(bad.error().message, "FVBENCH_PACKAGE_LOCK_WAIT_S='3601'")) << bad.error().message;
}

}  // namespace
}  // namespace fvbench::command_values_test
