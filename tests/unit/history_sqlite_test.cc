// The results history on SQLite files (support/history): append, migrate,
// refuse, mark unusable runs, and gate on the newest runs. Histories are
// perturbed copies of a real run (history_samples.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "support/history/environment_history.h"
#include "support/history/gate.h"
#include "support/history/history_store.h"
#include "support/history/render.h"
#include "support/history/schema.h"
#include "tests/unit/history_samples.h"

namespace fvbench::history_sqlite_test {
namespace {

namespace fs = std::filesystem;
using namespace history_samples;

class HistorySqlite : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("fvb-history-{}", ::getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "history.sqlite").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<SqlConnection> Open() {
    auto db = OpenHistoryForWriting(path_);
    EXPECT_TRUE(db.ok()) << db.error().message;
    return db.ok() ? std::move(*db) : nullptr;
  }
  void Append(SqlConnection& db, const std::string& text, const std::string& name = "run.json") {
    auto rec = RunRecordFromResultsJson(text, name);
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    auto added = AppendRun(db, *rec, 1.0);
    ASSERT_TRUE(added.ok()) << added.error().message;
  }
  void AppendHistory(SqlConnection& db, int runs, int slow_from, double factor, uint64_t seed) {
    detection_study::Rng rng(seed);
    for (int i = 0; i < runs; ++i) Append(db, PerturbedRun(i, rng, slow_from, factor));
  }
  size_t RunCount(SqlConnection& db) {
    auto h = LoadHistory(db);
    return h.ok() ? h->runs.size() : 0;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(HistorySqlite, RecordsARealRunOnceAndReadsItsSeriesBack) {
  auto db = Open();
  auto text = detail::ReadTextFile(RecordedRunPath());
  ASSERT_TRUE(text.ok());
  Append(*db, *text);
  auto again = AppendRun(*db, *RunRecordFromResultsJson(*text, "again"), 2.0);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_recorded);
  auto h = LoadHistory(*db);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->runs.size(), 1u);
  EXPECT_EQ(h->runs[0].edge_commit, "f3116f903634684f773a489858457656979c5a4b");
  auto series = BuildSeries(*h);
  bool found = false;
  for (const MetricSeries& s : series) {
    if (s.scenario == "latency.decision_service" && s.metric == "p99_us") {
      found = true;
      EXPECT_EQ(s.points[0].value, 1370);
    }
    if (s.scenario == "throughput.simple" && s.metric == "max_rps") {
      EXPECT_NEAR(s.points[0].value, 2373.56, 0.01);
    }
  }
  EXPECT_TRUE(found);
}

// A copy of a recorded run with one value changed is the same run (start
// time, edge commit, SUT host), not a new one: refused, naming the run.
TEST_F(HistorySqlite, AnEditedCopyOfARecordedRunIsRefused) {
  auto db = Open();
  auto text = detail::ReadTextFile(RecordedRunPath());
  ASSERT_TRUE(text.ok());
  Append(*db, *text);
  std::string edited = *text;
  const std::string from = "\"p99\": 1370.0";
  const size_t at = edited.find(from);
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, from.size(), "\"p99\": 1371.0");
  auto rec = RunRecordFromResultsJson(edited, "edited.json");
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  auto added = AppendRun(*db, *rec, 2.0);
  ASSERT_FALSE(added.ok());
  EXPECT_THAT(added.error().message, ::testing::HasSubstr("is already recorded as run 1"));
  EXPECT_THAT(added.error().message, ::testing::HasSubstr("f3116f903634684f773a489858457656979c5a4b"));
  EXPECT_EQ(RunCount(*db), 1u);
}

TEST_F(HistorySqlite, InvalidInterruptedOrEarlierRunScenariosAreStoredButNeverEvidence) {
  auto db = Open();
  auto doc = RecordedRun();
  doc["scenarios"][1]["validity"] = nlohmann::json::array(
      {{{"name", "engine_kept_up"}, {"passed", false}, {"informational", false}, {"op", "=="},
        {"measured", 0}, {"limit", 1}, {"detail", "dropped"}}});
  doc["scenarios"][2]["measured"] = false;
  doc["scenarios"][2]["error"] = "interrupted: SIGINT";
  // An earlier ctest run's result merged into this report.
  doc["scenarios"][3]["started_unix"] = doc["meta"]["started_unix"].get<double>() - 3600;
  Append(*db, doc.dump());
  auto h = LoadHistory(*db);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->runs.size(), 1u);
  EXPECT_FALSE(h->runs[0].usable);
  EXPECT_NE(h->runs[0].note.find("latency.decision_service: INVALID"), std::string::npos) << h->runs[0].note;
  EXPECT_NE(h->runs[0].note.find("latency.reverse_proxy: not measured"), std::string::npos) << h->runs[0].note;
  EXPECT_NE(h->runs[0].note.find("throughput.simple: from an earlier ctest run"), std::string::npos) << h->runs[0].note;
  for (const MetricSeries& s : BuildSeries(*h)) {
    EXPECT_NE(s.scenario, "latency.decision_service");
    EXPECT_NE(s.scenario, "latency.reverse_proxy");
    EXPECT_NE(s.scenario, "throughput.simple");
  }
}

TEST_F(HistorySqlite, ABadResultsJsonIsRefusedNamingTheFieldAndNothingIsLost) {
  auto db = Open();
  AppendHistory(*db, 3, -1, 1, 1);
  auto doc = RecordedRun();
  doc["scenarios"][0]["load"]["latency_us"]["p99"] = "fast";
  auto rec = RunRecordFromResultsJson(doc.dump(), "/ci/run7/results.json");
  ASSERT_FALSE(rec.ok());
  EXPECT_NE(rec.error().message.find("/ci/run7/results.json"), std::string::npos) << rec.error().message;
  EXPECT_NE(rec.error().message.find("p99"), std::string::npos) << rec.error().message;
  // A failure inside the append (a duplicate metric row) rolls the whole run back.
  auto good = RunRecordFromResultsJson(PerturbedRun(9, *std::make_unique<detection_study::Rng>(2)), "x");
  ASSERT_TRUE(good.ok());
  RunRecord broken = *good;
  broken.metrics.push_back(broken.metrics.front());
  auto added = AppendRun(*db, broken, 1.0);
  ASSERT_FALSE(added.ok());
  EXPECT_NE(added.error().message.find(path_), std::string::npos) << added.error().message;
  EXPECT_NE(added.error().message.find("not recorded"), std::string::npos) << added.error().message;
  EXPECT_EQ(RunCount(*db), 3u);
  auto h = LoadHistory(*db);
  EXPECT_EQ(h->metrics.size(), 3 * good->metrics.size());
}

TEST_F(HistorySqlite, MigratesAVersion1HistoryKeepingItsRunsAndRefusesANewerOne) {
  {
    std::ofstream(path_).close();  // an empty file for SQLite (a history is never created empty at its path)
    auto raw = OpenSqlite(path_, SqlAccess::kWrite);
    ASSERT_TRUE(raw.ok()) << raw.error().message;
    ASSERT_TRUE(MigrateHistory(**raw, 1).ok());
    EXPECT_EQ(*HistorySchemaVersion(**raw), 1);
    AppendHistory(**raw, 2, -1, 1, 3);
  }
  auto db = Open();
  EXPECT_EQ(*HistorySchemaVersion(*db), kHistorySchemaVersion);
  EXPECT_EQ(RunCount(*db), 2u);
  ASSERT_TRUE(db->Query("UPDATE fvbench_schema SET version = 99").ok());
  db.reset();
  auto newer = OpenHistoryForWriting(path_);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("schema version 99 is newer"), std::string::npos) << newer.error().message;
  auto raw = OpenSqlite(path_, SqlAccess::kWrite);
  EXPECT_EQ(*HistorySchemaVersion(**raw), 99);  // untouched
}

TEST_F(HistorySqlite, NotADatabaseOrAMissingDirectoryIsAClearError) {
  ASSERT_TRUE(detail::WriteTextFile(path_, "this is not SQLite, it is a long enough text file to be read as a header").ok());
  auto bad = OpenHistoryForWriting(path_);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find(path_), std::string::npos) << bad.error().message;
  auto missing = OpenHistoryForWriting((dir_ / "no/such/dir/h.sqlite").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no/such/dir/h.sqlite"), std::string::npos);
  auto url = OpenHistoryForWriting("mysql://host/db");
  ASSERT_FALSE(url.ok());
  EXPECT_NE(url.error().message.find("postgresql://"), std::string::npos);
}

// The gate's goal: newest 5 runs 8 % slower in decision_service p99
// fails the check naming the metric and both commits; noise only passes.
TEST_F(HistorySqlite, NewestFiveRunsEightPercentSlowerFailTheCheckNoiseOnlyPasses) {
  auto db = Open();
  AppendHistory(*db, 45, 40, 1.08, 21);
  auto h = LoadHistory(*db);
  ASSERT_TRUE(h.ok());
  auto series = BuildSeries(*h);
  auto regressions = FindRegressions(series);
  ASSERT_EQ(regressions.size(), 1u) << ShowSeries(series, 0);
  const Regression& r = regressions[0];
  EXPECT_EQ(r.scenario, "latency.decision_service");
  EXPECT_EQ(r.metric, "p99_us");
  // The shift starts at run 40. With 2 % noise and 5 runs after it, E-Divisive
  // places it exactly 93 % of the time and one run off 6.5 % (change_points_test
  // NewestFiveRunsLocalisation); this seed's run 39 is noisy-high: one off.
  EXPECT_EQ(r.after.edge_commit, Commit(39));
  EXPECT_EQ(r.before.edge_commit, Commit(38));
  EXPECT_NEAR(r.change.relative_change, 0.08, 0.025);
  for (const MetricSeries& s : series) {
    if (s.scenario == r.scenario && s.metric == r.metric) {
      std::string text = DescribeRegression(r, s);
      EXPECT_NE(text.find("latency.decision_service p99_us: +"), std::string::npos) << text;
      EXPECT_NE(text.find(Commit(38)), std::string::npos) << text;
      EXPECT_NE(text.find(Commit(39)), std::string::npos) << text;
      EXPECT_NE(text.find("p = "), std::string::npos) << text;
    }
  }
  db.reset();
  fs::remove(path_);
  auto quiet = Open();
  AppendHistory(*quiet, 45, -1, 1, 22);
  auto hq = LoadHistory(*quiet);
  EXPECT_TRUE(FindRegressions(BuildSeries(*hq)).empty()) << ShowSeries(BuildSeries(*hq), 0);
}

// The built fvbench_history with `args` on this history; its exit status and output.
std::pair<int, std::string> HistoryTool(const std::string& path, const std::string& args) {
  const std::string command = fmt::format("'{}' --history '{}' {} 2>&1", FVBENCH_HISTORY_BIN, path, args);
  FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return {-1, ""};
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

// decision_service p99 8 % slower from run 35 on (ids from 1: the change
// point between runs 35 and 36); the kernel changes there too, or never.
// `show` and `check` name the change of kernel on the change point only when
// it happened.
TEST_F(HistorySqlite, ShowAndCheckNameAnEnvironmentChangeAtTheChangePoint) {
  const std::string note =
      "environment changed between runs 35 and 36: sut+loadgen local: kernel_release 6.1.0-18 -> 6.8.0-31";
  for (int kernel_from : {35, -1}) {
    SCOPED_TRACE(kernel_from);
    fs::remove(path_);
    {
      auto db = Open();
      detection_study::Rng rng(5);
      for (int i = 0; i < 40; ++i) Append(*db, RunOnKernel(i, rng, 35, 1.08, kernel_from));
      auto h = LoadHistory(*db);
      ASSERT_TRUE(h.ok());
      EXPECT_TRUE(h->environments.empty()) << "read only where a change point needs them";
      auto series = BuildSeries(*h);
      ASSERT_TRUE(LoadRunEnvironments(*db, ChangePointRuns(series), *h).ok());
      EXPECT_EQ(h->environments.count(35), 1u);
      EXPECT_EQ(h->environments.count(36), 1u);
      EXPECT_EQ(h->environments.count(2), 0u);
    }
    auto [show_rc, shown] = HistoryTool(path_, "show --metric 'decision_service p99'");
    EXPECT_EQ(show_rc, 0) << shown;
    EXPECT_NE(shown.find("change at #35 (run 36"), std::string::npos) << shown;
    auto [check_rc, checked] = HistoryTool(path_, "check");
    EXPECT_EQ(check_rc, 1) << checked;
    EXPECT_NE(checked.find("REGRESSION latency.decision_service p99_us"), std::string::npos) << checked;
    // What it could have detected: a line per scenario; per metric with --verbose (only check reads it).
    EXPECT_NE(checked.find("\n  latency.decision_service (newest 10 runs): "), std::string::npos) << checked;
    EXPECT_NE(checked.find(", p99_us "), std::string::npos) << checked;
    auto [verbose_rc, verbose] = HistoryTool(path_, "check --verbose");
    EXPECT_EQ(verbose_rc, 1) << verbose;
    EXPECT_NE(verbose.find("\n  latency.decision_service p99_us: could detect a shift of "), std::string::npos)
        << verbose;
    EXPECT_EQ(HistoryTool(path_, "show --verbose").first, 2);
    if (kernel_from >= 0) {
      EXPECT_NE(shown.find("    " + note + "\n"), std::string::npos) << shown;
      EXPECT_NE(checked.find("; " + note), std::string::npos) << checked;
    } else {
      EXPECT_EQ(shown.find("environment changed"), std::string::npos) << shown;
      EXPECT_EQ(checked.find("environment changed"), std::string::npos) << checked;
    }
  }
}

// Options given wrongly are usage errors (exit 2) naming the option and the
// value; a count of runs is written in digits.
TEST_F(HistorySqlite, BadOptionsAreUsageErrors) {
  {
    auto db = Open();
    AppendHistory(*db, 2, -1, 1, 4);
  }
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"check --order x", "--order 'x': expected time or commit"},
      {"show --order commit", "--order commit needs --commits FILE"},
      {"check --commits /nonexistent", "--commits is for --order commit"},
      {"check --recent 1e3", "--recent needs a whole number in 1..1000000000, got '1e3'"},
      {"check --recent 10.0", "--recent needs a whole number in 1..1000000000, got '10.0'"},
      {"show --last +5", "--last needs a whole number in 0..1000000000, got '+5'"},
      {"check --min-effect 3", "--min-effect needs a fraction (0.03 = 3 %) in 0..1, got '3'"},
  };
  for (const auto& [args, message] : bad) {
    auto [rc, out] = HistoryTool(path_, args);
    EXPECT_EQ(rc, 2) << args << ": " << out;
    EXPECT_NE(out.find(message), std::string::npos) << args << ": " << out;
  }
  // A --commits file that cannot be read is no usage error.
  auto [rc, out] = HistoryTool(path_, "check --order commit --commits /nonexistent/commits.txt");
  EXPECT_EQ(rc, 4) << out;
  EXPECT_EQ(HistoryTool(path_, "check --recent 5").first, 0);
}

// --order commit with a sequence that places no run (an empty or foreign
// git rev-list) fails: a check on no runs is no pass. Runs left out are
// counted as runs, naming the file.
TEST_F(HistorySqlite, ACommitOrderThatLeavesOutEveryRunFails) {
  {
    auto db = Open();
    AppendHistory(*db, 12, -1, 1, 4);
  }
  const std::string empty = (dir_ / "empty.txt").string();
  const std::string foreign = (dir_ / "foreign.txt").string();
  const std::string some = (dir_ / "some.txt").string();
  std::ofstream(empty) << "# nothing\n";
  std::ofstream(foreign) << "0123456789abcdef0123456789abcdef01234567\n";
  std::ofstream(some) << Commit(0) << "\n" << Commit(1) << "\n" << Commit(2) << "\n";
  for (const char* cmd : {"check", "show", "plot " }) {
    SCOPED_TRACE(cmd);
    const std::string plot_dir = std::string(cmd) == "plot " ? (dir_ / "plots").string() : "";
    auto [rc, out] = HistoryTool(path_, fmt::format("{}{} --order commit --commits '{}'", cmd, plot_dir, empty));
    EXPECT_EQ(rc, 4) << out;
    EXPECT_NE(out.find("--commits " + empty + ": lists no commit"), std::string::npos) << out;
    std::tie(rc, out) = HistoryTool(path_, fmt::format("{}{} --order commit --commits '{}'", cmd, plot_dir, foreign));
    EXPECT_EQ(rc, 4) << out;
    EXPECT_NE(out.find("--commits " + foreign + ": none of its 1 commit(s) is the edge commit of a run in the "
                       "history, so the commit order leaves out all 12 run(s)"),
              std::string::npos)
        << out;
    EXPECT_EQ(out.find("passed"), std::string::npos) << out;
  }
  auto [rc, out] = HistoryTool(path_, fmt::format("check --order commit --commits '{}'", some));
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("fvbench_history: 9 of 12 runs left out: their edge commit is not in " + some + "\n"),
            std::string::npos)
      << out;
}

// --recent beyond the history: the last line says the runs looked at and
// the newest runs the could-detect lines compare, as those lines do.
TEST_F(HistorySqlite, ARecentBeyondTheHistoryIsSaidCapped) {
  {
    auto db = Open();
    AppendHistory(*db, 12, -1, 1, 4);
  }
  auto [rc, out] = HistoryTool(path_, "check --recent 1000");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("\n  latency.decision_service (newest 6 runs): "), std::string::npos) << out;
  EXPECT_NE(out.find("among the newest 12 runs (--recent 1000 capped to 12: the longest series has 12 runs; could "
                     "detect: the newest 6 against the runs before them) ("),
            std::string::npos)
      << out;
  std::tie(rc, out) = HistoryTool(path_, "check --recent 12");
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("among the newest 12 runs ("), std::string::npos) << out;
  EXPECT_EQ(out.find("capped"), std::string::npos) << out;
}

TEST_F(HistorySqlite, OtavaCsvHasTimeCommitAndOneColumnPerMetric) {
  auto db = Open();
  AppendHistory(*db, 2, -1, 1, 4);
  auto h = LoadHistory(*db);
  auto files = OtavaCsvFiles(*h);
  ASSERT_TRUE(files.count("latency.decision_service"));
  const std::string& csv = files["latency.decision_service"];
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time,commit,run_id,edge_cpu_cores,error_rate,p50_us,p999_us,p99_us");
  EXPECT_NE(csv.find("\n2026-11-30 10:11:41 +0000," + Commit(0) + ",1,"), std::string::npos) << csv;
  auto yaml = OtavaConfig(*h, "/out");
  ASSERT_TRUE(yaml.ok()) << yaml.error().message;
  EXPECT_NE(yaml->find("file: \"/out/latency.decision_service.csv\""), std::string::npos) << *yaml;
}

}  // namespace
}  // namespace fvbench::history_sqlite_test
