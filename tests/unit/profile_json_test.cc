// profile_json.h through results_io.h: "profile" is absent when the
// profiles were off (documents unchanged), its shape when on, a round trip
// (NaN as null), and a bad field named by its path.
#include "support/report/profile_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "support/report/results_io.h"

namespace fvbench::profile_json_test {
namespace {

using ::testing::HasSubstr;

ScenarioResult Measured() {
  ScenarioResult r;
  r.id = "latency.decision_service";
  r.measured = true;
  r.load.engine = "wrk";
  r.load.target_rps = 1000;
  r.load.requests = 10000;
  r.load.duration_s = 10;
  r.load.achieved_rps = 1000;
  r.load.latency_us = {100, 200, 300, 400, 500};
  return r;
}

ProfileResult Profile() {
  ProfileResult p;
  p.profilers = "cpu";
  p.rate_rps = 800;
  p.duration_s = 10;
  p.hz = 99;
  p.cpu_service = "fv";
  p.without = {412.5, 85.25, 8000, true};
  p.with = {431, std::nan(""), 7990, true};
  p.files = {{"fv", "cpu", "profile/latency.decision_service/fv.perf.txt"}};
  p.errors = {"cpu profiler: perf script on host local: exit 1"};
  return p;
}

TEST(ProfileJson, AbsentWhenTheProfilesWereOff) {
  const std::string text = ScenarioResultToJson(Measured());
  EXPECT_EQ(text.find("\"profile\""), std::string::npos) << text;
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->profile.has_value());
}

TEST(ProfileJson, WritesItsShapeAndRoundTrips) {
  ScenarioResult r = Measured();
  r.profile = Profile();
  const std::string text = ScenarioResultToJson(r);
  const nlohmann::json v = nlohmann::json::parse(text).at("scenario").at("profile");
  EXPECT_EQ(v.at("profilers"), "cpu");
  EXPECT_EQ(v.at("rate_rps"), 800);
  EXPECT_EQ(v.at("duration_s"), 10);
  EXPECT_EQ(v.at("hz"), 99);
  EXPECT_EQ(v.at("cpu_service"), "fv");
  EXPECT_EQ(v.at("without").at("p99_us"), 412.5);
  EXPECT_EQ(v.at("without").at("cpu_us_per_request"), 85.25);
  EXPECT_EQ(v.at("without").at("requests"), 8000);
  EXPECT_EQ(v.at("without").at("measured"), true);
  EXPECT_TRUE(v.at("with").at("cpu_us_per_request").is_null());
  EXPECT_EQ(v.at("files").at(0).at("path"), "profile/latency.decision_service/fv.perf.txt");
  EXPECT_EQ(v.at("files").at(0).at("level"), "cpu");
  EXPECT_EQ(v.at("errors").at(0), "cpu profiler: perf script on host local: exit 1");
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->profile.has_value());
  EXPECT_EQ(back->profile->rate_rps, 800);
  EXPECT_EQ(back->profile->without.p99_us, 412.5);
  EXPECT_TRUE(std::isnan(back->profile->with.cpu_us_per_request));
  EXPECT_EQ(back->profile->files.size(), 1u);
  EXPECT_EQ(back->profile->files[0].service, "fv");
  EXPECT_EQ(back->profile->errors, Profile().errors);
  EXPECT_EQ(ScenarioResultToJson(*back), text);
}

TEST(ProfileJson, ABadFieldIsNamedByItsPath) {
  ScenarioResult r = Measured();
  r.profile = Profile();
  nlohmann::json doc = nlohmann::json::parse(ScenarioResultToJson(r));
  doc["scenario"]["profile"]["files"][0].erase("path");
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error().message, HasSubstr("profile.files[0].path"));
  doc = nlohmann::json::parse(ScenarioResultToJson(r));
  doc["scenario"]["profile"]["errors"][0] = 5;
  back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.error().message, HasSubstr("profile.errors[0]"));
}

}  // namespace
}  // namespace fvbench::profile_json_test
