#include "support/report/results_io.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/core/interval_latency.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/judge/reference.h"
#include "tests/unit/external_tool.h"
#include "tests/unit/golden.h"
#include "tests/unit/report_samples.h"

namespace fvbench::results_io_test {
namespace {

using nlohmann::json;
using testing_samples::SampleMeta;
using testing_samples::SampleRun;

// NaN-aware equality: a NaN written as null must come back as NaN.
bool Same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void ExpectSameLoad(const LoadResult& a, const LoadResult& b) {
  EXPECT_EQ(a.engine, b.engine);
  EXPECT_EQ(a.engine_version, b.engine_version);
  EXPECT_TRUE(Same(a.target_rps, b.target_rps));
  EXPECT_TRUE(Same(a.duration_s, b.duration_s));
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.failed, b.failed);
  EXPECT_EQ(a.non_2xx, b.non_2xx);
  EXPECT_TRUE(Same(a.achieved_rps, b.achieved_rps));
  EXPECT_TRUE(Same(a.error_rate, b.error_rate));
  EXPECT_TRUE(Same(a.latency_us.p50, b.latency_us.p50));
  EXPECT_TRUE(Same(a.latency_us.p90, b.latency_us.p90));
  EXPECT_TRUE(Same(a.latency_us.p99, b.latency_us.p99));
  EXPECT_TRUE(Same(a.latency_us.p999, b.latency_us.p999));
  EXPECT_TRUE(Same(a.latency_us.max, b.latency_us.max));
  EXPECT_EQ(a.kept_up, b.kept_up);
  EXPECT_EQ(a.dropped_iterations, b.dropped_iterations);
  EXPECT_TRUE(Same(a.max_send_lag_us, b.max_send_lag_us));
  EXPECT_TRUE(Same(a.late_send_share, b.late_send_share));
  EXPECT_EQ(a.late_pool_exhausted_share, b.late_pool_exhausted_share);
  EXPECT_EQ(a.sut_cpu_share, b.sut_cpu_share);
  EXPECT_EQ(a.sut_cpus_shared, b.sut_cpus_shared);
  EXPECT_EQ(a.ratelimit_evidence, b.ratelimit_evidence);
  EXPECT_EQ(a.raw_path, b.raw_path);
}

void ExpectSameScenario(const ScenarioResult& a, const ScenarioResult& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.measured, b.measured);
  EXPECT_EQ(a.error, b.error);
  ExpectSameLoad(a.load, b.load);
  EXPECT_TRUE(Same(a.throughput_rps, b.throughput_rps));
  EXPECT_EQ(a.ceiling_reached, b.ceiling_reached);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].target_rps, b.steps[i].target_rps);
    EXPECT_EQ(a.steps[i].passed, b.steps[i].passed);
    EXPECT_EQ(a.steps[i].verdict, b.steps[i].verdict);
    EXPECT_EQ(a.steps[i].role, b.steps[i].role);
    ExpectSameLoad(a.steps[i].load, b.steps[i].load);
  }
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_EQ(a.checks[i].metric, b.checks[i].metric);
    EXPECT_EQ(a.checks[i].op, b.checks[i].op);
    EXPECT_TRUE(Same(a.checks[i].measured, b.checks[i].measured));
    EXPECT_EQ(a.checks[i].limit, b.checks[i].limit);
    EXPECT_EQ(a.checks[i].reference, b.checks[i].reference);
    EXPECT_EQ(a.checks[i].passed, b.checks[i].passed);
  }
  ASSERT_EQ(a.ratio_checks.size(), b.ratio_checks.size());
  for (size_t i = 0; i < a.ratio_checks.size(); ++i) {
    const RatioCheck& x = a.ratio_checks[i];
    const RatioCheck& y = b.ratio_checks[i];
    EXPECT_EQ(x.metric, y.metric);
    EXPECT_EQ(x.op, y.op);
    EXPECT_TRUE(Same(x.measured, y.measured));
    EXPECT_EQ(x.ratio_to, y.ratio_to);
    EXPECT_EQ(x.factor, y.factor);
    EXPECT_TRUE(Same(x.base, y.base));
    EXPECT_EQ(x.limit, y.limit);
    EXPECT_EQ(x.passed, y.passed);
  }
  EXPECT_EQ(a.search, b.search);
  EXPECT_EQ(a.confirmed, b.confirmed);
  EXPECT_EQ(a.search_resolution, b.search_resolution);
  EXPECT_EQ(a.search_load_s, b.search_load_s);
  ASSERT_EQ(a.search_rule.has_value(), b.search_rule.has_value());
  if (a.search_rule) {
    EXPECT_EQ(a.search_rule->slo_p99_us, b.search_rule->slo_p99_us);
    EXPECT_EQ(a.search_rule->max_error_rate, b.search_rule->max_error_rate);
    EXPECT_EQ(a.search_rule->min_achieved_fraction, b.search_rule->min_achieved_fraction);
    EXPECT_EQ(a.search_rule->require_kept_up, b.search_rule->require_kept_up);
  }
  EXPECT_EQ(a.search_stop, b.search_stop);
  ASSERT_EQ(a.repeats.size(), b.repeats.size());
  for (size_t i = 0; i < a.repeats.size(); ++i) ExpectSameLoad(a.repeats[i], b.repeats[i]);
  ASSERT_EQ(a.spread.size(), b.spread.size());
  for (const auto& [m, sp] : a.spread) {
    ASSERT_TRUE(b.spread.count(m)) << m;
    EXPECT_EQ(sp.min, b.spread.at(m).min);
    EXPECT_EQ(sp.median, b.spread.at(m).median);
    EXPECT_EQ(sp.max, b.spread.at(m).max);
  }
  EXPECT_EQ(a.notes, b.notes);
  EXPECT_EQ(a.policy, b.policy);
  EXPECT_EQ(a.started_unix, b.started_unix);
  EXPECT_EQ(a.finished_unix, b.finished_unix);
}

ScenarioResult RichScenario() {
  ScenarioResult r = SampleRun()[4];  // throughput.complex: steps, ceiling
  r.load.ratelimit_evidence = 12345;
  r.load.kept_up = false;
  r.load.dropped_iterations = 17;
  r.load.max_send_lag_us = 2500.5;
  r.load.late_send_share = 0.0004;
  r.load.late_pool_exhausted_share = 0.75;
  r.load.sut_cpu_share = 0.845;
  r.load.sut_cpus_shared = 2;
  r.checks.push_back({"rps", ">=", 1296.5, 500, 67600, true});
  r.checks.push_back({"error_rate", "<", 0.001, 0.01, std::nullopt, true});
  r.checks.push_back({"p99_us", "<=", std::numeric_limits<double>::quiet_NaN(), 20000, std::nullopt, false});
  r.notes.push_back("policy evidence: 12345 responses with RateLimit headers");
  RatioCheck ratio;
  ratio.metric = "rps";
  ratio.op = ">=";
  ratio.measured = 1296.5;
  ratio.ratio_to = "throughput.simple";
  ratio.factor = 0.5;
  ratio.base = 1200;
  ratio.limit = 600;
  ratio.passed = true;
  r.ratio_checks.push_back(ratio);
  r.steps[0].role = "bracket";
  r.steps[1].role = "bisect";
  r.steps[2].role = "confirm";
  r.search = "bisect";
  r.confirmed = true;
  r.search_resolution = 0.018;
  r.search_load_s = 96;
  r.search_stop = "budget: a bisect step at 1200 RPS (5 s) would exceed THROUGHPUT_BUDGET_S=60 s";
  r.search_rule = StepPassRule{250000, 0.02, 0.95, true};
  r.repeats = {r.steps[2].load, r.steps[3].load};
  r.spread["rps"] = {1290, 1296.5, 1301};
  r.spread["p99_us"] = {800, 900, 1100};
  return r;
}

TEST(ResultsIo, ScenarioRoundTrips) {
  ScenarioResult r = RichScenario();
  std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameScenario(r, *back);
  // And the text is stable through a second trip.
  EXPECT_EQ(ScenarioResultToJson(*back), text);
}

// Each check carries what it catches (threshold_headroom.h), derived from
// its other fields: written, not read back, so a document without it (older
// files) reads the same and is written again with it.
TEST(ResultsIo, ChecksCarryTheirHeadroomAndOlderFilesWithoutItRead) {
  ScenarioResult r = RichScenario();
  const std::string text = ScenarioResultToJson(r);
  json doc = json::parse(text);
  const json& checks = doc["scenario"]["checks"];
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0]["headroom"]["kind"], "fall");  // rps 1296.5 >= 500
  EXPECT_NEAR(checks[0]["headroom"]["size"].get<double>(), 1 - 500 / 1296.5, 1e-12);
  EXPECT_EQ(checks[0]["headroom"]["unit"], "relative");
  EXPECT_EQ(checks[1]["headroom"]["kind"], "rise");  // error_rate 0.1 % < 1 %: 0.9 points
  EXPECT_NEAR(checks[1]["headroom"]["size"].get<double>(), 0.009, 1e-12);
  EXPECT_EQ(checks[1]["headroom"]["unit"], "points");
  EXPECT_EQ(checks[2]["headroom"], json::parse(R"({"kind": "fails_now", "size": 0, "unit": "relative"})"));
  const json& ratio = doc["scenario"]["ratio_checks"][0]["headroom"];  // rps 1296.5 >= 600
  EXPECT_EQ(ratio["kind"], "fall");
  EXPECT_NEAR(ratio["size"].get<double>(), 1 - 600 / 1296.5, 1e-12);

  json old = doc;
  for (json& c : old["scenario"]["checks"]) c.erase("headroom");
  for (json& c : old["scenario"]["ratio_checks"]) c.erase("headroom");
  auto back = ScenarioResultFromJson(old.dump(), "old.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameScenario(r, *back);
  EXPECT_EQ(ScenarioResultToJson(*back), text);

  ScenarioResult undefined = r;  // a passing check of nothing measurable: size null
  undefined.checks = {{"p99_us", "<=", 0, 100, std::nullopt, true}};
  const json u = json::parse(ScenarioResultToJson(undefined))["scenario"]["checks"][0]["headroom"];
  EXPECT_EQ(u, json::parse(R"({"kind": "undefined", "size": null, "unit": "relative"})"));
  EXPECT_TRUE(ScenarioResultFromJson(ScenarioResultToJson(undefined), "u.json").ok());
}

// The time a scenario cost: its configured load, the rest
// of its wall time, and each phase's engine wall time, written when known.
TEST(ResultsIo, LoadAndFixedCostRoundTripAndAreAbsentWhenUnknown) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("fixed_cost_s"), std::string::npos);
  EXPECT_EQ(ScenarioResultToJson(r).find("wall_s"), std::string::npos);
  r.load_s = 130;
  r.fixed_cost_s = 0.75;
  r.load.wall_s = 20.12;
  auto back = ScenarioResultFromJson(ScenarioResultToJson(r), "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->load_s && back->fixed_cost_s);
  EXPECT_EQ(*back->load_s, 130);
  EXPECT_EQ(*back->fixed_cost_s, 0.75);
  EXPECT_EQ(back->load.wall_s, 20.12);
}

// Counts per interval of the phase and of each search step: written when
// the engine gave them, read back equal; a file without them (an older run,
// k6) reads as an empty series; a malformed one is named.
TEST(ResultsIo, IntervalSeriesRoundTripAndAreAbsentWhenUnknown) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("\"intervals\""), std::string::npos);
  IntervalSeries s;
  s.start_epoch_us = 1700000000000000;
  s.width_us = 1e6;
  s.scheduled = {200, 200, 200};
  s.sent = {200, 199, 201};
  s.completed = {200, 0, 400};
  s.late_10ms = {0, 60, 0};
  r.load.intervals = s;
  r.steps[1].load.intervals = s;
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  for (const IntervalSeries* b : {&back->load.intervals, &back->steps[1].load.intervals}) {
    EXPECT_EQ(b->start_epoch_us, s.start_epoch_us);
    EXPECT_EQ(b->width_us, s.width_us);
    EXPECT_EQ(b->scheduled, s.scheduled);
    EXPECT_EQ(b->sent, s.sent);
    EXPECT_EQ(b->completed, s.completed);
    EXPECT_EQ(b->late_10ms, s.late_10ms);
  }
  EXPECT_TRUE(back->steps[0].load.intervals.empty());
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  json bad = json::parse(text);
  ASSERT_TRUE(bad["scenario"]["load"]["intervals"].is_object());
  bad["scenario"]["load"]["intervals"]["completed"] = {200, 0};
  auto refused = ScenarioResultFromJson(bad.dump(), "x.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("intervals: series of different lengths"), std::string::npos)
      << refused.error().message;
}

// k6's series: per interval p50/p90/p99/p999/max from the interval's
// histogram, non_2xx and timeouts; sends_counted and these read back (the
// histograms are not written), and written again the same.
TEST(ResultsIo, IntervalLatenciesAreWrittenPerInterval) {
  ScenarioResult r = RichScenario();
  IntervalSeries s;
  s.start_epoch_us = 1700000000000000;
  s.width_us = 1e6;
  s.sends_counted = false;
  for (int i = 0; i < 2; ++i) {
    LatencyHistogram h;
    for (int v = 1; v <= 1000; ++v) h.RecordUs(v * (i + 1));
    if (i == 1) ASSERT_TRUE(h.RecordTimeouts(2, 60e6).ok());
    s.latency.push_back(IntervalLatencyOf(h));
    s.completed.push_back(h.recorded());
    s.non_2xx.push_back(3 + i);
  }
  s.scheduled = s.sent = s.late_10ms = {0, 0};
  r.load.intervals = s;
  const json doc = json::parse(ScenarioResultToJson(r));
  const json& iv = doc["scenario"]["load"]["intervals"];
  EXPECT_EQ(iv.at("sends_counted"), false);
  EXPECT_EQ(iv.at("non_2xx"), json({3, 4}));
  EXPECT_EQ(iv.at("timeouts"), json({0, 2}));
  ASSERT_EQ(iv.at("latency_us").size(), 2u);
  EXPECT_NEAR(iv["latency_us"][0].at("p50").get<double>(), 500, 500.0 / 2048);
  EXPECT_NEAR(iv["latency_us"][0].at("p99").get<double>(), 990, 990.0 / 2048);
  EXPECT_NEAR(iv["latency_us"][0].at("p999").get<double>(), 999, 999.0 / 2048);
  EXPECT_EQ(iv["latency_us"][0].at("max").get<double>(), 1000);
  EXPECT_EQ(iv["latency_us"][1].at("max").get<double>(), 60e6);  // censored at the timeout
  EXPECT_EQ(iv["latency_us"][1].at("censored_at_us").get<double>(), 60e6);
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_FALSE(back->load.intervals.sends_counted);
  EXPECT_EQ(back->load.intervals.completed, s.completed);
  const IntervalSeries& b = back->load.intervals;
  EXPECT_TRUE(b.latency.empty());
  EXPECT_TRUE(b.has_latency());
  EXPECT_EQ(b.non_2xx, s.non_2xx);
  EXPECT_EQ(b.timeouts_read, (std::vector<uint64_t>{0, 2}));
  EXPECT_EQ(IntervalTimeouts(b), IntervalTimeouts(s));
  const std::vector<LatencyUs> want = IntervalLatencySummaries(s), got = IntervalLatencySummaries(b);
  ASSERT_EQ(got.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(got[i].p50, want[i].p50) << i;
    EXPECT_EQ(got[i].p90, want[i].p90) << i;
    EXPECT_EQ(got[i].p99, want[i].p99) << i;
    EXPECT_EQ(got[i].p999, want[i].p999) << i;
    EXPECT_EQ(got[i].max, want[i].max) << i;
    EXPECT_EQ(got[i].censored_at_us, want[i].censored_at_us) << i;
  }
  EXPECT_EQ(ScenarioResultToJson(*back), ScenarioResultToJson(r));  // written again the same
  // wrk's series: none of these keys
  r.load.intervals.latency.clear();
  r.load.intervals.non_2xx.clear();
  r.load.intervals.sends_counted = true;
  const json wrk = json::parse(ScenarioResultToJson(r))["scenario"]["load"]["intervals"];
  for (const char* key : {"sends_counted", "latency_us", "timeouts", "non_2xx"}) {
    EXPECT_FALSE(wrk.contains(key)) << key;
  }
}

// A per-interval latency read back must be one a run can have written:
// all three arrays, one entry per interval, each latency finite, >= 0 and
// not decreasing, non_2xx at most completed. The error names the JSON path.
TEST(ResultsIo, IntervalLatenciesReadBackAreChecked) {
  ScenarioResult r = RichScenario();
  IntervalSeries& s = r.load.intervals;
  s.start_epoch_us = 1700000000000000;
  s.width_us = 1e6;
  s.sends_counted = false;
  for (int i = 0; i < 2; ++i) {
    LatencyHistogram h;
    for (int v = 1; v <= 100; ++v) h.RecordUs(v);
    s.latency.push_back(IntervalLatencyOf(h));
    s.completed.push_back(h.recorded());
    s.non_2xx.push_back(0);
  }
  s.scheduled = s.sent = s.late_10ms = {0, 0};
  const json good = json::parse(ScenarioResultToJson(r));
  ASSERT_TRUE(ScenarioResultFromJson(good.dump(), "x.json").ok());
  struct Bad {
    const char* what;
    void (*edit)(json& iv);
    const char* error;
  };
  const Bad bads[] = {
      {"short", [](json& iv) { iv["latency_us"].erase(1); },
       "x.json: scenario.load.intervals.latency_us: 1 intervals, the counts have 2"},
      {"no timeouts", [](json& iv) { iv.erase("timeouts"); }, "scenario.load.intervals.timeouts: missing"},
      {"null", [](json& iv) { iv["latency_us"][1]["p50"] = nullptr; }, "scenario.load.intervals.latency_us[1].p50"},
      {"negative", [](json& iv) { iv["latency_us"][0]["max"] = -1; },
       "scenario.load.intervals.latency_us[0].max: -1 is below 0"},
      {"decreasing", [](json& iv) { iv["latency_us"][0]["p99"] = 1; },
       "scenario.load.intervals.latency_us[0].p99: 1 µs is below p90's"},
      {"censored", [](json& iv) { iv["latency_us"][0]["censored_at_us"] = 1e300; },
       "scenario.load.intervals.latency_us[0].censored_at_us: 1e+300 is above"},
      {"not an object", [](json& iv) { iv["latency_us"][0] = 3; }, "scenario.load.intervals.latency_us[0]"},
      {"timeout count", [](json& iv) { iv["timeouts"][0] = -2; },
       "scenario.load.intervals.timeouts[0]: -2 is not a count"},
      {"non_2xx", [](json& iv) { iv["non_2xx"][1] = 101; },
       "scenario.load.intervals.non_2xx[1]: 101 is above completed's 100"},
  };
  for (const Bad& b : bads) {
    json d = good;
    b.edit(d["scenario"]["load"]["intervals"]);
    auto refused = ScenarioResultFromJson(d.dump(), "x.json");
    ASSERT_FALSE(refused.ok()) << b.what;
    EXPECT_NE(refused.error().message.find(b.error), std::string::npos) << b.what << ": " << refused.error().message;
  }
}

// Two services, a window whose samples failed (every SUT figure null) and
// one the load generator's read failed in.
SutTimeline SampleSutTimeline() {
  SutTimeline t;
  t.services = {"backend", "fv"};
  SutTimelinePoint a;
  a.start_epoch_us = 1700000000000000;
  a.end_epoch_us = 1700000000500000;
  a.cpu_cores = {0.25, 1.0};
  a.rss_mib = {12.5, 40.75};
  a.sut_busy = 0.625;
  a.loadgen_busy = 0.5;
  SutTimelinePoint b = a;
  b.start_epoch_us = a.end_epoch_us;
  b.end_epoch_us = 1700000001000000;
  b.cpu_cores = {std::nullopt, std::nullopt};
  b.rss_mib = {std::nullopt, 41.0};
  b.sut_busy.reset();
  b.loadgen_busy.reset();
  t.points = {a, b};
  return t;
}

void ExpectSameTimeline(const SutTimeline& a, const SutTimeline& b) {
  EXPECT_EQ(a.services, b.services);
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].start_epoch_us, b.points[i].start_epoch_us) << i;
    EXPECT_EQ(a.points[i].end_epoch_us, b.points[i].end_epoch_us) << i;
    EXPECT_EQ(a.points[i].cpu_cores, b.points[i].cpu_cores) << i;
    EXPECT_EQ(a.points[i].rss_mib, b.points[i].rss_mib) << i;
    EXPECT_EQ(a.points[i].sut_busy, b.points[i].sut_busy) << i;
    EXPECT_EQ(a.points[i].loadgen_busy, b.points[i].loadgen_busy) << i;
  }
}

TEST(ResultsIo, SutTimelineRoundTripsWithItsGapsAndIsAbsentWhenUnknown) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("\"sut_timeline\""), std::string::npos);
  r.sut_timeline = SampleSutTimeline();
  r.steps[1].sut_timeline = SampleSutTimeline();
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameTimeline(back->sut_timeline, r.sut_timeline);
  ExpectSameTimeline(back->steps[1].sut_timeline, r.steps[1].sut_timeline);
  EXPECT_TRUE(back->steps[0].sut_timeline.empty());
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  // A gap is null, never 0.
  const json doc = json::parse(text);
  const json& b = doc["scenario"]["sut_timeline"]["points"][1];
  EXPECT_TRUE(b["cpu_cores"][0].is_null());
  EXPECT_TRUE(b["sut_busy"].is_null());
  EXPECT_EQ(b["rss_mib"][1], 41.0);
  // A point with a value per service missing is named.
  json bad = doc;
  bad["scenario"]["sut_timeline"]["points"][0]["cpu_cores"] = {0.25};
  auto refused = ScenarioResultFromJson(bad.dump(), "x.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("sut_timeline.points[0].cpu_cores: 1 values, but 2 services"),
            std::string::npos)
      << refused.error().message;
  bad = doc;
  bad["scenario"]["sut_timeline"]["points"][0]["rss_mib"][0] = "12";
  refused = ScenarioResultFromJson(bad.dump(), "x.json");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("rss_mib[0]: expected a number or null"), std::string::npos)
      << refused.error().message;
}

TEST(ResultsIo, SutProcessExitsRoundTripAndBadOnesAreNamed) {
  ScenarioResult r = RichScenario();
  r.sut_timeline = SampleSutTimeline();
  EXPECT_EQ(ScenarioResultToJson(r).find("\"exits\""), std::string::npos);  // none: not written
  r.sut_timeline.exits = {{"fv", 4242, 1700000000250000, 1700000000750000}};
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->sut_timeline.exits.size(), 1u);
  const SutProcessExit& e = back->sut_timeline.exits[0];
  EXPECT_EQ(e.service, "fv");
  EXPECT_EQ(e.pid, 4242);
  EXPECT_EQ(e.last_seen_epoch_us, 1700000000250000);
  EXPECT_EQ(e.gone_epoch_us, 1700000000750000);
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  const json doc = json::parse(text);
  auto refused_with = [&](const char* key, const json& value) {
    json bad = doc;
    bad["scenario"]["sut_timeline"]["exits"][0][key] = value;
    auto refused = ScenarioResultFromJson(bad.dump(), "x.json");
    return refused.ok() ? std::string("accepted") : refused.error().message;
  };
  EXPECT_NE(refused_with("service", "baseline").find("sut_timeline.exits[0].service: baseline is not one of"),
            std::string::npos);
  EXPECT_NE(refused_with("pid", 0).find("exits[0].pid: 0 is not a process id"), std::string::npos);
  EXPECT_NE(refused_with("pid", 4294967296.0).find("exits[0].pid"), std::string::npos);
  EXPECT_NE(refused_with("gone_epoch_us", 1).find("exits[0]: gone_epoch_us 1 is before"), std::string::npos);
  EXPECT_NE(refused_with("last_seen_epoch_us", -1).find("exits[0].last_seen_epoch_us: -1 is below 0"),
            std::string::npos);
  EXPECT_NE(refused_with("gone_epoch_us", 1e300).find("exits[0].gone_epoch_us: 1e+300 is above"), std::string::npos);
}

TEST(ResultsIo, IntervalWidthAndStartReadBackAreTimes) {
  ScenarioResult r = RichScenario();
  r.load.intervals.start_epoch_us = 1772600000e6;
  r.load.intervals.width_us = 1e6;
  r.load.intervals.scheduled = r.load.intervals.sent = r.load.intervals.completed = {100, 100};
  r.load.intervals.late_10ms = {0, 0};
  const json doc = json::parse(ScenarioResultToJson(r));
  ASSERT_TRUE(ScenarioResultFromJson(doc.dump(), "x.json").ok());
  auto refused_with = [&](const char* key, double value) {
    json bad = doc;
    bad["scenario"]["load"]["intervals"][key] = value;
    auto refused = ScenarioResultFromJson(bad.dump(), "x.json");
    return refused.ok() ? std::string("accepted") : refused.error().message;
  };
  EXPECT_NE(refused_with("width_us", 1e-300).find("intervals: width_us 1e-300 is not between 1000 (1 ms)"),
            std::string::npos)
      << refused_with("width_us", 1e-300);
  EXPECT_NE(refused_with("width_us", 0).find("width_us 0 is not between"), std::string::npos);
  EXPECT_NE(refused_with("start_epoch_us", -5).find("intervals: start_epoch_us -5 is not a time"), std::string::npos);
  EXPECT_NE(refused_with("start_epoch_us", 1e300).find("start_epoch_us 1e+300 is not a time"), std::string::npos);
}

TEST(ResultsIo, FixedCostPartsRoundTripAndAreAbsentWhenUnknown) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("fixed_cost_parts_s"), std::string::npos);
  r.fixed_cost_s = 0.9;
  r.fixed_cost_parts_s = {{"sut_start", 0.5}, {"quiet_wait", 0.25}, {"other", 0.15}};
  auto back = ScenarioResultFromJson(ScenarioResultToJson(r), "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->fixed_cost_parts_s, r.fixed_cost_parts_s);
}

TEST(ResultsIo, FixedCostPartsThatAreNotAnObjectAreNamed) {
  ScenarioResult r = RichScenario();
  r.fixed_cost_parts_s = {{"sut_start", 0.5}};
  std::string text = ScenarioResultToJson(r);
  const std::string from = "\"fixed_cost_parts_s\": {";
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << text;
  size_t end = text.find('}', at);
  text.replace(at, end + 1 - at, "\"fixed_cost_parts_s\": [0.5]");
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("fixed_cost_parts_s: expected an object"), std::string::npos)
      << back.error().message;
}

// What the writer can never produce is refused, naming the part: null,
// a negative or non-numeric value, an unknown part.
TEST(ResultsIo, FixedCostPartsHoldOnlyKnownPartsOfSecondsAtLeastZero) {
  ScenarioResult r = RichScenario();
  r.fixed_cost_parts_s = {{"engine", 0.5}};
  const std::string good = ScenarioResultToJson(r);
  const std::string from = "\"engine\": 0.5";
  ASSERT_NE(good.find(from), std::string::npos) << good;
  for (const auto& [bad, says] : std::vector<std::pair<std::string, std::string>>{
           {"\"engine\": null", "fixed_cost_parts_s.engine: expected seconds (a finite number >= 0), got null"},
           {"\"engine\": -5", "fixed_cost_parts_s.engine: expected seconds (a finite number >= 0), got -5"},
           {"\"engine\": \"0.5\"", "fixed_cost_parts_s.engine: expected seconds"},
           {"\"bogus\": 1000", "fixed_cost_parts_s.bogus: not a part of the fixed cost (expected one of sut_start"}}) {
    std::string text = good;
    text.replace(text.find(from), from.size(), bad);
    auto back = ScenarioResultFromJson(text, "x.json");
    ASSERT_FALSE(back.ok()) << bad;
    EXPECT_NE(back.error().message.find(says), std::string::npos) << back.error().message;
  }
}

TEST(ResultsIo, EngineLimitedIsWrittenOnlyWhenTrueAndReadsBack) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("engine_limited"), std::string::npos);  // older documents unchanged
  r.engine_limited = true;
  r.confirmed = false;
  r.search_resolution.reset();
  std::string text = ScenarioResultToJson(r);
  EXPECT_NE(text.find("\"engine_limited\": true"), std::string::npos) << text;
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->engine_limited);
  EXPECT_TRUE(MeasuredIsLowerBound(*back));
}

TEST(ResultsIo, EveryScenarioOfARunRoundTrips) {
  for (const ScenarioResult& r : SampleRun()) {
    auto back = ScenarioResultFromJson(ScenarioResultToJson(r), r.id);
    ASSERT_TRUE(back.ok()) << back.error().message;
    ExpectSameScenario(r, *back);
  }
}

TEST(ResultsIo, ScenarioDocumentCarriesSchemaVersionAndNullForAbsent) {
  ScenarioResult r = RichScenario();
  r.load.ratelimit_evidence.reset();
  json doc = json::parse(ScenarioResultToJson(r));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_TRUE(doc["scenario"]["load"]["ratelimit_evidence"].is_null());
  EXPECT_TRUE(doc["scenario"]["checks"][1]["reference"].is_null());
  EXPECT_TRUE(doc["scenario"]["checks"][2]["measured"].is_null());  // NaN
  EXPECT_EQ(doc["scenario"]["checks"][0]["reference"], 67600);
}

TEST(ResultsIo, ScenarioReaderRejectsWrongSchemaAndNamesFields) {
  ScenarioResult r = RichScenario();
  json doc = json::parse(ScenarioResultToJson(r));

  json v2 = doc;
  v2["schema_version"] = 2;
  auto e1 = ScenarioResultFromJson(v2.dump(), "a.json");
  ASSERT_FALSE(e1.ok());
  EXPECT_NE(e1.error().message.find("a.json: schema_version: unsupported value 2"), std::string::npos)
      << e1.error().message;

  json nov = doc;
  nov.erase("schema_version");
  auto e2 = ScenarioResultFromJson(nov.dump(), "b.json");
  ASSERT_FALSE(e2.ok());
  EXPECT_NE(e2.error().message.find("schema_version: missing"), std::string::npos) << e2.error().message;

  json bad = doc;
  bad["scenario"]["steps"][2]["load"]["requests"] = "many";
  auto e3 = ScenarioResultFromJson(bad.dump(), "c.json");
  ASSERT_FALSE(e3.ok());
  EXPECT_NE(e3.error().message.find("c.json: scenario.steps[2].load.requests: expected a non-negative integer"),
            std::string::npos)
      << e3.error().message;

  json missing = doc;
  missing["scenario"]["load"]["latency_us"].erase("p999");
  auto e4 = ScenarioResultFromJson(missing.dump(), "d.json");
  ASSERT_FALSE(e4.ok());
  EXPECT_NE(e4.error().message.find("d.json: scenario.load.latency_us.p999: missing"), std::string::npos)
      << e4.error().message;

  auto e5 = ScenarioResultFromJson("[1,", "e.json");
  ASSERT_FALSE(e5.ok());
  EXPECT_NE(e5.error().message.find("e.json: not valid JSON"), std::string::npos);
}

TEST(ResultsIo, RunDocumentHasTheReferenceSchema) {
  auto run = SampleRun();
  json doc = json::parse(RunResultsToJson(run, SampleMeta()));
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["meta"]["engine"], "k6");
  EXPECT_EQ(doc["meta"]["started_utc"], "2026-03-04T04:53:20Z");
  EXPECT_EQ(doc["latency_us"]["raw_nginx"]["p50"], 71.4);
  EXPECT_EQ(doc["latency_us"]["raw_nginx"]["p99"], 446.2);
  EXPECT_EQ(doc["latency_us"]["decision_service"]["p99"], 2000);
  EXPECT_FALSE(doc["latency_us"].contains("reverse_proxy"));  // failed before measuring
  EXPECT_EQ(doc["throughput_rps"]["simple"], 1001.2);           // measured, not the 1000 target
  EXPECT_EQ(doc["throughput_rps"]["complex"], 1296.5);
  EXPECT_FALSE(doc["throughput_rps"].contains("llm"));          // not run
  EXPECT_EQ(doc["throughput_ceiling_reached"], json({{"complex", true}}));
  ASSERT_EQ(doc["scenarios"].size(), run.size());
  EXPECT_EQ(doc["scenarios"][2]["measured"], false);
  EXPECT_NE(doc["scenarios"][2]["error"].get<std::string>().find("lua_shared_dict"), std::string::npos);
}

TEST(ResultsIo, RunDocumentReadsBackAndServesAsReference) {
  auto run = SampleRun();
  RunMeta meta = SampleMeta();
  std::string text = RunResultsToJson(run, meta);

  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->scenarios.size(), run.size());
  for (size_t i = 0; i < run.size(); ++i) ExpectSameScenario(run[i], back->scenarios[i]);
  EXPECT_EQ(back->meta.edge_commit, meta.edge_commit);

  auto ref = ParseReference(text, "results.json");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  EXPECT_EQ(ref->value("latency.raw_nginx", "p99_us"), 446.2);
  EXPECT_EQ(ref->value("throughput.complex", "rps"), 1296.5);
  EXPECT_TRUE(ref->lower_bound("throughput.complex"));
  EXPECT_FALSE(ref->value("latency.reverse_proxy", "p50_us").has_value());
}

TEST(ResultsIo, SaveAndLoadThroughAFile) {
  std::string path = ::testing::TempDir() + "/fvbench_results_io_test.json";
  ScenarioResult r = RichScenario();
  auto saved = SaveScenarioResult(path, r);
  ASSERT_TRUE(saved.ok()) << saved.error().message;
  auto back = LoadScenarioResult(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameScenario(r, *back);
  std::remove(path.c_str());

  auto missing = LoadScenarioResult(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find(path), std::string::npos);

  auto unwritable = SaveScenarioResult("/nonexistent-dir/x.json", r);
  ASSERT_FALSE(unwritable.ok());
  EXPECT_NE(unwritable.error().message.find("/nonexistent-dir/x.json"), std::string::npos);
}

// A result read back must be one a run can have measured: a latency that is
// 0, subnormal, above 1e15 µs or out of order, or an error rate above 1, is
// refused naming the key (as in fixtures/odd_inputs/baseline-denormal-huge.json).
TEST(ResultsIo, ImplausibleNumbersReadBackAreRefusedNamingTheKey) {
  const json good = json::parse(ScenarioResultToJson(SampleRun()[0]));
  struct Bad {
    const char* key;
    json value;
    const char* fragment;
  };
  for (const Bad& b : {Bad{"p50", 0, "scenario.load.latency_us.p50: 0 is not > 0"},
                       Bad{"p90", 5e-324, "scenario.load.latency_us.p90: 4.94e-324 is subnormal"},
                       Bad{"p99", 1e308, "scenario.load.latency_us.p99: 1e+308 is above 1e+15"},
                       Bad{"p999", 1, "scenario.load.latency_us.p999: 1 µs is below p99's 446 µs"},
                       Bad{"max", -1, "scenario.load.latency_us.max: -1 is below 0"}}) {
    json d = good;
    d["scenario"]["load"]["latency_us"][b.key] = b.value;
    auto r = ScenarioResultFromJson(d.dump(), "x.json");
    ASSERT_FALSE(r.ok()) << b.key;
    EXPECT_NE(r.error().message.find(b.fragment), std::string::npos) << r.error().message;
  }
  json d = good;
  d["scenario"]["load"]["error_rate"] = 2;
  auto r = ScenarioResultFromJson(d.dump(), "x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("scenario.load.error_rate: 2 is above 1"), std::string::npos) << r.error().message;
  // Nothing completed: the zeros the parsers give read back.
  d = good;
  d["scenario"]["load"]["requests"] = 0;
  d["scenario"]["load"]["latency_us"] = {{"p50", 0}, {"p90", 0}, {"p99", 0}, {"p999", 0}, {"max", 0}};
  auto zero = ScenarioResultFromJson(d.dump(), "x.json");
  EXPECT_TRUE(zero.ok()) << zero.error().message;
}

// A BENCH_DIR whose name holds ESC
// (0x1B) and SOH (0x01), and a failing check whose message is ANSI-coloured.
// RapidJSON 1.1.0's SSE2 scan wrote the ESC raw, the scenario's file was not
// JSON, and the report called the measured scenario "not measured: result
// file unreadable". Every string field of a result that holds a control
// character must come back from its own file, and results.json must be JSON
// to jq too.
TEST(ResultsIo, MeasuredResultUnderABenchDirHoldingEscReadsBack) {
  const std::string bench_dir = ::testing::TempDir() + "b6\x1b[31m\x01";
  std::filesystem::create_directories(bench_dir + "/controller-results/raw");
  ScenarioResult r = RichScenario();
  r.id = "latency.raw_nginx";
  r.measured = true;
  r.load.raw_path = bench_dir + "/controller-results/raw/latency_raw_nginx.json";
  r.error = "\x1b[31mthreshold failed\x1b[0m: p99_us = 233 µs (limit <= 1 µs)\x1a\x1c\x1d\x1e\x1f";
  r.policy = bench_dir + "/policies/simple.json";
  r.notes.push_back("raw output: " + r.load.raw_path);
  r.steps[0].verdict = "fail: \x1b[1mp99\x1b[0m too high, see " + bench_dir;
  r.spread["p50_us\x1b"] = {1, 2, 3};
  const std::string path = bench_dir + "/controller-results/latency.raw_nginx.json";
  ASSERT_TRUE(SaveScenarioResult(path, r).ok());
  auto back = LoadScenarioResult(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->measured);
  ExpectSameScenario(r, *back);
  EXPECT_EQ(back->spread.count("p50_us\x1b"), 1u);

  RunMeta meta = SampleMeta();
  meta.thresholds_profile = bench_dir + "/thresholds.json";
  const std::string results = bench_dir + "/report/results.json";
  std::filesystem::create_directories(bench_dir + "/report");
  ASSERT_TRUE(SaveRunResults(results, {*back}, meta).ok());
  auto text = detail::ReadTextFile(results);
  ASSERT_TRUE(text.ok());
  auto run = RunResultsFromJson(*text, results);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->scenarios.size(), 1u);
  EXPECT_TRUE(run->scenarios[0].measured);
  EXPECT_EQ(run->meta.thresholds_profile, meta.thresholds_profile);
  ASSERT_TRUE(testing_tools::HaveTool("jq")) << "jq not found (Debian package jq; support/setup-debian.sh)";
  auto jq = testing_tools::RunTool("jq -r '.scenarios[0].measured, .scenarios[0].load.raw_path'", *text);
  EXPECT_EQ(jq.exit_code, 0) << jq.err;
  EXPECT_EQ(jq.out, "true\n" + r.load.raw_path + "\n") << jq.err;
  std::filesystem::remove_all(bench_dir);
}

TEST(RunMetaJson, RoundTripsEveryField) {
  RunMeta m = SampleMeta();
  m.cpusets_auto = false;
  m.lua_module_version.clear();
  auto back = RunMetaFromJson(RunMetaToJson(m), "meta.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(RunMetaToJson(*back), RunMetaToJson(m));
  EXPECT_EQ(back->fvbench_version, m.fvbench_version);
  EXPECT_EQ(back->engine_version, m.engine_version);
  EXPECT_EQ(back->sut_runtime_version, m.sut_runtime_version);
  EXPECT_EQ(back->lua_module_version, "");
  EXPECT_EQ(back->sut_cores, 8);
  EXPECT_EQ(back->loadgen_cpuset, "4-7");
  EXPECT_FALSE(back->cpusets_auto);
  EXPECT_EQ(back->search_max, 1000);
  EXPECT_EQ(back->finished_unix, m.finished_unix);
}

TEST(RunMetaJson, HostOsAndPinnedK6RoundTripAndAreAbsentWhenUnknown) {
  RunMeta m = SampleMeta();
  m.k6_pinned = "v0.54.0";
  m.sut_os = "ubuntu 24.04 (noble)";
  m.loadgen_os = "amzn 2023";
  auto back = RunMetaFromJson(RunMetaToJson(m), "meta.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->k6_pinned, "v0.54.0");
  EXPECT_EQ(back->sut_os, "ubuntu 24.04 (noble)");
  EXPECT_EQ(back->loadgen_os, "amzn 2023");
  m.k6_pinned = m.sut_os = m.loadgen_os = "";
  EXPECT_EQ(RunMetaToJson(m).find("_os"), std::string::npos) << RunMetaToJson(m);
  EXPECT_EQ(RunMetaToJson(m).find("k6_pinned"), std::string::npos);
}

TEST(RunMetaJson, WrongTypeNamesTheField) {
  json doc = json::parse(RunMetaToJson(SampleMeta()));
  doc["meta"]["sut_cores"] = "eight";
  auto back = RunMetaFromJson(doc.dump(), "meta.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("meta.json: meta.sut_cores"), std::string::npos) << back.error().message;
}

TEST(RunMetaJson, EnvironmentsRoundTripInKeyOrderWithUnknownKeysKept) {
  RunMeta m = SampleMeta();
  HostEnvironment sut{"sut", "local", {}};
  sut.Set("somaxconn", "4096");
  sut.Set("kernel_release", "6.1.0-18-amd64");
  sut.Set("cpu_governor", "");  // not exposed: not written
  sut.Set("zz_from_a_newer_reader", "x");
  m.environments = {sut, HostEnvironment{"loadgen", "lg1", {{"nofile", "1048576"}}}};
  const std::string text = RunMetaToJson(m);
  EXPECT_EQ(text.find("cpu_governor"), std::string::npos) << text;
  EXPECT_LT(text.find("kernel_release"), text.find("somaxconn")) << text;
  auto back = RunMetaFromJson(text, "meta.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->environments.size(), 2u);
  EXPECT_EQ(back->environments[0].values.front().key, "kernel_release");
  EXPECT_EQ(back->environments[0].Get("zz_from_a_newer_reader"), "x");
  EXPECT_EQ(back->environments[0].Get("cpu_governor"), "");
  EXPECT_EQ(back->environments[1].host, "lg1");
  EXPECT_EQ(back->environments[1].Get("nofile"), "1048576");
  EXPECT_EQ(RunMetaToJson(*back), text);
  m.environments.clear();
  EXPECT_EQ(RunMetaToJson(m).find("environment"), std::string::npos);
}

TEST(RunMetaJson, EnvironmentOfTheWrongTypeNamesTheField) {
  json doc = json::parse(RunMetaToJson(SampleMeta()));
  doc["meta"]["environment"] = json::array({{{"role", "sut"}, {"host", "h"}, {"values", {{"somaxconn", 4096}}}}});
  auto back = RunMetaFromJson(doc.dump(), "meta.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("meta.json: meta.environment[0].values.somaxconn"), std::string::npos)
      << back.error().message;
}

TEST(RunMetaJson, PreflightFindingsRoundTripAndAreAbsentWhenNone) {
  RunMeta m = SampleMeta();
  EXPECT_EQ(RunMetaToJson(m).find("preflight"), std::string::npos);
  m.preflight = {"warning: sut local: thp_enabled is \"always\"", "refused: loadgen lg1: nofile 64"};
  const std::string text = RunMetaToJson(m);
  auto back = RunMetaFromJson(text, "meta.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->preflight, m.preflight);
  json doc = json::parse(text);
  doc["meta"]["preflight"] = json::array({"ok", 3});
  auto bad = RunMetaFromJson(doc.dump(), "meta.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("meta.preflight[1]: expected a string"), std::string::npos)
      << bad.error().message;
}

TEST(RunMetaJson, FormatUtc) {
  EXPECT_EQ(FormatUtc(0), "");
  EXPECT_EQ(FormatUtc(1772600000.7), "2026-03-04T04:53:20Z");
}

}  // namespace
}  // namespace fvbench::results_io_test

namespace fvbench::results_io_test {
namespace {

TEST(ResultsIo, DocumentsWithoutSearchAndRepeatFieldsStillRead) {
  // A schema_version 1 document written before the search / repeats / ratio
  // fields existed.
  ScenarioResult r = SampleRun()[3];
  r.checks.push_back({"rps", ">", 1001.2, 0, 110500, true});
  json doc = json::parse(ScenarioResultToJson(r));
  json& sc = doc["scenario"];
  for (const char* k : {"search", "confirmed", "search_resolution", "search_load_s", "search_stop", "repeats", "spread",
                        "ratio_checks"}) {
    ASSERT_TRUE(sc.contains(k)) << k;
    sc.erase(k);
  }
  for (json& st : sc["steps"]) st.erase("role");
  auto back = ScenarioResultFromJson(doc.dump(), "old.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ExpectSameScenario(r, *back);
  EXPECT_FALSE(back->search_resolution.has_value());

  sc["spread"] = {{"p99_us", {{"min", 1}, {"median", "x"}, {"max", 3}}}};
  auto bad = ScenarioResultFromJson(doc.dump(), "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("scenario.spread.p99_us.median"), std::string::npos) << bad.error().message;
}

// The pass rule the search used is written only when the result carries it
// (older files have none and still rewrite byte for byte), and a rule no
// search can have used is refused naming the key.
TEST(ResultsIo, SearchRuleIsOptionalAndChecked) {
  ScenarioResult r = RichScenario();
  json doc = json::parse(ScenarioResultToJson(r));
  EXPECT_EQ(doc["scenario"]["search_rule"]["slo_p99_us"], 250000);
  EXPECT_EQ(doc["scenario"]["search_rule"]["require_kept_up"], true);
  r.search_rule.reset();
  EXPECT_FALSE(json::parse(ScenarioResultToJson(r))["scenario"].contains("search_rule"));
  doc["scenario"]["search_rule"]["max_error_rate"] = 3;
  auto bad = ScenarioResultFromJson(doc.dump(), "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("scenario.search_rule"), std::string::npos) << bad.error().message;
  doc["scenario"]["search_rule"].erase("max_error_rate");
  bad = ScenarioResultFromJson(doc.dump(), "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("scenario.search_rule.max_error_rate"), std::string::npos)
      << bad.error().message;
}

TEST(ResultsIo, RunDocumentCarriesSameRunRatios) {
  auto run = SampleRun();  // raw_nginx p99 446.2, decision_service p99 2000; reverse_proxy failed
  json doc = json::parse(RunResultsToJson(run, SampleMeta()));
  ASSERT_TRUE(doc["same_run_ratios"].is_array());
  bool found = false;
  for (const json& x : doc["same_run_ratios"]) {
    EXPECT_NE(x["scenario"], "latency.reverse_proxy");  // not measured: no ratio
    if (x["scenario"] == "latency.decision_service" && x["metric"] == "p99_us") {
      found = true;
      EXPECT_EQ(x["base"], "latency.raw_nginx");
      EXPECT_NEAR(x["ratio"].get<double>(), 2000 / 446.2, 1e-9);
    }
  }
  EXPECT_TRUE(found);
}

// A results.json written by a real full local run (the report benchmark's
// input) reads back and is written again byte for byte: every field is read,
// and key order, number and string formatting are stable.
TEST(ResultsIo, RecordedRunRewritesByteForByte) {
  std::string path = testing_golden::FixturesDir() + "/report/recorded_local_run.json";
  auto text = detail::ReadTextFile(path);
  ASSERT_TRUE(text.ok()) << text.error().message;
  auto run = RunResultsFromJson(*text, path);
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_EQ(run->scenarios.size(), 6u);
  std::string again = RunResultsToJson(run->scenarios, run->meta);
  ASSERT_EQ(again.size(), text->size());
  EXPECT_TRUE(again == *text) << "first difference at byte "
                              << std::mismatch(again.begin(), again.end(), text->begin()).first - again.begin();
}

LimitRun SampleLimitRun(int workers) {
  LimitRun run;
  run.workers = workers;
  run.phase = fmt::format("limits_accuracy_w{}", workers);
  run.load = RichScenario().load;
  run.load.status_counts = {{200, 5000}, {429, 14800}, {502, 2}};
  LimitAccuracy& a = run.accuracy;
  a.limit = TokenBucketLimit{10, 20};
  a.keys_planned = 50;
  a.keys_seen = 49;
  a.window_s = 9.9;
  a.offered_rps = 2000;
  a.allowed_per_key = 119;
  a.floor_per_key = 79;
  a.admitted_min = 80;
  a.admitted_median = 100.5;
  a.admitted_max = 130;
  a.over_admission = 11.0 / 119;
  a.over_admission_key = "k7";
  a.keys_over = 1;
  a.worst_window_admitted = 31;
  a.window_allowed = 30;
  a.worst_window_key = "k7";
  a.admitted = 5000;
  a.rejected = 14800;
  a.other = 2;
  a.reject_share = 14800.0 / 19802;
  a.expected_reject_share = 0.7;
  a.admitted_per_key = {80, 95, 100, 101, 130};
  a.admitted_per_second = {520, 498, 0, 503};
  return run;
}

// The plots' series travel through results.json, so a report re-rendered
// from it draws the same plots; a results.json written before them reads as
// empty series; a bad entry is named.
TEST(ResultsIo, LimitPlotSeriesRoundTripThroughResultsJson) {
  ScenarioResult r = RichScenario();
  r.id = "limits.accuracy";
  r.limits = {SampleLimitRun(2), SampleLimitRun(1)};
  r.limits[1].accuracy.admitted_per_second.clear();
  const std::string text = RunResultsToJson({r}, SampleMeta());
  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->scenarios.size(), 1u);
  ASSERT_EQ(back->scenarios[0].limits.size(), 2u);
  EXPECT_EQ(back->scenarios[0].limits[0].accuracy.admitted_per_key, (std::vector<uint64_t>{80, 95, 100, 101, 130}));
  EXPECT_EQ(back->scenarios[0].limits[0].accuracy.admitted_per_second, (std::vector<uint64_t>{520, 498, 0, 503}));
  EXPECT_TRUE(back->scenarios[0].limits[1].accuracy.admitted_per_second.empty());
  EXPECT_EQ(RunResultsToJson(back->scenarios, back->meta), text);

  nlohmann::json doc = nlohmann::json::parse(ScenarioResultToJson(r));
  nlohmann::json older = doc;
  older["scenario"]["limits"][0]["accuracy"].erase("admitted_per_key");
  older["scenario"]["limits"][0]["accuracy"]["admitted_per_second"] = nullptr;
  auto old_back = ScenarioResultFromJson(older.dump(), "x.json");
  ASSERT_TRUE(old_back.ok()) << old_back.error().message;
  EXPECT_TRUE(old_back->limits[0].accuracy.admitted_per_key.empty());
  EXPECT_TRUE(old_back->limits[0].accuracy.admitted_per_second.empty());

  nlohmann::json bad = doc;
  bad["scenario"]["limits"][1]["accuracy"]["admitted_per_key"][2] = -3;
  auto bad_back = ScenarioResultFromJson(bad.dump(), "x.json");
  ASSERT_FALSE(bad_back.ok());
  EXPECT_NE(bad_back.error().message.find("scenario.limits[1].accuracy.admitted_per_key[2]: expected a non-negative"),
            std::string::npos)
      << bad_back.error().message;
  nlohmann::json huge = doc;
  huge["scenario"]["limits"][0]["accuracy"]["admitted_per_second"] = std::vector<uint64_t>(100001, 1);
  auto huge_back = ScenarioResultFromJson(huge.dump(), "x.json");
  ASSERT_FALSE(huge_back.ok());
  EXPECT_NE(huge_back.error().message.find("admitted_per_second: 100001 entries, more than 100000"), std::string::npos)
      << huge_back.error().message;
}


// A limits scenario's runs travel whole through its result file, and are
// absent from the others' (older readers see nothing new).
TEST(ResultsIo, LimitRunsRoundTripAndAreAbsentElsewhere) {
  ScenarioResult r = RichScenario();
  EXPECT_EQ(ScenarioResultToJson(r).find("\"limits\""), std::string::npos);
  r.id = "limits.accuracy";
  r.limits = {SampleLimitRun(2), SampleLimitRun(1)};
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->limits.size(), 2u);
  const LimitAccuracy& a = back->limits[0].accuracy;
  EXPECT_EQ(back->limits[0].workers, 2);
  EXPECT_EQ(back->limits[1].phase, "limits_accuracy_w1");
  EXPECT_EQ(a.keys_seen, 49);
  EXPECT_EQ(a.over_admission_key, "k7");
  EXPECT_EQ(a.worst_window_admitted, 31u);
  EXPECT_DOUBLE_EQ(a.limit.burst, 20);
  EXPECT_DOUBLE_EQ(a.admitted_median, 100.5);
  ExpectSameLoad(r.limits[0].load, back->limits[0].load);
  EXPECT_EQ(back->limits[0].load.status_counts, r.limits[0].load.status_counts);
  EXPECT_TRUE(back->load.status_counts.empty());
  EXPECT_EQ(ScenarioResultToJson(*back), text);
}

// limits.reject_cost's two phases and ratios travel whole through its
// result file (a figure not known as null), and are absent from the others'.
TEST(ResultsIo, RejectCostRoundTripsAndIsAbsentElsewhere) {
  EXPECT_EQ(ScenarioResultToJson(RichScenario()).find("\"reject_cost\""), std::string::npos);
  ScenarioResult r = testing_samples::SampleRejectCost();
  r.reject_cost->rejected.fv_cpu_cores = std::numeric_limits<double>::quiet_NaN();
  r.reject_cost->cpu_ratio = std::numeric_limits<double>::quiet_NaN();
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->reject_cost.has_value());
  const RejectCostRun& b = *back->reject_cost;
  EXPECT_DOUBLE_EQ(b.limit.burst, 20);
  EXPECT_DOUBLE_EQ(b.rate_rps, 10000);
  EXPECT_DOUBLE_EQ(b.p99_ratio, 1.25);
  EXPECT_TRUE(std::isnan(b.cpu_ratio));
  EXPECT_EQ(b.admitted.keys, 2000);
  EXPECT_EQ(b.rejected.name, "rejected");
  EXPECT_EQ(b.rejected.rejected, 569900u);
  EXPECT_EQ(b.rejected.other, 20u);
  EXPECT_TRUE(b.rejected.by_status);
  EXPECT_TRUE(std::isnan(b.rejected.fv_cpu_cores));
  EXPECT_DOUBLE_EQ(b.admitted.cpu_us_per_request, 150);
  EXPECT_EQ(b.rejected.load.status_counts, r.reject_cost->rejected.load.status_counts);
  ExpectSameLoad(r.reject_cost->rejected.load, b.rejected.load);
  EXPECT_EQ(ScenarioResultToJson(*back), text);
}

TEST(ResultsIo, ARejectCostWithAMissingFigureIsNamed) {
  nlohmann::json doc = nlohmann::json::parse(ScenarioResultToJson(testing_samples::SampleRejectCost()));
  doc["scenario"]["reject_cost"]["rejected"].erase("keys");
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("scenario.reject_cost.rejected.keys: missing"), std::string::npos)
      << back.error().message;
}

// limits.keys' points travel with their runs; a sweep whose point count
// differs from its runs' is refused, naming both.
TEST(ResultsIo, KeySweepRoundTripsAndMustMatchItsRuns) {
  ScenarioResult r = RichScenario();
  r.id = "limits.keys";
  r.limits = {SampleLimitRun(2), SampleLimitRun(2)};
  r.key_sweep = {{10, 10, 21.5, 22.25}, {10000, 50, std::nullopt, std::nullopt}};
  const std::string text = ScenarioResultToJson(r);
  auto back = ScenarioResultFromJson(text, "x.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->key_sweep.size(), 2u);
  EXPECT_EQ(back->key_sweep[1].keys, 10000);
  EXPECT_DOUBLE_EQ(back->key_sweep[1].duration_s, 50);
  EXPECT_FALSE(back->key_sweep[1].fv_rss_mib);
  ASSERT_TRUE(back->key_sweep[0].fv_rss_peak_mib);
  EXPECT_DOUBLE_EQ(*back->key_sweep[0].fv_rss_peak_mib, 22.25);
  EXPECT_EQ(ScenarioResultToJson(*back), text);
  nlohmann::json doc = nlohmann::json::parse(text);
  doc["scenario"]["key_sweep"].erase(1);
  auto bad = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("scenario.key_sweep: 1 points, but 2 limits runs"), std::string::npos)
      << bad.error().message;
  r.key_sweep.clear();
  EXPECT_EQ(ScenarioResultToJson(r).find("\"key_sweep\""), std::string::npos);
}

TEST(ResultsIo, StatusCountsKeysAreHttpStatuses) {
  ScenarioResult r = RichScenario();
  r.load.status_counts = {{200, 10}};
  nlohmann::json doc = nlohmann::json::parse(ScenarioResultToJson(r));
  for (const char* bad : {"2000", "abc", "099", "-42"}) {
    nlohmann::json d = doc;
    d["scenario"]["load"]["status_counts"][bad] = 1;
    auto back = ScenarioResultFromJson(d.dump(), "x.json");
    ASSERT_FALSE(back.ok()) << bad;
    EXPECT_NE(back.error().message.find(fmt::format("scenario.load.status_counts: key \"{}\" is not an HTTP status", bad)),
              std::string::npos)
        << back.error().message;
  }
  doc["scenario"]["load"]["status_counts"]["429"] = "many";
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("scenario.load.status_counts.429"), std::string::npos) << back.error().message;
}

TEST(ResultsIo, ALimitRunWithAMissingFigureIsNamed) {
  ScenarioResult r = RichScenario();
  r.limits = {SampleLimitRun(2)};
  nlohmann::json doc = nlohmann::json::parse(ScenarioResultToJson(r));
  doc["scenario"]["limits"][0]["accuracy"].erase("keys_seen");
  auto back = ScenarioResultFromJson(doc.dump(), "x.json");
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("scenario.limits[0].accuracy.keys_seen: missing"), std::string::npos)
      << back.error().message;
}

// A saved result's id names files (plots, flame graphs): an id that could
// climb out of the report directory, or carry markup, is refused by name.
TEST(ResultsIo, AnIdThatIsNotAScenarioIdIsRefused) {
  ScenarioResult r = RichScenario();
  for (const char* bad : {"x/../../../pwn", "../x", ".hidden", "-rf", "a b", "latency.<script>", ""}) {
    r.id = bad;
    auto back = ScenarioResultFromJson(ScenarioResultToJson(r), "saved.json");
    ASSERT_FALSE(back.ok()) << bad;
    EXPECT_NE(back.error().message.find("saved.json"), std::string::npos) << back.error().message;
    EXPECT_NE(back.error().message.find("is not a scenario id"), std::string::npos) << back.error().message;
  }
  for (const char* good : {"latency.raw_nginx", "throughput.llm", "limits.reject_cost", "x-1"}) {
    r.id = good;
    EXPECT_TRUE(ScenarioResultFromJson(ScenarioResultToJson(r), "saved.json").ok()) << good;
  }
}

}  // namespace
}  // namespace fvbench::results_io_test
