// The steps timeline (support/report/steps_timeline_plot.h): each search
// step drawn at its own start on one time axis, a stall in a step that
// passed on its totals shaded and named, steps without counts listed and not
// drawn, no file when no step has counts, its place in the run's plots, in
// report.md's list and in report.html; and the judge's StalledIntervals it
// reads.
#include "support/report/steps_timeline_plot.h"

#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "support/judge/interval_checks.h"
#include "support/report/html_report.h"
#include "support/report/markdown_report.h"
#include "support/report/svg_plot.h"
#include "tests/unit/report_samples.h"
#include "tests/unit/timeline_svg.h"

namespace fvbench::steps_timeline_plot_test {
namespace {

using testing_samples::Count;
using testing_samples::SampleMeta;
using testing_samples::StallRects;
using testing_samples::SampleRun;
using testing_samples::SampleThroughput;

// `n` intervals of 1 s at `rps`, every slot completed, starting at t_s
// seconds after 1772600000 s.
IntervalSeries Series(double t_s, size_t n, uint64_t rps) {
  IntervalSeries s;
  s.start_epoch_us = (1772600000.0 + t_s) * 1e6;
  s.width_us = 1e6;
  s.scheduled.assign(n, rps);
  s.sent.assign(n, rps);
  s.completed.assign(n, rps);
  s.late_10ms.assign(n, 0);
  return s;
}

// Three steps of 5 s at 500, 1000 and 2000 RPS, starting at 0, 10 and 20 s;
// the second passed on its totals but completed nothing in its 3-4 s.
ScenarioResult Search() {
  ScenarioResult r = SampleThroughput("throughput.simple", {500, 1000, 1900}, 0, false);
  EXPECT_EQ(r.steps.size(), 3u);
  const double targets[] = {500, 1000, 2000};
  for (size_t k = 0; k < r.steps.size(); ++k) {
    StepResult& s = r.steps[k];
    s.target_rps = targets[k];
    s.load.target_rps = targets[k];
    s.load.intervals = Series(10.0 * static_cast<double>(k), 5, static_cast<uint64_t>(targets[k]));
    s.role = k == 2 ? "bisect" : "bracket";
  }
  for (StepResult& s : r.steps) s.load.duration_s = 4.5;  // the series' last interval partial
  r.steps[1].passed = true;
  r.steps[1].load.intervals.completed[3] = 0;
  r.steps[1].load.intervals.completed[4] = 2000;
  return r;
}



TEST(StalledIntervals, TheJudgesStallsByIndex) {
  LoadResult l;
  l.target_rps = 100;
  l.intervals = Series(0, 6, 100);
  EXPECT_TRUE(StalledIntervals(l).empty());
  l.intervals.completed[2] = 0;
  l.intervals.completed[5] = 0;
  l.intervals.scheduled[5] = 10;  // partial: fewer than half a full interval's slots, not judged
  EXPECT_EQ(StalledIntervals(l), std::vector<size_t>{2});
  l.target_rps = 1;  // under 2 slots an interval: nothing judged
  EXPECT_TRUE(StalledIntervals(l).empty());
  EXPECT_TRUE(StalledIntervals(LoadResult{}).empty());
}

// The x of each step's start rule (the dashed grey line over the frame).
std::vector<double> StepRules(const std::string& svg) {
  static const std::regex line(R"re(<line x1="([-0-9.]+)" y1="78.0" x2="[-0-9.]+" y2="388.0" stroke="#999999")re");
  std::vector<double> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), line), end; it != end; ++it) out.push_back(std::stod((*it)[1].str()));
  return out;
}

TEST(StepsTimelinePlot, StepsEndToEndPausesCutAndTheStallOfAPassedStep) {
  const ScenarioResult r = Search();
  EXPECT_EQ(StepsTimelinePlotFile(r), "steps_timeline_throughput_simple.svg");
  const std::string svg = RenderStepsTimelinePlot(r);
  // 15 s of load; gaps of 2 % of it (0.3 s): steps at 0, 5.3 and 10.6 s of
  // an axis of 0..16 (ticks of 2), frame x 84..560: 476 px for 16 s.
  auto px = [](double s) { return 84 + s / 16 * 476; };
  const std::vector<double> rules = StepRules(svg);
  ASSERT_EQ(rules.size(), 3u) << svg;
  EXPECT_NEAR(rules[0], px(0), 0.051);
  EXPECT_NEAR(rules[1], px(5.3), 0.051);
  EXPECT_NEAR(rules[2], px(10.6), 0.051);
  // Step 2's interval 3 shaded (plus the legend's swatch).
  const auto rects = StallRects(svg);
  ASSERT_EQ(rects.size(), 2u) << svg;
  EXPECT_NEAR(rects[0].first, px(8.3), 0.051);  // written to 0.1 px
  EXPECT_NEAR(rects[0].second, 476.0 / 16, 0.051);
  EXPECT_NE(svg.find("<title>step 2 stall 3-4 s of the step: 0 of 1000 scheduled completed</title>"),
            std::string::npos);
  // The real pauses: each step started 10 s after the previous one's start,
  // 5.5 s after its 4.5 s of load ended (not 5 s after its series' end).
  EXPECT_NE(svg.find("2. bracket, 1000 RPS: PASS; stall 3-4 s (passed on its totals); after a pause of 5.5 s"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("1. bracket, 500 RPS: FAIL; no stall<"), std::string::npos);
  EXPECT_NE(svg.find("3. bisect, 2000 RPS: PASS; no stall; after a pause of 5.5 s"), std::string::npos);
  EXPECT_NE(svg.find("3 steps drawn of 3; 1 stalled interval"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 6u);  // two lines per step
  EXPECT_NE(svg.find(">seconds of load, steps end to end (the pauses between them cut out)</text>"),
            std::string::npos);
  // The top is the 2000 completed in step 2's last interval.
  EXPECT_NE(svg.find(">2000</text>"), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
  EXPECT_EQ(svg, RenderStepsTimelinePlot(r));  // deterministic
}

TEST(StepsTimelinePlot, AStepWithoutCountsIsListedNotDrawn) {
  ScenarioResult r = Search();
  r.steps[0].load.intervals = IntervalSeries{};
  const std::string svg = RenderStepsTimelinePlot(r);
  EXPECT_NE(svg.find("1. bracket, 500 RPS: FAIL; no counts per interval<"), std::string::npos);
  // The first drawn step has no pause before it.
  EXPECT_NE(svg.find("2. bracket, 1000 RPS: PASS; stall 3-4 s (passed on its totals)<"), std::string::npos);
  EXPECT_NE(svg.find("2 steps drawn of 3"), std::string::npos);
  EXPECT_EQ(Count(svg, "<polyline"), 4u);
  // 10 s of load, a gap of 0.2 s: step 2's 3-4 s is at 3 s of an axis of 0..12 (ticks of 2).
  const auto rects = StallRects(svg);
  ASSERT_EQ(rects.size(), 2u);
  EXPECT_NEAR(rects[0].first, 84 + 3.0 / 12 * 476, 0.051);  // written to 0.1 px
  EXPECT_EQ(StepRules(svg).size(), 2u);
}

TEST(StepsTimelinePlot, SendsNotCountedDrawCompletedOnly) {
  ScenarioResult r = Search();
  for (StepResult& s : r.steps) {
    s.load.intervals.sends_counted = false;
    s.load.intervals.scheduled.assign(5, 0);
  }
  const std::string svg = RenderStepsTimelinePlot(r);
  EXPECT_EQ(Count(svg, "<polyline"), 3u);  // completed only, one per step
  // judged against k6's schedule (the step's rate x 1 s due in each interval
  // inside its 4.5 s): step 2's 3-4 s, and the legend's swatch
  EXPECT_EQ(StallRects(svg).size(), 2u);
  EXPECT_NE(svg.find("2. bracket, 1000 RPS: PASS; stall 3-4 s (passed on its totals)"), std::string::npos);
  EXPECT_NE(svg.find("<title>step 2 stall 3-4 s of the step: 0 of 1000 due completed</title>"), std::string::npos)
      << svg;
  // without a step's duration no interval is known to lie inside it
  r.steps[1].load.duration_s = 0;
  const std::string unknown = RenderStepsTimelinePlot(r);
  EXPECT_TRUE(StallRects(unknown).size() == 1u);
  EXPECT_NE(unknown.find("2. bracket, 1000 RPS: PASS; stalls not judged (k6: the phase&apos;s duration is not known)"),
            std::string::npos);
}

TEST(StepsTimelinePlot, NoCountsNoFile) {
  ScenarioResult r = Search();
  for (StepResult& s : r.steps) s.load.intervals = IntervalSeries{};
  EXPECT_EQ(StepsTimelinePlotFile(r), "");
  EXPECT_NE(RenderStepsTimelinePlot(r).find("no step of this result carries counts per interval"), std::string::npos);
  const std::vector<ScenarioResult> run = SampleRun();  // k6: no intervals
  EXPECT_TRUE(RenderStepsTimelinePlots(run).empty());
  for (const std::string& f : PlotFilesOfRun(run)) EXPECT_EQ(f.rfind("steps_timeline_", 0), std::string::npos) << f;
}

TEST(StepsTimelinePlot, ListedWithTheRunsPlotsAndDrawnInTheHtml) {
  std::vector<ScenarioResult> run = SampleRun();
  size_t at = run.size();
  for (size_t i = 0; i < run.size(); ++i) {
    if (run[i].id == "throughput.simple") at = i;
  }
  ASSERT_LT(at, run.size());
  run[at] = Search();
  const std::vector<std::string> files = PlotFilesOfRun(run);
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(files.back(), "steps_timeline_throughput_simple.svg");
  std::map<std::string, std::string> svgs;
  for (const PlotFile& f : RenderPlots(run, SampleMeta(), nullptr)) svgs[f.name] = f.svg;
  ASSERT_EQ(svgs.count("steps_timeline_throughput_simple.svg"), 1u);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_NE(md.find("[steps_timeline_throughput_simple.svg](steps_timeline_throughput_simple.svg) (every search "
                    "step per interval"),
            std::string::npos)
      << md;
  auto html = RenderHtmlReport(md, svgs, "t");
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_NE(html->find("Search steps over time: throughput.simple"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::steps_timeline_plot_test
