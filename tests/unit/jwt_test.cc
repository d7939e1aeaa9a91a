#include "support/jwt.h"

#include <gtest/gtest.h>

namespace fvbench {
namespace {

TEST(Base64Url, Rfc4648Vectors) {
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foob"), "Zm9vYg");
  EXPECT_EQ(Base64UrlEncode("fooba"), "Zm9vYmE");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
}

TEST(Base64Url, UrlAlphabetNoPadding) {
  // 0xfb 0xff encodes to "+/8=" in standard base64.
  EXPECT_EQ(Base64UrlEncode(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(Base64UrlEncode(std::string("\0", 1)), "AA");
}

// Expected tokens computed independently with
//   h=$(printf '{"alg":"HS256","typ":"JWT"}' | base64 -w0 | tr '+/' '-_' | tr -d '=')
//   p=$(printf '<claims>' | base64 -w0 | tr '+/' '-_' | tr -d '=')
//   printf '%s' "$h.$p" | openssl dgst -sha256 -hmac '<secret>' -binary | base64 -w0 | tr '+/' '-_' | tr -d '='
TEST(Hs256Jwt, KnownVector) {
  // The widely published jwt.io example token.
  EXPECT_EQ(MakeHs256Jwt("your-256-bit-secret",
                         R"({"sub":"1234567890","name":"John Doe","iat":1516239022})"),
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
            "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c");
}

TEST(Hs256Jwt, BenchTokenMatchesSeed) {
  EXPECT_EQ(BenchJwt(),
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
            "eyJzdWIiOiJiZW5jaC11c2VyIiwib3JnX2lkIjoiYmVuY2gtb3JnIiwiaWF0IjoxNzAwMDAwMDAwLCJleHAiOjk5OTk5OTk5OTl9."
            "5YeBsFpTMRKmdvXM9bqRzLjI4zAt3xNs5ttIUgA7jZk");
}

TEST(Hs256Jwt, SecretChangesOnlySignature) {
  std::string a = MakeHs256Jwt("k1", kBenchJwtClaims);
  std::string b = MakeHs256Jwt("k2", kBenchJwtClaims);
  ASSERT_NE(a, b);
  EXPECT_EQ(a.substr(0, a.rfind('.')), b.substr(0, b.rfind('.')));
}

}  // namespace
}  // namespace fvbench
