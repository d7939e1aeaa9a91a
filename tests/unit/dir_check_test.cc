// BENCH_DIR on a real host (support/host/dir_check.h through LocalHost, the
// same commands an SshHost runs): created private where missing; refused,
// naming path, owner and mode, when someone else could put a link in it.
// The cases with another user (`nobody` makes
// BENCH_DIR first and keeps a link where a result goes) need root to act as
// that user (runuser) and skip with the reason otherwise.
#include "support/host/dir_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/host/local_host.h"

namespace fvbench::dir_check_test {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::vector<BenchFolder> kFolders = {{"", 0711}, {"results", 0700}, {"run", 0711}, {"run/fv", 0711}};

std::string Slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

class DirCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "fvbench-dir-check-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    scratch_ = tmpl;
    bench_ = scratch_ + "/bench";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(scratch_, ec);
  }
  Result<void> Ensure() { return EnsurePrivateDirs(host_, DirChain(bench_, kFolders)); }
  int Sh(const std::string& script) { return std::system(script.c_str()); }
  static mode_t Mode(const std::string& p) {
    struct stat st {};
    ::lstat(p.c_str(), &st);
    return st.st_mode & 07777;
  }

  LocalHost host_;
  std::string scratch_, bench_;
};

TEST_F(DirCheck, MissingDirectoriesAreCreatedWithTheirModes) {
  auto r = Ensure();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(Mode(bench_), 0711u);
  EXPECT_EQ(Mode(bench_ + "/results"), 0700u);
  EXPECT_EQ(Mode(bench_ + "/run/fv"), 0711u);
  EXPECT_TRUE(Ensure().ok());  // existing and private: nothing to do
}

// A BENCH_DIR, or a folder of it, that group or others may write into.
TEST_F(DirCheck, GroupWritableBenchDirOrFolderIsRefused) {
  ASSERT_TRUE(Ensure().ok());
  ASSERT_EQ(::chmod((bench_ + "/run").c_str(), 0775), 0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("local: " + bench_ + "/run is writable by its group"));
  EXPECT_THAT(r.error().message, HasSubstr("mode 0775"));
  ASSERT_EQ(::chmod((bench_ + "/run").c_str(), 0711), 0);
  ASSERT_EQ(::chmod(bench_.c_str(), 01777), 0);  // sticky does not help
  auto sticky = Ensure();
  ASSERT_FALSE(sticky.ok());
  EXPECT_THAT(sticky.error().message, HasSubstr(bench_ + " is writable by group and others"));
  EXPECT_THAT(sticky.error().message, HasSubstr("mode 1777"));
}

// BENCH_DIR given as a link (to a directory of someone, or of ours): refused,
// and nothing is created where it points.
TEST_F(DirCheck, LinkedBenchDirIsRefusedNotFollowed) {
  ASSERT_EQ(::mkdir((scratch_ + "/elsewhere").c_str(), 0700), 0);
  ASSERT_EQ(::symlink((scratch_ + "/elsewhere").c_str(), bench_.c_str()), 0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(bench_ + " is a symbolic link"));
  EXPECT_TRUE(fs::is_empty(scratch_ + "/elsewhere"));
}

// Above BENCH_DIR: a directory anyone may write into without the sticky bit
// (they could move BENCH_DIR aside) is refused; /tmp itself (sticky) passes.
TEST_F(DirCheck, OpenDirectoryAboveBenchDirIsRefused) {
  ASSERT_EQ(::chmod(scratch_.c_str(), 0777), 0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(scratch_ + ", above BENCH_DIR, is writable by group and others without "
                                                      "the sticky bit"));
  EXPECT_FALSE(fs::exists(bench_));
}

class DirCheckAsAnotherUser : public DirCheck {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to act as another user (runuser -u nobody)";
    DirCheck::SetUp();
    ASSERT_EQ(::chmod(scratch_.c_str(), 01777), 0);  // a /tmp of its own: anyone may create in it
  }
};

// `nobody` made BENCH_DIR first and keeps a link where the next wrk
// result goes. Refused, naming the owner; nothing is written through the link.
TEST_F(DirCheckAsAnotherUser, BenchDirMadeFirstByAnotherUserIsRefused) {
  const std::string victim = scratch_ + "/victim";
  std::ofstream(victim) << "precious root-only data\n";
  ASSERT_EQ(::chmod(victim.c_str(), 0600), 0);
  ASSERT_EQ(Sh("runuser -u nobody -- mkdir -p " + bench_ + "/results && runuser -u nobody -- ln -s " + victim + " " +
               bench_ + "/results/latency_raw_nginx.json"),
            0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("local: " + bench_ + " is owned by another user (owner nobody (uid 65534), "
                                           "mode 0755)"));
  EXPECT_EQ(Slurp(victim), "precious root-only data\n");
  EXPECT_FALSE(fs::exists(bench_ + "/run"));  // nothing created in it
}

// BENCH_DIR ours, but a folder in it (made while it was open, or handed
// over) belongs to someone else.
TEST_F(DirCheckAsAnotherUser, FolderOwnedByAnotherUserIsRefused) {
  ASSERT_TRUE(Ensure().ok());
  ASSERT_EQ(::chown((bench_ + "/results").c_str(), 65534, 65534), 0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(bench_ + "/results is owned by another user (owner nobody (uid 65534), "
                                                    "mode 0700)"));
}

// The directory above BENCH_DIR belongs to another user: they could replace
// BENCH_DIR at will.
TEST_F(DirCheckAsAnotherUser, DirectoryAboveOwnedByAnotherUserIsRefused) {
  ASSERT_EQ(::chmod(scratch_.c_str(), 0755), 0);
  ASSERT_EQ(::chown(scratch_.c_str(), 65534, 65534), 0);
  auto r = Ensure();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr(scratch_ + ", above BENCH_DIR, is owned by another user (owner nobody"));
}

}  // namespace
}  // namespace fvbench::dir_check_test
