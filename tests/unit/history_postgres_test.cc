// The results history on a real PostgreSQL server that this test starts
// (fixtures/history/pg-server.sh: Debian's postgresql, initdb into a
// temporary directory, Unix socket only, stopped at the end). Skipped when
// the server binaries are missing.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <thread>

#include "support/history/gate.h"
#include "support/history/history_store.h"
#include "support/history/schema.h"
#include "tests/unit/history_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::history_postgres_test {
namespace {

using namespace history_samples;

std::string Script() { return FVBENCH_SOURCE_DIR "/fixtures/history/pg-server.sh"; }

class HistoryPostgres : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fmt::format("/tmp/fvb-pg-{}", ::getpid());
    FILE* p = ::popen(fmt::format("bash {} start {}", Script(), dir_).c_str(), "r");
    char buf[512] = {};
    std::string out;
    while (p && std::fgets(buf, sizeof buf, p)) out += buf;
    int rc = p ? ::pclose(p) : -1;
    status_ = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    url_ = out;
  }
  static void TearDownTestSuite() {
    if (std::system(fmt::format("bash {} stop {}", Script(), dir_).c_str()) != 0) std::fprintf(stderr, "stop failed\n");
  }
  void SetUp() override {
    if (status_ == 3) GTEST_SKIP() << "no PostgreSQL server binaries (Debian package postgresql)";
    ASSERT_EQ(status_, 0) << "pg-server.sh start failed";
  }
  // A fresh database per test: postgresql://fvbench@/<name>?host=<dir>.
  static std::string FreshDatabase(const std::string& name) {
    auto admin = OpenPostgres(url_, SqlAccess::kWrite);
    EXPECT_TRUE(admin.ok()) << admin.error().message;
    EXPECT_TRUE((*admin)->Query("DROP DATABASE IF EXISTS " + name).ok());
    auto created = (*admin)->Query("CREATE DATABASE " + name);
    EXPECT_TRUE(created.ok()) << created.error().message;
    return fmt::format("postgresql://fvbench@/{}?host={}", name, dir_);
  }

  static std::string dir_, url_;
  static int status_;
};
std::string HistoryPostgres::dir_, HistoryPostgres::url_;
int HistoryPostgres::status_ = -1;

TEST_F(HistoryPostgres, NewestFiveRunsEightPercentSlowerFailTheCheckNoiseOnlyPasses) {
  for (bool slow : {true, false}) {
    auto db = OpenHistoryForWriting(FreshDatabase(slow ? "gate_slow" : "gate_quiet"));
    ASSERT_TRUE(db.ok()) << db.error().message;
    detection_study::Rng rng(slow ? 31 : 32);
    for (int i = 0; i < 45; ++i) {
      auto rec = RunRecordFromResultsJson(PerturbedRun(i, rng, slow ? 40 : -1, 1.08), "run");
      ASSERT_TRUE(rec.ok());
      ASSERT_TRUE(AppendRun(**db, *rec, 1.0).ok());
    }
    auto h = LoadHistory(**db);
    ASSERT_TRUE(h.ok()) << h.error().message;
    auto found = FindRegressions(BuildSeries(*h));
    if (!slow) {
      EXPECT_TRUE(found.empty());
      continue;
    }
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].scenario, "latency.decision_service");
    EXPECT_EQ(found[0].metric, "p99_us");
    EXPECT_EQ(found[0].before.edge_commit, Commit(39));
    EXPECT_EQ(found[0].after.edge_commit, Commit(40));
  }
}

// Concurrent CI jobs: 8 writers, each with its own connection, on a database
// none of them has migrated yet; 25 runs each plus one results.json all of
// them record. Every run is there once, with all its metrics.
TEST_F(HistoryPostgres, ParallelWritersLoseNothing) {
  const std::string url = FreshDatabase("parallel");
  constexpr int kWriters = 8, kRuns = 25;
  const std::string shared = PerturbedRun(1000, *std::make_unique<detection_study::Rng>(1));
  std::vector<std::string> errors(kWriters);
  std::vector<int> shared_new(kWriters);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto db = OpenHistoryForWriting(url);
      if (!db.ok()) {
        errors[w] = db.error().message;
        return;
      }
      detection_study::Rng rng(100 + w);
      for (int i = 0; i < kRuns; ++i) {
        auto rec = RunRecordFromResultsJson(PerturbedRun(w * kRuns + i, rng), "run");
        auto added = AppendRun(**db, *rec, 1.0);
        if (!added.ok()) errors[w] += added.error().message + "\n";
        if (i == kRuns / 2) {
          auto s = AppendRun(**db, *RunRecordFromResultsJson(shared, "shared"), 1.0);
          if (!s.ok()) errors[w] += s.error().message + "\n";
          else shared_new[w] = !s->already_recorded;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(errors[w], "") << "writer " << w;
  int shared_recorded = 0;
  for (int n : shared_new) shared_recorded += n;
  EXPECT_EQ(shared_recorded, 1);
  auto db = OpenHistoryForWriting(url);
  ASSERT_TRUE(db.ok());
  auto h = LoadHistory(**db);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->runs.size(), static_cast<size_t>(kWriters * kRuns + 1));
  const size_t per_run = RunRecordFromResultsJson(shared, "x")->metrics.size();
  EXPECT_EQ(h->metrics.size(), h->runs.size() * per_run);
  EXPECT_EQ(*HistorySchemaVersion(**db), kHistorySchemaVersion);
}

TEST_F(HistoryPostgres, MigratesAVersion1History) {
  const std::string url = FreshDatabase("migrate");
  {
    auto raw = OpenPostgres(url, SqlAccess::kWrite);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(MigrateHistory(**raw, 1).ok());
    detection_study::Rng rng(2);
    ASSERT_TRUE(AppendRun(**raw, *RunRecordFromResultsJson(PerturbedRun(0, rng), "x"), 1.0).ok());
  }
  auto db = OpenHistoryForWriting(url);
  ASSERT_TRUE(db.ok()) << db.error().message;
  EXPECT_EQ(*HistorySchemaVersion(**db), kHistorySchemaVersion);
  EXPECT_EQ(LoadHistory(**db)->runs.size(), 1u);
}

// A reader with a role that may only SELECT (a dashboard, a CI job that only
// checks) reads a version-1 history as it is: no migration, nothing written,
// every statement in a READ ONLY transaction.
TEST_F(HistoryPostgres, AReadOnlyRoleReadsAnOlderHistoryWithoutMigratingIt) {
  const std::string url = FreshDatabase("readonly");
  {
    auto raw = OpenPostgres(url, SqlAccess::kWrite);
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(MigrateHistory(**raw, 1).ok());
    detection_study::Rng rng(3);
    for (int i = 0; i < 2; ++i) {
      ASSERT_TRUE(AppendRun(**raw, *RunRecordFromResultsJson(PerturbedRun(i, rng), "x"), 1.0).ok());
    }
    for (const char* sql : {"DROP ROLE IF EXISTS fvbench_reader", "CREATE ROLE fvbench_reader LOGIN",
                            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO fvbench_reader"}) {
      auto r = (*raw)->Query(sql);
      ASSERT_TRUE(r.ok()) << r.error().message;
    }
  }
  const std::string reader_url = fmt::format("postgresql://fvbench_reader@/readonly?host={}", dir_);
  auto db = OpenHistoryForReading(reader_url);
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto h = LoadHistory(**db);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_EQ(h->runs.size(), 2u);
  EXPECT_EQ(*HistorySchemaVersion(**db), 1);
  // The owner's reader connection writes nothing either.
  auto owner = OpenHistoryForReading(url);
  ASSERT_TRUE(owner.ok()) << owner.error().message;
  auto write = (*owner)->Query("CREATE TABLE x (a INTEGER)");
  ASSERT_FALSE(write.ok());
  EXPECT_NE(write.error().message.find("read-only transaction"), std::string::npos) << write.error().message;
  EXPECT_EQ(*HistorySchemaVersion(**owner), 1);
  // The writer (record) cannot use the reader's role.
  auto writer = OpenHistoryForWriting(reader_url);
  EXPECT_FALSE(writer.ok());
}

// A database without a history: readers say nothing is recorded (and create
// nothing); a database with another program's runs table is refused.
TEST_F(HistoryPostgres, ADatabaseWithoutAHistoryOrWithForeignTablesIsNamed) {
  const std::string url = FreshDatabase("nohistory");
  bool nothing_recorded = false;
  auto r = OpenHistoryForReading(url, &nothing_recorded);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(nothing_recorded);
  EXPECT_NE(r.error().message.find("no history there"), std::string::npos) << r.error().message;
  auto raw = OpenPostgres(url, SqlAccess::kWrite);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*HistorySchemaVersion(**raw), 0);
  ASSERT_TRUE((*raw)->Query("CREATE TABLE runs (id INTEGER)").ok());
  for (bool write : {true, false}) {
    nothing_recorded = true;
    auto db = write ? OpenHistoryForWriting(url) : OpenHistoryForReading(url, &nothing_recorded);
    ASSERT_FALSE(db.ok());
    EXPECT_NE(db.error().message.find("has table(s) runs but no fvbench_schema"), std::string::npos)
        << db.error().message;
    if (!write) {
      EXPECT_FALSE(nothing_recorded);
    }
  }
}

TEST_F(HistoryPostgres, UnreachableServerOrBadUrlIsNamed) {
  auto gone = OpenHistoryForWriting("postgresql://fvbench:secret@/postgres?host=/tmp/fvb-no-such-socket-dir");
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.error().message.find("postgresql:///postgres?host=/tmp/fvb-no-such-socket-dir: cannot connect"),
            std::string::npos)
      << gone.error().message;
  EXPECT_EQ(gone.error().message.find("secret"), std::string::npos);
  auto bad = OpenHistoryForWriting("postgresql://fvbench@/postgres?nosuchoption=1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("nosuchoption"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace fvbench::history_postgres_test
