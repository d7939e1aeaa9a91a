// The vendor key check (vendor_keys.h) run for real on this machine with gpg
// against stand-in key files served as file:// URLs (fixtures/keys/: a
// throwaway ed25519 key, and a file holding it and a second key): the key
// with the expected fingerprint is written; any other fingerprint, a file
// with two keys, a file with no key and a key with no published fingerprint
// are refused naming expected and found, and nothing is written.
#include "support/sut/vendor_keys.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/host/local_host.h"
#include "support/host/shell_quote.h"
#include "tests/unit/golden.h"

namespace fvbench::vendor_keys_test {
namespace {

namespace fs = std::filesystem;

// fixtures/keys/stand-in.asc (README there).
constexpr const char kStandIn[] = "A4B671A5CDF55112A4412A73D0C9AB5B73DB8687";
constexpr const char kSecond[] = "729F1D2207E6668FE457891F11087007FD5AE565";

class VendorKeyCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fvbench-vendor-keys-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static VendorKey Key(const std::string& file, const std::string& fingerprint) {
    return {"Stand-in", "file://" + testing_golden::FixturesDir() + "/keys/" + file, fingerprint, "fixtures/keys"};
  }
  ExecResult Run(const VendorKey& key, KeyFormat format = KeyFormat::kBinary) {
    Command c;
    c.argv = {"sh", "-c", VerifiedKeyScript(key, "stand-in key", Dest().string(), format)};
    c.timeout = std::chrono::seconds(60);
    auto r = host_.Run(c);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : ExecResult{};
  }
  fs::path Dest() const { return dir_ / "keyring.gpg"; }
  // The fingerprints gpg reads from the written file.
  std::string Written() {
    Command c;
    c.argv = {"sh", "-c", "GNUPGHOME=$(mktemp -d) && gpg --batch --with-colons --show-keys " +
                              ShellQuote(Dest().string()) + " | awk -F: '$1==\"fpr\"{print $10}'; rm -rf \"$GNUPGHOME\""};
    auto r = host_.Run(c);
    return r.ok() ? r->out : "";
  }

  fs::path dir_;
  LocalHost host_;
};

TEST_F(VendorKeyCheck, TheExpectedFingerprintIsWritten) {
  auto r = Run(Key("stand-in.asc", kStandIn));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Written(), std::string(kStandIn) + "\n");
  // Binary for apt's signed-by; armored for rpm --import.
  auto a = Run(Key("stand-in.asc", kStandIn), KeyFormat::kArmored);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(Written(), std::string(kStandIn) + "\n");
}

TEST_F(VendorKeyCheck, AnotherFingerprintIsRefusedNamingBoth) {
  auto r = Run(Key("stand-in.asc", OpenRestyKey().fingerprint));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stand-in key: Stand-in key file://"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(std::string("has fingerprint ") + kStandIn + ", expected " + OpenRestyKey().fingerprint +
                       " (fixtures/keys); not trusted"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(Dest()));
}

TEST_F(VendorKeyCheck, AFileWithASecondKeyIsRefused) {
  auto r = Run(Key("two-keys.asc", kStandIn));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(std::string("has fingerprint ") + kStandIn + " " + kSecond + ", expected " + kStandIn),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(Dest()));
}

TEST_F(VendorKeyCheck, NoKeyOrNoPublishedFingerprintIsRefused) {
  auto none = Run(Key("README.md", kStandIn));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("has fingerprint none, expected"), std::string::npos) << none.err;
  auto unpublished = Run(Key("stand-in.asc", ""));
  EXPECT_EQ(unpublished.exit_code, 1);
  EXPECT_NE(unpublished.err.find(std::string("has fingerprint ") + kStandIn + ", expected none published"),
            std::string::npos)
      << unpublished.err;
  EXPECT_FALSE(fs::exists(Dest()));
}

TEST_F(VendorKeyCheck, AKeyThatCannotBeFetchedWritesNothing) {
  auto r = Run(Key("no-such-key.asc", kStandIn));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(Dest()));
}

TEST(VendorKeys, PublishedFingerprints) {
  EXPECT_EQ(OpenRestyKey().url, "https://openresty.org/package/pubkey.gpg");
  EXPECT_EQ(OpenRestyKey().fingerprint, "E52218E7087897DC6DEA6D6D97DB7443D5EDEB74");
  EXPECT_EQ(K6Key().url, "https://dl.k6.io/key.gpg");
  EXPECT_EQ(K6Key().fingerprint, "C5AD17C747E3415A3642D57D77C6C491D6AC1D69");
  EXPECT_EQ(OpenRestyEl9Key().fingerprint, "");
}

}  // namespace
}  // namespace fvbench::vendor_keys_test
