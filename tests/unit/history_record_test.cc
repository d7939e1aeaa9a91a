// What `record` takes from a results.json is checked for its kind
// (support/history/run_record.h): a commit is hex, a scenario id a file-name
// part, a host a line of text, every metric a finite number in range. The
// refusal names the file and the field. And the exports' quoting
// (support/history/quoting.h); fixtures/history/cli-test.sh reads the
// exported files back with Python's csv module and PyYAML.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "support/history/gate.h"
#include "support/history/quoting.h"
#include "support/history/run_record.h"
#include "support/report/results_io.h"
#include "tests/unit/detection_study.h"
#include "tests/unit/history_samples.h"
#include "tests/unit/report_samples.h"

namespace fvbench::history_record_test {
namespace {

using namespace history_samples;
using ::testing::HasSubstr;

// The recorded run with `edit` applied, as record reads it from /ci/run7/results.json.
template <class Edit>
Result<RunRecord> Edited(Edit edit) {
  nlohmann::json doc = RecordedRun();
  edit(doc);
  return RunRecordFromResultsJson(doc.dump(), "/ci/run7/results.json");
}

void ExpectRefused(const Result<RunRecord>& r, const std::string& field, const std::string& why) {
  ASSERT_FALSE(r.ok()) << "recorded";
  EXPECT_THAT(r.error().message, HasSubstr("/ci/run7/results.json: " + field));
  EXPECT_THAT(r.error().message, HasSubstr(why));
}

TEST(HistoryRecord, ACommitIsHexOfASaneLength) {
  for (const char* good : {"", "f3116f903634684f773a489858457656979c5a4b", "f3116f9 (dirty)", "F3116F9",
                           "c0ffee02 (dirty)",
                           "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}) {
    EXPECT_TRUE(IsEdgeCommitText(good)) << good;
  }
  for (const char* bad : {"c0ffee00,\"quoted\" 1", "c0ffee01\nsecond-line", "--upload-pack=touch x", "c0ffe",
                          "f3116f9 (dirty) (dirty)", " (dirty)", "g3116f9", "f3116f9 ",
                          "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0"}) {
    EXPECT_FALSE(IsEdgeCommitText(bad)) << bad;
  }
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["edge_commit"] = "c0ffee01\nsecond-line"; }),
                "meta.edge_commit: \"c0ffee01\\nsecond-line\" is not a git commit", "7 to 64 hex digits");
}

TEST(HistoryRecord, HostsRefsEngineAndModeAreTextOfTheirKind) {
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["sut_host"] = "sut\nREGRESSION fake"; }),
                "meta.sut_host", "without control characters");
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["loadgen_host"] = std::string("lg\x1b[2J"); }),
                "meta.loadgen_host", "without control characters");
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["engine"] = "wrk; rm -rf /"; }), "meta.engine",
                "an engine name");
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["mode"] = "local,remote"; }), "meta.mode", "a mode");
  EXPECT_TRUE(Edited([](nlohmann::json& d) { d["meta"]["sut_host"] = "ci@sut-01.example:2222"; }).ok());
}

TEST(HistoryRecord, TimesAreTimes) {
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["started_unix"] = 1e300; }), "meta.started_unix",
                "is above");
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["started_unix"] = 0; }), "meta.started_unix",
                "missing or 0");
  ExpectRefused(Edited([](nlohmann::json& d) { d["meta"]["finished_unix"] = -5; }), "meta.finished_unix",
                "is below");
}

// Scenario ids name the files export-csv and plot write.
TEST(HistoryRecord, AScenarioIdIsAFileNamePartAndAppearsOnce) {
  for (const char* good : {"latency.decision_service", "throughput.llm", "a", "x-1_2.y"}) {
    EXPECT_TRUE(IsScenarioId(good)) << good;
  }
  for (const char* bad : {"", "../../etc/cron.d/x", "a/b", ".hidden", "a..b", "-rf", "a b", "a\nb", "ä"}) {
    EXPECT_FALSE(IsScenarioId(bad)) << bad;
  }
  ExpectRefused(Edited([](nlohmann::json& d) { d["scenarios"][1]["id"] = "../../tmp/x"; }), "scenarios[1].id",
                "is not a scenario id");
  ExpectRefused(Edited([](nlohmann::json& d) { d["scenarios"][2]["id"] = d["scenarios"][1]["id"]; }),
                "scenarios[2].id", "appears twice");
}

// A negative rate or core count is no measurement (the JSON reader refuses
// 1e999 itself). A value that is missing (null: nothing to report) is
// stored, not as evidence.
TEST(HistoryRecord, MetricsAreInRangeAMissingOneIsNotEvidence) {
  ExpectRefused(Edited([](nlohmann::json& d) { d["scenarios"][3]["throughput_rps"] = -5; }),
                "scenarios[3].throughput_rps (max_rps of throughput.simple)", "-5 is below 0");
  ExpectRefused(Edited([](nlohmann::json& d) { d["scenarios"][1]["sut_usage"][0]["cpu_cores"] = -1; }),
                "scenarios[1].sut_usage[0].cpu_cores (edge_cpu_cores of latency.decision_service)", "is below 0");
  auto missing = Edited([](nlohmann::json& d) { d["scenarios"][3]["throughput_rps"] = nullptr; });
  ASSERT_TRUE(missing.ok()) << missing.error().message;
  bool found = false;
  for (const MetricRow& m : missing->metrics) {
    if (m.scenario != "throughput.simple" || m.metric != "max_rps") continue;
    found = true;
    EXPECT_FALSE(m.usable);
    EXPECT_EQ(m.value, 0);
    EXPECT_EQ(m.reason, "no value (null in results.json)");
  }
  EXPECT_TRUE(found);
  for (const MetricRow& m : missing->metrics) EXPECT_TRUE(std::isfinite(m.value)) << m.scenario << " " << m.metric;
}

// A run with a limits scenario keeps its figures as the profile gates them
// (the worst phase) and its lowest 429 share; read back from the recorded
// results.json they are the same.
TEST(HistoryRecord, ALimitsScenarioKeepsItsFigures) {
  ScenarioResult limits = testing_samples::SampleLimits();
  limits.started_unix = testing_samples::SampleMeta().started_unix + 400;
  const std::string text = RunResultsToJson({limits}, testing_samples::SampleMeta());
  auto rec = RunRecordFromResultsJson(text, "/ci/run8/results.json");
  ASSERT_TRUE(rec.ok()) << rec.error().message;
  std::map<std::string, double> got;
  for (const MetricRow& m : rec->metrics) {
    if (m.scenario != "limits.accuracy") continue;
    EXPECT_TRUE(m.usable) << m.metric << ": " << m.reason;
    got[m.metric] = m.value;
  }
  EXPECT_NEAR(got.at("over_admission"), 1.0, 1e-12);  // the 2 workers phase: (230 - 115) / 115
  EXPECT_EQ(got.at("under_admission"), 0);
  EXPECT_NEAR(got.at("window_excess"), 58 / 30.0 - 1, 1e-12);
  EXPECT_NEAR(got.at("reject_share"), (2280 - 1155) / 2280.0, 1e-12);  // the phase that let the most through
  EXPECT_TRUE(got.count("p99_us"));
  // A worst window under rate + burst is a negative excess, recorded as one.
  limits.limits[0].accuracy.worst_window_admitted = 20;
  limits.limits[1].accuracy.worst_window_admitted = 15;
  auto under = RunRecordFromResultsJson(RunResultsToJson({limits}, testing_samples::SampleMeta()), "r.json");
  ASSERT_TRUE(under.ok()) << under.error().message;
  for (const MetricRow& m : under->metrics) {
    if (m.metric == "window_excess") EXPECT_NEAR(m.value, 20 / 30.0 - 1, 1e-12);
  }
  // Out of range is refused, naming the field.
  nlohmann::json doc = nlohmann::json::parse(text);
  doc["scenarios"][0]["limits"][1]["accuracy"]["under_admission"] = 1.5;
  auto bad = RunRecordFromResultsJson(doc.dump(), "/ci/run8/results.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message,
              HasSubstr("scenarios[0].limits[].accuracy.under_admission (under_admission of limits.accuracy): 1.5 is "
                        "above 1"));
  EXPECT_FALSE(HigherIsWorse("reject_share"));
  EXPECT_TRUE(HigherIsWorse("over_admission"));
}

// over_admission sits at 0 while the limiter is right: a limiter that starts
// over-admitting is a regression in fraction points (the relative change
// from 0 is meaningless), named as such.
TEST(HistoryGate, LimitsFractionsRegressInPointsFromZero) {
  MetricSeries s;
  s.scenario = "limits.accuracy";
  s.metric = "over_admission";
  std::vector<double> values(30, 0.0);
  for (int i = 0; i < 5; ++i) values.push_back(0.4 + 0.01 * i);
  for (size_t i = 0; i < values.size(); ++i) {
    s.points.push_back({static_cast<int64_t>(i + 1), 1.7e9 + static_cast<double>(i), Commit(static_cast<int>(i)),
                        values[i]});
  }
  s.change_points = FindChangePoints(values);
  ASSERT_FALSE(s.change_points.empty());
  EXPECT_EQ(s.change_points.back().relative_change, 0);  // from a mean of 0
  const std::vector<Regression> found = FindRegressions({s});
  ASSERT_EQ(found.size(), 1u);
  const std::string text = DescribeRegression(found[0], s);
  EXPECT_THAT(text, HasSubstr("limits.accuracy over_admission: +42.0 points (mean 0 over 30 runs -> mean 0.42"));
  // Under 3 points: no regression; the same series as latency would not be
  // one either (relative to 0).
  for (double& v : values) v = v > 0 ? 0.02 : 0;
  MetricSeries small = s;
  for (size_t i = 0; i < values.size(); ++i) small.points[i].value = values[i];
  small.change_points = FindChangePoints(values);
  EXPECT_TRUE(FindRegressions({small}).empty());
  // reject_share falling is the bad way.
  MetricSeries share = s;
  share.metric = "reject_share";
  std::vector<double> shares(30, 0.75);
  for (int i = 0; i < 5; ++i) shares.push_back(0.5);
  for (size_t i = 0; i < shares.size(); ++i) share.points[i].value = shares[i];
  share.change_points = FindChangePoints(shares);
  ASSERT_EQ(FindRegressions({share}).size(), 1u);
  EXPECT_THAT(DescribeRegression(FindRegressions({share})[0], share), HasSubstr("reject_share: -25.0 points"));
}

// A series of the given values, run ids 1.., one commit each.
MetricSeries SeriesOf(const std::string& scenario, const std::string& metric, const std::vector<double>& values) {
  MetricSeries s;
  s.scenario = scenario;
  s.metric = metric;
  for (size_t i = 0; i < values.size(); ++i) {
    s.points.push_back({static_cast<int64_t>(i + 1), 1.7e9 + static_cast<double>(i), Commit(static_cast<int>(i)),
                        values[i]});
  }
  s.change_points = FindChangePoints(values);
  return s;
}

// What check could have detected: the runs before the newest 10 are the
// reference (detectable_shift_test.cc computes this one by hand: MAD-sd
// 2.9652, mean 102, m = k = 10: 5.47 %; CV 2.9652 / 102 = 2.9 %).
TEST(HistoryGate, SaysTheSmallestShiftItCouldDetect) {
  std::vector<double> values = {100, 97, 130, 99, 100, 101, 90, 102, 103, 98};
  for (int i = 0; i < 10; ++i) values.push_back(100 + (i % 2));
  MetricSeries p99 = SeriesOf("latency.decision_service", "p99_us", values);
  MetricSeries errors = SeriesOf("latency.decision_service", "error_rate", std::vector<double>(20, 0.0));
  MetricSeries excess = SeriesOf("limits.accuracy", "over_admission", std::vector<double>(20, 0.0));
  MetricSeries short_one = SeriesOf("limits.accuracy", "window_excess", std::vector<double>(7, 0.01));
  ASSERT_TRUE(p99.change_points.empty());
  const std::vector<SeriesSensitivity> found = GateSensitivity({p99, errors, excess, short_one});
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(DescribeSensitivity(found[0]),
            "latency.decision_service p99_us: could detect a shift of 5.5% or more in the newest 10 runs "
            "(noise CV 2.9% over 10 runs)");
  EXPECT_EQ(DescribeSensitivity(found[1]),
            "latency.decision_service error_rate: cannot detect a relative change: mean 0 over 10 runs");
  EXPECT_EQ(DescribeSensitivity(found[2]),
            "limits.accuracy over_admission: could detect a change of 3.0 points or more (the --min-effect floor; "
            "the noise alone: 0.0 points) in the newest 10 runs (noise SD 0.0 points over 10 runs; sample SD, "
            "most runs equal)");
  EXPECT_EQ(DescribeSensitivity(found[3]), "limits.accuracy window_excess: not enough runs to tell (n=7)");
  EXPECT_EQ(SummarizeSensitivity(found),
            "latency.decision_service (newest 10 runs): p99_us 5.5%, error_rate n/a (mean 0)\n"
            "limits.accuracy (newest 10 runs): over_admission 3.0 points, window_excess too few runs (n=7)\n");
  // A shorter history compares fewer newest runs with at least 6 before them.
  const std::vector<double> twelve(values.begin(), values.begin() + 12);
  EXPECT_THAT(DescribeSensitivity(GateSensitivity({SeriesOf("s.x", "p50_us", twelve)})[0]),
              HasSubstr("in the newest 6 runs (noise CV"));
}

// The reference starts at the last change point before the newest runs (an
// accepted shift is not noise) and reaches back no further than the
// detector's window (64) minus the newest runs.
TEST(HistoryGate, DetectableShiftReferenceSinceTheLastChangeWithinTheWindow) {
  detection_study::Rng rng(3);
  std::vector<double> values;
  for (int i = 0; i < 100; ++i) values.push_back(1000 * (1 + 0.01 * rng.Normal()));
  EXPECT_THAT(DescribeSensitivity(GateSensitivity({SeriesOf("s.x", "p50_us", values)})[0]),
              ::testing::MatchesRegex(".*in the newest 10 runs \\(noise CV [01]\\.[0-9]% over 54 runs\\)"));
  for (size_t i = 60; i < values.size(); ++i) values[i] *= 1.3;
  const MetricSeries shifted = SeriesOf("s.x", "p50_us", values);
  ASSERT_EQ(shifted.change_points.size(), 1u);
  ASSERT_EQ(shifted.change_points[0].index, 60u);
  EXPECT_THAT(DescribeSensitivity(GateSensitivity({shifted})[0]),
              HasSubstr("over 30 runs since the change at run 61)"));
  // Fewer than 6 runs since it: not enough to tell.
  const std::vector<double> soon(values.begin(), values.begin() + 74);
  const MetricSeries recent = SeriesOf("s.x", "p50_us", soon);
  ASSERT_FALSE(recent.change_points.empty());
  EXPECT_EQ(DescribeSensitivity(GateSensitivity({recent})[0]),
            "s.x p50_us: not enough runs to tell (n=4 since the change at run 61)");
}

TEST(HistoryQuoting, CsvFieldsFollowRfc4180) {
  EXPECT_EQ(CsvField("c0ffee02 (dirty)"), "c0ffee02 (dirty)");
  EXPECT_EQ(CsvField(""), "");
  EXPECT_EQ(CsvField("c0ffee00,\"quoted\" 1"), "\"c0ffee00,\"\"quoted\"\" 1\"");
  EXPECT_EQ(CsvField("a\nb"), "\"a\nb\"");
  EXPECT_EQ(CsvField("a\rb"), "\"a\rb\"");
  EXPECT_EQ(CsvField("\""), "\"\"\"\"");
}

TEST(HistoryQuoting, YamlScalarsAreDoubleQuotedWithEveryUnprintableEscaped) {
  EXPECT_EQ(*YamlQuoted("exp #1: a,b/x.csv"), "\"exp #1: a,b/x.csv\"");
  EXPECT_EQ(*YamlQuoted("say \"hi\" \\ bye"), "\"say \\\"hi\\\" \\\\ bye\"");
  EXPECT_EQ(*YamlQuoted("a\nb\tc\rd"), "\"a\\nb\\tc\\x0Dd\"");
  EXPECT_EQ(*YamlQuoted(std::string("\x01\x7f", 2)), "\"\\x01\\x7F\"");
  // NEL, LINE SEPARATOR and the BOM are line breaks or invisible to YAML: escaped.
  EXPECT_EQ(*YamlQuoted("a\xC2\x85" "b\xE2\x80\xA8" "c\xEF\xBB\xBF"), "\"a\\x85b\\u2028c\\uFEFF\"");
  // Printable non-ASCII stays as it is.
  EXPECT_EQ(*YamlQuoted("Zürich 東京 \xF0\x9F\x93\x88"), "\"Zürich 東京 \xF0\x9F\x93\x88\"");
  for (const char* bad : {"\xff", "a\xC3", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"}) {
    auto q = YamlQuoted(bad);
    ASSERT_FALSE(q.ok()) << bad;
    EXPECT_THAT(q.error().message, HasSubstr("not UTF-8"));
  }
}

}  // namespace
}  // namespace fvbench::history_record_test
