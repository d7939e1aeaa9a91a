#include "support/engine/jwt.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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
  unsetenv("FVBENCH_JWT_SECRET");  // the seed's token is the default's
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

// Restores FVBENCH_JWT_SECRET after a test that sets it.
class SecretEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = std::getenv("FVBENCH_JWT_SECRET")) saved_ = v, had_ = true;
  }
  void TearDown() override {
    if (had_) setenv("FVBENCH_JWT_SECRET", saved_.c_str(), 1);
    else unsetenv("FVBENCH_JWT_SECRET");
  }
  std::string saved_;
  bool had_ = false;
};

TEST_F(SecretEnv, OverrideChangesTheToken) {
  unsetenv("FVBENCH_JWT_SECRET");
  EXPECT_EQ(BenchJwtSecret(), kBenchJwtSecret);
  const std::string seed = BenchJwt();
  setenv("FVBENCH_JWT_SECRET", "site-secret-0123456789", 1);
  EXPECT_EQ(BenchJwtSecret(), "site-secret-0123456789");
  EXPECT_EQ(BenchJwt(), MakeHs256Jwt("site-secret-0123456789", kBenchJwtClaims));
  EXPECT_NE(BenchJwt(), seed);
  setenv("FVBENCH_JWT_SECRET", "", 1);  // empty = unset
  EXPECT_EQ(BenchJwt(), seed);
}

TEST_F(SecretEnv, RedactsTokensSignaturesSecretsAndTheirBase64) {
  setenv("FVBENCH_JWT_SECRET", "site-secret-0123456789", 1);
  const std::string tok = BenchJwt();
  const std::string seed_tok = MakeHs256Jwt(kBenchJwtSecret, kBenchJwtClaims);
  const std::string sig = tok.substr(tok.rfind('.') + 1);
  const std::string text = "curl -H 'Authorization: Bearer " + tok + "' x\n" +
                           "FVBENCH_JWT=" + tok + " seed=" + seed_tok + " sig=" + sig + "\n" +
                           "secret=site-secret-0123456789 default=" + kBenchJwtSecret + "\n" +
                           "b64=" + Base64UrlEncode("site-secret-0123456789") + " b64d=" +
                           Base64UrlEncode(kBenchJwtSecret) + "\n";
  const std::string out = RedactSecrets(text);
  for (const std::string& s : BenchSecrets()) EXPECT_EQ(out.find(s), std::string::npos) << s << "\n" << out;
  EXPECT_EQ(out.find(sig), std::string::npos) << out;
  EXPECT_EQ(out.find("site-secret"), std::string::npos) << out;
  EXPECT_EQ(out.find("bench-hs256-key"), std::string::npos) << out;
  EXPECT_NE(out.find("Authorization: Bearer <redacted>' x"), std::string::npos) << out;
  EXPECT_NE(out.find("FVBENCH_JWT=<redacted> seed=<redacted> sig=<redacted>"), std::string::npos) << out;
  EXPECT_EQ(RedactSecrets(out), out);  // idempotent
  // Both secrets, both tokens, both signatures, both base64url forms.
  EXPECT_EQ(BenchSecrets().size(), 8u);
}

TEST(RedactSecrets, OtherTokensAndBearerValues) {
  const std::string other = MakeHs256Jwt("someone-else", R"({"sub":"x"})");
  EXPECT_EQ(RedactSecrets("a " + other + " b"), "a <redacted-jwt> b");
  EXPECT_EQ(RedactSecrets("Authorization: Bearer abc.def~+/=\n"), "Authorization: Bearer <redacted>\n");
  // Text without secrets is untouched, including look-alikes.
  const std::string plain = "eyJ only; eyJa.eyJb (no signature); Bearer; Bearer <redacted>; p99 = 12 ms";
  EXPECT_EQ(RedactSecrets(plain), plain);
  EXPECT_EQ(RedactSecrets(""), "");
}

}  // namespace
}  // namespace fvbench
