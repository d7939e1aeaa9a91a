// known_hosts marker lines (@revoked, @cert-authority) as OpenSSH reads them.
#include "support/host/known_hosts_markers.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace fvbench::known_hosts_markers_test {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(FVBENCH_SOURCE_DIR) + "/fixtures/ssh/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char kKey[] = "AAAAC3NzaC1lZDI1NTE5AAAAIJ1yAUV12jCsv+vl0BVzoel87EjNFuRUBgZFxcxEsXIl";

// ../shared/cases 09: a revoked key, trusted again on the next line: OpenSSH
// refuses the host (the revocation wins).
TEST(KnownHostsMarkers, RevokedKeyWinsOverAPlainLine) {
  auto m = MarkersFor(Fixture("09_known_hosts_revoked_plus_plain"), "kh", "127.0.0.1", 2222);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].marker, "@revoked");
  EXPECT_EQ(m[0].line, 1u);
  EXPECT_EQ(m[0].file, "kh");
  const KnownHostsMarker* r = RevokedKey(m, "ssh-ed25519", kKey);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->line, 1u);
  EXPECT_EQ(RevokedKey(m, "ssh-ed25519", "AAAAother"), nullptr);
  EXPECT_EQ(RevokedKey(m, "ssh-rsa", kKey), nullptr);
}

// ../shared/cases 09b: only the revoked line.
TEST(KnownHostsMarkers, RevokedOnly) {
  auto m = MarkersFor(Fixture("09b_known_hosts_revoked_only"), "kh", "127.0.0.1", 2222);
  ASSERT_NE(RevokedKey(m, "ssh-ed25519", kKey), nullptr);
  // Another port or host: not this line.
  EXPECT_TRUE(MarkersFor(Fixture("09b_known_hosts_revoked_only"), "kh", "127.0.0.1", 22).empty());
  EXPECT_TRUE(MarkersFor(Fixture("09b_known_hosts_revoked_only"), "kh", "127.0.0.2", 2222).empty());
}

TEST(KnownHostsMarkers, PatternsAsOpenSsh) {
  const std::string kh = std::string("@revoked *.example.com,!bad.example.com ssh-ed25519 ") + kKey + "\n" +
                         "@cert-authority 10.0.0.? ssh-ed25519 AAAAca\n" +
                         "10.0.0.5 ssh-ed25519 AAAAplain\n" +
                         "@revoked\n";  // malformed: skipped
  EXPECT_EQ(MarkersFor(kh, "kh", "SUT.Example.com", 22).size(), 1u);
  EXPECT_TRUE(MarkersFor(kh, "kh", "bad.example.com", 22).empty());
  auto ca = MarkersFor(kh, "kh", "10.0.0.5", 22);
  ASSERT_EQ(ca.size(), 1u);
  EXPECT_EQ(ca[0].marker, "@cert-authority");
  EXPECT_EQ(ca[0].line, 2u);
  EXPECT_TRUE(MarkersFor(kh, "kh", "10.0.0.50", 22).empty());
}

// A hashed host (ssh-keygen -H): |1|base64(salt)|base64(HMAC-SHA1(salt, name)).
// Made with: key=$(printf 0123456789abcdef0123 | base64);
//   printf '[127.0.0.1]:2222' | openssl dgst -sha1 -mac HMAC -macopt key:0123456789abcdef0123 -binary | base64
TEST(KnownHostsMarkers, HashedHostName) {
  const std::string salt_b64 = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM=";
  const std::string mac_b64 = "Ao5IJVG0AcQDCWam0rTjF+9r4fM=";
  const std::string kh = "@revoked |1|" + salt_b64 + "|" + mac_b64 + " ssh-ed25519 " + kKey + "\n";
  EXPECT_EQ(MarkersFor(kh, "kh", "127.0.0.1", 2222).size(), 1u);
  EXPECT_TRUE(MarkersFor(kh, "kh", "127.0.0.1", 2223).empty());
}

}  // namespace
}  // namespace fvbench::known_hosts_markers_test
