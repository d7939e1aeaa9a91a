// BENCH_DIR's rule (support/core/private_dirs.h), on facts as `stat` prints
// them: which directories are checked, and what is refused with which words.
#include "support/core/private_dirs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::private_dirs_test {
namespace {

using ::testing::HasSubstr;

DirStat Stat(const std::string& line) {
  auto s = ParseDirStatLine(line);
  EXPECT_TRUE(s.ok()) << line;
  return s.ok() ? *s : DirStat{};
}

const DirToCheck kBench{"/tmp/fv-bench-0", DirPlace::kBench, 0711};
const DirToCheck kAbove{"/tmp", DirPlace::kAbove, 0755};

TEST(PrivateDirs, ChainIsEveryParentThenBenchDirThenItsFolders) {
  const auto chain = DirChain("/srv/b/fv", {{"", 0711}, {"results", 0700}, {"run/fv", 0711}});
  ASSERT_EQ(chain.size(), 6u);
  EXPECT_EQ(chain[0].path, "/");
  EXPECT_EQ(chain[1].path, "/srv");
  EXPECT_EQ(chain[2].path, "/srv/b");
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(chain[i].place, DirPlace::kAbove);
  EXPECT_EQ(chain[3].path, "/srv/b/fv");
  EXPECT_EQ(chain[3].create_mode, 0711);
  EXPECT_EQ(chain[4].path, "/srv/b/fv/results");
  EXPECT_EQ(chain[5].path, "/srv/b/fv/run/fv");
  for (size_t i = 3; i < 6; ++i) EXPECT_EQ(chain[i].place, DirPlace::kBench);
}

TEST(PrivateDirs, StatLines) {
  EXPECT_FALSE(Stat("-").exists);
  DirStat s = Stat("65534 41ff nobody");
  EXPECT_TRUE(s.exists);
  EXPECT_EQ(s.uid, 65534u);
  EXPECT_EQ(s.mode, 040777u);
  EXPECT_EQ(s.owner, "nobody");
  EXPECT_FALSE(ParseDirStatLine("stat: cannot stat").ok());
  EXPECT_FALSE(ParseDirStatLine("12 zz root").ok());
}

TEST(PrivateDirs, OwnPrivateDirectoryPasses) {
  EXPECT_TRUE(CheckDir(kBench, Stat("0 41c9 root"), 0, "local").ok());     // 0711
  EXPECT_TRUE(CheckDir(kBench, Stat("1000 41ed alice"), 1000, "h").ok());  // 0755: readable, not writable
}

// Another user made BENCH_DIR first (and keeps a link in it).
TEST(PrivateDirs, AnotherUsersBenchDirIsRefusedNamingOwnerAndMode) {
  auto r = CheckDir(kBench, Stat("65534 41ed nobody"), 0, "local");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("local: /tmp/fv-bench-0 is owned by another user (owner nobody (uid 65534), "
                                           "mode 0755), not by the user fvbench runs as (uid 0)"));
}

TEST(PrivateDirs, GroupOrOtherWritableIsRefusedStickyOrNot) {
  for (const char* line : {"0 41fd root", "0 43ff root", "0 41f9 root"}) {  // 0775, 1777, 0771
    auto r = CheckDir(kBench, Stat(line), 0, "root@lg");
    ASSERT_FALSE(r.ok()) << line;
    EXPECT_THAT(r.error().message, HasSubstr("root@lg: /tmp/fv-bench-0 is writable by")) << line;
  }
  EXPECT_THAT(CheckDir(kBench, Stat("0 41f9 root"), 0, "h").error().message, HasSubstr("writable by its group"));
  EXPECT_THAT(CheckDir(kBench, Stat("0 43ff root"), 0, "h").error().message,
              HasSubstr("writable by group and others (owner root (uid 0), mode 1777)"));
}

TEST(PrivateDirs, LinkOrFileWhereADirectoryBelongsIsRefused) {
  auto link = CheckDir(kBench, Stat("0 a1ff root"), 0, "h");
  ASSERT_FALSE(link.ok());
  EXPECT_THAT(link.error().message, HasSubstr("/tmp/fv-bench-0 is a symbolic link"));
  EXPECT_THAT(link.error().message, HasSubstr("not followed"));
  EXPECT_THAT(CheckDir(kBench, Stat("0 81a4 root"), 0, "h").error().message, HasSubstr("is a regular file"));
}

TEST(PrivateDirs, AboveBenchDirStickyTmpPassesOpenDirectoryDoesNot) {
  EXPECT_TRUE(CheckDir(kAbove, Stat("0 43ff root"), 1000, "h").ok());  // /tmp: 1777 root
  EXPECT_TRUE(CheckDir(kAbove, Stat("1000 41ed alice"), 1000, "h").ok());
  auto open = CheckDir(kAbove, Stat("0 41ff root"), 1000, "h");  // 0777 without the sticky bit
  ASSERT_FALSE(open.ok());
  EXPECT_THAT(open.error().message, HasSubstr("/tmp, above BENCH_DIR, is writable by group and others without the "
                                              "sticky bit"));
  auto foreign = CheckDir(kAbove, Stat("1001 41ed bob"), 1000, "h");
  ASSERT_FALSE(foreign.ok());
  EXPECT_THAT(foreign.error().message, HasSubstr("owned by another user (owner bob (uid 1001)"));
}

}  // namespace
}  // namespace fvbench::private_dirs_test
