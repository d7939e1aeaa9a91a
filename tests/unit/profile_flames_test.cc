// profile_flames.h and profile_markdown.h: the fetched profile files of a run
// folded per service and level, drawn and summarised (results.json's
// profile.flames), and report.md's section on them; a file that cannot be
// read or folded is named while the other graphs are still drawn.
#include "support/report/profile_flames.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/report/ab_report.h"
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

// A/B: side B does twice the work in one function, at the same rate and
// with the same requests; that function tops B's growth, in µs of CPU per
// request (samples x 1e6 / hz / requests), and the differential graph is drawn.
TEST_F(WriteProfileFlamesTest, AbSidesAreDrawnApartAndBsGrowthNamesTheFunctionThatDoublesItsWork) {
  Write(controller_ + "/profile/l/A/lua_profile.11.folded", "main;handler;/opt/a/src/w.lua:double_me;[N] 20\nmain;handler;steady;[N] 30\n");
  Write(controller_ + "/profile/l/B/lua_profile.21.folded", "main;handler;/opt/b/src/w.lua:double_me;[N] 40\nmain;handler;steady;[I] 31\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/A/lua_profile.11.folded"}})};
  ScenarioResult& r = results[0];
  r.profile->side = "A";
  r.profile->edge_dir = "/opt/a";  // each side's tree: its Lua frames compare relative to it
  r.profile->hz = 100;  // 10 ms a sample at the Lua level
  r.profile->with.requests = 1000;
  r.profile_b = *r.profile;
  r.profile_b->side = "B";
  r.profile_b->edge_dir = "/opt/b/";
  r.profile_b->files = {{"fv", "lua", "profile/l/B/lua_profile.21.folded"}};
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  EXPECT_EQ(r.profile->flames.at(0).svg_path, "flame_latency.decision_service_A_fv_lua.svg");
  EXPECT_EQ(r.profile_b->flames.at(0).svg_path, "flame_latency.decision_service_B_fv_lua.svg");
  EXPECT_TRUE(r.profile->diffs.empty());
  ASSERT_EQ(r.profile_b->diffs.size(), 1u);
  const ProfileDiff& d = r.profile_b->diffs[0];
  EXPECT_EQ(d.svg_path, "flame_latency.decision_service_diff_fv_lua.svg");
  EXPECT_TRUE(fs::exists(report_ + "/" + d.svg_path));
  EXPECT_DOUBLE_EQ(d.a_us_per_request, 500);  // 50 samples x 10 ms / 1000 requests
  EXPECT_DOUBLE_EQ(d.b_us_per_request, 710);
  ASSERT_GE(d.top.size(), 2u);
  // Ranked by self: handler and main grew as much in total (every stack is
  // under them) but their own code did not.
  const ProfileFrameGrowth& top = d.top[0];
  EXPECT_EQ(top.frame, "src/w.lua:double_me");
  EXPECT_DOUBLE_EQ(top.a_self_us, 200);
  EXPECT_DOUBLE_EQ(top.b_self_us, 400);
  EXPECT_DOUBLE_EQ(top.a_total_us, 200);
  EXPECT_DOUBLE_EQ(top.share_of_a, 0.4);
  EXPECT_EQ(d.top[1].frame, "steady");
  EXPECT_DOUBLE_EQ(d.top[1].b_self_us, 310);
  for (const ProfileFrameGrowth& g : d.top) {
    EXPECT_NE(g.frame, "[I]") << "the VM-state leaf is not a frame of the ranking";
    EXPECT_NE(g.frame, "main") << "no own samples: not ranked";
  }
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  ASSERT_TRUE(back->profile_b.has_value());
  EXPECT_EQ(back->profile_b->diffs.at(0).top.size(), d.top.size());
  r.ab = AbResult{};
  r.ab->method = "latency";
  const std::string ab = RenderAbMarkdown(results, RunMeta{});
  EXPECT_THAT(ab, HasSubstr("Where B's CPU per request changed"));
  EXPECT_THAT(ab, HasSubstr("(flame_latency.decision_service_diff_fv_lua.svg); all frames: A 500 µs, B 710 µs per request"));
  EXPECT_THAT(ab, HasSubstr("| src/w.lua:double_me | 200 µs | 400 µs | 200 µs | 400 µs | +40.0 % |"));
  std::string md;
  AppendProfileMarkdown(md, results);
  EXPECT_THAT(md, HasSubstr("#### latency.decision_service, side A"));
  EXPECT_THAT(md, HasSubstr("#### latency.decision_service, side B"));
  EXPECT_THAT(md, HasSubstr("Differential graph, B against A, fv (Lua level, jit.profile)"));
}

TEST_F(WriteProfileFlamesTest, AProfilePathOutsideTheControllerDirectoryIsNotRead) {
  Write(root_.string() + "/secret.folded", "main;leak 5\n");
  Write(controller_ + "/profile/l/lua_profile.11.folded", "main;hot 2\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "../secret.folded"},
                                                    {"fv", "lua", root_.string() + "/secret.folded"},
                                                    {"fv", "lua", "profile/l/../../../secret.folded"},
                                                    {"fv", "lua", "profile/l/lua_profile.11.folded"}})};
  const std::vector<std::string> problems = WriteProfileFlames(results, controller_, report_);
  ASSERT_EQ(problems.size(), 3u);
  EXPECT_THAT(problems[0], HasSubstr("profile file '../secret.folded' is not a relative path inside"));
  ASSERT_EQ(results[0].profile->flames.size(), 1u);
  EXPECT_EQ(results[0].profile->flames[0].samples, 2u) << "only the file inside was read";
}

// throughput.complex profiled in the same run as throughput.simple is drawn
// against it (kProfileComparisons): the frame only the complex policy runs
// tops its growth; a scenario without its counterpart gets no such graph.
TEST_F(WriteProfileFlamesTest, ComplexIsDrawnAgainstSimpleWhenBothAreProfiled) {
  Write(controller_ + "/profile/s/lua_profile.1.folded", "access;evaluate;one_rule 10\naccess 10\n");
  Write(controller_ + "/profile/c/lua_profile.2.folded", "access;evaluate;one_rule 10\naccess;evaluate;jwt_decode 8\naccess 10\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/s/lua_profile.1.folded"}}),
                                         WithFiles({{"fv", "lua", "profile/c/lua_profile.2.folded"}}),
                                         WithFiles({{"fv", "lua", "profile/s/lua_profile.1.folded"}})};
  results[0].id = "throughput.simple";
  results[1].id = "throughput.complex";
  results[2].id = "throughput.llm";
  results[0].profile->with.requests = 100;
  results[1].profile->with.requests = 100;
  results[2].profile->with.requests = 0;  // nothing to normalise by: drawn, no frames
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  EXPECT_TRUE(results[0].profile->diffs.empty());
  ASSERT_EQ(results[1].profile->diffs.size(), 1u);
  const ProfileDiff& d = results[1].profile->diffs[0];
  EXPECT_EQ(d.against, "throughput.simple");
  EXPECT_EQ(d.svg_path, "flame_throughput.complex_vs_throughput.simple_fv_lua.svg");
  EXPECT_TRUE(fs::exists(report_ + "/" + d.svg_path));
  ASSERT_FALSE(d.top.empty());
  EXPECT_EQ(d.top[0].frame, "jwt_decode");
  EXPECT_TRUE(d.top[0].new_in_b);
  ASSERT_EQ(results[2].profile->diffs.size(), 1u);
  EXPECT_TRUE(results[2].profile->diffs[0].top.empty());
  EXPECT_EQ(results[2].profile->diffs[0].not_compared, "throughput.llm has no requests to divide by");
  EXPECT_TRUE(std::isnan(results[2].profile->diffs[0].b_us_per_request));
  std::string md;
  AppendProfileMarkdown(md, results);
  EXPECT_THAT(md, HasSubstr("Against throughput.simple (profiled in this run"));
  EXPECT_THAT(md, HasSubstr("| frame | self throughput.simple | self throughput.complex |"));
  EXPECT_THAT(md, HasSubstr("throughput.simple 2000 µs, throughput.llm not measured per request"));
  EXPECT_THAT(md, HasSubstr("| jwt_decode | 0 µs | 800 µs | 0 µs | 800 µs | +40.0 % (new in throughput.complex) |"));
  std::string ab;
  ab = RenderAbMarkdown(results, RunMeta{});
  EXPECT_EQ(ab, "") << "no A/B result: no A/B section";
  const std::string text = ScenarioResultToJson(results[1]);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->profile->diffs.at(0).against, "throughput.simple");
}

// Each graph of the service whose CPU the phase measured says how many
// samples that CPU time gives; a profile that caught fewer than half says so.
TEST_F(WriteProfileFlamesTest, AGraphWithFarFewerSamplesThanItsCpuTimeGivesIsFlagged) {
  Write(controller_ + "/profile/l/lua_profile.11.folded", "main;hot 10\n");
  Write(controller_ + "/profile/l/backend.perf.txt", PerfFixture());
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/lua_profile.11.folded"},
                                                    {"backend", "cpu", "profile/l/backend.perf.txt"}})};
  ProfileResult& p = *results[0].profile;
  p.cpu_service = "fv";
  p.hz = 100;  // Lua level: 10 ms a sample
  p.with = {1000, 500, 1000, true};  // p99, 500 µs CPU per request, 1000 requests: 0.5 s of CPU
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  ASSERT_EQ(p.flames.size(), 2u);
  EXPECT_EQ(p.flames[1].service, "fv");
  EXPECT_DOUBLE_EQ(p.flames[1].expected_samples, 50);
  EXPECT_TRUE(std::isnan(p.flames[0].expected_samples)) << "the backend's CPU is not what the phase measured";
  std::string md;
  AppendProfileMarkdown(md, results);
  EXPECT_THAT(md, HasSubstr("10 samples (few: its shares are rough) of ≈50 its CPU time in the phase gives (**fewer than half"));
  EXPECT_THAT(md, HasSubstr("**backend (C level, perf)**: [flame_latency.decision_service_backend_cpu.svg]"
                            "(flame_latency.decision_service_backend_cpu.svg), 61 samples ([folded]"));
  p.with.cpu_us_per_request = 150;  // 15 expected: 10 is not fewer than half
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  std::string enough;
  AppendProfileMarkdown(enough, results);
  EXPECT_THAT(enough, HasSubstr("10 samples (few: its shares are rough) of ≈15 its CPU time in the phase gives ([folded]"));
  const std::string text = ScenarioResultToJson(results[0]);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_DOUBLE_EQ(back->profile->flames[1].expected_samples, 15);
}

// With the phase's CPU measured, a frame's µs per request is its share of
// the samples x that CPU, whatever the profiler's sample count (jit.profile
// misses samples); a side with no samples is not compared.
TEST_F(WriteProfileFlamesTest, GrowthDividesTheMeasuredCpuAndASideWithoutSamplesIsNotCompared) {
  Write(controller_ + "/profile/l/A/lua_profile.1.folded", "main;f;[N] 5\nmain;g;[N] 5\n");
  Write(controller_ + "/profile/l/B/lua_profile.2.folded", "main;f;[N] 30\nmain;g;[N] 10\n");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/A/lua_profile.1.folded"}})};
  ScenarioResult& r = results[0];
  r.profile->side = "A";
  r.profile->cpu_service = "fv";
  r.profile->with = {1000, 100, 1000, true};  // 100 µs CPU per request, whatever the 10 samples say
  r.profile_b = *r.profile;
  r.profile_b->side = "B";
  r.profile_b->with = {1000, 200, 1000, true};
  r.profile_b->files = {{"fv", "lua", "profile/l/B/lua_profile.2.folded"}};
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  const ProfileDiff& d = r.profile_b->diffs.at(0);
  EXPECT_DOUBLE_EQ(d.a_us_per_request, 100);
  EXPECT_DOUBLE_EQ(d.b_us_per_request, 200);
  ASSERT_GE(d.top.size(), 2u);
  EXPECT_EQ(d.top[0].frame, "f");
  EXPECT_DOUBLE_EQ(d.top[0].a_self_us, 50);   // half of A's samples x 100 µs
  EXPECT_DOUBLE_EQ(d.top[0].b_self_us, 150);  // three quarters of B's x 200 µs
  EXPECT_DOUBLE_EQ(d.top[0].share_of_a, 1.0);
  EXPECT_EQ(d.top[1].frame, "g");
  EXPECT_DOUBLE_EQ(d.top[1].b_self_us, 50);
  Write(controller_ + "/profile/l/A/lua_profile.1.folded", "");
  ASSERT_TRUE(WriteProfileFlames(results, controller_, report_).empty());
  const ProfileDiff& none = r.profile_b->diffs.at(0);
  EXPECT_TRUE(none.top.empty());
  EXPECT_EQ(none.not_compared, "A has no samples");
  r.ab = AbResult{};
  EXPECT_THAT(RenderAbMarkdown(results, RunMeta{}), HasSubstr("Not compared: A has no samples."));
}

TEST_F(WriteProfileFlamesTest, ASymbolicLinkInPlaceOfAProfileIsNotRead) {
  Write(root_.string() + "/elsewhere.folded", "main;leak 5\n");
  fs::create_directories(controller_ + "/profile/l");
  fs::create_symlink(root_ / "elsewhere.folded", controller_ + "/profile/l/lua_profile.11.folded");
  std::vector<ScenarioResult> results = {WithFiles({{"fv", "lua", "profile/l/lua_profile.11.folded"}})};
  const std::vector<std::string> problems = WriteProfileFlames(results, controller_, report_);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr("lua_profile.11.folded: a symbolic link"));
  EXPECT_TRUE(results[0].profile->flames.empty());
}

}  // namespace
}  // namespace fvbench::profile_flames_test
