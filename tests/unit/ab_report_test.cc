// A/B in the reports (support/report/ab_report.h): the console section and the JSON
// round trip through a scenario result and results.json.
#include "support/report/ab_report.h"

#include <gtest/gtest.h>

#include <cctype>

#include <nlohmann/json.hpp>

#include "support/judge/noise_study.h"
#include "support/report/results_io.h"
#include "support/report/summary_table.h"

namespace fvbench::ab_report_test {
namespace {

LoadResult Run(double p50, double p99, double achieved, double errors) {
  LoadResult r;
  r.engine = "wrk";
  r.target_rps = 500;
  r.duration_s = 4;
  r.requests = 2000;
  r.achieved_rps = achieved;
  r.error_rate = errors;
  r.latency_us = {p50, p50 * 1.5, p99, p99 * 1.5, p99 * 2};
  r.raw_path = "/tmp/raw.json";
  return r;
}

ScenarioResult AbScenario() {
  ScenarioResult s;
  s.id = "latency.decision_service";
  s.measured = true;
  s.policy = "/b/policies/simple.json";
  AbResult ab;
  ab.method = "latency: 500 RPS for 4 s per run, 3 pairs";
  ab.rate_rps = 500;
  ab.duration_s = 4;
  ab.a = AbSide{"/edge", "", "abc123", "/b/policies/simple.json", "", {}, {}, {}};
  ab.b = AbSide{"/edge", "", "abc123", "/b/policies-b/simple.json", "", {}, {}, {}};
  const double a_p50[] = {400, 410, 405}, b_p50[] = {520, 530, 515};
  for (int i = 0; i < 3; ++i) {
    ab.a.runs.push_back(Run(a_p50[i], 900 + i, 500, 0));
    ab.b.runs.push_back(Run(b_p50[i], 905 - i, 500, 0));
    ab.a.fv_cpu_cores.push_back(0.30 + 0.01 * i);
    ab.b.fv_cpu_cores.push_back(i == 1 ? std::nan("") : 0.45);
  }
  ab.metrics = CompareAbRuns(ab.a, ab.b);
  s.ab = ab;
  s.load = ab.a.runs[0];
  return s;
}

RunMeta AbMeta() {
  RunMeta m;
  m.edge_source = "/edge";
  m.edge_commit = "abc123";
  m.policy_dir = "/src/fixtures/policies";
  m.ab = true;
  m.edge_source_b = "/edge";
  m.edge_commit_b = "abc123";
  m.policy_dir_b = "/tmp/heavier";
  m.ab_pairs = 3;
  m.ab_rate_fraction = 0.8;
  return m;
}

TEST(AbReport, SectionShowsEveryMetricAndTheVerdicts) {
  std::string s = RenderAbSection({AbScenario()}, AbMeta());
  EXPECT_NE(s.find("A/B comparison"), std::string::npos);
  EXPECT_NE(s.find("A: edge /edge at abc123, policies /src/fixtures/policies"), std::string::npos) << s;
  EXPECT_NE(s.find("B: edge /edge at abc123, policies /tmp/heavier"), std::string::npos) << s;
  EXPECT_NE(s.find("latency.decision_service: latency: 500 RPS for 4 s per run, 3 pairs"), std::string::npos) << s;
  for (const char* label : {"p50", "p90", "p99", "p99.9", "errors", "achieved", "edge CPU", "edge CPU/req"}) {
    EXPECT_NE(s.find("\n  " + std::string(label) + " "), std::string::npos) << label << "\n" << s;
  }
  EXPECT_NE(s.find("B slower by "), std::string::npos) << s;            // p50 +28 %
  EXPECT_NE(s.find("n/a (no errors on either side)"), std::string::npos) << s;
  EXPECT_NE(s.find("B=not measured: a ratio needs values > 0"), std::string::npos) << s;  // B CPU not sampled in run 2
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
  EXPECT_NE(s.find("A/B: "), std::string::npos);
  EXPECT_NE(s.find("significant difference"), std::string::npos);
  EXPECT_NE(s.find("latency.decision_service p50: B slower by"), std::string::npos) << s;
}

// Seen in a real run: a 50x slower B made the CI cell wider than its column
// and glued it to the noise cell ("+4071.1..+6222.6 %22.2 %").
TEST(AbReport, WideCellsStaySeparated) {
  ScenarioResult sc = AbScenario();
  for (int i = 0; i < 3; ++i) sc.ab->b.runs[i] = ab_report_test::Run(400 * (40 + 12 * i), 900, 500, 0);
  sc.ab->metrics = CompareAbRuns(sc.ab->a, sc.ab->b);
  std::string s = RenderAbSection({sc}, AbMeta());
  size_t at = s.find("\n  p50 ");
  ASSERT_NE(at, std::string::npos) << s;
  std::string row = s.substr(at + 1, s.find('\n', at + 1) - at - 1);
  for (size_t i = 0; i + 1 < row.size(); ++i) {
    EXPECT_FALSE(row[i] == '%' && std::isdigit(static_cast<unsigned char>(row[i + 1]))) << "glued cells: " << row;
  }
  EXPECT_NE(row.find("B slower by"), std::string::npos) << row;
}

TEST(AbReport, MarkdownTable) {
  std::string md = RenderAbMarkdown({AbScenario()}, AbMeta());
  EXPECT_EQ(md.rfind("## A/B comparison\n", 0), 0u) << md;
  EXPECT_NE(md.find("### latency.decision_service"), std::string::npos);
  EXPECT_NE(md.find("| metric | A median | B median | delta | 99 % CI | noise | detectable | verdict |"),
            std::string::npos);
  EXPECT_NE(md.find("| p50 | "), std::string::npos) << md;
  EXPECT_NE(md.find("**B slower by "), std::string::npos) << md;
  EXPECT_NE(md.find("- **B**: edge `/edge` at `abc123`, policies `/tmp/heavier`"), std::string::npos) << md;
  EXPECT_EQ(md.find("nan"), std::string::npos);
  ScenarioResult plain;
  plain.id = "latency.raw_nginx";
  EXPECT_EQ(RenderAbMarkdown({plain}, RunMeta{}), "");
}

// The detectable change: a column, and one sentence per scenario listing the
// metrics that have one, with the numbers of the column.
TEST(AbReport, DetectableChangeIsSaid) {
  const ScenarioResult sc = AbScenario();
  const AbComparison& p50 = sc.ab->metrics[0];
  ASSERT_TRUE(p50.detectable.has_value());
  const std::string sentence = "With 3 pairs this comparison could detect changes of p50 " + AbDetectableText(p50) +
                               " or more, ";
  for (const std::string& s : {RenderAbMarkdown({sc}, AbMeta()), RenderAbSection({sc}, AbMeta())}) {
    EXPECT_NE(s.find(sentence), std::string::npos) << s;
    EXPECT_NE(s.find(" (90 % power, 99 % CI)."), std::string::npos) << s;
    EXPECT_EQ(s.find("errors \u2014"), std::string::npos) << s;  // only metrics that have one
    EXPECT_NE(s.find("detectable"), std::string::npos) << s;
  }
  std::string con = RenderAbSection({sc}, AbMeta());
  EXPECT_NE(con.find(AbDetectableText(p50) + " "), std::string::npos) << con;
  EXPECT_EQ(con.find("A/A noise study"), std::string::npos) << con;  // policies differ
}

ScenarioResult AaScenario() {
  ScenarioResult sc = AbScenario();
  sc.ab->a.policy_source = sc.ab->b.policy_source = "/src/fixtures/policies/simple.json";
  sc.ab->b.runs = sc.ab->a.runs;
  sc.ab->b.runs[1].latency_us.p50 = 430;
  sc.ab->b.fv_cpu_cores = sc.ab->a.fv_cpu_cores;
  sc.ab->metrics = CompareAbRuns(sc.ab->a, sc.ab->b);
  sc.ab->aa = NoiseStudy(sc.ab->a, sc.ab->b);
  return sc;
}

TEST(AbReport, AaRunIsANoiseStudy) {
  const ScenarioResult sc = AaScenario();
  ASSERT_FALSE(sc.ab->aa.empty());
  std::string md = RenderAbMarkdown({sc}, AbMeta());
  EXPECT_NE(md.find("### latency.decision_service: A/A noise study\n"), std::string::npos) << md;
  EXPECT_NE(md.find("Noise over all 6 runs of both sides in the order they ran"), std::string::npos) << md;
  EXPECT_NE(md.find("| metric | runs | CV | spread | drift |"), std::string::npos) << md;
  // p50 in time order 400 400 410 430 405 405: by hand.
  const AaMetricNoise& p50 = sc.ab->aa[0];
  EXPECT_NEAR(*p50.drift, ((430.0 + 405 + 405) / 3 - (400.0 + 400 + 410) / 3) / ((400.0 + 400 + 410) / 3), 1e-12);
  EXPECT_NE(md.find("| p50 | 6 | "), std::string::npos) << md;
  // The section ends its last table: what follows is not read as a row.
  EXPECT_TRUE(md.ends_with("|\n\n")) << md;
  EXPECT_TRUE(RenderAbMarkdown({AbScenario()}, AbMeta()).ends_with("(90 % power, 99 % CI).\n\n"));
  std::string con = RenderAbSection({sc}, AbMeta());
  EXPECT_NE(con.find("latency.decision_service (A/A noise study): "), std::string::npos) << con;
  EXPECT_NE(con.find("\n  edge CPU/req "), std::string::npos) << con;
  EXPECT_EQ(con.find("nan"), std::string::npos) << con;
}

TEST(AbReport, DetectableAndAaRoundTrip) {
  const ScenarioResult sc = AaScenario();
  const std::string text = ScenarioResultToJson(sc);
  auto j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["scenario"]["ab"]["metrics"][0]["detectable"].is_number());
  EXPECT_TRUE(j["scenario"]["ab"]["aa"]["p99_us"]["cv"].is_number()) << j["scenario"]["ab"]["aa"].dump();
  EXPECT_EQ(j["scenario"]["ab"]["a"]["policy_source"], "/src/fixtures/policies/simple.json");
  auto back = ScenarioResultFromJson(text, "aa.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->ab->metrics.size(), sc.ab->metrics.size());
  for (size_t i = 0; i < sc.ab->metrics.size(); ++i) {
    ASSERT_EQ(back->ab->metrics[i].detectable.has_value(), sc.ab->metrics[i].detectable.has_value()) << i;
    if (sc.ab->metrics[i].detectable) {
      EXPECT_DOUBLE_EQ(*back->ab->metrics[i].detectable, *sc.ab->metrics[i].detectable);
    }
  }
  ASSERT_EQ(back->ab->aa.size(), sc.ab->aa.size());
  for (size_t i = 0; i < sc.ab->aa.size(); ++i) {
    EXPECT_EQ(back->ab->aa[i].metric, sc.ab->aa[i].metric) << i;  // in AbMetrics() order
    EXPECT_EQ(back->ab->aa[i].runs, sc.ab->aa[i].runs) << i;
    EXPECT_EQ(back->ab->aa[i].cv.has_value(), sc.ab->aa[i].cv.has_value()) << i;
    ASSERT_EQ(back->ab->aa[i].drift.has_value(), sc.ab->aa[i].drift.has_value()) << i;
    if (sc.ab->aa[i].drift) {
      EXPECT_DOUBLE_EQ(*back->ab->aa[i].drift, *sc.ab->aa[i].drift) << i;
    }
  }
  // Derived fields are computed again from the runs: a hand-edited
  // detectable, verdict, CI or A/A noise reads as the runs decide.
  auto edited = nlohmann::json::parse(text);
  edited["scenario"]["ab"]["metrics"][0]["detectable"] = 0.123;
  edited["scenario"]["ab"]["metrics"][0]["verdict"] = "b_worse";
  edited["scenario"]["ab"]["metrics"][0]["ci_low"] = 0.5;
  edited["scenario"]["ab"]["metrics"][0]["ci_high"] = 0.7;
  edited["scenario"]["ab"]["aa"]["p99_us"]["cv"] = 0.5;
  auto read = ScenarioResultFromJson(edited.dump(), "edited.json");
  ASSERT_TRUE(read.ok()) << read.error().message;
  ASSERT_EQ(read->ab->metrics.size(), sc.ab->metrics.size());
  EXPECT_EQ(read->ab->metrics[0].detectable, sc.ab->metrics[0].detectable);
  EXPECT_EQ(read->ab->metrics[0].verdict, sc.ab->metrics[0].verdict);
  EXPECT_EQ(read->ab->metrics[0].ci_low, sc.ab->metrics[0].ci_low);
  ASSERT_EQ(read->ab->aa[2].metric, "p99_us");
  EXPECT_EQ(read->ab->aa[2].cv, sc.ab->aa[2].cv);
  // A result written before "ci_level", "detectable", "aa" and
  // "policy_source" (decided under the 95 % and noise rule) loads and reads
  // the same way; without the policy source it is not known to be an A/A run.
  auto old = nlohmann::json::parse(text);
  old["scenario"]["ab"].erase("ci_level");
  for (auto& m : old["scenario"]["ab"]["metrics"]) m.erase("detectable");
  old["scenario"]["ab"].erase("aa");
  auto derived = ScenarioResultFromJson(old.dump(), "old.json");
  ASSERT_TRUE(derived.ok()) << derived.error().message;
  ASSERT_TRUE(derived->ab->metrics[0].detectable.has_value());
  EXPECT_DOUBLE_EQ(*derived->ab->metrics[0].detectable, *sc.ab->metrics[0].detectable);
  EXPECT_EQ(derived->ab->aa.size(), sc.ab->aa.size());  // A/A sides: derived
  // An "aa" on sides that differ is not an A/A study; an empty one on an
  // A/A run does not hide its noise.
  auto not_aa = nlohmann::json::parse(text);
  not_aa["scenario"]["ab"]["b"]["edge_commit"] = "another";
  auto na = ScenarioResultFromJson(not_aa.dump(), "not_aa.json");
  ASSERT_TRUE(na.ok()) << na.error().message;
  EXPECT_TRUE(na->ab->aa.empty());
  auto emptied = nlohmann::json::parse(text);
  emptied["scenario"]["ab"]["aa"] = nlohmann::json::object();
  auto em = ScenarioResultFromJson(emptied.dump(), "emptied.json");
  ASSERT_TRUE(em.ok()) << em.error().message;
  EXPECT_EQ(em->ab->aa.size(), sc.ab->aa.size());
  // A ci_level that is no level is named.
  for (const char* bad_level : {"\"x\"", "1", "0", "-0.5", "1e308"}) {
    auto lv = nlohmann::json::parse(text);
    lv["scenario"]["ab"]["ci_level"] = nlohmann::json::parse(bad_level);
    auto r = ScenarioResultFromJson(lv.dump(), "level.json");
    ASSERT_FALSE(r.ok()) << bad_level;
    EXPECT_NE(r.error().message.find("ab.ci_level"), std::string::npos) << r.error().message;
  }
  old["scenario"]["ab"]["a"].erase("policy_source");
  old["scenario"]["ab"]["b"].erase("policy_source");
  auto older = ScenarioResultFromJson(old.dump(), "older.json");
  ASSERT_TRUE(older.ok()) << older.error().message;
  EXPECT_TRUE(older->ab->aa.empty());
  // A bad "aa" is named.
  auto bad = nlohmann::json::parse(text);
  bad["scenario"]["ab"]["aa"]["p99_us"]["cv"] = "low";
  auto r = ScenarioResultFromJson(bad.dump(), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("ab.aa.p99_us.cv"), std::string::npos) << r.error().message;
}

// AB_GATE_METRICS: the AB_GATE line names the gated metrics, and a metric
// where B is worse that the gate leaves out is marked "(not gated)".
TEST(AbReport, GateMetricsAreSaidAndUngatedWorseIsMarked) {
  ScenarioResult sc = AbScenario();
  ASSERT_EQ(sc.ab->metrics[0].verdict, AbVerdict::kBWorse);  // p50
  sc.ab->gate = true;
  sc.ab->gate_metrics = {"fv_cpu_us_per_request"};
  RunMeta meta = AbMeta();
  meta.ab_gate = true;
  meta.ab_gate_metrics = {"fv_cpu_us_per_request"};
  const std::string con = RenderAbSection({sc}, meta);
  EXPECT_NE(con.find("\n  AB_GATE=1 on edge CPU/req (AB_GATE_METRICS=fv_cpu_us_per_request): B significantly worse "
                     "there fails its scenario; other metrics are reported, not gated.\n"),
            std::string::npos)
      << con;
  EXPECT_EQ(con.find("a metric where B is significantly worse"), std::string::npos) << con;
  const std::string p50 = AbVerdictText(sc.ab->metrics[0]);
  EXPECT_NE(con.find(p50 + " (not gated)\n"), std::string::npos) << con;
  EXPECT_NE(con.find("latency.decision_service p50: " + p50 + " (not gated)\n"), std::string::npos) << con;
  const std::string md = RenderAbMarkdown({sc}, meta);
  EXPECT_NE(md.find("\nAB_GATE=1 on edge CPU/req (`AB_GATE_METRICS=fv_cpu_us_per_request`): B significantly worse "
                    "there fails its scenario; other metrics are reported, not gated.\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**" + p50 + "** (not gated) |"), std::string::npos) << md;

  // Two metrics, in the order given.
  meta.ab_gate_metrics = {"p99_us", "fv_cpu_us_per_request"};
  EXPECT_NE(RenderAbSection({sc}, meta).find("AB_GATE=1 on p99, edge CPU/req (AB_GATE_METRICS=p99_us,"
                                             "fv_cpu_us_per_request): "),
            std::string::npos);

  // Gated on every metric (AB_GATE_METRICS unset), or not gated at all: nothing marked.
  sc.ab->gate_metrics.clear();
  meta.ab_gate_metrics.clear();
  for (const std::string& s : {RenderAbSection({sc}, meta), RenderAbMarkdown({sc}, meta)}) {
    EXPECT_NE(s.find("AB_GATE=1: a metric where B is significantly worse fails its scenario.\n"), std::string::npos)
        << s;
    EXPECT_EQ(s.find("not gated"), std::string::npos) << s;
  }
  sc.ab->gate = false;
  meta.ab_gate = false;
  for (const std::string& s : {RenderAbSection({sc}, meta), RenderAbMarkdown({sc}, meta)}) {
    EXPECT_EQ(s.find("AB_GATE"), std::string::npos) << s;
    EXPECT_EQ(s.find("not gated"), std::string::npos) << s;
  }
}

// "gate_metrics" in a scenario's "ab" and in meta.ab: written when set, read
// back; absent (documents written before it) = every metric; a bad one is named.
TEST(AbReport, GateMetricsRoundTrip) {
  ScenarioResult sc = AbScenario();
  sc.ab->gate = true;
  sc.ab->gate_metrics = {"fv_cpu_us_per_request", "p99_us"};
  RunMeta meta = AbMeta();
  meta.ab_gate = true;
  meta.ab_gate_metrics = sc.ab->gate_metrics;
  const std::string text = RunResultsToJson({sc}, meta);
  const auto j = nlohmann::json::parse(text);
  const auto expected = nlohmann::json::parse(R"(["fv_cpu_us_per_request", "p99_us"])");
  EXPECT_EQ(j["meta"]["ab"]["gate_metrics"], expected);
  EXPECT_EQ(j["scenarios"][0]["ab"]["gate_metrics"], expected) << j["scenarios"][0].dump().substr(0, 300);
  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->meta.ab_gate_metrics, meta.ab_gate_metrics);
  ASSERT_TRUE(back->scenarios[0].ab);
  EXPECT_EQ(back->scenarios[0].ab->gate_metrics, sc.ab->gate_metrics);

  // Every metric gated: no key at all, and a document without it reads so.
  sc.ab->gate_metrics.clear();
  meta.ab_gate_metrics.clear();
  const auto all = nlohmann::json::parse(RunResultsToJson({sc}, meta));
  EXPECT_FALSE(all["meta"]["ab"].contains("gate_metrics"));
  EXPECT_FALSE(all["scenarios"][0]["ab"].contains("gate_metrics"));
  auto old = RunResultsFromJson(all.dump(), "old.json");
  ASSERT_TRUE(old.ok()) << old.error().message;
  EXPECT_TRUE(old->meta.ab_gate);
  EXPECT_TRUE(old->meta.ab_gate_metrics.empty());
  EXPECT_TRUE(old->scenarios[0].ab->gate);
  EXPECT_TRUE(old->scenarios[0].ab->gate_metrics.empty());

  for (const char* bad : {R"(["p99"])", R"(["p99_us", "p99_us"])", R"([1])", R"("p99_us")"}) {
    for (const char* where : {"meta", "scenario"}) {
      auto edited = j;
      if (std::string(where) == "meta") edited["meta"]["ab"]["gate_metrics"] = nlohmann::json::parse(bad);
      else edited["scenarios"][0]["ab"]["gate_metrics"] = nlohmann::json::parse(bad);
      auto r = RunResultsFromJson(edited.dump(), "bad.json");
      ASSERT_FALSE(r.ok()) << where << " " << bad;
      EXPECT_NE(r.error().message.find("ab.gate_metrics"), std::string::npos) << r.error().message;
    }
  }
}

TEST(AbReport, NoSectionWithoutAb) {
  ScenarioResult plain;
  plain.id = "latency.raw_nginx";
  EXPECT_EQ(RenderAbSection({plain}, RunMeta{}), "");
  // ... and the summary table stays as it was.
  EXPECT_EQ(RenderSummaryTable({plain}, RunMeta{}, nullptr).find("A/B comparison"), std::string::npos);
}

TEST(AbReport, SummaryTableCarriesTheSection) {
  std::string t = RenderSummaryTable({AbScenario()}, AbMeta(), nullptr);
  EXPECT_NE(t.find("A/B comparison"), std::string::npos);
}

// The same regression in every pair (edge CPU/req 600 -> 900 µs/req in all 3
// pairs): a significant difference in the console's summary, never "no
// significant difference".
TEST(AbReport, SameRegressionInEveryPairIsInTheSummary) {
  ScenarioResult sc = AbScenario();
  for (int i = 0; i < 3; ++i) {
    sc.ab->a.runs[i] = ab_report_test::Run(400, 900, 500, 0);
    sc.ab->b.runs[i] = ab_report_test::Run(400, 900, 500, 0);
    sc.ab->a.fv_cpu_cores[i] = 0.30;
    sc.ab->b.fv_cpu_cores[i] = 0.45;
  }
  sc.ab->metrics = CompareAbRuns(sc.ab->a, sc.ab->b);
  const std::string con = RenderAbSection({sc}, AbMeta());
  EXPECT_EQ(con.find("no significant difference"), std::string::npos) << con;
  EXPECT_NE(con.find("A/B: 2 significant differences:\n"), std::string::npos) << con;
  EXPECT_NE(con.find("\n  latency.decision_service edge CPU/req: B uses more CPU per request by 50.0 %"),
            std::string::npos)
      << con;
}

TEST(AbReport, ScenarioJsonRoundTrip) {
  ScenarioResult s = AbScenario();
  std::string text = ScenarioResultToJson(s);
  auto back = ScenarioResultFromJson(text, "ab.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_TRUE(back->ab.has_value());
  const AbResult& ab = *back->ab;
  EXPECT_EQ(ab.method, s.ab->method);
  EXPECT_EQ(ab.a.runs.size(), 3u);
  EXPECT_EQ(ab.b.policy, "/b/policies-b/simple.json");
  ASSERT_EQ(ab.b.fv_cpu_cores.size(), 3u);
  EXPECT_TRUE(std::isnan(ab.b.fv_cpu_cores[1]));  // written as null, read back as NaN
  ASSERT_EQ(ab.metrics.size(), s.ab->metrics.size());
  for (size_t i = 0; i < ab.metrics.size(); ++i) {
    EXPECT_EQ(ab.metrics[i].metric, s.ab->metrics[i].metric);
    EXPECT_EQ(ab.metrics[i].verdict, s.ab->metrics[i].verdict);
    EXPECT_EQ(ab.metrics[i].delta.has_value(), s.ab->metrics[i].delta.has_value());
    EXPECT_EQ(AbVerdictText(ab.metrics[i]), AbVerdictText(s.ab->metrics[i]));
  }
  // The document carries the readable verdict too.
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["scenario"]["ab"]["metrics"][0]["verdict"], "b_worse");
  EXPECT_NE(j["scenario"]["ab"]["metrics"][0]["verdict_text"].get<std::string>().find("B slower by"),
            std::string::npos);
  // Without A/B, no "ab" key at all.
  ScenarioResult plain = s;
  plain.ab.reset();
  EXPECT_FALSE(nlohmann::json::parse(ScenarioResultToJson(plain))["scenario"].contains("ab"));
}

TEST(AbReport, RunResultsCarryMetaAndScenarios) {
  std::string text = RunResultsToJson({AbScenario()}, AbMeta());
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["meta"]["ab"]["policy_dir_b"], "/tmp/heavier");
  EXPECT_EQ(j["meta"]["ab"]["pairs"], 3);
  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_TRUE(back->meta.ab);
  EXPECT_EQ(back->meta.edge_commit_b, "abc123");
  ASSERT_EQ(back->scenarios.size(), 1u);
  EXPECT_TRUE(back->scenarios[0].ab.has_value());
  // Outside A/B mode the meta has no "ab".
  EXPECT_FALSE(nlohmann::json::parse(RunResultsToJson({}, RunMeta{}))["meta"].contains("ab"));
}

TEST(AbReport, BadAbJsonIsNamed) {
  auto j = nlohmann::json::parse(ScenarioResultToJson(AbScenario()));
  j["scenario"]["ab"]["metrics"][2]["verdict"] = "maybe";
  auto r = ScenarioResultFromJson(j.dump(), "bad.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("bad.json"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("ab.metrics[2].verdict"), std::string::npos) << r.error().message;

  auto k = nlohmann::json::parse(ScenarioResultToJson(AbScenario()));
  k["scenario"]["ab"]["b"]["fv_cpu_cores"][0] = "fast";
  auto r2 = ScenarioResultFromJson(k.dump(), "bad2.json");
  ASSERT_FALSE(r2.ok());
  EXPECT_NE(r2.error().message.find("ab.b.fv_cpu_cores[0]"), std::string::npos) << r2.error().message;

  auto m = nlohmann::json::parse(ScenarioResultToJson(AbScenario()));
  m["scenario"]["ab"]["metrics"][0]["delta"] = nullptr;  // b_worse without a delta
  auto r3 = ScenarioResultFromJson(m.dump(), "bad3.json");
  ASSERT_FALSE(r3.ok());
  EXPECT_NE(r3.error().message.find("a significant verdict needs delta"), std::string::npos) << r3.error().message;
}

// The edge over a run: two windows of 0.5 s, the second's samples failed.
SutTimeline Timeline(double cores) {
  SutTimeline t;
  t.services = {"backend", "fv"};
  SutTimelinePoint p;
  p.start_epoch_us = 1772600000000000;
  p.end_epoch_us = 1772600000500000;
  p.cpu_cores = {0.1, cores};
  p.rss_mib = {10, 40.5};
  p.sut_busy = 0.25;
  p.loadgen_busy = 0.5;
  SutTimelinePoint gap = p;
  gap.start_epoch_us = p.end_epoch_us;
  gap.end_epoch_us = 1772600001000000;
  gap.cpu_cores = {std::nullopt, std::nullopt};
  gap.sut_busy.reset();
  t.points = {p, gap};
  return t;
}

TEST(AbReport, SutTimelinesRoundTripThroughResultsJson) {
  ScenarioResult sc = AbScenario();
  sc.ab->a.sut_timelines = {Timeline(0.3), SutTimeline{}, Timeline(0.32)};  // run 2 not sampled
  sc.ab->b.sut_timelines = {Timeline(0.45), Timeline(0.5), Timeline(0.46)};
  const std::string text = RunResultsToJson({sc}, AbMeta());
  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->scenarios.size(), 1u);
  const AbResult& ab = *back->scenarios[0].ab;
  for (const auto& [got, want] : {std::pair{&ab.a, &sc.ab->a}, std::pair{&ab.b, &sc.ab->b}}) {
    ASSERT_EQ(got->sut_timelines.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      const SutTimeline& g = got->sut_timelines[i];
      const SutTimeline& w = want->sut_timelines[i];
      EXPECT_EQ(g.services, w.services) << i;
      ASSERT_EQ(g.points.size(), w.points.size()) << i;
      for (size_t k = 0; k < g.points.size(); ++k) {
        EXPECT_EQ(g.points[k].start_epoch_us, w.points[k].start_epoch_us);
        EXPECT_EQ(g.points[k].end_epoch_us, w.points[k].end_epoch_us);
        EXPECT_EQ(g.points[k].cpu_cores, w.points[k].cpu_cores);
        EXPECT_EQ(g.points[k].rss_mib, w.points[k].rss_mib);
        EXPECT_EQ(g.points[k].sut_busy, w.points[k].sut_busy);
        EXPECT_EQ(g.points[k].loadgen_busy, w.points[k].loadgen_busy);
      }
    }
  }
  EXPECT_EQ(RunResultsToJson(back->scenarios, AbMeta()), text);
  // A run not sampled is null; a side with no run sampled has no key.
  const nlohmann::json doc = nlohmann::json::parse(text);
  const nlohmann::json& a = doc["scenarios"][0]["ab"]["a"];
  ASSERT_TRUE(a.contains("sut_timelines")) << a.dump();
  EXPECT_TRUE(a["sut_timelines"][1].is_null());
  EXPECT_TRUE(a["sut_timelines"][0]["points"][1]["cpu_cores"][1].is_null());  // a gap, never 0
  ScenarioResult none = AbScenario();
  none.ab->b.sut_timelines.assign(3, SutTimeline{});
  EXPECT_FALSE(nlohmann::json::parse(RunResultsToJson({none}, AbMeta()))["scenarios"][0]["ab"]["b"].contains(
      "sut_timelines"));
}

TEST(AbReport, SutTimelinesReadBackAreCheckedNamingThePath) {
  ScenarioResult sc = AbScenario();
  sc.ab->a.sut_timelines = {Timeline(0.3), SutTimeline{}, Timeline(0.32)};
  const nlohmann::json doc = nlohmann::json::parse(RunResultsToJson({sc}, AbMeta()));
  auto refused = [](const nlohmann::json& d) {
    auto r = RunResultsFromJson(d.dump(), "results.json");
    return r.ok() ? std::string("read") : r.error().message;
  };
  nlohmann::json bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"].erase(2);
  EXPECT_NE(refused(bad).find("ab.a.sut_timelines: 2 timelines, but 3 runs"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][2]["points"][0]["cpu_cores"] = {0.1};
  EXPECT_NE(refused(bad).find("ab.a.sut_timelines[2].points[0].cpu_cores: 1 values, but 2 services"),
            std::string::npos)
      << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][0] = "fv";
  EXPECT_NE(refused(bad).find("ab.a.sut_timelines[0]"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"] = 3;
  EXPECT_NE(refused(bad).find("ab.a.sut_timelines"), std::string::npos) << refused(bad);
  // Figures out of range: negative or absurd CPU, a busy fraction above 1, a window ending before it starts.
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][0]["points"][0]["cpu_cores"][0] = -3;
  EXPECT_NE(refused(bad).find("ab.a.sut_timelines[0].points[0].cpu_cores[0]: -3 is below 0"), std::string::npos)
      << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][0]["points"][0]["cpu_cores"][0] = 1e300;
  EXPECT_NE(refused(bad).find("cpu_cores[0]: 1e+300 is above 65536"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][0]["points"][0]["sut_busy"] = 2;
  EXPECT_NE(refused(bad).find("points[0].sut_busy: 2 is above 1"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["a"]["sut_timelines"][0]["points"][0]["end_epoch_us"] = 1;
  EXPECT_NE(refused(bad).find("points[0]: end_epoch_us 1 is before start_epoch_us"), std::string::npos)
      << refused(bad);
}

TEST(AbReport, EdgeCpuPerRunReadBackIsChecked) {
  const nlohmann::json doc = nlohmann::json::parse(RunResultsToJson({AbScenario()}, AbMeta()));
  auto refused = [](const nlohmann::json& d) {
    auto r = RunResultsFromJson(d.dump(), "results.json");
    return r.ok() ? std::string("read") : r.error().message;
  };
  nlohmann::json bad = doc;
  bad["scenarios"][0]["ab"]["b"]["fv_cpu_cores"] = {0.5};
  EXPECT_NE(refused(bad).find("ab.b.fv_cpu_cores: 1 values, but 3 runs"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["b"]["fv_cpu_cores"] = {-1, -1, -1};
  EXPECT_NE(refused(bad).find("ab.b.fv_cpu_cores[0]: -1 is below 0"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["b"]["fv_cpu_cores"] = {1e300, 1e300, 1e300};
  EXPECT_NE(refused(bad).find("ab.b.fv_cpu_cores[0]: 1e+300 is above 65536"), std::string::npos) << refused(bad);
  bad = doc;
  bad["scenarios"][0]["ab"]["b"]["fv_cpu_cores"] = {0.5, nullptr, 0.5};  // a run not sampled
  EXPECT_EQ(refused(bad), "read");
}

TEST(AbReport, AResultWithoutSutTimelinesReads) {
  ScenarioResult sc = AbScenario();
  sc.ab->a.sut_timelines = {Timeline(0.3), Timeline(0.3), Timeline(0.32)};
  nlohmann::json old = nlohmann::json::parse(RunResultsToJson({sc}, AbMeta()));
  old["scenarios"][0]["ab"]["a"].erase("sut_timelines");  // as written before they were kept
  auto back = RunResultsFromJson(old.dump(), "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const AbResult& ab = *back->scenarios[0].ab;
  ASSERT_EQ(ab.a.sut_timelines.size(), 3u);  // index for index with the runs, none sampled
  for (const SutTimeline& t : ab.a.sut_timelines) EXPECT_TRUE(t.empty());
  EXPECT_EQ(ab.a.runs.size(), 3u);
}

}  // namespace
}  // namespace fvbench::ab_report_test
