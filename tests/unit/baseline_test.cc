// Baselines (baseline.h): a results.json of an earlier run as the comparison,
// rejected with the file and the field when it is not one; SaveBaseline writes
// a run's results as a new baseline (the fvbench_baseline command).
#include "support/report/baseline.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/report/markdown_report.h"
#include "support/report/results_io.h"
#include "support/report/summary_table.h"
#include "tests/unit/report_samples.h"
#include "fvbench/source_dir.h"

namespace fvbench::baseline_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing_samples::SampleMeta;
using testing_samples::SampleRunAllMeasured;

std::string GoodResultsJson() { return RunResultsToJson(SampleRunAllMeasured(), SampleMeta()); }

TEST(Baseline, AResultsJsonOfTheSuiteIsABaseline) {
  auto b = ParseBaseline(GoodResultsJson(), "/runs/main.json");
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_TRUE(b->baseline);
  EXPECT_STREQ(b->label(), "base");
  EXPECT_DOUBLE_EQ(*b->value("latency.raw_nginx", "p99_us"), 446.2);
  EXPECT_DOUBLE_EQ(*b->value("latency.raw_nginx", "max_us"), 446.2 * 9.25);  // from its scenarios
  EXPECT_DOUBLE_EQ(*b->value("throughput.simple", "rps"), 1001.2);
  EXPECT_TRUE(b->lower_bound("throughput.complex"));
  EXPECT_EQ(b->describe(), "/runs/main.json (run started 2026-03-04T04:53:20Z, edge 0123456789ab)");
}

struct BadBaseline {
  const char* name;
  std::string text;
  const char* fragment;
};
void PrintTo(const BadBaseline& c, std::ostream* os) { *os << c.name; }

json GoodDoc() { return json::parse(GoodResultsJson()); }

std::vector<BadBaseline> BadBaselines() {
  std::vector<BadBaseline> v;
  v.push_back({"NotJson", "{\"schema_version\": 1,", "not valid JSON"});
  {
    json d = GoodDoc();
    d["schema_version"] = 2;
    v.push_back({"WrongSchemaVersion", d.dump(), "schema_version: unsupported value 2 (this fvbench reads 1)"});
  }
  {
    json d = GoodDoc();
    d.erase("schema_version");
    v.push_back({"NoSchemaVersion", d.dump(), "schema_version: missing (expected 1)"});
  }
  v.push_back({"AReferenceIsNotABaseline",
               R"({"schema_version": 1, "latency_us": {"raw_nginx": {"p50": 71}}})",
               "scenarios: missing (a baseline is a results.json written by fvbench"});
  {
    json d = GoodDoc();
    d["scenarios"][2]["id"] = "latency.nginx";
    v.push_back({"UnknownScenarioId", d.dump(),
                 "scenarios[2].id: unknown scenario 'latency.nginx' (allowed: latency.raw_nginx, "
                 "latency.decision_service, latency.reverse_proxy, throughput.simple, throughput.complex, "
                 "throughput.llm, limits.accuracy, limits.llm, limits.reject_cost, limits.keys)"});
  }
  {
    json d = GoodDoc();
    d["throughput_rps"]["turbo"] = 5;
    v.push_back({"UnknownScenarioInSummary", d.dump(), "throughput_rps.turbo: unknown scenario"});
  }
  {
    json d = GoodDoc();
    d["latency_us"]["raw_nginx"]["p99"] = "446";
    v.push_back({"SummaryNumberIsAString", d.dump(), "latency_us.raw_nginx.p99"});
  }
  {
    json d = GoodDoc();
    d["scenarios"][0]["load"]["latency_us"]["p99"] = "fast";
    v.push_back({"ScenarioNumberIsAString", d.dump(), "scenarios[0].load.latency_us.p99"});
  }
  {
    json d = GoodDoc();
    d["meta"]["sut_cores"] = "eight";
    v.push_back({"MetaFieldOfWrongType", d.dump(), "meta.sut_cores"});
  }
  return v;
}

class BaselineErrors : public ::testing::TestWithParam<BadBaseline> {};

// fixtures/odd_inputs/baseline-denormal-huge.json:
// p50 0, p90 5e-324, p99 1e308 in the summary and the scenario; `fvbench_baseline
// save` took it and the table showed "(base 0, +inf %)" and a 300-digit base.
json OddBaseline() {
  std::ifstream in(FVBENCH_SOURCE_DIR "/fixtures/odd_inputs/baseline-denormal-huge.json");
  return json::parse(in);
}

std::vector<BadBaseline> ImplausibleBaselines() {
  std::vector<BadBaseline> v;
  v.push_back({"DenormalHugeAsFound", OddBaseline().dump(), "scenarios[0].load.latency_us.p50: 0 is not > 0"});
  json d = OddBaseline();
  d["scenarios"][0]["load"]["latency_us"]["p50"] = 120;
  v.push_back({"SubnormalP90", d.dump(), "scenarios[0].load.latency_us.p90: 4.94e-324 is subnormal"});
  d["scenarios"][0]["load"]["latency_us"]["p90"] = 180;
  v.push_back({"HugeP99", d.dump(), "scenarios[0].load.latency_us.p99: 1e+308 is above 1e+15"});
  d["scenarios"][0]["load"]["latency_us"]["p99"] = 400;
  v.push_back({"P999BelowP99", d.dump(), "scenarios[0].load.latency_us.p999: 302 µs is below p99's 400 µs"});
  d["scenarios"][0]["load"]["latency_us"]["p99"] = 233;
  v.push_back({"MaxZero", d.dump(), "scenarios[0].load.latency_us.max: 0 is not > 0"});
  d["scenarios"][0]["load"]["latency_us"]["max"] = 900;
  // The scenario is plausible now; its summary block still is not.
  v.push_back({"SummaryP50Zero", d.dump(), "latency_us.raw_nginx.p50: 0 is not > 0"});
  d["latency_us"]["raw_nginx"] = {{"p50", 120}, {"p90", 180}, {"p99", 233}, {"p999", 302}};
  d["scenarios"][0]["load"]["error_rate"] = 1e300;
  v.push_back({"ErrorRateAboveOne", d.dump(), "scenarios[0].load.error_rate: 1e+300 is above 1"});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Implausible, BaselineErrors, ::testing::ValuesIn(ImplausibleBaselines()),
                         [](const ::testing::TestParamInfo<BadBaseline>& info) { return std::string(info.param.name); });

TEST_P(BaselineErrors, NameTheFileAndTheField) {
  auto b = ParseBaseline(GetParam().text, "/runs/bad.json");
  ASSERT_FALSE(b.ok());
  const std::string& m = b.error().message;
  EXPECT_EQ(m.rfind("/runs/bad.json: ", 0), 0u) << m;
  EXPECT_NE(m.find(GetParam().fragment), std::string::npos) << m;
}

INSTANTIATE_TEST_SUITE_P(Baseline, BaselineErrors, ::testing::ValuesIn(BadBaselines()),
                         [](const ::testing::TestParamInfo<BadBaseline>& info) { return std::string(info.param.name); });

TEST(Baseline, MissingFileIsNamed) {
  auto b = LoadBaseline("/nonexistent/fvbench/results.json");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().message.find("/nonexistent/fvbench/results.json"), std::string::npos) << b.error().message;
}

TEST(Baseline, TableShowsDeltasToTheBaselineAndSaysSo) {
  auto run = SampleRunAllMeasured();
  auto base = ParseBaseline(GoodResultsJson(), "/runs/main.json");
  ASSERT_TRUE(base.ok()) << base.error().message;
  run[3].throughput_rps = 1001.2 * 0.96;  // 4 % fewer RPS than the baseline
  std::string t = RenderSummaryTable(run, SampleMeta(), &*base);
  EXPECT_NE(t.find("Baseline    /runs/main.json (run started"), std::string::npos) << t;
  EXPECT_EQ(t.find("Reference   "), std::string::npos) << t;
  EXPECT_NE(t.find("961 (base 1001, −4.0 %)"), std::string::npos) << t;
  EXPECT_NE(t.find("71 µs (base 71, +0.0 %)"), std::string::npos) << t;
  EXPECT_NE(t.find("4.13 ms (base 4.13, +0.0 %)"), std::string::npos) << t;  // max: baselines have it
}

// A run with limits.accuracy is a baseline; its worst phase's figures (the
// ones a profile gates) are compared: summary.txt and report.md show them
// beside this run's.
TEST(Baseline, ALimitsScenarioIsABaselineAndItsFiguresAreCompared) {
  auto run = SampleRunAllMeasured();
  ScenarioResult limits = testing_samples::SampleLimits();
  limits.limits[0].accuracy.over_admission = 0;  // the baseline's limiter kept to the bucket
  limits.limits[0].accuracy.worst_window_admitted = 30;
  run.push_back(limits);
  auto base = ParseBaseline(RunResultsToJson(run, SampleMeta()), "/runs/main.json");
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_DOUBLE_EQ(*base->value("limits.accuracy", "over_admission"), 0);
  EXPECT_DOUBLE_EQ(*base->value("limits.accuracy", "under_admission"), 0);
  EXPECT_DOUBLE_EQ(*base->value("limits.accuracy", "window_excess"), 0);
  // This run over-admits (the sample's 2 workers phase: 100 %).
  run.back() = testing_samples::SampleLimits();
  const std::string t = RenderSummaryTable(run, SampleMeta(), &*base);
  EXPECT_NE(t.find("Limiter accuracy"), std::string::npos) << t;
  EXPECT_NE(t.find("limits.accuracy: token bucket 10/s, burst 20 per key, 6 keys"), std::string::npos) << t;
  EXPECT_NE(t.find("    limits 2 workers, 6 keys: admitted per key 150/198/230 of 115 allowed"), std::string::npos) << t;
  EXPECT_NE(t.find("worst phase: over_admission 100.00% (base 0.00%), under_admission 0.00% (base 0.00%), "
                   "window_excess 93.33% (base 0.00%)"),
            std::string::npos)
      << t;
  const std::string md = RenderMarkdownReport(run, SampleMeta(), &*base);
  EXPECT_NE(md.find("Worst phase, as a threshold profile gates it: over_admission 100.00% (base 0.00%)"),
            std::string::npos)
      << md;
  // Without a comparison, the figures alone; without limits, no section.
  EXPECT_NE(RenderSummaryTable(run, SampleMeta(), nullptr).find("worst phase: over_admission 100.00%, under_admission 0.00%, window_excess 93.33%\n"),
            std::string::npos);
  EXPECT_EQ(RenderSummaryTable(SampleRunAllMeasured(), SampleMeta(), &*base).find("Limiter accuracy"), std::string::npos);
}

// A temp BENCH_DIR with report/results.json.
class SaveBaselineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("fvb-baseline-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "report");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void WriteResults(const std::vector<ScenarioResult>& run) {
    ASSERT_TRUE(SaveRunResults((dir_ / "report" / "results.json").string(), run, SampleMeta()).ok());
  }
  static std::string Read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  fs::path dir_;
};

TEST_F(SaveBaselineTest, SavesAPassingRunByteForByteAndItLoadsBack) {
  WriteResults(SampleRunAllMeasured());
  std::string dest = (dir_ / "main-baseline.json").string();
  auto saved = SaveBaseline(dir_.string(), dest, /*force=*/false);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->scenarios, 6);
  EXPECT_TRUE(saved->not_passed.empty());
  EXPECT_EQ(Read(dest), Read(dir_ / "report" / "results.json"));
  auto b = LoadBaseline(dest);
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_TRUE(b->baseline);
  for (const auto& e : fs::directory_iterator(dir_)) {  // no temporary left behind
    EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }
}

// An empty destination or BENCH_DIR is said to be empty (it was
// ": cannot rename .tmp.NNN into place" for the destination).
TEST_F(SaveBaselineTest, AnEmptyDestinationOrBenchDirIsNamedAsEmpty) {
  WriteResults(SampleRunAllMeasured());
  auto no_dest = SaveBaseline(dir_.string(), "", /*force=*/false);
  ASSERT_FALSE(no_dest.ok());
  EXPECT_NE(no_dest.error().message.find("the destination is empty"), std::string::npos) << no_dest.error().message;
  auto no_dir = SaveBaseline("", (dir_ / "b.json").string(), /*force=*/false);
  ASSERT_FALSE(no_dir.ok());
  EXPECT_NE(no_dir.error().message.find("BENCH_DIR is empty"), std::string::npos) << no_dir.error().message;
  EXPECT_FALSE(fs::exists(dir_ / "b.json"));
}

TEST_F(SaveBaselineTest, RefusesFailedInvalidAndInterruptedScenariosByNameUnlessForced) {
  auto run = SampleRunAllMeasured();
  run[1].checks = {{"p99_us", "<=", 2000, 639, 426, false}};                             // FAIL
  run[4].validity = {{"loadgen_cpu", false, false, "<=", 0.97, 0.8, "cpus 0-1 busy"}};  // INVALID
  ScenarioResult cut;
  cut.id = "throughput.llm";
  cut.interrupted = true;
  cut.error = "interrupted by signal 2 during the run; raw outputs pulled so far are in raw/";
  run[5] = cut;
  WriteResults(run);
  std::string dest = (dir_ / "b.json").string();
  auto refused = SaveBaseline(dir_.string(), dest, /*force=*/false);
  ASSERT_FALSE(refused.ok());
  const std::string& m = refused.error().message;
  EXPECT_NE(m.find((dir_ / "report" / "results.json").string() + ": refusing to save as a baseline: 3 scenario(s) did not pass or are not from this run"),
            std::string::npos) << m;
  EXPECT_NE(m.find("latency.decision_service: FAIL (1 check failed (p99_us))"), std::string::npos) << m;
  EXPECT_NE(m.find("throughput.complex: INVALID (validity failed: loadgen_cpu)"), std::string::npos) << m;
  EXPECT_NE(m.find("throughput.llm: interrupted (interrupted: interrupted by signal 2"), std::string::npos) << m;
  EXPECT_NE(m.find("--force"), std::string::npos) << m;
  EXPECT_FALSE(fs::exists(dest));

  auto forced = SaveBaseline(dir_.string(), dest, /*force=*/true);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->not_passed.size(), 3u);
  EXPECT_TRUE(fs::exists(dest));
}

// `-R latency` then `-R throughput` into one BENCH_DIR: the report merges the
// earlier ctest run's results; a baseline of mixed runs is refused by name.
TEST_F(SaveBaselineTest, ResultsOfAnEarlierCtestRunAreRefusedUnlessForced) {
  auto run = SampleRunAllMeasured();
  run[3].started_unix = SampleMeta().started_unix - 3600;  // throughput.simple, an hour before this run
  WriteResults(run);
  std::string dest = (dir_ / "mixed.json").string();
  auto refused = SaveBaseline(dir_.string(), dest, /*force=*/false);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(run[3].id + ": from an earlier ctest run (measured "), std::string::npos)
      << refused.error().message;
  EXPECT_FALSE(fs::exists(dest));
  auto forced = SaveBaseline(dir_.string(), dest, /*force=*/true);
  ASSERT_TRUE(forced.ok()) << forced.error().message;
  EXPECT_EQ(forced->not_passed.size(), 1u);
}

TEST_F(SaveBaselineTest, TheRunsOwnResultsFileIsNotADestination) {
  WriteResults(SampleRunAllMeasured());
  const std::string own = (dir_ / "report" / "results.json").string();
  const std::string before = Read(own);
  auto r = SaveBaseline(dir_.string(), own, /*force=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is the run's own results.json"), std::string::npos) << r.error().message;
  EXPECT_EQ(Read(own), before);
}

TEST_F(SaveBaselineTest, ImplausibleLatenciesAreNeverSavedEvenForced) {
  {
    std::ofstream out(dir_ / "report" / "results.json");
    out << OddBaseline().dump(2);
  }
  auto saved = SaveBaseline(dir_.string(), (dir_ / "b.json").string(), /*force=*/true);
  ASSERT_FALSE(saved.ok());
  EXPECT_NE(saved.error().message.find("scenarios[0].load.latency_us.p50: 0 is not > 0"), std::string::npos)
      << saved.error().message;
  EXPECT_FALSE(fs::exists(dir_ / "b.json"));
  // The same run with plausible latencies is a baseline.
  json d = OddBaseline();
  d["latency_us"]["raw_nginx"] = {{"p50", 120}, {"p90", 180}, {"p99", 233}, {"p999", 302}};
  d["scenarios"][0]["load"]["latency_us"] = {{"p50", 120}, {"p90", 180}, {"p99", 233}, {"p999", 302}, {"max", 900}};
  {
    std::ofstream out(dir_ / "report" / "results.json");
    out << d.dump(2);
  }
  auto fixed = SaveBaseline(dir_.string(), (dir_ / "b.json").string(), /*force=*/false);
  ASSERT_TRUE(fixed.ok()) << fixed.error().message;
  auto b = LoadBaseline((dir_ / "b.json").string());
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ(b->value("latency.raw_nginx", "p90_us"), 180);
}

TEST_F(SaveBaselineTest, NothingMeasuredIsNeverSaved) {
  ScenarioResult failed;
  failed.id = "latency.raw_nginx";
  failed.error = "nginx did not start";
  WriteResults({failed});
  auto r = SaveBaseline(dir_.string(), (dir_ / "b.json").string(), /*force=*/true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no scenario measured anything"), std::string::npos) << r.error().message;
}

TEST_F(SaveBaselineTest, MissingResultsAndBadResultsAreNamed) {
  auto missing = SaveBaseline((dir_ / "nope").string(), (dir_ / "b.json").string(), false);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find((dir_ / "nope" / "report" / "results.json").string()), std::string::npos)
      << missing.error().message;
  ASSERT_TRUE(detail::WriteTextFile((dir_ / "report" / "results.json").string(), R"({"schema_version": 3})").ok());
  auto bad = SaveBaseline(dir_.string(), (dir_ / "b.json").string(), true);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("results.json: schema_version: unsupported value 3"), std::string::npos)
      << bad.error().message;
}

// A destination that cannot be written: the error starts with the path the
// user gave, not the temporary file beside it (which is named after the reason).
TEST_F(SaveBaselineTest, UnwritableDestinationIsNamedNotItsTemporaryFile) {
  WriteResults(SampleRunAllMeasured());
  const std::string dest = (dir_ / "no-such-dir" / "main.json").string();
  auto r = SaveBaseline(dir_.string(), dest, /*force=*/false);
  ASSERT_FALSE(r.ok());
  const std::string& m = r.error().message;
  EXPECT_EQ(m.rfind("not saved as a baseline: " + dest + ": cannot write: No such file or directory", 0), 0u) << m;
  EXPECT_NE(m.find("(creating the temporary file " + dest + ".tmp."), std::string::npos) << m;
  // A directory as the destination: rename fails, the destination is named.
  fs::create_directories(dir_ / "adir" / "x");
  auto d = SaveBaseline(dir_.string(), (dir_ / "adir").string(), /*force=*/false);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message.rfind("not saved as a baseline: " + (dir_ / "adir").string() + ": ", 0), 0u)
      << d.error().message;
}

// The "use it: FVBENCH_BASELINE=..." hint must be accepted by provision, which
// requires an absolute path: a relative dest is reported absolute.
TEST_F(SaveBaselineTest, RelativeDestinationIsReportedAbsolute) {
  WriteResults(SampleRunAllMeasured());
  const fs::path old_cwd = fs::current_path();
  fs::current_path(dir_);
  auto saved = SaveBaseline(dir_.string(), "main.json", /*force=*/false);
  fs::current_path(old_cwd);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  EXPECT_EQ(saved->dest, (dir_ / "main.json").lexically_normal().string());
  EXPECT_TRUE(fs::exists(dir_ / "main.json"));
}

// FVBENCH_BASELINE=<a directory> (e.g. the BENCH_DIR itself) is named as a
// directory, not reported as "not valid JSON".
TEST_F(SaveBaselineTest, DirectoryAsBaselineIsNamedAsADirectory) {
  auto empty = LoadBaseline((dir_ / "report").string());
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find((dir_ / "report").string() + ": is a directory, not a results.json file"),
            std::string::npos) << empty.error().message;
  EXPECT_EQ(empty.error().message.find("JSON"), std::string::npos) << empty.error().message;
  WriteResults(SampleRunAllMeasured());
  auto bench_dir = LoadBaseline(dir_.string());
  ASSERT_FALSE(bench_dir.ok());
  EXPECT_NE(bench_dir.error().message.find("(did you mean " + (dir_ / "report" / "results.json").string() + "?)"),
            std::string::npos) << bench_dir.error().message;
  // The same for any file the suite reads (thresholds, reference).
  auto read = detail::ReadTextFile(dir_.string());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message, dir_.string() + ": is a directory, not a file");
}

// A device or a FIFO given as a thresholds, reference or baseline file is
// refused at once: /dev/zero was read until memory ran out, a FIFO with no
// writer waited forever.
TEST_F(SaveBaselineTest, DevicesAndFifosAreRefusedAsFilesAndBigFilesAreBounded) {
  auto zero = detail::ReadTextFile("/dev/zero");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, "/dev/zero: is a character device, not a regular file");
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto from_fifo = detail::ReadTextFile(fifo);
  ASSERT_FALSE(from_fifo.ok());
  EXPECT_EQ(from_fifo.error().message, fifo + ": is a FIFO, not a regular file");
  auto baseline = LoadBaseline(fifo);
  ASSERT_FALSE(baseline.ok());
  EXPECT_NE(baseline.error().message.find("is a FIFO"), std::string::npos) << baseline.error().message;
  const std::string big = (dir_ / "big.json").string();
  std::ofstream(big) << std::string(100, ' ');
  EXPECT_TRUE(detail::ReadTextFile(big, 100).ok());
  auto over = detail::ReadTextFile(big, 99);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().message, big + ": larger than 99 bytes, more than any file fvbench reads here");
}

}  // namespace
}  // namespace fvbench::baseline_test
