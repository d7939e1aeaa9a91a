// The k6 release-archive install (k6_archive.h) run for real on this machine
// against a local stand-in release directory served as file:// URLs: a
// matching archive is installed and not run; a tampered archive fails before
// anything is extracted, installed or run.
#include "support/sut/k6_archive.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "support/host/local_host.h"
#include "support/host/shell_quote.h"

namespace fvbench::k6_archive_test {
namespace {

namespace fs = std::filesystem;

class K6ArchiveInstall : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fvbench-k6-archive-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "release" / "v0.54.0");
    fs::create_directories(root_ / "bin");
    archive_.version = "v0.54.0";
    archive_.arch = "amd64";
    archive_.base_url = "file://" + (root_ / "release").string();
    archive_.dest_dir = (root_ / "bin").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  ExecResult Sh(const std::string& script) {
    Command c;
    c.argv = {"sh", "-c", script};
    c.timeout = std::chrono::seconds(60);
    auto r = host_.Run(c);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : ExecResult{};
  }

  // A release archive whose `k6` records that it ran in <root>/ran.
  void MakeArchive(const std::string& says) {
    fs::path stage = root_ / "stage" / "k6-v0.54.0-linux-amd64";
    fs::create_directories(stage);
    std::ofstream(stage / "k6") << "#!/bin/sh\necho " << says << " >> " << (root_ / "ran").string() << "\n";
    fs::permissions(stage / "k6", fs::perms::owner_all);
    auto r = Sh("tar -czf " + ShellQuote((Release() / K6ArchiveName(archive_)).string()) + " -C " +
                ShellQuote((root_ / "stage").string()) + " k6-v0.54.0-linux-amd64");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // The checksum file as k6 publishes it, for the archive as it is now.
  void PublishChecksums() {
    auto r = Sh("cd " + ShellQuote(Release().string()) + " && sha256sum k6-v0.54.0-linux-amd64.tar.gz > " +
                K6ChecksumsName(archive_) + " && echo '0000000000000000000000000000000000000000000000000000000000000000"
                "  k6-v0.54.0-linux-arm64.tar.gz' >> " + K6ChecksumsName(archive_));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  fs::path Release() const { return root_ / "release" / "v0.54.0"; }

  fs::path root_;
  K6Archive archive_;
  LocalHost host_;
};

TEST_F(K6ArchiveInstall, MatchingArchiveIsInstalledAndNotRun) {
  MakeArchive("genuine");
  PublishChecksums();
  auto r = Sh(K6ArchiveInstallScript(archive_, /*root=*/true));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(root_ / "bin" / "k6"));
  EXPECT_FALSE(fs::exists(root_ / "ran")) << "installing must not run k6";
}

TEST_F(K6ArchiveInstall, TamperedArchiveFailsBeforeAnythingIsExtractedOrRun) {
  MakeArchive("genuine");
  PublishChecksums();
  MakeArchive("tampered");  // the archive changes after its checksum was published
  auto r = Sh(K6ArchiveInstallScript(archive_, /*root=*/true));
  std::cout << "tampered archive: exit " << r.exit_code << ", stderr: " << r.err;
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("k6 install: SHA-256 of " + archive_.base_url + "/v0.54.0/k6-v0.54.0-linux-amd64.tar.gz "
                       "does not match"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(root_ / "bin" / "k6"));
  EXPECT_FALSE(fs::exists(root_ / "ran"));
}

TEST_F(K6ArchiveInstall, ChecksumFileWithoutTheArchiveLineFails) {
  MakeArchive("genuine");
  std::ofstream(Release() / K6ChecksumsName(archive_))
      << "0000000000000000000000000000000000000000000000000000000000000000  k6-v0.54.0-linux-arm64.tar.gz\n";
  auto r = Sh(K6ArchiveInstallScript(archive_, /*root=*/true));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("has no line for k6-v0.54.0-linux-amd64.tar.gz"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(root_ / "bin" / "k6"));
}

TEST_F(K6ArchiveInstall, MissingChecksumFileFailsWithCurlsStatus) {
  MakeArchive("genuine");
  auto r = Sh(K6ArchiveInstallScript(archive_, /*root=*/true));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(root_ / "bin" / "k6"));
}

TEST(K6ArchiveScript, NamesTheSeedsAssetsAndSudoOnlyForTheCopy) {
  K6Archive a;
  a.version = "v0.54.0";
  a.arch = "arm64";
  std::string s = K6ArchiveInstallScript(a, /*root=*/false);
  EXPECT_NE(s.find("url=https://github.com/grafana/k6/releases/download/v0.54.0/k6-v0.54.0-linux-arm64.tar.gz"),
            std::string::npos) << s;
  EXPECT_NE(s.find("sums=https://github.com/grafana/k6/releases/download/v0.54.0/k6-v0.54.0-checksums.txt"),
            std::string::npos) << s;
  EXPECT_NE(s.find("sudo -n install -m 0755"), std::string::npos) << s;
  EXPECT_EQ(s.find("sudo -n curl"), std::string::npos) << s;
  EXPECT_LT(s.find("sha256sum -c"), s.find("tar -xzf")) << s;
}

}  // namespace
}  // namespace fvbench::k6_archive_test
