// Every output of a run belongs to that run (run_outputs.h).
// The end-to-end case (a failed fvbench_fixture provision) is the CTest test
// unit.FailedProvisionLeavesNoEarlierXml (fixtures/stale-outputs-test.sh).
#include "support/report/run_outputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/core/json_fields.h"
#include "support/core/run_meta.h"

namespace fvbench::run_outputs_test {
namespace {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

class RunOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-run-outputs-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(fs::path(dir_ + "/" + rel).parent_path());
    std::ofstream(dir_ + "/" + rel) << text;
  }
  bool Exists(const std::string& rel) const { return fs::exists(dir_ + "/" + rel); }
  std::string dir_;
};

TEST_F(RunOutputs, EarlierXmlReportAndMetaAreSetAside) {
  Write("gtest-xml/latency.raw_nginx.xml", "<testsuites failures=\"0\"/>");
  Write("gtest-xml/throughput.simple.xml", "<testsuites failures=\"0\"/>");
  Write("gtest-xml/stale/latency.raw_nginx.xml", "older");
  Write("gtest-xml/notes.txt", "kept");
  for (const char* f : {"summary.txt", "results.json", "report.md", "report.html", "latency.svg", "flame_x_fv_cpu.folded",
                        "own-notes.txt"}) {
    Write(std::string("bench/report/") + f, "x");
  }
  Write("bench/controller-results/run_meta.json", R"({"schema_version":1,"started_unix":1000})");
  Write("bench/controller-results/latency.raw_nginx.json", "{}");
  auto s = SetAsideEarlierOutputs(dir_ + "/gtest-xml", dir_ + "/bench", 2000);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_THAT(s->moved, UnorderedElementsAre("latency.raw_nginx.xml", "throughput.simple.xml"));
  EXPECT_THAT(s->report_moved,
              UnorderedElementsAre("summary.txt", "results.json", "report.md", "report.html", "latency.svg",
                                   "flame_x_fv_cpu.folded"));
  // Moved, not deleted: nothing measured is lost.
  for (const char* f : {"summary.txt", "results.json", "report.md", "report.html", "latency.svg"}) {
    EXPECT_FALSE(Exists(std::string("bench/report/") + f)) << f;
    EXPECT_TRUE(Exists(std::string("bench/report/previous/") + f)) << f;
  }
  auto earlier = detail::ReadTextFile(dir_ + "/bench/controller-results/previous/run_meta.json");
  ASSERT_TRUE(earlier.ok()) << earlier.error().message;
  EXPECT_EQ(*earlier, R"({"schema_version":1,"started_unix":1000})");
  EXPECT_FALSE(Exists("gtest-xml/latency.raw_nginx.xml"));
  EXPECT_FALSE(Exists("gtest-xml/throughput.simple.xml"));
  EXPECT_TRUE(Exists("gtest-xml/stale/throughput.simple.xml"));
  EXPECT_TRUE(Exists("gtest-xml/notes.txt"));
  EXPECT_TRUE(Exists("bench/report/own-notes.txt"));  // not a report output
  EXPECT_TRUE(Exists("bench/controller-results/latency.raw_nginx.json"));  // marked by the meta, not removed
  auto text = detail::ReadTextFile(dir_ + "/bench/controller-results/run_meta.json");
  ASSERT_TRUE(text.ok());
  auto meta = RunMetaFromJson(*text, "run_meta.json");
  ASSERT_TRUE(meta.ok()) << meta.error().message;
  EXPECT_EQ(meta->started_unix, 2000);  // this run's start: the old result reads as from an earlier run
  EXPECT_TRUE(meta->provision_incomplete);
}

// The provision step's full meta has no provision_incomplete: the field is
// written only when true and reads back false when absent.
TEST_F(RunOutputs, ProvisionIncompleteRoundTripsAndIsAbsentOnceProvisioned) {
  RunMeta m;
  m.started_unix = 5;
  EXPECT_EQ(RunMetaToJson(m).find("provision_incomplete"), std::string::npos);
  m.provision_incomplete = true;
  auto back = RunMetaFromJson(RunMetaToJson(m), "m.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->provision_incomplete);
}

// A scenario's earlier result and raw engine files (a 9-step search) move
// aside when it starts; other scenarios' files stay where they are.
TEST_F(RunOutputs, AScenariosEarlierResultAndRawFilesAreSetAside) {
  Write("controller-results/throughput.simple.json", "{}");
  Write("controller-results/throughput.complex.json", "{}");
  Write("controller-results/raw/throughput_simple_s08_confirm.json", "{}");
  Write("controller-results/raw/throughput_simple_s08_confirm.cmd.txt", "wrk ...");
  Write("controller-results/raw/throughput_simple_warmup.stdout.txt", "");
  Write("controller-results/raw/throughput_simple.k6.log", "");
  Write("controller-results/raw/throughput_simpler_s00_probe.json", "{}");  // not this scenario's stem
  Write("controller-results/raw/throughput_complex_s00_probe.json", "{}");
  Write("controller-results/raw/previous/throughput_simple_s08_confirm.json", "older");
  auto moved = MoveScenarioOutputs(dir_, "throughput.simple");
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_THAT(*moved, UnorderedElementsAre("throughput.simple.json", "raw/throughput_simple_s08_confirm.json",
                                           "raw/throughput_simple_s08_confirm.cmd.txt",
                                           "raw/throughput_simple_warmup.stdout.txt", "raw/throughput_simple.k6.log"));
  EXPECT_TRUE(Exists("controller-results/previous/throughput.simple.json"));
  EXPECT_TRUE(Exists("controller-results/raw/previous/throughput_simple_s08_confirm.cmd.txt"));
  EXPECT_FALSE(Exists("controller-results/raw/throughput_simple_s08_confirm.json"));
  std::ifstream replaced(dir_ + "/controller-results/raw/previous/throughput_simple_s08_confirm.json");
  std::string text((std::istreambuf_iterator<char>(replaced)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{}");  // the older copy replaced
  EXPECT_TRUE(Exists("controller-results/throughput.complex.json"));
  EXPECT_TRUE(Exists("controller-results/raw/throughput_complex_s00_probe.json"));
  EXPECT_TRUE(Exists("controller-results/raw/throughput_simpler_s00_probe.json"));
  // A third run: raw/previous/ then holds the second run's files of the
  // scenario only, none left from the first (which had a step more).
  Write("controller-results/raw/previous/throughput_simple_s09_confirm.json", "first run");
  Write("controller-results/raw/throughput_simple_s00_probe.json", "{}");
  auto third = MoveScenarioOutputs(dir_, "throughput.simple");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_FALSE(Exists("controller-results/raw/previous/throughput_simple_s09_confirm.json"));
  EXPECT_FALSE(Exists("controller-results/raw/previous/throughput_simple_s08_confirm.cmd.txt"));
  EXPECT_TRUE(Exists("controller-results/raw/previous/throughput_simple_s00_probe.json"));
  EXPECT_TRUE(Exists("controller-results/raw/previous/throughput_complex_s00_probe.json") || Exists("controller-results/raw/throughput_complex_s00_probe.json"));
  // Nothing there: nothing to do.
  auto none = MoveScenarioOutputs(dir_ + "/absent", "throughput.simple");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(RunOutputs, NothingThereIsNothingToDo) {
  auto xml = SetAsideGtestXml(dir_ + "/missing");
  ASSERT_TRUE(xml.ok());
  EXPECT_TRUE(xml->empty());
  EXPECT_TRUE(SetAsideGtestXml("")->empty());
  EXPECT_TRUE(MoveReportOutputs(dir_ + "/missing")->empty());
}

}  // namespace
}  // namespace fvbench::run_outputs_test
