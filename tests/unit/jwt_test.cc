#include "support/engine/jwt.h"
#include "fvbench/source_dir.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fvbench::jwt_test {
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
  SetBenchJwtSecret(kBenchJwtSecret);  // the seed's token is the default's
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

// Installs a secret for one test (Config::jwt_secret via SetBenchJwtSecret;
// nothing in jwt.cc reads the environment) and restores the built-in one.
class InstalledSecret : public ::testing::Test {
 protected:
  void TearDown() override { SetBenchJwtSecret(kBenchJwtSecret); }
};

constexpr const char kSite[] = "site-secret-0123456789-abcdefghij";  // 33 bytes

TEST_F(InstalledSecret, OverrideChangesTheToken) {
  SetBenchJwtSecret(kBenchJwtSecret);
  EXPECT_EQ(BenchJwtSecret(), kBenchJwtSecret);
  const std::string seed = BenchJwt();
  SetBenchJwtSecret(kSite);
  EXPECT_EQ(BenchJwtSecret(), kSite);
  EXPECT_EQ(BenchJwt(), MakeHs256Jwt(kSite, kBenchJwtClaims));
  EXPECT_NE(BenchJwt(), seed);
}

TEST_F(InstalledSecret, RedactsTokensSignaturesSecretsAndTheirBase64) {
  SetBenchJwtSecret(kSite);
  const std::string tok = BenchJwt();
  const std::string seed_tok = MakeHs256Jwt(kBenchJwtSecret, kBenchJwtClaims);
  const std::string sig = tok.substr(tok.rfind('.') + 1);
  const std::string text = "curl -H 'Authorization: Bearer " + tok + "' x\n" +
                           "FVBENCH_JWT=" + tok + " seed=" + seed_tok + " sig=" + sig + "\n" +
                           "secret=" + kSite + " default=" + kBenchJwtSecret + "\n" +
                           "b64=" + Base64UrlEncode(kSite) + " b64d=" + Base64UrlEncode(kBenchJwtSecret) + "\n";
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

// A token made from the secret with other claims is redacted too (its
// signature verifies with the secret); anybody else's token, a Bearer value
// that is not ours and every other text are left exactly as they are.
TEST_F(InstalledSecret, OnlyTheSecretAndTokensMadeFromItChange) {
  SetBenchJwtSecret(kSite);
  const std::string ours = MakeHs256Jwt(kSite, R"({"sub":"other-claims"})");
  EXPECT_EQ(RedactSecrets("a " + ours + " b"), "a <redacted-jwt> b");
  const std::string seed_other = MakeHs256Jwt(kBenchJwtSecret, R"({"sub":"x"})");
  EXPECT_EQ(RedactSecrets("a " + seed_other + " b"), "a <redacted-jwt> b");
  const std::string theirs = MakeHs256Jwt("someone-else's-key-of-enough-length!", R"({"sub":"x"})");
  const std::string plain = "a " + theirs + " b; Authorization: Bearer abc.def~+/=; eyJ only; eyJa.eyJb; "
                            "p99 = 12 ms; 0000000000 1e-7 \"requests\":400";
  EXPECT_EQ(RedactSecrets(plain), plain);
  EXPECT_EQ(RedactSecrets(""), "");
}

// With FVBENCH_JWT_SECRET=0 every "0" of the raw wrk
// output became "<redacted>" ("requests":4<redacted><redacted>) and the JSON
// no longer parsed. Such a secret is now refused (config.h); with the
// shortest accepted secret made of the most common characters, every
// recorded wrk output is left byte-identical and stays valid JSON.
TEST_F(InstalledSecret, Case01RawWrkOutputIsUnchangedByRedaction) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  const std::string wrk = std::string(dir != nullptr ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/wrk";
  int files = 0;
  for (const std::string& secret : {std::string(kMinJwtSecretBytes, '0'), std::string(kMinJwtSecretBytes, ' '),
                                   std::string(kMinJwtSecretBytes, '"')}) {
    SetBenchJwtSecret(secret);
    for (const auto& f : std::filesystem::directory_iterator(wrk)) {
      if (f.path().extension() != ".json" || f.path().filename().string().rfind("bad_", 0) == 0) continue;
      std::ifstream in(f.path(), std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      ASSERT_TRUE(nlohmann::json::accept(text.str())) << f.path();
      const std::string out = RedactSecrets(text.str());
      EXPECT_EQ(out, text.str()) << f.path() << " changed by redacting a " << secret.size() << "-byte secret";
      EXPECT_TRUE(nlohmann::json::accept(out)) << f.path();
      ++files;
    }
  }
  EXPECT_GE(files, 3 * 4);
}

}  // namespace
}  // namespace fvbench::jwt_test
