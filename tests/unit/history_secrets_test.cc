// The PostgreSQL password of FVBENCH_HISTORY is printed nowhere: not by the
// history library's messages, not by the fvbench_history tool (stdout,
// stderr, history.md), not by the report step (its stdout, which lands in
// ctest's log and JUnit, report.md, results.json). Against a real server
// that asks for a password (fixtures/history/pg-server.sh with
// FVBENCH_PG_PASSWORD), with the password in the URL's user part and in
// ?password= (both forms libpq accepts), right and wrong. Skipped when the
// PostgreSQL server binaries are missing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/history/history_store.h"
#include "support/report/results_io.h"
#include "fvbench/source_dir.h"

namespace fvbench::history_secrets_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
namespace fs = std::filesystem;

constexpr char kPassword[] = "S3cretPW-fvt3";
constexpr char kWrong[] = "WrongPW-fvt3";

std::string Script() { return FVBENCH_SOURCE_DIR "/fixtures/history/pg-server.sh"; }

struct Ran {
  int status = -1;
  std::string output;  // stdout and stderr
};

// `command` (no secret in it) with `env` set in this process for the call:
// the child inherits it; the values never reach a command line.
Ran RunWithEnv(const std::string& command, const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  for (const auto& [k, v] : env) ::unsetenv(k.c_str());
  Ran r;
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int rc = ::pclose(p);
  r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return r;
}

std::string FilesHolding(const fs::path& dir, const std::string& needle) {
  std::string found;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream f(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    if (ss.str().find(needle) != std::string::npos) found += e.path().string() + " ";
  }
  return found;
}

class HistorySecrets : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = "/tmp/fvb-pg-secret-" + std::to_string(::getpid());
    Ran r = RunWithEnv("bash " + Script() + " start " + dir_, {{"FVBENCH_PG_PASSWORD", kPassword}});
    status_ = r.status;
    start_output_ = r.output;
  }
  static void TearDownTestSuite() { (void)RunWithEnv("bash " + Script() + " stop " + dir_, {}); }
  void SetUp() override {
    if (status_ == 3) GTEST_SKIP() << "no PostgreSQL server binaries (Debian package postgresql)";
    ASSERT_EQ(status_, 0) << "pg-server.sh start failed: " << start_output_;
  }
  static std::string Shown() { return "postgresql:///postgres?host=" + dir_; }
  static std::string InUserPart(const std::string& pw) {
    return "postgresql://fvbench:" + pw + "@/postgres?host=" + dir_;
  }
  static std::string InQuery(const std::string& pw) {
    return "postgresql://fvbench@/postgres?host=" + dir_ + "&password=" + pw;
  }
  static std::string dir_, start_output_;
  static int status_;
};
std::string HistorySecrets::dir_, HistorySecrets::start_output_;
int HistorySecrets::status_ = -1;

TEST_F(HistorySecrets, TheLibraryNamesHostAndDatabaseOnly) {
  for (const std::string& url : {InUserPart(kPassword), InQuery(kPassword)}) {
    SCOPED_TRACE(url);
    auto db = OpenHistoryForWriting(url);
    ASSERT_TRUE(db.ok()) << db.error().message;
    EXPECT_EQ((*db)->Where(), Shown());
  }
  for (const std::string& url : {InUserPart(kWrong), InQuery(kWrong), InUserPart(std::string(kPassword) + "%zz"),
                                 "host=" + dir_ + " password=" + kPassword}) {
    SCOPED_TRACE(url);
    auto db = OpenHistoryForWriting(url);
    ASSERT_FALSE(db.ok());
    EXPECT_THAT(db.error().message, Not(HasSubstr(kWrong)));
    EXPECT_THAT(db.error().message, Not(HasSubstr(kPassword)));
  }
  auto wrong = OpenHistoryForWriting(InQuery(kWrong));
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.error().message, HasSubstr(Shown() + ": cannot connect"));
  EXPECT_THAT(wrong.error().message, HasSubstr("password authentication failed"));
}

// Case 09 (b): fvbench_history's messages and output, every command.
TEST_F(HistorySecrets, TheToolPrintsNoPassword) {
  const std::string tool = FVBENCH_HISTORY_BIN;
  const fs::path work = fs::path(dir_ + "-work");
  fs::remove_all(work);
  fs::create_directories(work / "run" / "report");
  fs::copy_file(FVBENCH_SOURCE_DIR "/fixtures/report/recorded_local_run.json", work / "run" / "report" / "results.json");
  for (const std::string& url : {InUserPart(kPassword), InQuery(kPassword)}) {
    SCOPED_TRACE(url);
    for (const std::string& cmd : {"record " + (work / "run").string(), std::string("show"), std::string("check"),
                                   "plot " + (work / "plot").string(), "export-csv " + (work / "csv").string()}) {
      Ran r = RunWithEnv(tool + " " + cmd, {{"FVBENCH_HISTORY", url}});
      EXPECT_EQ(r.status, 0) << cmd << ": " << r.output;
      EXPECT_THAT(r.output, Not(HasSubstr(kPassword))) << cmd;
    }
  }
  Ran shown = RunWithEnv(tool + " show", {{"FVBENCH_HISTORY", InQuery(kPassword)}});
  EXPECT_THAT(shown.output, HasSubstr("history " + Shown() + ": 1 run(s) stored"));
  Ran wrong = RunWithEnv(tool + " record " + (work / "run").string(), {{"FVBENCH_HISTORY", InQuery(kWrong)}});
  EXPECT_NE(wrong.status, 0);
  EXPECT_THAT(wrong.output, HasSubstr(Shown() + ": cannot connect"));
  EXPECT_THAT(wrong.output, Not(HasSubstr(kWrong)));
  // On the command line the password would be in ps: refused, without showing it.
  Ran argv = RunWithEnv(tool + " --history '" + InUserPart("S3cretInArgv") + "' show", {});
  EXPECT_EQ(argv.status, 2);
  EXPECT_THAT(argv.output, HasSubstr("--history " + Shown() + ": the location holds a password"));
  EXPECT_THAT(argv.output, Not(HasSubstr("S3cretInArgv")));
  EXPECT_EQ(FilesHolding(work, kPassword), "");
  fs::remove_all(work);
}

// Case 09 (a): the report step (ctest's fvbench.report: its stdout goes to
// ctest's log and the JUnit file) and the report it writes.
TEST_F(HistorySecrets, TheReportStepPrintsNoPassword) {
  const fs::path bench = fs::path(dir_ + "-bench");
  fs::remove_all(bench);
  fs::create_directories(bench / "controller-results");
  const std::string recorded = FVBENCH_SOURCE_DIR "/fixtures/report/recorded_local_run.json";
  auto text = detail::ReadTextFile(recorded);
  ASSERT_TRUE(text.ok());
  auto run = RunResultsFromJson(*text, recorded);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(detail::WriteTextFile((bench / "controller-results" / "run_meta.json").string(),
                                    RunMetaToJson(run->meta))
                  .ok());
  for (const ScenarioResult& r : run->scenarios)
    ASSERT_TRUE(SaveScenarioResult((bench / "controller-results" / (r.id + ".json")).string(), r).ok());
  for (const std::string& url : {InUserPart(kPassword), InQuery(kPassword)}) {
    SCOPED_TRACE(url);
    Ran r = RunWithEnv(std::string(FVBENCH_FIXTURE_BIN) + " report",
                       {{"FVBENCH_HISTORY", url}, {"BENCH_DIR", bench.string()}});
    EXPECT_THAT(r.output, HasSubstr("history " + Shown() + ": section in report.md")) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr(kPassword)));
    EXPECT_EQ(FilesHolding(bench, kPassword), "");
  }
  fs::remove_all(bench);
}

}  // namespace
}  // namespace fvbench::history_secrets_test
