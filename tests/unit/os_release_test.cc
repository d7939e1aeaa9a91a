// os-release parsing and the supported-OS decision (os_release.h), on the
// recorded os-release files in fixtures/hosts/<os>/os-release.
#include "support/sut/os_release.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "tests/unit/golden.h"

namespace fvbench::os_release_test {
namespace {

OsRelease Recorded(const std::string& host) {
  std::ifstream in(testing_golden::FixturesDir() + "/hosts/" + host + "/os-release");
  EXPECT_TRUE(in) << host;
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseOsRelease(ss.str());
}

TEST(ParseOsRelease, QuotesCommentsAndEscapes) {
  OsRelease os = ParseOsRelease(
      "# comment\n\nID=\"rocky\"\nID_LIKE='rhel centos fedora'\nVERSION_ID=9.4\n"
      "VERSION_CODENAME=\"a\\\"b\"\nNAME=x=y\n");
  EXPECT_EQ(os.id, "rocky");
  EXPECT_EQ(os.id_like, "rhel centos fedora");
  EXPECT_EQ(os.version_id, "9.4");
  EXPECT_EQ(os.codename, "a\"b");
}

struct Case {
  const char* host;
  PackageFamily family;
  const char* describe;
};
// gtest prints a parameter with this (test lists, failures), not as raw bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.host; }

class SupportedOs : public ::testing::TestWithParam<Case> {};

TEST_P(SupportedOs, RecordedOsReleaseIsClassified) {
  auto os = ClassifyOs(Recorded(GetParam().host), GetParam().host);
  ASSERT_TRUE(os.ok()) << os.error().message;
  EXPECT_EQ(os->family, GetParam().family);
  EXPECT_EQ(os->Describe(), GetParam().describe);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, SupportedOs,
    ::testing::Values(Case{"ubuntu-22.04", PackageFamily::kApt, "ubuntu 22.04 (jammy)"},
                      Case{"ubuntu-24.04", PackageFamily::kApt, "ubuntu 24.04 (noble)"},
                      Case{"debian-12", PackageFamily::kApt, "debian 12 (bookworm)"},
                      Case{"amzn-2023", PackageFamily::kDnf, "amzn 2023"},
                      Case{"rocky-9", PackageFamily::kDnf, "rocky 9.3 (rhel 9)"},
                      Case{"alma-9", PackageFamily::kDnf, "almalinux 9.2 (rhel 9)"}));

TEST(UnsupportedOs, IsRefusedNamingWhatWasFound) {
  auto alpine = ClassifyOs(Recorded("alpine-3.20"), "host h /etc/os-release");
  ASSERT_FALSE(alpine.ok());
  EXPECT_NE(alpine.error().message.find("host h /etc/os-release: unsupported OS ID='alpine' VERSION_ID='3.20.3' "
                                        "ID_LIKE=''"),
            std::string::npos)
      << alpine.error().message;
  // Amazon Linux 2 says ID_LIKE="centos rhel fedora" but is neither 2023 nor a RHEL 9.
  auto al2 = ClassifyOs(Recorded("amzn-2"), "al2");
  ASSERT_FALSE(al2.ok());
  EXPECT_NE(al2.error().message.find("ID='amzn' VERSION_ID='2' ID_LIKE='centos rhel fedora'"), std::string::npos)
      << al2.error().message;
  EXPECT_FALSE(ClassifyOs(ParseOsRelease("ID=ubuntu\nVERSION_ID=20.04\n"), "x").ok());
  EXPECT_FALSE(ClassifyOs(ParseOsRelease("ID=debian\nVERSION_ID=11\n"), "x").ok());
}

// The codename goes into apt source lines as root: a host's os-release is
// data, and one that is not a plain name is refused.
TEST(UnsupportedOs, CodenameThatIsNoPlainNameIsRefused) {
  auto bad = ClassifyOs(ParseOsRelease("ID=ubuntu\nVERSION_ID=24.04\nVERSION_CODENAME=\"noble' > /x; touch /tmp/p; '\"\n"),
                        "host h /etc/os-release");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("host h /etc/os-release: VERSION_CODENAME='noble' > /x; touch /tmp/p; '' is not a "
                                     "plain lower-case name"),
            std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(ClassifyOs(ParseOsRelease("ID=debian\nVERSION_ID=12\nVERSION_CODENAME=-x\n"), "x").ok());
  EXPECT_TRUE(ClassifyOs(ParseOsRelease("ID=debian\nVERSION_ID=12\nVERSION_CODENAME=bookworm\n"), "x").ok());
}

}  // namespace
}  // namespace fvbench::os_release_test
