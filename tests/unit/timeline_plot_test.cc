// The timeline plot (support/report/timeline_plot.h): the stalled interval
// shaded where the judge flags it, the axis labels and the rates per second,
// no file for a phase without intervals, its place in the run's plots and in
// report.md's list, report.html drawing it, and rsvg-convert accepting it.
#include "support/report/timeline_plot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "support/report/html_report.h"
#include "support/report/markdown_report.h"
#include "support/report/svg_plot.h"
#include "tests/unit/report_samples.h"
#include "tests/unit/timeline_svg.h"

namespace fvbench::timeline_plot_test {
namespace {

using testing_samples::SampleLatency;
using testing_samples::Count;
using testing_samples::SampleMeta;
using testing_samples::Section;
using testing_samples::StallRects;
using testing_samples::SampleRun;

constexpr const char* kStallFill = R"(fill="#f7c6cf")";

// A wrk phase at 100 RPS in 1 s intervals, 10 intervals, nothing completed
// in interval 4 (4-5 s), 7 sends late in interval 3.
ScenarioResult WithIntervals(const std::string& id = "latency.decision_service") {
  ScenarioResult r = SampleLatency(id, 300, 2000);
  r.load.engine = "wrk";
  r.load.target_rps = 100;
  IntervalSeries& s = r.load.intervals;
  s.start_epoch_us = 1772600000e6;
  s.width_us = 1e6;
  s.scheduled.assign(10, 100);
  s.sent.assign(10, 100);
  s.completed.assign(10, 100);
  s.late_10ms.assign(10, 0);
  s.completed[4] = 0;
  s.completed[5] = 200;  // the stall's responses, late
  s.late_10ms[3] = 7;
  return r;
}



TEST(TimelinePlot, StallShadedWithAxisLabels) {
  const ScenarioResult r = WithIntervals();
  EXPECT_EQ(TimelinePlotFile(r), "timeline_latency_decision_service.svg");
  const std::string svg = RenderTimelinePlot(r);
  // One shaded interval (plus the legend's swatch), over 4-5 s of the 0-10 s
  // axis: frame x 84..560, so 84 + 0.4 x 476 = 274.4, 47.6 wide.
  const auto rects = StallRects(svg);
  ASSERT_EQ(rects.size(), 2u) << svg;
  EXPECT_NEAR(rects[0].first, 274.4, 0.05);
  EXPECT_NEAR(rects[0].second, 47.6, 0.05);
  EXPECT_NE(svg.find("<title>stall 4-5 s: 0 of 100 scheduled completed</title>"), std::string::npos);
  EXPECT_NE(svg.find("1 stalled interval shaded"), std::string::npos);
  EXPECT_NE(svg.find("stall: slots due, none completed"), std::string::npos);
  // Axes: seconds from the start, rates per second (the 200 completed in
  // 5-6 s is the top: the axis reaches 250 with ticks of 50).
  EXPECT_NE(svg.find(">seconds from the phase&apos;s start</text>"), std::string::npos);
  EXPECT_NE(svg.find(">per second (requests)</text>"), std::string::npos);
  for (const char* tick : {">0</text>", ">2</text>", ">10</text>", ">100</text>", ">200</text>"}) {
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  }
  EXPECT_NE(svg.find("measured phase: wrk, target 100 RPS; 10 intervals of 1 s"), std::string::npos);
  EXPECT_NE(svg.find("scheduled: 1000 slots fell due"), std::string::npos);
  EXPECT_NE(svg.find("late: 7 sent &gt; 10 ms behind"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 3u);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
  EXPECT_EQ(svg, RenderTimelinePlot(r));  // deterministic
}

TEST(TimelinePlot, RatesAreCountsPerSecondOfTheInterval) {
  // Half-second intervals: 50 per interval is 100 per second, the same
  // line as the 1 s series' (its y: the same top and ticks).
  ScenarioResult a = WithIntervals();
  a.load.intervals.completed[4] = 100;
  ScenarioResult b = a;
  IntervalSeries& s = b.load.intervals;
  s.width_us = 0.5e6;
  for (auto* v : {&s.scheduled, &s.sent, &s.completed, &s.late_10ms}) {
    for (uint64_t& c : *v) c /= 2;
  }
  b.load.intervals.completed[5] = 100;
  const std::string sa = RenderTimelinePlot(a), sb = RenderTimelinePlot(b);
  EXPECT_NE(sb.find(">200</text>"), std::string::npos);
  EXPECT_EQ(sb.find(">500</text>"), std::string::npos);  // not counts x 2 x 2
  EXPECT_NE(sb.find("10 intervals of 0.5 s"), std::string::npos);
}

TEST(TimelinePlot, APartialIntervalAtTheEndIsDrawnByItsCoveredPartOrLeftOut) {
  // The engine ran 50 ms past the phase: 5 slots in an eleventh interval,
  // drawn as 5 per second it would read as a collapse at the end.
  ScenarioResult r = WithIntervals();
  IntervalSeries& s = r.load.intervals;
  for (auto* v : {&s.scheduled, &s.sent, &s.completed}) v->push_back(5);
  s.late_10ms.push_back(0);
  const std::string svg = RenderTimelinePlot(r);
  // 11 intervals on a 0-12 s axis: interval 10's middle, 10.5 s, is x 84 + 10.5 / 12 x 476 = 500.5 (no point there).
  EXPECT_EQ(svg.find(R"(cx="500.5")"), std::string::npos) << svg;
  EXPECT_NE(svg.find("Not drawn, the load covering under half of them: 10-11 s (5 scheduled, 5 completed)."),
            std::string::npos)
      << svg;
  // Covered by half or more: drawn by its part. 60 slots of 100 at 100 RPS: 0.6 s, 60 completed = 100 per second.
  for (auto* v : {&s.scheduled, &s.sent, &s.completed}) v->back() = 60;
  const std::string part = RenderTimelinePlot(r);
  EXPECT_NE(part.find(R"(cx="500.5")"), std::string::npos) << part;
  EXPECT_EQ(part.find("Not drawn"), std::string::npos);
}

TEST(TimelinePlot, StallRuleIsTheJudges) {
  // Partial intervals at the ends (fewer than half a full interval's slots
  // due) are not judged: nothing completed there is no stall.
  ScenarioResult r = WithIntervals();
  r.load.intervals.completed[4] = 100;
  r.load.intervals.scheduled[0] = 30;
  r.load.intervals.completed[0] = 0;
  EXPECT_TRUE(StallRects(RenderTimelinePlot(r)).empty());
  EXPECT_NE(RenderTimelinePlot(r).find("no stall"), std::string::npos);
  // Under 2 slots per interval the judge does not look for stalls: neither
  // does the plot, and it says why.
  r.load.target_rps = 1;
  r.load.intervals.scheduled.assign(10, 1);
  r.load.intervals.completed.assign(10, 0);
  const std::string svg = RenderTimelinePlot(r);
  EXPECT_TRUE(StallRects(svg).empty());
  EXPECT_NE(svg.find("stalls and drift not judged"), std::string::npos);
}

// The SUT sampled every 500 ms over WithIntervals()' 10 s: 20 windows, fv
// at 1 core but 0 in 4-5 s (stopped), backend 0.25 core, the sample at
// 7 s failed (the two windows beside it absent).
SutTimeline SampledSut(double start_epoch_us) {
  SutTimeline t;
  t.services = {"backend", "fv"};
  for (int i = 0; i < 20; ++i) {
    SutTimelinePoint p;
    p.start_epoch_us = start_epoch_us + i * 0.5e6;
    p.end_epoch_us = p.start_epoch_us + 0.5e6;
    const bool stopped = i == 8 || i == 9, failed = i == 13 || i == 14;
    p.cpu_cores = {failed ? std::nullopt : std::optional<double>(0.25),
                   failed ? std::nullopt : std::optional<double>(stopped ? 0.0 : 1.0)};
    p.rss_mib = {20.0, failed && i == 13 ? std::nullopt : std::optional<double>(60.0 + i)};
    if (!failed) p.sut_busy = stopped ? 0.125 : 0.625;
    p.loadgen_busy = 0.4;
    t.points.push_back(p);
  }
  return t;
}

TEST(TimelinePlot, SutPanelsUnderTheCountsWithAPointPerSampleWindow) {
  ScenarioResult r = WithIntervals();
  r.sut_timeline = SampledSut(r.load.intervals.start_epoch_us);
  const std::string svg = RenderTimelinePlot(r);
  const std::string cpu = Section(svg, "SUT panel: SUT CPU (cores)");
  ASSERT_FALSE(cpu.empty()) << svg;
  EXPECT_NE(cpu.find(">SUT CPU (cores)</text>"), std::string::npos);
  // A marker per window with a value: backend (squares) 18, fv (circles) 18
  // (2 legend markers besides); the failed sample breaks each line in two.
  EXPECT_EQ(Count(cpu, "<circle"), 18u + 1u);
  EXPECT_EQ(Count(cpu, R"(fill="#0072B2" stroke="#0072B2")"), 18u + 1u);
  EXPECT_EQ(Count(cpu, "<polyline"), 4u);
  // fv's stopped windows sit on the panel's floor, at their middles (4.25 and
  // 4.75 s of 10: x 84 + 0.425 x 476 = 286.3 and 310.1).
  EXPECT_NE(cpu.find(R"(<circle cx="286.3")"), std::string::npos) << cpu;
  EXPECT_NE(cpu.find(R"(<circle cx="310.1")"), std::string::npos) << cpu;
  // The stall (4-5 s) is shaded in this panel too, at the counts' x.
  EXPECT_NE(cpu.find(R"(<rect x="274.4")"), std::string::npos) << cpu;
  EXPECT_EQ(Count(cpu, kStallFill), 1u);
  // RSS and the busy fractions each have their panel; the x title is under
  // the last one only.
  EXPECT_FALSE(Section(svg, "SUT panel: RSS (MiB)").empty());
  const std::string busy = Section(svg, "SUT panel: busy (fraction)");
  ASSERT_FALSE(busy.empty());
  EXPECT_NE(busy.find(">load generator busy</text>"), std::string::npos);
  EXPECT_EQ(Count(svg, ">seconds from the phase&apos;s start</text>"), 1u);
  EXPECT_NE(busy.find(">seconds from the phase&apos;s start</text>"), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(RenderTimelinePlot(r), svg);  // deterministic
  EXPECT_NE(svg.find("sampled 21 times (20 windows in this span)"), std::string::npos);
}

TEST(TimelinePlot, ProcessExitsAreDottedRulesThroughEveryPanelWithTheirWindow) {
  ScenarioResult r = WithIntervals();
  r.sut_timeline = SampledSut(r.load.intervals.start_epoch_us);
  const std::string without = RenderTimelinePlot(r);
  EXPECT_EQ(without.find("exited"), std::string::npos);
  const double t0 = r.load.intervals.start_epoch_us;
  // fv's worker gone at 6.5 s (last seen 6 s), and one outside the span (a minute later).
  r.sut_timeline.exits = {{"fv", 4242, t0 + 6e6, t0 + 6.5e6}, {"backend", 77, t0 + 60e6, t0 + 60.5e6}};
  const std::string svg = RenderTimelinePlot(r);
  // At 6.5 s of 10: x 84 + 0.65 x 476 = 393.4, from the counts' top through the last panel.
  const std::regex rule(R"re(<line x1="393.4" y1="([0-9.]+)" x2="393.4" y2="([0-9.]+)" stroke="#222222" stroke-width="1.5" stroke-dasharray="2 3"/>)re");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, rule)) << svg;
  const std::string busy = Section(svg, "SUT panel: busy (fraction)");
  ASSERT_FALSE(busy.empty());
  // The rule ends below the busy panel's top: it crosses every panel.
  const std::regex busy_rect(R"re(<rect x="84.0" y="([0-9.]+)")re");
  std::smatch b;
  ASSERT_TRUE(std::regex_search(busy, b, busy_rect)) << busy;
  EXPECT_GT(std::stod(m[2]), std::stod(b[1]));
  EXPECT_NE(svg.find(">fv pid 4242 exited</text>"), std::string::npos);
  EXPECT_NE(svg.find("<title>fv pid 4242 exited between 6 s (last seen) and 6.5 s (gone)</title>"), std::string::npos)
      << svg;
  EXPECT_EQ(svg.find("backend pid 77"), std::string::npos);  // outside the span: counted, not drawn
  EXPECT_NE(svg.find("fv pid 4242 at 6.5 s"), std::string::npos);
  EXPECT_NE(svg.find("1 process exit outside these intervals, not drawn."), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
}

TEST(TimelinePlot, NoSutPanelWithoutSamplesInTheSpan) {
  ScenarioResult r = WithIntervals();
  const std::string plain = RenderTimelinePlot(r);
  EXPECT_EQ(plain.find("SUT panel"), std::string::npos);
  EXPECT_EQ(plain.find("SUT CPU"), std::string::npos);
  // Samples of another run (a minute later): not drawn, and said so.
  r.sut_timeline = SampledSut(r.load.intervals.start_epoch_us + 60e6);
  const std::string other = RenderTimelinePlot(r);
  EXPECT_EQ(other.find("SUT panel"), std::string::npos);
  EXPECT_NE(other.find("do not fall within these intervals"), std::string::npos);
  // Every figure absent (every sample failed): no panel either.
  SutTimeline failed = SampledSut(r.load.intervals.start_epoch_us);
  for (SutTimelinePoint& p : failed.points) {
    p.cpu_cores = {std::nullopt, std::nullopt};
    p.rss_mib = {std::nullopt, std::nullopt};
    p.sut_busy.reset();
    p.loadgen_busy.reset();
  }
  r.sut_timeline = failed;
  EXPECT_EQ(RenderTimelinePlot(r).find("SUT panel"), std::string::npos);
}

TEST(TimelinePlot, SendsNotCountedDrawCompletedOnly) {
  // Several k6 instances: completed per interval, no slot or send counted.
  ScenarioResult r = WithIntervals();
  IntervalSeries& s = r.load.intervals;
  s.sends_counted = false;
  s.scheduled.assign(10, 0);
  s.sent.assign(10, 0);
  s.late_10ms.assign(10, 0);
  const std::string svg = RenderTimelinePlot(r);
  EXPECT_EQ(Count(svg, "<polyline"), 1u) << svg;
  EXPECT_EQ(svg.find("scheduled: "), std::string::npos);
  EXPECT_EQ(svg.find("late: "), std::string::npos);
  EXPECT_NE(svg.find("completed: 1000 responses"), std::string::npos);
  // interval 4's 0 completed is a stall against k6's schedule (100 RPS x 1 s
  // due in each interval inside the phase's 60 s), shaded beside the legend's swatch
  EXPECT_EQ(StallRects(svg).size(), 2u);
  EXPECT_NE(svg.find("1 stalled interval shaded"), std::string::npos);
  EXPECT_NE(svg.find("<title>stall 4-5 s: 0 of 100 due completed</title>"), std::string::npos) << svg;
  // without the phase's duration no interval is known to lie inside it
  r.load.duration_s = 0;
  const std::string unknown = RenderTimelinePlot(r);
  EXPECT_TRUE(StallRects(unknown).empty());
  EXPECT_NE(unknown.find("carry no slot or send times"), std::string::npos);
}

TEST(TimelinePlot, NoIntervalsNoFile) {
  const std::vector<ScenarioResult> run = SampleRun();  // k6: no intervals
  for (const ScenarioResult& r : run) EXPECT_EQ(TimelinePlotFile(r), "") << r.id;
  EXPECT_TRUE(RenderTimelinePlots(run).empty());
  for (const std::string& f : PlotFilesOfRun(run)) EXPECT_EQ(f.rfind("timeline_", 0), std::string::npos) << f;
  EXPECT_EQ(RenderMarkdownReport(run, SampleMeta(), nullptr).find("timeline_"), std::string::npos);
}

TEST(TimelinePlot, ListedWithTheRunsPlotsAndDrawnInTheHtml) {
  std::vector<ScenarioResult> run = SampleRun();
  run[1] = WithIntervals();
  run[3].load.intervals = WithIntervals().load.intervals;  // throughput.simple's reported step
  run[3].load.target_rps = 100;  // (at its own target, 100 slots an interval would not be judged)
  const std::vector<std::string> files = PlotFilesOfRun(run);
  ASSERT_GE(files.size(), 2u);
  EXPECT_EQ(files[files.size() - 2], "timeline_latency_decision_service.svg");
  EXPECT_EQ(files.back(), "timeline_throughput_simple.svg");
  std::vector<std::string> rendered;
  std::map<std::string, std::string> svgs;
  for (const PlotFile& f : RenderPlots(run, SampleMeta(), nullptr)) {
    rendered.push_back(f.name);
    svgs[f.name] = f.svg;
  }
  // RenderPlots' order; it renders every throughput plot, the report step
  // writes those of PlotFilesOfRun.
  ASSERT_GE(rendered.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(rendered.end() - 2, rendered.end()),
            std::vector<std::string>(files.end() - 2, files.end()));
  EXPECT_NE(svgs["timeline_throughput_simple.svg"].find("reported step: "), std::string::npos);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_NE(md.find("[timeline_latency_decision_service.svg](timeline_latency_decision_service.svg), "
                    "[timeline_throughput_simple.svg](timeline_throughput_simple.svg) (the measured phase per "
                    "interval"),
            std::string::npos)
      << md;
  // The throughput plots keep their own description, before the timelines.
  EXPECT_NE(md.find("(throughput_complex.svg) (search steps: p99, errors and achieved rate per target), "
                    "[timeline_"),
            std::string::npos);
  auto html = RenderHtmlReport(md, svgs, "t");
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_NE(html->find("<figure id=\""), std::string::npos);
  EXPECT_NE(html->find("Over time: latency.decision_service"), std::string::npos);
  EXPECT_NE(html->find("Over time: throughput.simple"), std::string::npos);
  EXPECT_EQ(Count(*html, kStallFill), 4u);  // both plots: the interval and the legend's swatch
}

TEST(TimelinePlot, RsvgConvertAcceptsIt) {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) GTEST_SKIP() << "rsvg-convert not installed";
  std::string in = ::testing::TempDir() + "timeline_plot.svg";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << RenderTimelinePlot(WithIntervals());
  std::string cmd = "rsvg-convert -f png -o '" + in + ".png' '" + in + "' 2>'" + in + ".err'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream err_in(in + ".err");
  std::stringstream err;
  err << err_in.rdbuf();
  EXPECT_TRUE(err.str().empty()) << err.str();
}

}  // namespace
}  // namespace fvbench::timeline_plot_test
