// known_hosts read as OpenSSH 9.2 reads it, and its host key decision
// (known_hosts.h). Each case here was also checked against the real ssh in
// known_hosts_openssh_test.cc where a server is needed to decide it.
#include "support/host/known_hosts.h"
#include "fvbench/source_dir.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <fstream>
#include <sstream>

namespace fvbench::known_hosts_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(FVBENCH_SOURCE_DIR) + "/fixtures/ssh/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two ed25519 keys and an ECDSA key (ssh-keygen), as known_hosts writes them.
const char kKeyA[] = "AAAAC3NzaC1lZDI1NTE5AAAAIJ1yAUV12jCsv+vl0BVzoel87EjNFuRUBgZFxcxEsXIl";
const char kKeyB[] = "AAAAC3NzaC1lZDI1NTE5AAAAIG+VMgdXWW67tQvmKlkW312uctzXTYAf4oW7RWx3881u";
const char kKeyEcdsa[] =
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBJLECzcHJDtvvgPQzvJJvg3v0mOUidQF7n3vQUUs3lyidex8tZrc+Qi3ziB/"
    "i+NHTARBiJ514XCY9cU0/xwQkeg=";

std::string Blob(const char* b64) {
  std::string in(b64);
  std::string out(in.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  size_t pad = in.size() - in.find_last_not_of('=') - 1;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string Ed(const char* key) { return std::string("ssh-ed25519 ") + key; }

HostKeyQuery Query(const std::string& user_text, int port = 22, HostKeyChecking c = HostKeyChecking::kYes) {
  HostKeyQuery q;
  q.hostname = "10.0.0.5";
  q.port = port;
  q.address = "10.0.0.5";
  q.checking = c;
  q.user_files = {{"kh", user_text}};
  return q;
}

HostKeyDecision Decide(const HostKeyQuery& q, const char* key = kKeyA) {
  return DecideHostKey(q, Blob(key), "root@10.0.0.5:" + std::to_string(q.port));
}

TEST(KnownHostsLines, PatternsAsOpenSsh) {
  const std::string kh = std::string("@revoked *.example.com,!bad.example.com ") + Ed(kKeyA) + "\n" +
                         "@cert-authority 10.0.0.? " + Ed(kKeyB) + "\n" +
                         "# a comment\n\n  10.0.0.5 " + Ed(kKeyA) + " a comment\n" +
                         "@revoked\n" +                       // malformed: skipped
                         "@bogus 10.0.0.5 " + Ed(kKeyA) + "\n" +  // unknown marker: skipped
                         "10.0.0.5 ssh-rsa " + kKeyA + "\n" +   // type word is not the key's: skipped
                         "10.0.0.5 ssh-ed25519 AAAAnotbase64!\n";
  EXPECT_EQ(KnownHostsEntriesFor({"kh", kh}, "SUT.Example.com").size(), 1u);
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", kh}, "bad.example.com").empty());
  auto e = KnownHostsEntriesFor({"kh", kh}, "10.0.0.5");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].marker, KnownHostsMarker::kCertAuthority);
  EXPECT_EQ(e[0].where(), "kh:2");
  EXPECT_EQ(e[1].marker, KnownHostsMarker::kNone);
  EXPECT_EQ(e[1].where(), "kh:5");
  EXPECT_EQ(e[1].key_type, "ssh-ed25519");
  EXPECT_EQ(e[1].key_blob, Blob(kKeyA));
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", kh}, "10.0.0.50").empty());
}

TEST(KnownHostsLines, PortsAndNames) {
  EXPECT_EQ(KnownHostsName("h", 22), "h");
  EXPECT_EQ(KnownHostsName("h", 0), "h");
  EXPECT_EQ(KnownHostsName("h", 2222), "[h]:2222");
  EXPECT_EQ(KnownHostsHostname("SUT.Example"), "sut.example");
  EXPECT_EQ(KnownHostsHostname("FE80::1"), "FE80::1");  // an address is left as written
  const std::string kh = "[10.0.0.5]:2222 " + Ed(kKeyA) + "\n";
  EXPECT_EQ(KnownHostsEntriesFor({"kh", kh}, "[10.0.0.5]:2222").size(), 1u);
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", kh}, "10.0.0.5").empty());
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", kh}, "[10.0.0.5]:2223").empty());
}

// A hashed host (ssh-keygen -H of "10.0.0.5 <key B>").
TEST(KnownHostsLines, HashedNames) {
  const std::string kh = "|1|uWOvoKufc2g0HGHwQqLhisTVsO8=|Wdzunm7QZfQwkdTdEbnKkQVJEJc= " + Ed(kKeyB) + "\n";
  EXPECT_EQ(KnownHostsEntriesFor({"kh", kh}, "10.0.0.5").size(), 1u);
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", kh}, "10.0.0.6").empty());
  // The line KnownHostsLine writes with a salt is found again, and only for its name.
  const std::string salt = "0123456789abcdef0123";
  const std::string line = KnownHostsLine("[SUT]:2222", Blob(kKeyA), salt);
  EXPECT_EQ(line.rfind("|1|MDEyMzQ1Njc4OWFiY2RlZjAxMjM=|", 0), 0u) << line;
  EXPECT_EQ(KnownHostsEntriesFor({"kh", line}, "[sut]:2222").size(), 1u);
  EXPECT_TRUE(KnownHostsEntriesFor({"kh", line}, "[sut]:2223").empty());
  EXPECT_EQ(KnownHostsLine("[SUT]:2222", Blob(kKeyA)), "[sut]:2222 " + Ed(kKeyA) + "\n");
}

TEST(KnownHostsKey, TypeAndFingerprint) {
  EXPECT_EQ(KeyBlobType(Blob(kKeyA)), "ssh-ed25519");
  EXPECT_EQ(KeyBlobType(Blob(kKeyEcdsa)), "ecdsa-sha2-nistp256");
  EXPECT_EQ(KeyFingerprint(Blob(kKeyB)), "SHA256:spCvy2gES0oy7Pn9xqVjnGg+QBYnkAEyr5CtnqtiVdY");  // ssh-keygen -l
}

TEST(HostKeyDecision, KnownKeyIsAcceptedAndNamesItsLine) {
  auto d = Decide(Query("10.0.0.5 " + Ed(kKeyA) + "\n"));
  EXPECT_TRUE(d.accepted) << d.refusal;
  EXPECT_EQ(d.trusted_by, "kh:1");
  EXPECT_THAT(d.record, IsEmpty());
}

// OpenSSH looks a key it does not find under "[host]:port" up again under
// the bare host name ("checking without port identifier").
TEST(HostKeyDecision, PortlessLineTrustsANonStandardPort) {
  auto d = Decide(Query("10.0.0.5 " + Ed(kKeyA) + "\n", 2299));
  EXPECT_TRUE(d.accepted) << d.refusal;
  EXPECT_EQ(d.trusted_by, "kh:1");
  // ...but a line for the port wins: a different key there is a changed key.
  auto changed = Decide(Query("[10.0.0.5]:2299 " + Ed(kKeyB) + "\n10.0.0.5 " + Ed(kKeyA) + "\n", 2299));
  EXPECT_FALSE(changed.accepted);
  EXPECT_THAT(changed.refusal, HasSubstr("CHANGED"));
  EXPECT_THAT(changed.refusal, HasSubstr("kh:1"));
  EXPECT_THAT(changed.refusal, HasSubstr("ssh-keygen -f kh -R '[10.0.0.5]:2299'"));
  // A different key on the bare name does not refuse it: it is new for the port.
  auto other = Decide(Query("10.0.0.5 " + Ed(kKeyB) + "\n", 2299));
  EXPECT_FALSE(other.accepted);
  EXPECT_THAT(other.refusal, HasSubstr("not known"));
  EXPECT_THAT(other.refusal, HasSubstr("as '10.0.0.5': kh:1 holds a different key"));
  auto recorded = Decide(Query("10.0.0.5 " + Ed(kKeyB) + "\n", 2299, HostKeyChecking::kAcceptNew));
  EXPECT_TRUE(recorded.accepted) << recorded.refusal;
  EXPECT_THAT(recorded.record, ElementsAre("[10.0.0.5]:2299"));
}

TEST(HostKeyDecision, UnknownKeyByCheckingMode) {
  auto yes = Decide(Query(""));
  EXPECT_FALSE(yes.accepted);
  EXPECT_THAT(yes.refusal, HasSubstr("not known"));
  EXPECT_THAT(yes.refusal, HasSubstr(KeyFingerprint(Blob(kKeyA))));
  EXPECT_THAT(yes.refusal, HasSubstr("StrictHostKeyChecking yes"));
  auto acc = Decide(Query("", 22, HostKeyChecking::kAcceptNew));
  EXPECT_TRUE(acc.accepted);
  EXPECT_THAT(acc.record, ElementsAre("10.0.0.5"));
  auto no = Decide(Query("", 2222, HostKeyChecking::kNo));  // ssh records with "no" too
  EXPECT_TRUE(no.accepted);
  EXPECT_THAT(no.record, ElementsAre("[10.0.0.5]:2222"));
  // Nowhere to record (UserKnownHostsFile none): refused even with accept-new.
  HostKeyQuery none = Query("", 22, HostKeyChecking::kAcceptNew);
  none.user_files.clear();
  auto n = Decide(none);
  EXPECT_FALSE(n.accepted);
  EXPECT_THAT(n.refusal, HasSubstr("no UserKnownHostsFile"));
}

TEST(HostKeyDecision, ChangedKeyRefusedUnlessNo) {
  const std::string kh = "10.0.0.5 " + Ed(kKeyB) + "\n";
  for (auto c : {HostKeyChecking::kYes, HostKeyChecking::kAcceptNew}) {
    auto d = Decide(Query(kh, 22, c));
    EXPECT_FALSE(d.accepted);
    EXPECT_THAT(d.refusal, HasSubstr("CHANGED"));
  }
  auto no = Decide(Query(kh, 22, HostKeyChecking::kNo));
  EXPECT_TRUE(no.accepted);
  EXPECT_THAT(no.record, IsEmpty());
  // A key of another type for the host counts as changed too (as in ssh).
  EXPECT_FALSE(Decide(Query("10.0.0.5 ecdsa-sha2-nistp256 " + std::string(kKeyEcdsa) + "\n")).accepted);
}

// fixtures/ssh/09 and 09b: a revoked key, trusted again on the next line: the
// revocation wins; alone, accept-new does not record it.
TEST(HostKeyDecision, RevokedKeyWinsOverAPlainLine) {
  HostKeyQuery q = Query(Fixture("09_known_hosts_revoked_plus_plain"), 2222);
  q.hostname = q.address = "127.0.0.1";
  for (auto c : {HostKeyChecking::kYes, HostKeyChecking::kAcceptNew}) {
    q.checking = c;
    auto d = Decide(q);
    EXPECT_FALSE(d.accepted);
    EXPECT_THAT(d.refusal, HasSubstr("@revoked in kh:1"));
  }
  q.user_files[0].text = Fixture("09b_known_hosts_revoked_only");
  q.checking = HostKeyChecking::kAcceptNew;
  auto d = Decide(q);
  EXPECT_FALSE(d.accepted);
  EXPECT_THAT(d.record, IsEmpty());
  // Another key is not revoked by that line.
  EXPECT_TRUE(Decide(q, kKeyB).accepted);
}

// ssh takes a key @revoked for the bare host name as new for "[host]:port"
// (and accept-new records it); fvbench refuses it.
TEST(HostKeyDecision, RevokedForTheBareNameIsRefusedOnAnyPort) {
  auto d = Decide(Query("@revoked 10.0.0.5 " + Ed(kKeyA) + "\n", 2299, HostKeyChecking::kAcceptNew));
  EXPECT_FALSE(d.accepted);
  EXPECT_THAT(d.refusal, HasSubstr("@revoked in kh:1"));
  EXPECT_THAT(d.refusal, HasSubstr("'[10.0.0.5]:2299' too"));
  EXPECT_THAT(d.record, IsEmpty());
}

TEST(HostKeyDecision, EveryFileIsReadUserFilesFirst) {
  HostKeyQuery q = Query("");
  q.user_files.push_back({"kh2", "10.0.0.5 " + Ed(kKeyA) + "\n"});
  auto d = Decide(q);
  EXPECT_TRUE(d.accepted) << d.refusal;
  EXPECT_EQ(d.trusted_by, "kh2:1");
  HostKeyQuery g = Query("", 22, HostKeyChecking::kAcceptNew);
  g.global_files.push_back({"global", "10.0.0.5 " + Ed(kKeyA) + "\n"});
  auto dg = Decide(g);
  EXPECT_TRUE(dg.accepted);
  EXPECT_EQ(dg.trusted_by, "global:1");
  EXPECT_THAT(dg.record, IsEmpty());  // known: nothing recorded
  // A global @revoked line refuses a key a user file trusts.
  g.user_files[0].text = "10.0.0.5 " + Ed(kKeyA) + "\n";
  g.global_files[0].text = "@revoked * " + Ed(kKeyA) + "\n";
  EXPECT_THAT(Decide(g).refusal, HasSubstr("@revoked in global:1"));
}

TEST(HostKeyDecision, HostKeyAliasIsTheNameLookedUp) {
  HostKeyQuery q = Query("sut-alias " + Ed(kKeyA) + "\n", 2222);
  q.host_key_alias = "sut-alias";
  EXPECT_TRUE(Decide(q).accepted);
  // With an alias the port-less look-up does not happen.
  q.user_files[0].text = "10.0.0.5 " + Ed(kKeyA) + "\n";
  EXPECT_FALSE(Decide(q).accepted);
  q.checking = HostKeyChecking::kAcceptNew;
  EXPECT_THAT(Decide(q).record, ElementsAre("sut-alias"));
}

TEST(HostKeyDecision, CheckHostIpByName) {
  HostKeyQuery q = Query("sut " + Ed(kKeyA) + "\n");
  q.hostname = "sut";
  q.check_host_ip = true;
  // The address is not recorded yet: recorded beside the trusted host.
  auto d = Decide(q);
  EXPECT_TRUE(d.accepted) << d.refusal;
  EXPECT_THAT(d.record, ElementsAre("10.0.0.5"));
  // The address has another key: refused.
  q.user_files[0].text += "10.0.0.5 " + Ed(kKeyB) + "\n";
  auto bad = Decide(q);
  EXPECT_FALSE(bad.accepted);
  EXPECT_THAT(bad.refusal, HasSubstr("CheckHostIP yes"));
  EXPECT_THAT(bad.refusal, HasSubstr("kh:2"));
  // A new host recorded with its address on one line (two when hashed).
  q.user_files[0].text = "";
  q.checking = HostKeyChecking::kAcceptNew;
  EXPECT_THAT(Decide(q).record, ElementsAre("sut,10.0.0.5"));
  q.hash_known_hosts = true;
  EXPECT_THAT(Decide(q).record, ElementsAre("sut", "10.0.0.5"));
  // Off for a loopback address and for a host given as its address.
  q.hash_known_hosts = false;
  q.address_is_loopback = true;
  EXPECT_THAT(Decide(q).record, ElementsAre("sut"));
}

TEST(HostKeyDecision, CertAuthorityWithoutTheHostsOwnKeyIsRefusedClearly) {
  HostKeyQuery q = Query("@cert-authority 10.0.0.* " + Ed(kKeyB) + "\n");
  auto d = Decide(q);
  EXPECT_FALSE(d.accepted);
  EXPECT_THAT(d.refusal, HasSubstr("@cert-authority"));
  EXPECT_THAT(d.refusal, HasSubstr("kh:1"));
  EXPECT_THAT(d.refusal, HasSubstr("cannot check"));
  // The host's own key known: accepted.
  q.user_files[0].text += "10.0.0.5 " + Ed(kKeyA) + "\n";
  EXPECT_TRUE(Decide(q).accepted);
  // accept-new records the plain key, as ssh does for a server without a certificate.
  HostKeyQuery a = Query("@cert-authority 10.0.0.* " + Ed(kKeyB) + "\n", 22, HostKeyChecking::kAcceptNew);
  EXPECT_THAT(Decide(a).record, ElementsAre("10.0.0.5"));
}

TEST(HostKeyDecision, UnreadableFilesAreNamed) {
  HostKeyQuery q = Query("");
  q.unreadable = {"/root/kh: permission denied"};
  EXPECT_THAT(Decide(q).refusal, HasSubstr("/root/kh: permission denied"));
}

// OpenSSH's order_hostkeyalgs over its default list.
TEST(HostKeyAlgorithms, KnownKeyTypesFirst) {
  const std::string all =
      "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,"
      "sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256";
  EXPECT_EQ(HostKeyAlgorithmsFor(Query("")), all);
  EXPECT_EQ(HostKeyAlgorithmsFor(Query("10.0.0.5 " + Ed(kKeyA) + "\n")), all);
  EXPECT_EQ(HostKeyAlgorithmsFor(Query("10.0.0.5 ecdsa-sha2-nistp256 " + std::string(kKeyEcdsa) + "\n")),
            "ecdsa-sha2-nistp256,ssh-ed25519,ecdsa-sha2-nistp384,ecdsa-sha2-nistp521,sk-ssh-ed25519@openssh.com,"
            "sk-ecdsa-sha2-nistp256@openssh.com,rsa-sha2-512,rsa-sha2-256");
  // Only the name with the port counts (ssh orders before the port-less look-up).
  EXPECT_EQ(HostKeyAlgorithmsFor(Query("10.0.0.5 ecdsa-sha2-nistp256 " + std::string(kKeyEcdsa) + "\n", 2222)), all);
}

}  // namespace
}  // namespace fvbench::known_hosts_test
