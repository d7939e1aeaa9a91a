// SshTarget: destination, SSH_OPTS and ~/.ssh/config resolution (pure).
#include "support/host/ssh_target.h"

#include <fstream>
#include <map>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "fvbench/source_dir.h"

namespace fvbench::ssh_target_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::string kHome = "/home/me";

SshTarget Resolve(const std::string& dest, const std::string& opts, const std::string& config) {
  auto o = ParseSshOpts(opts);
  EXPECT_TRUE(o.ok()) << o.error().message;
  auto c = ParseSshConfig(config, "cfg", kHome);
  EXPECT_TRUE(c.ok()) << c.error().message;
  auto t = ResolveSshTarget(dest, o.ok() ? *o : std::vector<SshSetting>{},
                            c.ok() ? *c : SshConfig{}, kHome, "me");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return t.ok() ? *t : SshTarget{};
}

Error ResolveError(const std::string& dest, const std::string& opts, const std::string& config) {
  auto o = ParseSshOpts(opts);
  if (!o.ok()) return o.error();
  auto c = ParseSshConfig(config, "cfg", kHome);
  if (!c.ok()) return c.error();
  auto t = ResolveSshTarget(dest, *o, *c, kHome, "me");
  EXPECT_FALSE(t.ok()) << "resolved to " << (t.ok() ? DescribeSshTarget(*t) : "");
  return t.ok() ? Error{} : t.error();
}

TEST(SshPatternMatch, WildcardsAndCaseAsOpenSsh) {
  EXPECT_TRUE(SshPatternMatch("*.example.com", "Bench.EXAMPLE.com"));
  EXPECT_TRUE(SshPatternMatch("10.0.0.?", "10.0.0.5"));
  EXPECT_FALSE(SshPatternMatch("10.0.0.?", "10.0.0.50"));
  EXPECT_TRUE(SshPatternMatch("a*b*c", "axxbyyc"));
  EXPECT_FALSE(SshPatternMatch("a*b*c", "axxbyy"));
  EXPECT_TRUE(SshPatternMatch("*", ""));
  EXPECT_FALSE(SshPatternMatch("", "x"));
  EXPECT_FALSE(SshPatternMatch("!host", "host")) << "negation is the caller's";
}

TEST(SshDestination, Forms) {
  auto a = ParseDestination("root@10.213.1.2");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->user, "root");
  EXPECT_EQ(a->host, "10.213.1.2");
  EXPECT_EQ(a->port, 0);
  auto b = ParseDestination("sut:2222");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->user, "");
  EXPECT_EQ(b->host, "sut");
  EXPECT_EQ(b->port, 2222);
  auto c = ParseDestination("u@[fe80::1]:22");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "fe80::1");
  EXPECT_EQ(c->port, 22);
  auto d = ParseDestination("fe80::1");  // bare IPv6: no port
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->host, "fe80::1");
  EXPECT_EQ(d->port, 0);
  auto e = ParseDestination("a@b@host");  // the last '@' separates
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->user, "a@b");
}

TEST(SshDestination, BadFormsNameTheDestination) {
  for (const char* bad : {"", "@host", "user@", "host:", "host:0", "host:65536", "host:ab",
                          "-oProxyCommand=x", "two words", "[::1", "[::1]x"}) {
    auto r = ParseDestination(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.error().message, HasSubstr(std::string("'") + bad + "'"));
  }
}

TEST(SshOpts, UnderstoodForms) {
  auto r = ParseSshOpts(
      "  -i /k/a -i/k/b -p 2200 -l bob -o StrictHostKeyChecking=accept-new "
      "-oUserKnownHostsFile=/kh -o ConnectTimeout 7 -p2201 -lalice ");
  ASSERT_TRUE(r.ok()) << r.error().message;
  std::vector<std::pair<std::string, std::string>> kv;
  for (const auto& s : *r) {
    kv.emplace_back(s.key, s.value);
    EXPECT_EQ(s.origin, "SSH_OPTS");
  }
  EXPECT_THAT(kv, ElementsAre(std::pair<std::string, std::string>{"identityfile", "/k/a"},
                              std::pair<std::string, std::string>{"identityfile", "/k/b"},
                              std::pair<std::string, std::string>{"port", "2200"},
                              std::pair<std::string, std::string>{"user", "bob"},
                              std::pair<std::string, std::string>{"stricthostkeychecking",
                                                                  "accept-new"},
                              std::pair<std::string, std::string>{"userknownhostsfile", "/kh"},
                              std::pair<std::string, std::string>{"connecttimeout", "7"},
                              std::pair<std::string, std::string>{"port", "2201"},
                              std::pair<std::string, std::string>{"user", "alice"}));
  auto empty = ParseSshOpts("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

TEST(SshOpts, AnythingElseIsReportedByName) {
  for (const char* w : {"-J", "-F", "-4", "-q", "-v", "stray", "-"}) {
    auto r = ParseSshOpts(std::string("-i /k ") + w + " x");
    ASSERT_FALSE(r.ok()) << w;
    EXPECT_THAT(r.error().message, HasSubstr(std::string("'") + w + "'"));
    EXPECT_THAT(r.error().message, HasSubstr("SSH_OPTS"));
  }
  // A value with a space: the message names the word before the leftover
  // and says why (no quotes are read).
  auto spaced = ParseSshOpts("-o ProxyCommand=touch /tmp/x");
  ASSERT_FALSE(spaced.ok());
  EXPECT_THAT(spaced.error().message, HasSubstr("'/tmp/x' is not understood"));
  EXPECT_THAT(spaced.error().message, HasSubstr("after 'ProxyCommand=touch'; SSH_OPTS is split on whitespace and "
                                                "reads no quotes"));
  for (const char* missing : {"-i", "-p", "-l", "-o", "-o Key"}) {
    auto r = ParseSshOpts(missing);
    ASSERT_FALSE(r.ok()) << missing;
    EXPECT_THAT(r.error().message, HasSubstr("needs an argument"));
  }
}

TEST(SshHostPattern, Wildcards) {
  EXPECT_TRUE(SshHostMatches({"*"}, "anything"));
  EXPECT_TRUE(SshHostMatches({"sut*"}, "sut-1"));
  EXPECT_TRUE(SshHostMatches({"10.213.?.2"}, "10.213.1.2"));
  EXPECT_FALSE(SshHostMatches({"10.213.?.2"}, "10.213.11.2"));
  EXPECT_TRUE(SshHostMatches({"a", "b"}, "b"));
  EXPECT_TRUE(SshHostMatches({"a,b"}, "b"));
  EXPECT_TRUE(SshHostMatches({"SUT"}, "sut"));  // host names are case-insensitive
  EXPECT_FALSE(SshHostMatches({"*", "!sut"}, "sut"));
  EXPECT_TRUE(SshHostMatches({"*", "!sut"}, "lg"));
  EXPECT_FALSE(SshHostMatches({"!sut"}, "lg"));  // only a negation never matches
  EXPECT_FALSE(SshHostMatches({"*.example"}, "example"));
  EXPECT_TRUE(SshHostMatches({"*a*b*"}, "xxaxxbxx"));
}

TEST(SshTargetResolve, DefaultsWithoutConfig) {
  SshTarget t = Resolve("10.0.0.5", "", "");
  EXPECT_EQ(t.given, "10.0.0.5");
  EXPECT_EQ(t.host, "10.0.0.5");
  EXPECT_EQ(t.user, "");
  EXPECT_EQ(t.port, 22);
  EXPECT_EQ(t.host_key_checking, HostKeyChecking::kYes);
  EXPECT_THAT(t.user_known_hosts_files, ElementsAre("/home/me/.ssh/known_hosts", "/home/me/.ssh/known_hosts2"));
  EXPECT_THAT(t.global_known_hosts_files, ElementsAre("/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"));
  EXPECT_EQ(t.host_key_alias, "");
  EXPECT_FALSE(t.check_host_ip);
  EXPECT_FALSE(t.hash_known_hosts);
  EXPECT_THAT(t.identity_files, ElementsAre("/home/me/.ssh/id_ed25519", "/home/me/.ssh/id_ecdsa",
                                            "/home/me/.ssh/id_rsa"));
  EXPECT_EQ(t.connect_timeout_s, 0);
  EXPECT_EQ(DescribeSshTarget(t), "10.0.0.5:22");
}

constexpr char kConfig[] = R"(# comment
ServerAliveInterval 30

Host sut sut-alias
  HostName 10.213.1.2
  User root
  Port 2222
  IdentityFile ~/.ssh/sut_key
  StrictHostKeyChecking accept-new
  UserKnownHostsFile ~/.ssh/kh_%h_%p "/second/file"
  ConnectTimeout=4

Host lg
  HostName %h.lab.example
  IdentityFile %d/keys/%r@%h

Host *
  User fallback
  Port 2200
  IdentityFile ~/.ssh/id_all
  Compression yes
)";

TEST(SshTargetResolve, ConfigHostBlockApplies) {
  SshTarget t = Resolve("sut", "", kConfig);
  EXPECT_EQ(t.given, "sut");
  EXPECT_EQ(t.host, "10.213.1.2");
  EXPECT_EQ(t.user, "root");
  EXPECT_EQ(t.port, 2222);
  EXPECT_EQ(t.host_key_checking, HostKeyChecking::kAcceptNew);
  EXPECT_THAT(t.user_known_hosts_files, ElementsAre("/home/me/.ssh/kh_10.213.1.2_2222", "/second/file"));
  EXPECT_EQ(t.connect_timeout_s, 4);
  // IdentityFile accumulates over matching blocks, in order; no defaults then.
  EXPECT_THAT(t.identity_files, ElementsAre("/home/me/.ssh/sut_key", "/home/me/.ssh/id_all"));
  // Harmless directives are listed, with where they came from.
  EXPECT_THAT(t.ignored, testing::Contains("cfg:2: ServerAliveInterval"));
  EXPECT_THAT(t.ignored, testing::Contains("cfg:21: Compression"));
  EXPECT_EQ(DescribeSshTarget(t), "root@10.213.1.2:2222");
}

TEST(SshTargetResolve, TokensInHostNameAndIdentityFile) {
  SshTarget t = Resolve("lg", "", kConfig);
  EXPECT_EQ(t.host, "lg.lab.example");
  EXPECT_EQ(t.user, "fallback");
  EXPECT_EQ(t.port, 2200);
  EXPECT_THAT(t.identity_files,
              ElementsAre("/home/me/keys/fallback@lg.lab.example", "/home/me/.ssh/id_all"));
}

TEST(SshTargetResolve, CommandLineBeatsDestinationBeatsConfig) {
  // SSH_OPTS first, as on ssh's command line.
  SshTarget a = Resolve("sut", "-p 2300 -l admin -o StrictHostKeyChecking=no -i /k", kConfig);
  EXPECT_EQ(a.port, 2300);
  EXPECT_EQ(a.user, "admin");
  EXPECT_EQ(a.host_key_checking, HostKeyChecking::kNo);
  EXPECT_THAT(a.identity_files,
              ElementsAre("/k", "/home/me/.ssh/sut_key", "/home/me/.ssh/id_all"));
  // user@ and :port of the destination beat the config...
  SshTarget b = Resolve("ops@sut:2400", "", kConfig);
  EXPECT_EQ(b.user, "ops");
  EXPECT_EQ(b.port, 2400);
  // ...but not SSH_OPTS.
  SshTarget c = Resolve("ops@sut:2400", "-l admin -p 2500", kConfig);
  EXPECT_EQ(c.user, "admin");
  EXPECT_EQ(c.port, 2500);
  // Within the config the first value wins: "Host *" comes last.
  SshTarget d = Resolve("other", "", kConfig);
  EXPECT_EQ(d.user, "fallback");
  EXPECT_EQ(d.host, "other");
}

TEST(SshTargetResolve, UnsupportedDirectivesAreRefusedWithFileAndLine) {
  const std::string cfg = "Host sut\n  HostName 10.0.0.1\n  ProxyJump bastion\n";
  Error e = ResolveError("sut", "", cfg);
  EXPECT_THAT(e.message, HasSubstr("cfg:3"));
  EXPECT_THAT(e.message, HasSubstr("ProxyJump bastion"));
  EXPECT_THAT(e.message, HasSubstr("not supported"));
  // Only when the block applies to the target.
  SshTarget other = Resolve("lg", "", cfg);
  EXPECT_EQ(other.host, "lg");
  // From SSH_OPTS too.
  Error o = ResolveError("h", "-o ProxyCommand=/usr/bin/connect-proxy", "");
  EXPECT_THAT(o.message, HasSubstr("SSH_OPTS"));
  EXPECT_THAT(o.message, HasSubstr("ProxyCommand"));
  for (const char* line : {"ProxyCommand ssh -W %h:%p b", "RemoteCommand top",
                           "BindAddress 1.2.3.4", "AddressFamily inet6",
                           "CanonicalizeHostname yes", "PubkeyAuthentication no",
                           "KnownHostsCommand /bin/x", "CertificateFile ~/.ssh/c"}) {
    Error x = ResolveError("h", "", std::string("Host h\n") + line + "\n");
    EXPECT_THAT(x.message, HasSubstr("cfg:2")) << line;
  }
  // Values that switch the feature off are fine, and an earlier "none" wins.
  SshTarget n = Resolve("h", "", "Host h\nProxyJump none\nAddressFamily any\nHost *\nProxyJump b\n");
  EXPECT_EQ(n.host, "h");
}

// As ssh reads them: every file of the first line that sets the keyword,
// "none" alone for no file, % tokens in UserKnownHostsFile only; HostKeyAlias
// in lower case (ssh lowercases it), %k its token.
TEST(SshTargetResolve, KnownHostsSettings) {
  SshTarget t = Resolve("sut", "",
                        "Host sut\n  HostName 10.0.0.5\n  HostKeyAlias SUT-Key\n  CheckHostIP yes\n"
                        "  HashKnownHosts yes\n  UserKnownHostsFile ~/kh_%k /b/kh_%p\n"
                        "  GlobalKnownHostsFile ~/g /etc/g_%h\nHost *\n  UserKnownHostsFile /ignored\n");
  EXPECT_EQ(t.host_key_alias, "sut-key");
  EXPECT_TRUE(t.check_host_ip);
  EXPECT_TRUE(t.hash_known_hosts);
  EXPECT_THAT(t.user_known_hosts_files, ElementsAre("/home/me/kh_sut-key", "/b/kh_22"));
  EXPECT_THAT(t.global_known_hosts_files, ElementsAre("/home/me/g", "/etc/g_%h"));
  SshTarget none = Resolve("h", "-o UserKnownHostsFile=none -o GlobalKnownHostsFile=None", "");
  EXPECT_THAT(none.user_known_hosts_files, IsEmpty());
  EXPECT_THAT(none.global_known_hosts_files, IsEmpty());
  EXPECT_THAT(ResolveError("h", "", "UserKnownHostsFile /a none\n").message, HasSubstr("must appear alone"));
  EXPECT_THAT(ResolveError("h", "", "UserKnownHostsFile ${HOME}/kh\n").message, HasSubstr("${...}"));
  EXPECT_THAT(ResolveError("h", "", "CheckHostIP maybe\n").message, HasSubstr("CheckHostIP"));
}

TEST(SshTargetResolve, UnknownKeywordsAndBadValues) {
  Error u = ResolveError("h", "", "Host h\n  Frobnicate yes\n");
  EXPECT_THAT(u.message, HasSubstr("cfg:2"));
  EXPECT_THAT(u.message, HasSubstr("frobnicate"));
  SshTarget ok = Resolve("h", "", "IgnoreUnknown Frob*\nHost h\n  Frobnicate yes\n");
  EXPECT_THAT(ok.ignored, testing::Contains("cfg:3: frobnicate"));
  EXPECT_THAT(ResolveError("h", "-p 0", "").message, HasSubstr("Port 0"));
  EXPECT_THAT(ResolveError("h", "-o StrictHostKeyChecking=maybe", "").message,
              HasSubstr("StrictHostKeyChecking maybe"));
  EXPECT_THAT(ResolveError("h", "", "ConnectTimeout soon\n").message,
              HasSubstr("cfg:1: ConnectTimeout soon"));
  EXPECT_THAT(ResolveError("h", "", "IdentityFile ~/%z\n").message, HasSubstr("%z"));
  SshTarget ask = Resolve("h", "-o StrictHostKeyChecking=ask", "");
  EXPECT_EQ(ask.host_key_checking, HostKeyChecking::kYes);  // never prompts
}

TEST(SshTargetResolve, MatchBlocksOnlyWhenHarmless) {
  SshTarget t = Resolve("h", "", "Match host h\n  ServerAliveInterval 5\n");
  EXPECT_THAT(t.ignored, testing::Contains("cfg:2: ServerAliveInterval (in a Match block)"));
  Error e = ResolveError("h", "", "Match host h\n  User root\n");
  EXPECT_THAT(e.message, HasSubstr("cfg:2"));
  EXPECT_THAT(e.message, HasSubstr("Match blocks are not supported"));
}

TEST(SshConfigParse, QuotesEqualsAndErrors) {
  SshTarget t = Resolve("h", "", "Host h\n IdentityFile \"/path with space/key\"\n User=bob\n");
  EXPECT_THAT(t.identity_files, ElementsAre("/path with space/key"));
  EXPECT_EQ(t.user, "bob");
  auto unterminated = ParseSshConfig("User \"bob\n", "f", kHome);
  ASSERT_FALSE(unterminated.ok());
  EXPECT_THAT(unterminated.error().message, HasSubstr("f:1"));
  auto two = ParseSshConfig("\n\nPort 22 23\n", "f", kHome);
  ASSERT_FALSE(two.ok());
  EXPECT_THAT(two.error().message, HasSubstr("f:3"));
  auto no_value = ParseSshConfig("User\n", "f", kHome);
  ASSERT_FALSE(no_value.ok());
  auto no_include = ParseSshConfig("Include other\n", "f", kHome);
  ASSERT_FALSE(no_include.ok());
}

TEST(SshConfigParse, IncludeFollowsTheReaderInPlace) {
  std::vector<std::string> asked;
  SshIncludeReader reader = [&](const std::string& pattern)
      -> Result<std::vector<std::pair<std::string, std::string>>> {
    asked.push_back(pattern);
    if (pattern == "/home/me/.ssh/conf.d/*")
      return std::vector<std::pair<std::string, std::string>>{
          {"/home/me/.ssh/conf.d/a", "User from-include\nHost other\nUser nobody\n"}};
    return std::vector<std::pair<std::string, std::string>>{};
  };
  auto c = ParseSshConfig("Host h\nInclude conf.d/*\nPort 2022\n", "main", kHome, reader);
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_THAT(asked, ElementsAre("/home/me/.ssh/conf.d/*"));
  auto t = ResolveSshTarget("h", {}, *c, kHome, "me");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->user, "from-include");  // inherits the including Host block
  EXPECT_EQ(t->port, 2022);            // lines after Include are still in "Host h"
  auto o = ResolveSshTarget("other", {}, *c, kHome, "me");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->user, "nobody");
  EXPECT_EQ(o->port, 22);
}

}  // namespace
}  // namespace fvbench::ssh_target_test

namespace fvbench::ssh_target_test {
namespace {

std::string FixtureText(const std::string& name) {
  std::ifstream in(std::string(FVBENCH_SOURCE_DIR) + "/fixtures/ssh/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_FALSE(ss.str().empty()) << name;
  return ss.str();
}

// `ConnectTimeout 1m` was refused ("expected seconds").
TEST(SshTargetResolve, ConnectTimeoutInOpenSshTimeFormat) {
  EXPECT_EQ(Resolve("h", "", FixtureText("02_ssh_config_connecttimeout_1m.conf")).connect_timeout_s, 60);
  EXPECT_EQ(Resolve("h", "-o ConnectTimeout=1m30s", "").connect_timeout_s, 90);
  EXPECT_EQ(Resolve("h", "", "ConnectTimeout 2h\n").connect_timeout_s, 7200);
  EXPECT_EQ(Resolve("h", "", "ConnectTimeout 45\n").connect_timeout_s, 45);
  EXPECT_THAT(ResolveError("h", "", "ConnectTimeout 1x\n").message, HasSubstr("cfg:1: ConnectTimeout 1x"));
}

// `ConnectTimeout 0` (no timeout) was refused.
TEST(SshTargetResolve, ConnectTimeoutZeroIsNone) {
  SshTarget t = Resolve("h", "", FixtureText("02b_ssh_config_connecttimeout_0.conf"));
  EXPECT_EQ(t.connect_timeout_s, 0);
  ASSERT_FALSE(t.ignored.empty());
  EXPECT_THAT(t.ignored.back(), HasSubstr("ConnectTimeout 0 (no timeout)"));
}

}  // namespace
}  // namespace fvbench::ssh_target_test
