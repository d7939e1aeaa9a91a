// The A/B timeline (support/report/ab_timeline_plot.h): every A/B run in the
// order the pairs ran on one time axis, labelled and styled by side, a run
// without counts listed and not drawn, edge's CPU under it when the runs'
// SUT timelines have it, no file without counts, its place in the run's
// plots, in report.md's list and in report.html.
#include "support/report/ab_timeline_plot.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "support/report/html_report.h"
#include "support/report/markdown_report.h"
#include "support/report/svg_plot.h"
#include "tests/unit/report_samples.h"
#include "tests/unit/timeline_svg.h"

namespace fvbench::ab_timeline_plot_test {
namespace {

using testing_samples::Count;
using testing_samples::SampleMeta;
using testing_samples::SampleRun;
using testing_samples::StallRects;

constexpr double kT0 = 1772600000.0;

// 4 intervals of 1 s at 500 RPS, every slot completed, starting t_s seconds
// after kT0; 4 s of load.
LoadResult Run(double t_s, double p99_us) {
  LoadResult l;
  l.engine = "wrk";
  l.target_rps = 500;
  l.duration_s = 4;
  l.requests = 2000;
  l.achieved_rps = 500;
  l.latency_us = {400, 600, p99_us, p99_us * 1.5, p99_us * 2};
  IntervalSeries& s = l.intervals;
  s.start_epoch_us = (kT0 + t_s) * 1e6;
  s.width_us = 1e6;
  s.scheduled.assign(4, 500);
  s.sent.assign(4, 500);
  s.completed.assign(4, 500);
  s.late_10ms.assign(4, 0);
  return l;
}

// Two pairs: A1 at 0 s, B1 at 20 s, A2 at 40 s, B2 at 60 s (as AbPairs runs
// them); B1 completed nothing in its 2-3 s.
ScenarioResult AbScenario() {
  ScenarioResult r;
  r.id = "latency.decision_service";
  r.measured = true;
  AbResult ab;
  ab.method = "latency: 500 RPS for 4 s per run, 2 pairs";
  ab.rate_rps = 500;
  ab.duration_s = 4;
  ab.a.runs = {Run(0, 900), Run(40, 910)};
  ab.b.runs = {Run(20, 1100), Run(60, 1200)};
  ab.b.runs[0].intervals.completed[2] = 0;
  ab.a.fv_cpu_cores = {0.3, 0.3};
  ab.b.fv_cpu_cores = {0.4, 0.4};
  ab.a.sut_timelines.resize(2);
  ab.b.sut_timelines.resize(2);
  r.ab = ab;
  r.load = ab.a.runs[0];
  return r;
}

// The edge's CPU over a run starting t_s after kT0: windows of 0.5 s over
// its 4 s, `cores` each; the backend beside it.
SutTimeline Cpu(double t_s, double cores) {
  SutTimeline t;
  t.services = {"backend", "fv"};
  for (int i = 0; i < 8; ++i) {
    SutTimelinePoint p;
    p.start_epoch_us = (kT0 + t_s + 0.5 * i) * 1e6;
    p.end_epoch_us = p.start_epoch_us + 0.5e6;
    p.cpu_cores = {0.1, cores};
    p.rss_mib = {10, 40};
    t.points.push_back(p);
  }
  return t;
}

// The x of each run's start rule and the label above it with its colour, in
// the order drawn.
struct Start {
  double x;
  std::string label;
  std::string color;
};
std::vector<Start> Starts(const std::string& svg) {
  static const std::regex start(
      R"re(<line x1="([-0-9.]+)" y1="78.0" x2="[-0-9.]+" y2="388.0" stroke="#999999"[^>]*/>\s*<text x="[-0-9.]+" y="72.0" font-size="10.0" text-anchor="middle" fill="(#[0-9A-Fa-f]+)">([^<]*)</text>)re");
  std::vector<Start> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), start), end; it != end; ++it) {
    out.push_back({std::stod((*it)[1].str()), (*it)[3].str(), (*it)[2].str()});
  }
  return out;
}

// The stroke and dash of each polyline, in the order drawn.
std::vector<std::string> Strokes(const std::string& svg) {
  static const std::regex line(
      R"re(<polyline points="[^"]*" fill="none" stroke="(#[0-9A-Fa-f]+)" stroke-width="[^"]*"( stroke-dasharray="[^"]*")?/>)re");
  std::vector<std::string> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it) {
    out.push_back((*it)[1].str() + ((*it)[2].matched ? " dashed" : ""));
  }
  return out;
}

TEST(AbTimelinePlot, RunOrderIsAsThePairsRan) {
  const AbResult ab = *AbScenario().ab;
  std::string order;
  for (const AbRunRef& r : AbRunOrder(ab)) order += fmt::format("{}{} ", r.side, r.index + 1);
  EXPECT_EQ(order, "A1 B1 A2 B2 ");
  AbResult stopped = ab;
  stopped.b.runs.pop_back();  // stopped before B2
  order.clear();
  for (const AbRunRef& r : AbRunOrder(stopped)) order += fmt::format("{}{} ", r.side, r.index + 1);
  EXPECT_EQ(order, "A1 B1 A2 ");
}

TEST(AbTimelinePlot, OneSegmentPerRunInRunOrderLabelledAndStyledBySide) {
  const ScenarioResult r = AbScenario();
  EXPECT_EQ(AbTimelinePlotFile(r), "ab_timeline_latency_decision_service.svg");
  const std::string svg = RenderAbTimelinePlot(r);
  const std::vector<Start> starts = Starts(svg);
  ASSERT_EQ(starts.size(), 4u) << svg;
  const char* labels[] = {"A1", "B1", "A2", "B2"};
  for (size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(starts[k].label, labels[k]) << k;
    EXPECT_EQ(starts[k].color, k % 2 == 0 ? "#0072B2" : "#D55E00") << k;
    if (k > 0) {
      EXPECT_LT(starts[k - 1].x, starts[k].x) << k;
    }
  }
  // 16 s of load with gaps of 0.32 s: runs at 0, 4.32, 8.64 and 12.96 s,
  // equally spaced whatever the axis' range.
  EXPECT_NEAR(starts[2].x - starts[1].x, starts[1].x - starts[0].x, 0.11);
  EXPECT_NEAR(starts[3].x - starts[2].x, starts[1].x - starts[0].x, 0.11);
  // Per run: completed solid, scheduled dashed, in its side's colour.
  EXPECT_EQ(Strokes(svg), (std::vector<std::string>{"#0072B2", "#0072B2 dashed", "#D55E00", "#D55E00 dashed",
                                                    "#0072B2", "#0072B2 dashed", "#D55E00", "#D55E00 dashed"}));
  // The legend names both sides.
  EXPECT_NE(svg.find(">side A completed per second</text>"), std::string::npos);
  EXPECT_NE(svg.find(">side B completed per second</text>"), std::string::npos);
  // B1's stall shaded (plus the legend's swatch) and named.
  EXPECT_EQ(StallRects(svg).size(), 2u);
  EXPECT_NE(svg.find("<title>B1 stall 2-3 s of the run: 0 of 500 scheduled completed</title>"), std::string::npos);
  // One line per run in run order, with the real pauses: each run started
  // 16 s after the previous one's 4 s of load ended.
  const size_t a1 = svg.find("A1. side A run 1, 500 RPS: p99 900 µs; no stall<");
  const size_t b1 = svg.find("B1. side B run 1, 500 RPS: p99 1.10 ms; stall 2-3 s; after a pause of 16 s<");
  const size_t a2 = svg.find("A2. side A run 2, 500 RPS: p99 910 µs; no stall; after a pause of 16 s<");
  const size_t b2 = svg.find("B2. side B run 2, 500 RPS: p99 1.20 ms; no stall; after a pause of 16 s<");
  ASSERT_NE(a1, std::string::npos) << svg;
  ASSERT_NE(b1, std::string::npos) << svg;
  ASSERT_NE(a2, std::string::npos) << svg;
  ASSERT_NE(b2, std::string::npos) << svg;
  EXPECT_LT(a1, b1);
  EXPECT_LT(b1, a2);
  EXPECT_LT(a2, b2);
  EXPECT_NE(svg.find("4 runs drawn of 4; 1 stalled interval"), std::string::npos);
  EXPECT_EQ(svg.find("edge (fv) CPU (cores)"), std::string::npos);  // no SUT timeline
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
  EXPECT_EQ(svg, RenderAbTimelinePlot(r));  // deterministic
}

TEST(AbTimelinePlot, ARunWithoutCountsIsListedNotDrawn) {
  ScenarioResult r = AbScenario();
  r.ab->b.runs[0].intervals = IntervalSeries{};
  const std::string svg = RenderAbTimelinePlot(r);
  const std::vector<Start> starts = Starts(svg);
  ASSERT_EQ(starts.size(), 3u) << svg;
  EXPECT_EQ(starts[0].label, "A1");
  EXPECT_EQ(starts[1].label, "A2");
  EXPECT_EQ(starts[2].label, "B2");
  EXPECT_NE(svg.find("B1. side B run 1, 500 RPS: p99 1.10 ms; no counts per interval<"), std::string::npos) << svg;
  // A2's pause runs from the end of A1, the previous drawn run.
  EXPECT_NE(svg.find("A2. side A run 2, 500 RPS: p99 910 µs; no stall; after a pause of 36 s<"), std::string::npos);
  EXPECT_NE(svg.find("3 runs drawn of 4; 0 stalled intervals"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 6u);
}

TEST(AbTimelinePlot, EdgeCpuPanelWhenTheRunsHaveTimelines) {
  ScenarioResult r = AbScenario();
  r.ab->a.sut_timelines[0] = Cpu(0, 0.3);
  r.ab->b.sut_timelines[1] = Cpu(60, 0.45);
  const std::string svg = RenderAbTimelinePlot(r);
  EXPECT_NE(svg.find(">edge (fv) CPU (cores)</text>"), std::string::npos) << svg;
  // The counts' 8 lines, then one CPU line per run with a timeline, in its
  // side's colour.
  const std::vector<std::string> strokes = Strokes(svg);
  ASSERT_EQ(strokes.size(), 10u) << svg;
  EXPECT_EQ(strokes[8], "#0072B2");
  EXPECT_EQ(strokes[9], "#D55E00");
  // B1's stall shaded in the CPU panel too.
  EXPECT_EQ(StallRects(svg).size(), 3u);
  // A timeline without edge has no panel.
  ScenarioResult backend_only = AbScenario();
  SutTimeline t = Cpu(0, 0.3);
  t.services = {"backend", "baseline"};
  backend_only.ab->a.sut_timelines[0] = t;
  EXPECT_EQ(RenderAbTimelinePlot(backend_only).find("edge (fv) CPU (cores)"), std::string::npos);
  // Nor one whose windows lie outside the run's intervals.
  ScenarioResult elsewhere = AbScenario();
  elsewhere.ab->a.sut_timelines[0] = Cpu(1000, 0.3);
  EXPECT_EQ(RenderAbTimelinePlot(elsewhere).find("edge (fv) CPU (cores)"), std::string::npos);
}

TEST(AbTimelinePlot, NoCountsNoFile) {
  ScenarioResult r = AbScenario();
  for (AbSide* s : {&r.ab->a, &r.ab->b}) {
    for (LoadResult& l : s->runs) l.intervals = IntervalSeries{};
  }
  EXPECT_EQ(AbTimelinePlotFile(r), "");
  EXPECT_NE(RenderAbTimelinePlot(r).find("no A/B run of this result carries counts per interval"), std::string::npos);
  r.ab.reset();
  EXPECT_EQ(AbTimelinePlotFile(r), "");
  for (const std::string& f : PlotFilesOfRun(SampleRun())) EXPECT_EQ(f.rfind("ab_timeline_", 0), std::string::npos) << f;
}

TEST(AbTimelinePlot, ListedWithTheRunsPlotsAndDrawnInTheHtml) {
  std::vector<ScenarioResult> run = SampleRun();
  size_t at = run.size();
  for (size_t i = 0; i < run.size(); ++i) {
    if (run[i].id == "latency.decision_service") at = i;
  }
  ASSERT_LT(at, run.size());
  run[at] = AbScenario();
  const std::vector<std::string> files = PlotFilesOfRun(run);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.back(), "ab_timeline_latency_decision_service.svg");
  std::map<std::string, std::string> svgs;
  for (const PlotFile& f : RenderPlots(run, SampleMeta(), nullptr)) svgs[f.name] = f.svg;
  ASSERT_EQ(svgs.count("ab_timeline_latency_decision_service.svg"), 1u);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_NE(md.find("[ab_timeline_latency_decision_service.svg](ab_timeline_latency_decision_service.svg) (every "
                    "A/B run per interval"),
            std::string::npos)
      << md;
  auto html = RenderHtmlReport(md, svgs, "t");
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_NE(html->find("A/B runs over time: latency.decision_service"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::ab_timeline_plot_test
