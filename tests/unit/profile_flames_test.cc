// profile_flames.h and profile_markdown.h: the fetched profile files of a run
// folded per service and level, drawn and summarised (results.json's
// profile.flames), and report.md's section on them; a file that cannot be
// read or folded is named while the other graphs are still drawn.
#include "support/report/profile_flames.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/report/profile_markdown.h"
#include "support/report/results_io.h"
#include "tests/unit/golden.h"

namespace fvbench::profile_flames_test {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

std::string PerfFixture() {
  std::ifstream in(testing_golden::FixturesDir() + "/perf/nginx_lua_worker.script", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

TEST(FoldProfileText, CpuIsPerfScriptAndLuaIsFolded) {
  auto cpu = FoldProfileText("cpu", PerfFixture(), "fv.perf.txt");
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  EXPECT_EQ(cpu->total(), 61u);  // the fixture's samples (fixtures/perf/README.md)
  auto lua = FoldProfileText("lua", "a.lua:f;b.lua:g;[N] 3\na.lua:f;[I] 1\n", "w.folded");
  ASSERT_TRUE(lua.ok()) << lua.error().message;
  EXPECT_EQ(lua->total(), 4u);
  auto bad = FoldProfileText("gpu", "x 1\n", "x.folded");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("x.folded: profile level 'gpu'"));
}

class WriteProfileFlamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fvbench-profile-flames-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    controller_ = (root_ / "controller-results").string();
    report_ = (root_ / "report").string();
    fs::create_directories(report_);
  }
  void TearDown() override { fs::remove_all(root_); }

  ScenarioResult WithFiles(std::vector<ProfileFile> files) const {
    ScenarioResult r;
    r.id = "latency.decision_service";
    r.profile = ProfileResult{};
    r.profile->profilers = "both";
    r.profile->rate_rps = 1000;
    r.profile->duration_s = 10;
    r.profile->hz = 99;
    r.profile->files = std::move(files);
    return r;
  }

  fs::path root_;
  std::string controller_, report_;
};

TEST_F(WriteProfileFlamesTest, EachServiceAndLevelIsOneGraphWithItsTopFrames) {
  Write(controller_ + "/profile/l/fv.perf.txt", PerfFixture());
  Write(controller_ + "/profile/l/lua_profile.11.folded", "main;hot_function;[N] 6\nmain;[I] 1\n");
  Write(controller_ + "/profile/l/lua_profile.12.folded", "main;hot_function;[N] 3\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "cpu", "profile/l/fv.perf.txt"},
                                                    {"fv", "lua", "profile/l/lua_profile.11.folded"},
                                                    {"fv", "lua", "profile/l/lua_profile.12.folded"}})};
  EXPECT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  const ProfileResult& p = *results[0].profile;
  ASSERT_EQ(p.flames.size(), 2u);
  EXPECT_EQ(p.flames[0].level, "cpu");
  EXPECT_EQ(p.flames[0].samples, 61u);
  EXPECT_EQ(p.flames[1].level, "lua");
  EXPECT_EQ(p.flames[1].samples, 10u);  // both workers merged
  EXPECT_EQ(p.flames[1].svg_path, "flame_latency.decision_service_fv_lua.svg");
  ASSERT_FALSE(p.flames[1].top.empty());
  EXPECT_EQ(p.flames[1].top[0].frame, "hot_function");  // ranked under its VM state
  EXPECT_DOUBLE_EQ(p.flames[1].top[0].self_share, 0.9);
  EXPECT_EQ(p.flames[1].top[1].frame, "main");
  std::ifstream folded(report_ + "/flame_latency.decision_service_fv_lua.folded");
  std::stringstream s;
  s << folded.rdbuf();
  EXPECT_EQ(s.str(), "main;[I] 1\nmain;hot_function;[N] 9\n");
  EXPECT_TRUE(fs::exists(report_ + "/flame_latency.decision_service_fv_cpu.svg"));
}

TEST_F(WriteProfileFlamesTest, AFileThatCannotBeReadOrFoldedIsNamedAndTheOthersAreDrawn) {
  Write(controller_ + "/profile/l/lua_profile.11.folded", "main;hot 2\n");
  Write(controller_ + "/profile/l/lua_profile.12.folded", "main;hot two\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/lua_profile.11.folded"},
                                                    {"fv", "lua", "profile/l/lua_profile.12.folded"},
                                                    {"fv", "cpu", "profile/l/missing.perf.txt"}})};
  const std::vector<std::string> problems = WriteProfileFlames(results, controller_, report_);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_THAT(problems[0], HasSubstr("lua_profile.12.folded: line 1"));
  EXPECT_THAT(problems[1], HasSubstr("missing.perf.txt"));
  ASSERT_EQ(results[0].profile->flames.size(), 1u);
  EXPECT_EQ(results[0].profile->flames[0].samples, 2u);
}

TEST_F(WriteProfileFlamesTest, TheFlamesRoundTripAndReportMdShowsThem) {
  Write(controller_ + "/profile/l/lua_profile.11.folded", "main;hot_function 7\nmain 1\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/lua_profile.11.folded"}})};
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  const std::string text = ScenarioResultToJson(results[0]);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->profile->flames.size(), 1u);
  EXPECT_EQ(back->profile->flames[0].top[0].frame, "hot_function");
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  std::string md;
  AppendProfileMarkdown(md, results);
  EXPECT_THAT(md, HasSubstr("Where the SUT's time goes"));
  EXPECT_THAT(md, HasSubstr("(flame_latency.decision_service_fv_lua.svg)"));
  EXPECT_THAT(md, HasSubstr("| hot_function | 87.5 % | 87.5 % |"));
  std::string none;
  results[0].profile.reset();
  AppendProfileMarkdown(none, results);
  EXPECT_EQ(none, "");
}

}  // namespace
}  // namespace fvbench::profile_flames_test
