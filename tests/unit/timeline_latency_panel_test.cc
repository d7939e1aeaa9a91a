// The timeline's latency panel (support/report/timeline_latency_panel.h): a
// point per interval for p50, p99 and max of a k6 series, none for wrk's,
// gaps where an interval had no request, hollow markers with a tooltip for
// values censored at the timeout, the stalls shaded, and the same panel from
// a result read back from its JSON as from the one in memory, and
// rsvg-convert accepting it.
#include "support/report/timeline_latency_panel.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "support/core/interval_latency.h"
#include "support/core/latency_histogram.h"
#include "support/report/results_io.h"
#include "support/report/timeline_plot.h"
#include "tests/unit/report_samples.h"
#include "tests/unit/timeline_svg.h"

namespace fvbench::timeline_latency_panel_test {
namespace {

using testing_samples::Count;
using testing_samples::SampleLatency;
using testing_samples::Section;
using testing_samples::StallRects;

// Filled and hollow markers of each line, as svg_writer.h's Marker writes them.
constexpr const char* kP50Filled = R"(fill="#0072B2" stroke="#0072B2")";
constexpr const char* kP99Filled = R"(fill="#D55E00" stroke="#D55E00")";
constexpr const char* kP99Hollow = R"(fill="#ffffff" stroke="#D55E00")";
constexpr const char* kMaxFilled = R"(fill="#555555" stroke="#555555")";
constexpr const char* kMaxHollow = R"(fill="#ffffff" stroke="#555555")";
constexpr const char* kXTitle = ">seconds from the phase&apos;s start</text>";

// A k6 phase (several instances) at 100 RPS in 1 s intervals, 10
// intervals: 98 responses each between 200 x (i + 1) + 10 and + 980 µs,
// none in interval 4 (4-5 s), and in interval 6 two requests timed out at
// 60 s besides (p99 and max censored there).
ScenarioResult K6Phase() {
  ScenarioResult r = SampleLatency("latency.decision_service", 300, 2000);
  r.load.engine = "k6";
  r.load.target_rps = 100;
  IntervalSeries& s = r.load.intervals;
  s.start_epoch_us = 1772600000e6;
  s.width_us = 1e6;
  s.sends_counted = false;
  for (int i = 0; i < 10; ++i) {
    LatencyHistogram h;
    if (i != 4) {
      for (int k = 1; k <= 98; ++k) h.RecordUs(200.0 * (i + 1) + 10.0 * k);
    }
    if (i == 6) {
      EXPECT_TRUE(h.RecordTimeouts(2, 60e6).ok());
    }
    s.latency.push_back(IntervalLatencyOf(h));
    s.completed.push_back(h.recorded());
    s.non_2xx.push_back(i == 6 ? 1 : 0);
  }
  s.scheduled = s.sent = s.late_10ms = std::vector<uint64_t>(10, 0);
  return r;
}

TEST(TimelineLatencyPanel, APointPerIntervalForEachLine) {
  const ScenarioResult r = K6Phase();
  const std::string svg = RenderTimelinePlot(r);
  const std::string panel = Section(svg, "latency panel");
  ASSERT_FALSE(panel.empty()) << svg;
  // 9 intervals with requests; each line's legend marker besides. Interval
  // 6's p99 and max are hollow (censored), the legend's hollow circle too.
  EXPECT_EQ(Count(panel, kP50Filled), 9u + 1u);
  EXPECT_EQ(Count(panel, kP99Filled), 8u + 1u);
  EXPECT_EQ(Count(panel, kP99Hollow), 1u);
  EXPECT_EQ(Count(panel, kMaxFilled), 8u + 1u);
  EXPECT_EQ(Count(panel, kMaxHollow), 1u + 1u);
  // p50 at interval 3's middle (3.5 s of 10: x 84 + 0.35 x 476 = 250.6).
  EXPECT_NE(panel.find(R"(<circle cx="250.6")"), std::string::npos) << panel;
  // A log axis labelled in durations: 690 µs .. 60 s.
  EXPECT_NE(panel.find(">latency (log scale)</text>"), std::string::npos);
  for (const char* tick : {">1 ms</text>", ">10 ms</text>", ">1 s</text>", ">10 s</text>"}) {
    EXPECT_NE(panel.find(tick), std::string::npos) << tick;
  }
  EXPECT_NE(panel.find(">p99 per interval</text>"), std::string::npos);
  // Under the counts, the x title under it (no SUT panel).
  EXPECT_LT(svg.find(">per second (requests)</text>"), svg.find("<!-- latency panel"));
  EXPECT_EQ(Count(svg, kXTitle), 1u);
  EXPECT_NE(panel.find(kXTitle), std::string::npos);
  EXPECT_NE(svg.find("Latency panel: p50, p99 and max"), std::string::npos);
  EXPECT_EQ(svg.find("NaN"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(RenderTimelinePlot(r), svg);  // deterministic
}

TEST(TimelineLatencyPanel, NoneForWrk) {
  ScenarioResult r = K6Phase();
  IntervalSeries& s = r.load.intervals;
  r.load.engine = "wrk";
  s.sends_counted = true;
  s.latency.clear();
  s.non_2xx.clear();
  s.scheduled = s.sent = std::vector<uint64_t>(10, 100);
  const std::string svg = RenderTimelinePlot(r);
  EXPECT_FALSE(HasLatencyPanel(s));
  EXPECT_EQ(svg.find("latency panel"), std::string::npos);
  EXPECT_EQ(svg.find("Latency panel"), std::string::npos);
  EXPECT_EQ(svg.find("(log scale)"), std::string::npos);
  EXPECT_EQ(Count(svg, kXTitle), 1u);  // under the counts
}

TEST(TimelineLatencyPanel, AnIntervalWithoutRequestsIsAGap) {
  const std::string panel = Section(RenderTimelinePlot(K6Phase()), "latency panel");
  // Interval 4 (middle 4.5 s: x 298.2) has no point; each line breaks there.
  EXPECT_EQ(panel.find(R"(<circle cx="298.2")"), std::string::npos) << panel;
  EXPECT_EQ(panel.find("298.2,"), std::string::npos) << panel;
  EXPECT_EQ(Count(panel, "<polyline"), 3u * 2u);
  EXPECT_NE(panel.find("1 interval without a request left blank"), std::string::npos);
  // Timeouts alone are requests: a point, not a gap.
  ScenarioResult r = K6Phase();
  r.load.intervals.latency[4].timeouts = 2;
  r.load.intervals.latency[4].timeout_us = 60e6;
  const std::string timeouts_only = Section(RenderTimelinePlot(r), "latency panel");
  EXPECT_EQ(Count(timeouts_only, "<polyline"), 3u);
  EXPECT_EQ(timeouts_only.find("left blank"), std::string::npos);
}

TEST(TimelineLatencyPanel, CensoredValuesAreHollowWithATooltip) {
  const std::string panel = Section(RenderTimelinePlot(K6Phase()), "latency panel");
  EXPECT_NE(panel.find("<title>6-7 s: p99 &gt;= 60 s (a lower bound: 2 requests timed out)</title>"),
            std::string::npos)
      << panel;
  EXPECT_NE(panel.find("<title>6-7 s: max &gt;= 60 s (a lower bound: 2 requests timed out)</title>"),
            std::string::npos);
  EXPECT_EQ(panel.find("6-7 s: p50"), std::string::npos);  // p50 is measured
  EXPECT_NE(panel.find(">hollow: at least (timeouts)</text>"), std::string::npos);
  EXPECT_NE(panel.find("2 values hollow: at the request timeout, a lower bound"), std::string::npos);
}

TEST(TimelineLatencyPanel, StallsShadedAsInTheCounts) {
  // A series that counted its sends (as wrk's) with latency per interval:
  // interval 4's slots fell due and nothing completed, a stall.
  ScenarioResult r = K6Phase();
  IntervalSeries& s = r.load.intervals;
  s.sends_counted = true;
  s.scheduled = s.sent = std::vector<uint64_t>(10, 100);
  const std::string svg = RenderTimelinePlot(r);
  EXPECT_EQ(StallRects(svg).size(), 3u);  // the counts, the panel, the legend's swatch
  const std::string panel = Section(svg, "latency panel");
  ASSERT_EQ(StallRects(panel).size(), 1u) << panel;
  EXPECT_NEAR(StallRects(panel)[0].first, 274.4, 0.05);
}

TEST(TimelineLatencyPanel, ReadBackDrawsTheSamePanel) {
  const ScenarioResult r = K6Phase();
  auto back = ScenarioResultFromJson(ScenarioResultToJson(r), "r.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const IntervalSeries& s = back->load.intervals;
  EXPECT_TRUE(s.latency.empty());
  ASSERT_TRUE(HasLatencyPanel(s));
  const std::string svg = RenderTimelinePlot(r);
  ASSERT_FALSE(Section(svg, "latency panel").empty());
  EXPECT_EQ(RenderTimelinePlot(*back), svg);
}

TEST(TimelineLatencyPanel, RsvgConvertAcceptsIt) {
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0) GTEST_SKIP() << "rsvg-convert not installed";
  const std::string in = ::testing::TempDir() + "timeline_latency_panel.svg";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << RenderTimelinePlot(K6Phase());
  const std::string cmd = "rsvg-convert -f png -o '" + in + ".png' '" + in + "' 2>'" + in + ".err'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream err_in(in + ".err");
  std::stringstream err;
  err << err_in.rdbuf();
  EXPECT_TRUE(err.str().empty()) << err.str();
}

TEST(TimelineLatencyPanel, ImplausibleValuesDrawNoNaN) {
  // As read back: a 0 and a latency beyond the axis's 10^12 µs.
  ScenarioResult r = K6Phase();
  IntervalSeries& s = r.load.intervals;
  s.latency_read = IntervalLatencySummaries(s);
  s.timeouts_read = IntervalTimeouts(s);
  s.latency.clear();
  s.latency_read[0].p50 = 0;
  s.latency_read[1].max = 1e15;
  const std::string panel = Section(RenderTimelinePlot(r), "latency panel");
  ASSERT_FALSE(panel.empty());
  EXPECT_EQ(Count(panel, kP50Filled), 8u + 1u);  // the 0 is not drawn
  EXPECT_EQ(panel.find("NaN"), std::string::npos);
  EXPECT_EQ(panel.find("nan"), std::string::npos);
}

}  // namespace
}  // namespace fvbench::timeline_latency_panel_test
