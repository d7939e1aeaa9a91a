// What is at an SQLite history path (support/history/history_file.h,
// history_store.h): an empty, foreign or non-SQLite file, a directory, a
// FIFO are refused naming the path and what is there; only the writer
// creates a history, and only where nothing is (exclusively); readers read
// without writing anything, also while a writer is at work.
// (The CLI with a user who may not write: fixtures/history/cli-test.sh.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "support/history/history_file.h"
#include "support/history/history_store.h"
#include "support/history/schema.h"
#include "tests/unit/history_samples.h"

namespace fvbench::history_open_test {
namespace {

namespace fs = std::filesystem;
using namespace history_samples;
using ::testing::HasSubstr;

std::string Bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class HistoryOpen : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("fvb-history-open-{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::set<std::string> Listing() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    return names;
  }
  static void Append(SqlConnection& db, int i) {
    detection_study::Rng rng(100 + i);
    auto rec = RunRecordFromResultsJson(PerturbedRun(i, rng), "run.json");
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    auto added = AppendRun(db, *rec, 1.0);
    ASSERT_TRUE(added.ok()) << added.error().message;
  }
  // A history at schema version 1 with `runs` runs (as an older fvbench left it).
  void VersionOneHistory(int runs) {
    std::ofstream(path_).close();
    auto raw = OpenSqlite(path_, SqlAccess::kWrite);
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    ASSERT_TRUE((*raw)->Query("PRAGMA journal_mode=WAL").ok());
    ASSERT_TRUE(MigrateHistory(**raw, 1).ok());
    for (int i = 0; i < runs; ++i) Append(**raw, i);
  }
  // Both openers refuse what is at path_, with a message holding `what` and the path.
  void ExpectRefused(const std::string& what) {
    auto w = OpenHistoryForWriting(path_);
    ASSERT_FALSE(w.ok()) << "the writer opened it";
    EXPECT_THAT(w.error().message, HasSubstr(path_));
    EXPECT_THAT(w.error().message, HasSubstr(what));
    bool nothing_recorded = true;
    auto r = OpenHistoryForReading(path_, &nothing_recorded);
    ASSERT_FALSE(r.ok()) << "the reader opened it";
    EXPECT_THAT(r.error().message, HasSubstr(what));
    EXPECT_FALSE(nothing_recorded);
  }

  fs::path dir_;
  std::string path_;
};

// A failed cache restore leaves a 0-byte file: it was restarted as run 1 and
// `check` passed, the gate silently off. Now refused, and left as it is.
TEST_F(HistoryOpen, AnEmptyFileIsRefusedAndLeftEmpty) {
  std::ofstream(path_).close();
  ExpectRefused("exists but is empty");
  EXPECT_EQ(fs::file_size(path_), 0u);
  EXPECT_EQ(Listing(), std::set<std::string>{"history.sqlite"});
}

TEST_F(HistoryOpen, ADirectoryAFifoTextAndACutShortFileAreRefusedNamingWhatIsThere) {
  fs::create_directory(path_);
  ExpectRefused("is a directory");
  fs::remove(path_);
  ASSERT_EQ(::mkfifo(path_.c_str(), 0600), 0);
  ExpectRefused("is a FIFO");
  fs::remove(path_);
  ASSERT_TRUE(detail::WriteTextFile(path_, "time,commit,run_id\n2026-11-30,abc,1\n").ok());
  ExpectRefused("is not an SQLite database");
  ASSERT_TRUE(detail::WriteTextFile(path_, std::string("SQLite format 3\0\x10\x00", 18)).ok());
  ExpectRefused("is cut short: 18 bytes");
}

// A dangling symlink is not "nothing there": the writer would create the
// history wherever it points.
TEST_F(HistoryOpen, ASymlinkToAHistoryIsFollowedADanglingOneRefused) {
  {
    auto db = OpenHistoryForWriting(path_);
    ASSERT_TRUE(db.ok()) << db.error().message;
    Append(**db, 0);
  }
  const std::string link = (dir_ / "link.sqlite").string();
  fs::create_symlink(path_, link);
  auto r = OpenHistoryForReading(link);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(LoadHistory(**r)->runs.size(), 1u);
  auto w = OpenHistoryForWriting(link);
  ASSERT_TRUE(w.ok()) << w.error().message;
  Append(**w, 1);
  const std::string dangling = (dir_ / "dangling.sqlite").string();
  fs::create_symlink(dir_ / "gone.sqlite", dangling);
  auto d = OpenHistoryForWriting(dangling);
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.error().message, HasSubstr("is a symbolic link"));
  EXPECT_FALSE(fs::exists(dir_ / "gone.sqlite"));
}

// Another program's SQLite file is not migrated into a history.
TEST_F(HistoryOpen, AForeignSqliteDatabaseIsRefusedNamingItsTablesAndLeftUntouched) {
  std::ofstream(path_).close();
  {
    auto raw = OpenSqlite(path_, SqlAccess::kWrite);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE((*raw)->Query("CREATE TABLE users (name TEXT)").ok());
    ASSERT_TRUE((*raw)->Query("CREATE TABLE runs (id INTEGER)").ok());
  }
  const std::string before = Bytes(path_);
  ExpectRefused("not an fvbench history (no fvbench_schema table; tables runs, users)");
  EXPECT_EQ(Bytes(path_), before);
  // An SQLite file without any table (made by a tool, not by record) is no history either.
  fs::remove(path_);
  std::ofstream(path_).close();
  ASSERT_TRUE((*OpenSqlite(path_, SqlAccess::kWrite))->Query("PRAGMA user_version=7").ok());
  ExpectRefused("no tables");
}

TEST_F(HistoryOpen, NothingThereIsAnErrorForReadersAndCreatedByTheWriter) {
  bool nothing_recorded = false;
  auto r = OpenHistoryForReading(path_, &nothing_recorded);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(nothing_recorded);
  EXPECT_THAT(r.error().message, HasSubstr(path_ + ": no history there"));
  EXPECT_FALSE(fs::exists(path_));
  auto w = OpenHistoryForWriting(path_);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(*HistorySchemaVersion(**w), kHistorySchemaVersion);
  w->reset();
  // Nothing else is left beside it (the temporary file it was built in is gone).
  EXPECT_EQ(Listing(), std::set<std::string>{"history.sqlite"});
}

// Readers write nothing, before or after the version check: an older
// history stays at its version, byte for byte, and no -wal or -shm appears.
TEST_F(HistoryOpen, AReaderLeavesTheFileAndItsDirectoryAsTheyWere) {
  VersionOneHistory(3);
  const std::string before = Bytes(path_);
  const auto mtime = fs::last_write_time(path_);
  const auto listing = Listing();
  ASSERT_EQ(listing, std::set<std::string>{"history.sqlite"});
  {
    auto r = OpenHistoryForReading(path_);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(Listing(), listing);
    auto h = LoadHistory(**r);
    ASSERT_TRUE(h.ok()) << h.error().message;
    EXPECT_EQ(h->runs.size(), 3u);
    EXPECT_EQ(*HistorySchemaVersion(**r), 1);
    auto write = (*r)->Query("CREATE TABLE x (a INTEGER)");
    EXPECT_FALSE(write.ok()) << "a reader's connection wrote";
  }
  EXPECT_EQ(Bytes(path_), before);
  EXPECT_EQ(fs::last_write_time(path_), mtime);
  EXPECT_EQ(Listing(), listing);
  // The writer migrates it.
  auto w = OpenHistoryForWriting(path_);
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_EQ(*HistorySchemaVersion(**w), kHistorySchemaVersion);
}

// While a writer has its -wal and -shm open, a reader reads through them
// (the newest runs are in the -wal) and still creates nothing.
TEST_F(HistoryOpen, AReaderReadsTheWritersWalWithoutCreatingFiles) {
  auto w = OpenHistoryForWriting(path_);
  ASSERT_TRUE(w.ok()) << w.error().message;
  for (int i = 0; i < 3; ++i) Append(**w, i);
  ASSERT_TRUE(fs::exists(path_ + "-wal"));
  const auto listing = Listing();
  auto r = OpenHistoryForReading(path_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  auto h = LoadHistory(**r);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->runs.size(), 3u);
  Append(**w, 3);
  EXPECT_EQ(LoadHistory(**r)->runs.size(), 4u);
  EXPECT_EQ(Listing(), listing);
}

// A -wal without its -shm (a writer killed, the -shm removed): SQLite would
// create the -shm as the reader's file; refused instead, saying how to recover.
TEST_F(HistoryOpen, AWalWithoutItsShmIsRefusedByReaders) {
  {
    auto w = OpenHistoryForWriting(path_);
    ASSERT_TRUE(w.ok());
    Append(**w, 0);
  }
  ASSERT_TRUE(detail::WriteTextFile(path_ + "-wal", "").ok());
  auto r = OpenHistoryForReading(path_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("-wal exists without"));
  EXPECT_FALSE(fs::exists(path_ + "-shm"));
}

// A reader of the file alone (no writer at work when it opened) notices a
// writer's checkpoint changing the file under it instead of reading a mix.
TEST_F(HistoryOpen, AReaderNoticesTheFileChangingUnderIt) {
  {
    auto w = OpenHistoryForWriting(path_);
    ASSERT_TRUE(w.ok());
    Append(**w, 0);
  }
  ASSERT_FALSE(fs::exists(path_ + "-wal"));
  auto r = OpenHistoryForReading(path_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  {
    auto w = OpenHistoryForWriting(path_);
    ASSERT_TRUE(w.ok());
    Append(**w, 1);
  }  // closing checkpoints the run into the file
  auto h = LoadHistory(**r);
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.error().message, HasSubstr("changed while it was being read"));
  auto again = OpenHistoryForReading(path_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(LoadHistory(**again)->runs.size(), 2u);
}

// Concurrent first writers (parallel CI jobs on a new cache): one creates the
// history, every one records into it, none sees an empty file.
TEST_F(HistoryOpen, ConcurrentFirstWritersAllRecordIntoOneHistory) {
  constexpr int kWriters = 8, kRuns = 4;
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto db = OpenHistoryForWriting(path_);
      if (!db.ok()) {
        errors[w] = db.error().message;
        return;
      }
      for (int i = 0; i < kRuns; ++i) {
        detection_study::Rng rng(w * 100 + i);
        auto rec = RunRecordFromResultsJson(PerturbedRun(w * kRuns + i, rng), "run.json");
        auto added = rec.ok() ? AppendRun(**db, *rec, 1.0) : Result<Appended>(rec.error());
        if (!added.ok()) errors[w] += added.error().message + "\n";
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(errors[w], "") << "writer " << w;
  auto r = OpenHistoryForReading(path_);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(LoadHistory(**r)->runs.size(), static_cast<size_t>(kWriters * kRuns));
  r->reset();
  EXPECT_EQ(Listing(), std::set<std::string>{"history.sqlite"});
}

TEST(HistoryFileHead, EmptyForeignAndShortHeadsAreNamed) {
  EXPECT_THAT(CheckSqliteHead("", 0, "/h").error().message, HasSubstr("/h: exists but is empty"));
  EXPECT_THAT(CheckSqliteHead("{\"schema", 300, "/h").error().message, HasSubstr("is not an SQLite database"));
  EXPECT_THAT(CheckSqliteHead("SQLite", 6, "/h").error().message, HasSubstr("is cut short: 6 bytes"));
  EXPECT_TRUE(CheckSqliteHead(kSqliteMagic, 4096, "/h").ok());
}

}  // namespace
}  // namespace fvbench::history_open_test
