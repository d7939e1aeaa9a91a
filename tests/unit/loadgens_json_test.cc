#include "support/report/loadgens_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/report/loadgens_markdown.h"
#include "support/report/results_io.h"
#include "tests/unit/report_samples.h"

namespace fvbench::loadgens_json_test {
namespace {

ScenarioResult WithTwoLoadgens() {
  ScenarioResult r = testing_samples::SampleRun()[0];
  r.load.loadgen_start_skew_us = 1800;
  LoadgenInstance a;
  a.name = "10.77.0.3#0";
  a.target_rps = 1500;
  a.achieved_rps = 1499.6;
  a.scheduled = 15000;
  a.succeeded = 14996;
  a.failed_sut = 4;
  a.cpu_busy = 0.41;
  a.start_epoch_us = 1.7e15;
  a.end_epoch_us = 1.7e15 + 10e6;
  LoadgenInstance b = a;
  b.name = "10.77.0.4#0";
  b.offset_us = 333.25;
  b.kept_up = false;
  b.cpu_busy = -1;  // not sampled: written as null
  r.load.loadgens = {a, b};
  return r;
}

TEST(LoadgensJson, ResultsJsonListsTheLoadGeneratorsAndReadsThemBack) {
  const ScenarioResult r = WithTwoLoadgens();
  const std::string text = ScenarioResultToJson(r);
  EXPECT_NE(text.find("\"loadgens\""), std::string::npos);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_TRUE(doc.at("scenario").at("load").at("loadgens").at(1).at("cpu_busy").is_null()) << text;
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->load.loadgens.size(), 2u);
  EXPECT_EQ(back->load.loadgen_start_skew_us, 1800);
  EXPECT_EQ(back->load.loadgens[1].name, "10.77.0.4#0");
  EXPECT_EQ(back->load.loadgens[1].offset_us, 333.25);
  EXPECT_FALSE(back->load.loadgens[1].kept_up);
  EXPECT_EQ(back->load.loadgens[1].cpu_busy, -1);
  EXPECT_EQ(back->load.loadgens[0].cpu_busy, 0.41);
  EXPECT_EQ(back->load.loadgens[0].failed_sut, 4u);
  EXPECT_EQ(ScenarioResultToJson(*back), text);
}

TEST(LoadgensJson, SingleEngineResultsAreUnchanged) {
  const ScenarioResult r = testing_samples::SampleRun()[0];
  EXPECT_EQ(ScenarioResultToJson(r).find("loadgen"), std::string::npos);
  std::string md;
  AppendLoadgensMarkdown(md, testing_samples::SampleRun());
  EXPECT_EQ(md, "");
}

TEST(LoadgensJson, ReportMdListsTheLoadGenerators) {
  std::string md;
  AppendLoadgensMarkdown(md, {WithTwoLoadgens()});
  EXPECT_NE(md.find("### Load generators"), std::string::npos) << md;
  EXPECT_NE(md.find("| 10.77.0.4#0 |"), std::string::npos) << md;  // '#' needs no escape mid-cell
  EXPECT_NE(md.find("NO (max send lag"), std::string::npos) << md;
  EXPECT_NE(md.find("not sampled"), std::string::npos) << md;
  EXPECT_NE(md.find("2 instances, start skew"), std::string::npos) << md;
}

TEST(LoadgensJson, MalformedEntryIsNamed) {
  auto doc = nlohmann::json::parse(ScenarioResultToJson(WithTwoLoadgens()));
  doc["scenario"]["load"]["loadgens"][1]["name"] = 7;
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("loadgens[1].name"), std::string::npos) << back.error().message;
}

}  // namespace
}  // namespace fvbench::loadgens_json_test
