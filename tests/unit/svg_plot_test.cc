// Golden-file and edge-case tests of the SVG plots (support/report/svg_plot.h).
//
// The expected outputs are fixtures/golden/plot_*.svg. After an intended
// change to the plots, regenerate them, LOOK at them and review the diff:
//
//   FVBENCH_UPDATE_GOLDEN=1 ctest --test-dir <build> -R unit.SvgPlot
//   for f in fixtures/golden/plot_*.svg; do rsvg-convert -o /tmp/$(basename $f .svg).png $f; done
//   git diff fixtures/golden/
//
// The rsvg-convert tests (librsvg2-bin, support/setup-debian.sh) skip with a
// message when the tool is absent.
#include "support/report/svg_plot.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "support/judge/reference.h"
#include "tests/unit/golden.h"
#include "tests/unit/report_samples.h"

namespace fvbench::svg_plot_test {
namespace {

using testing_samples::SampleLoad;
using testing_samples::SampleMeta;
using testing_samples::SampleRun;
using testing_samples::SampleThroughput;

using testing_golden::FixturesDir;

// Independent of the shipped reference.json (as in summary_table_test).
Reference TestReference() {
  auto ref = ParseReference(R"J({"meta": {"source": "test reference (c7i.2xlarge numbers)"},
      "latency_us": {"decision_service": {"p50": 112, "p90": 191, "p99": 426, "p999": 2990},
                     "reverse_proxy":    {"p50": 241, "p90": 376, "p99": 822, "p999": 2980},
                     "raw_nginx":        {"p50":  71, "p90": 190, "p99": 446, "p999": 1610}},
      "throughput_rps": {"simple": 900, "complex": 67600},
      "throughput_ceiling_reached": {"complex": true}})J",
                            "test-reference.json");
  EXPECT_TRUE(ref.ok()) << ref.error().message;
  return ref.ok() ? *ref : Reference{};
}

StepResult Step(double target, double achieved, double p99, double err, bool passed, const std::string& role) {
  StepResult s;
  s.target_rps = target;
  s.load = SampleLoad(target, achieved, 300, p99, err);
  s.passed = passed;
  s.role = role;
  s.verdict = passed ? "pass" : "fail";
  return s;
}

// A bisect search with every role, a retried failing step, a step failed only
// by its achieved rate and one by engine lag; REPEAT=3 confirmation runs.
ScenarioResult BisectSample() {
  ScenarioResult r;
  r.id = "throughput.simple";
  r.measured = true;
  r.search = "bisect";
  r.policy = "fixtures/policies/simple.json";
  r.steps = {Step(125, 125, 700, 0, true, "bracket"),         Step(250, 250, 720, 0, true, "bracket"),
             Step(500, 499.8, 900, 0, true, "bracket"),       Step(1000, 980, 1.5e6, 0.032, false, "bracket"),
             Step(1000, 975, 1.6e6, 0.041, false, "bracket"), Step(750, 749.5, 1100, 0, true, "bisect"),
             Step(875, 820, 4200, 0.002, false, "bisect"),    Step(812, 811, 1500, 0, true, "bisect"),
             Step(843, 842, 2100, 0, false, "bisect"),        Step(828, 827, 1700, 0, true, "bisect"),
             Step(828, 826.4, 1650, 0, true, "confirm"),      Step(828, 827.1, 1720, 0.0001, true, "confirm"),
             Step(828, 825.9, 1810, 0, true, "confirm")};
  r.steps[8].load.kept_up = false;
  r.steps[8].load.dropped_iterations = 120;
  r.repeats = {r.steps[10].load, r.steps[11].load, r.steps[12].load};
  r.load = r.steps[11].load;
  r.throughput_rps = 826.4;
  r.spread["rps"] = {825.9, 826.4, 827.1};
  r.confirmed = true;
  r.search_resolution = (843.0 - 828.0) / 828.0;
  r.search_load_s = 340;
  return r;
}

std::vector<ScenarioResult> GoldenRun() {
  auto run = SampleRun();
  // REPEAT=3 on raw nginx: whiskers.
  ScenarioResult& raw = run[0];
  raw.repeats = {raw.load, raw.load, raw.load};
  const LatencyUs& l = raw.load.latency_us;
  raw.spread["p50_us"] = {68, l.p50, 75};
  raw.spread["p90_us"] = {120, l.p90, 140};
  raw.spread["p99_us"] = {401, l.p99, 520};
  raw.spread["p999_us"] = {1300, l.p999, 1900};
  raw.spread["max_us"] = {3200, l.max, 7100};
  run[1].checks = {{"p99_us", "<=", 2000, 639, 426, false}};
  run[3] = BisectSample();
  return run;
}

void CompareGolden(const std::string& name, const std::string& got) {
  testing_golden::CompareGolden(name, got, " and look at the plots");
}

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// No attribute (coordinate, size) may be NaN, infinite or in exponent form:
// a value a log axis cannot show must be left out, not drawn at a NaN or
// absurd position. Note texts may name such a value.
void ExpectFinite(const std::string& svg) {
  static const std::regex attr(
      R"re(\s(x|y|x1|y1|x2|y2|cx|cy|r|width|height|points|viewBox|font-size|stroke-width|transform)="([^"]*)")re");
  size_t checked = 0;
  for (std::sregex_iterator it(svg.begin(), svg.end(), attr), end; it != end; ++it, ++checked) {
    std::string v = (*it)[2].str();
    EXPECT_EQ(v.find("nan"), std::string::npos) << (*it)[0];
    EXPECT_EQ(v.find("inf"), std::string::npos) << (*it)[0];
    static const std::regex exponent("[0-9][eE]");
    EXPECT_FALSE(std::regex_search(v, exponent)) << (*it)[0];  // no exponent form
  }
  EXPECT_GT(checked, 50u);
}

TEST(SvgPlot, GoldenFiles) {
  Reference ref = TestReference();
  RunMeta meta = SampleMeta();
  meta.search_max = 1000;
  for (const PlotFile& f : RenderPlots(GoldenRun(), meta, &ref)) {
    SCOPED_TRACE(f.name);
    CompareGolden("plot_" + f.name, f.svg);
  }
}

TEST(SvgPlot, FileNamesAndDeterminism) {
  Reference ref = TestReference();
  auto a = RenderPlots(GoldenRun(), SampleMeta(), &ref);
  auto b = RenderPlots(GoldenRun(), SampleMeta(), &ref);
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].name, "latency.svg");
  EXPECT_EQ(a[1].name, "throughput_simple.svg");
  EXPECT_EQ(a[2].name, "throughput_complex.svg");
  EXPECT_EQ(a[3].name, "throughput_llm.svg");
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].svg, b[i].svg) << a[i].name;
}

// The properties the golden files are meant to show, asserted directly so a
// careless regeneration cannot hide their loss.
TEST(SvgPlot, LatencyShowsStatesReferenceAndSpread) {
  Reference ref = TestReference();
  std::string svg = RenderLatencyPlot(GoldenRun(), SampleMeta(), &ref);
  EXPECT_NE(svg.find("at 10000 RPS"), std::string::npos);              // target rate in the title
  EXPECT_NE(svg.find("engine: k6 v0.54.0"), std::string::npos);        // and the engine
  EXPECT_NE(svg.find(">FAILED before measuring<"), std::string::npos); // reverse_proxy in the legend
  EXPECT_NE(svg.find("Reverse Proxy: FAILED before measuring: fairvisor edge did not become healthy"),
            std::string::npos);                                         // and why, under the plot
  EXPECT_NE(svg.find(">threshold FAILED<"), std::string::npos);        // decision_service failed its p99 check
  EXPECT_NE(svg.find("median of 3 runs, whiskers min–max"), std::string::npos);
  // Labelled decades on the log axis.
  EXPECT_NE(svg.find(">100 µs<"), std::string::npos);
  EXPECT_NE(svg.find(">10 ms<"), std::string::npos);
  EXPECT_NE(svg.find(">1 ms<"), std::string::npos);
  for (const char* p : {">p50<", ">p90<", ">p99<", ">p99.9<", ">max<"}) EXPECT_NE(svg.find(p), std::string::npos) << p;
  // Reference: one dashed line per path that has values (all three here).
  EXPECT_EQ(Count(svg, "stroke-dasharray=\"7 5\""), 3u + 1u);  // + the legend's swatch
  // Measured curves: raw nginx and decision_service, not the failed reverse_proxy.
  EXPECT_EQ(Count(svg, "<polyline"), 3u + 2u);
  ExpectFinite(svg);
}

TEST(SvgPlot, ThroughputMarksPassFailRolesAndResult) {
  Reference ref = TestReference();
  ScenarioResult r = BisectSample();
  std::string svg = RenderThroughputPlot({r}, "throughput.simple", SampleMeta(), &ref);
  // Every step drawn in each of the three panels; failed ones hollow (white fill).
  size_t failed = 0;
  for (const auto& s : r.steps) failed += s.passed ? 0 : 1;
  EXPECT_EQ(Count(svg, "fill=\"#ffffff\" stroke=\"#D55E00\""), failed * 3 + 1);  // + legend
  EXPECT_EQ(Count(svg, "fill=\"#0072B2\""), (r.steps.size() - failed) * 3 + 1);
  EXPECT_EQ(Count(svg, "<!-- step "), r.steps.size());
  EXPECT_EQ(Count(svg, "confirm 828 RPS passed"), 3u);
  EXPECT_NE(svg.find(">826 RPS measured<"), std::string::npos);  // the reported (measured) rate labels its line
  EXPECT_NE(svg.find("SLO: p99 &lt; 1 s"), std::string::npos);
  EXPECT_NE(svg.find("limit: errors &lt; 1%"), std::string::npos);
  EXPECT_NE(svg.find("limit: achieved ≥ 97 % of target"), std::string::npos);
  EXPECT_NE(svg.find("ref 900 RPS"), std::string::npos);
  EXPECT_NE(svg.find("median of 3 confirmation runs (826–827)"), std::string::npos);
  EXPECT_NE(svg.find("step 9 (843 RPS): engine fell behind its schedule"), std::string::npos);
  ExpectFinite(svg);
}

// The limit lines are the rule the search used (ScenarioResult::search_rule),
// not defaults and not the formatting run's configuration.
TEST(SvgPlot, ThroughputDrawsTheRuleTheSearchUsed) {
  ScenarioResult r = BisectSample();
  r.search_rule = StepPassRule{250000, 0.05, 0.9, true};
  std::string svg = RenderThroughputPlot({r}, "throughput.simple", SampleMeta(), nullptr);
  EXPECT_NE(svg.find("SLO: p99 &lt; 250 ms"), std::string::npos) << svg;
  EXPECT_NE(svg.find("limit: errors &lt; 5%"), std::string::npos) << svg;
  EXPECT_NE(svg.find("limit: achieved ≥ 90 % of target"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("SLO: p99 &lt; 1 s"), std::string::npos);
}

TEST(SvgPlot, CeilingIsALowerBound) {
  auto run = SampleRun();  // throughput.complex: ceiling
  Reference ref = TestReference();
  std::string svg = RenderThroughputPlot(run, "throughput.complex", SampleMeta(), &ref);
  EXPECT_NE(svg.find(">at least 1296 RPS (ceiling reached)<"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("fill=\"#ffffff\" stroke=\"#D55E00\" stroke-width=\"2.0\"/>\n<!--"), std::string::npos);
  // The reference is far off this scale: said in a note, not drawn.
  EXPECT_NE(svg.find("reference (test reference (c7i.2xlarge numbers)): ≥ 67600 RPS, outside this plot"),
            std::string::npos)
      << svg;
}

TEST(SvgPlot, MissingScenarioSaysNotRun) {
  std::string t = RenderThroughputPlot({}, "throughput.llm", SampleMeta(), nullptr);
  EXPECT_NE(t.find(">not run<"), std::string::npos);
  EXPECT_NE(t.find("LLM token-budget policy (throughput.llm): not run"), std::string::npos);
  EXPECT_EQ(Count(t, "<!-- step "), 0u);
  std::string l = RenderLatencyPlot({}, RunMeta{}, nullptr);
  EXPECT_EQ(Count(l, ">not run<"), 3u);
  EXPECT_NE(l.find("target rate unknown"), std::string::npos);
  EXPECT_NE(l.find("engine unknown"), std::string::npos);
  ExpectFinite(t);
  ExpectFinite(l);
}

TEST(SvgPlot, SingleStep) {
  ScenarioResult r = SampleThroughput("throughput.simple", {500}, -1, false);
  std::string svg = RenderThroughputPlot({r}, "throughput.simple", SampleMeta(), nullptr);
  EXPECT_EQ(Count(svg, "<!-- step "), 1u);
  EXPECT_NE(svg.find(">500 RPS measured<"), std::string::npos);
  ExpectFinite(svg);
}

TEST(SvgPlot, AllStepsFailedReportsNoNumber) {
  ScenarioResult r = SampleThroughput("throughput.simple", {400}, 0, false);
  r.measured = false;
  r.error = "no step passed: lowest target 500 RPS failed: error_rate 3.20% >= 1%";
  std::string svg = RenderThroughputPlot({r}, "throughput.simple", SampleMeta(), nullptr);
  EXPECT_NE(svg.find(">FAILED: no number<"), std::string::npos);
  EXPECT_NE(svg.find("FAILED: no step passed: lowest target 500 RPS failed"), std::string::npos);
  EXPECT_EQ(Count(svg, "<!-- step "), 1u);
  EXPECT_EQ(svg.find("reported result\" "), std::string::npos);
  EXPECT_EQ(Count(svg, "stroke=\"#222222\" stroke-width=\"2.0\""), 1u);  // only the legend's line, no result line
  ExpectFinite(svg);
}

TEST(SvgPlot, ZeroHugeAndNonFiniteValues) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto run = SampleRun();
  run[0].load.latency_us = {0, -5, nan, inf, 1e300};
  run[1].load.latency_us = {1e-9, 3, 1e13, 1e14, 1e15};
  run[1].spread["p99_us"] = {nan, 1e13, inf};
  ScenarioResult t = SampleThroughput("throughput.simple", {0, 1e12, nan}, 2, false);
  t.steps[0].target_rps = 0;
  t.steps[1].target_rps = 1e12;
  t.steps[1].load.latency_us.p99 = 0;
  t.steps[1].load.error_rate = nan;
  t.steps[2].target_rps = inf;
  t.throughput_rps = 1e12;
  run[3] = t;
  Reference ref = TestReference();
  auto odd_rule = run;  // limits at the edges of their axes
  odd_rule[3].search_rule = StepPassRule{1e-3, 0, 0, false};
  for (const PlotFile& f : RenderPlots(odd_rule, SampleMeta(), &ref)) {
    SCOPED_TRACE(f.name);
    ExpectFinite(f.svg);
  }
  std::string l = RenderLatencyPlot(run, SampleMeta(), &ref);
  EXPECT_NE(l.find("not drawn on the log scale: Raw nginx p50 = 0 µs"), std::string::npos) << l;
  EXPECT_NE(l.find("not drawn on the log scale: Raw nginx p90 = -5 µs"), std::string::npos) << l;
  std::string s = RenderThroughputPlot(run, "throughput.simple", SampleMeta(), &ref);
  EXPECT_NE(s.find("step 3 not drawn: target out of range RPS"), std::string::npos) << s;
  EXPECT_NE(s.find("step 2 (1000000000000 RPS): p99 = 0 µs not drawn"), std::string::npos) << s;
}

TEST(SvgPlot, EscapesText) {
  auto run = SampleRun();
  run[2].error = "nginx: [emerg] \"<lua>\" & 'x'\nsecond line";
  std::string l = RenderLatencyPlot(run, SampleMeta(), nullptr);
  EXPECT_NE(l.find("nginx: [emerg] &quot;&lt;lua&gt;&quot; &amp; &apos;x&apos; second line"), std::string::npos) << l;
  EXPECT_EQ(l.find("<lua>"), std::string::npos);
}

// rsvg-convert (librsvg) must accept every plot: well-formed XML and valid SVG.
bool HaveRsvg() { return std::system("command -v rsvg-convert >/dev/null 2>&1") == 0; }

void ExpectRsvgAccepts(const std::string& name, const std::string& svg) {
  std::string in = ::testing::TempDir() + "svg_plot_" + name;
  std::string out = in + ".png";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << svg;
  std::string cmd = "rsvg-convert -f png -o '" + out + "' '" + in + "' 2>'" + in + ".err'";
  int rc = std::system(cmd.c_str());
  std::ifstream err_in(in + ".err");
  std::stringstream err;
  err << err_in.rdbuf();
  EXPECT_EQ(rc, 0) << name << ": rsvg-convert failed: " << err.str() << "\n(input kept at " << in << ")";
  EXPECT_TRUE(err.str().empty()) << name << ": rsvg-convert warned: " << err.str();
  std::ifstream png(out, std::ios::binary | std::ios::ate);
  EXPECT_GT(static_cast<long>(png.tellg()), 1000) << name << ": PNG missing or empty";
}

TEST(SvgPlot, RsvgConvertAcceptsEveryPlot) {
  if (!HaveRsvg()) GTEST_SKIP() << "rsvg-convert not installed (apt-get install librsvg2-bin); not checked";
  Reference ref = TestReference();
  for (const PlotFile& f : RenderPlots(GoldenRun(), SampleMeta(), &ref)) ExpectRsvgAccepts(f.name, f.svg);
  auto run = SampleRun();
  run[0].load.latency_us = {0, -5, std::nan(""), 1e300, 1e300};
  run[2].error = "\"<&>\"\x01";
  for (const PlotFile& f : RenderPlots(run, SampleMeta(), &ref)) ExpectRsvgAccepts("odd_" + f.name, f.svg);
}

}  // namespace
}  // namespace fvbench::svg_plot_test
