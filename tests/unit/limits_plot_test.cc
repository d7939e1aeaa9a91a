// The limits plots (support/report/limits_plot.h): golden files, and the
// properties they are meant to show asserted directly (the series per phase,
// the allowed and rate lines with their labels, the axis titles), escaping,
// bounded output for many keys, results without the series, and
// rsvg-convert accepting them. FVBENCH_UPDATE_GOLDEN=1 rewrites the golden
// files (fixtures/golden/plot_limits_*.svg).
#include "support/report/limits_plot.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/report/markdown_report.h"
#include "support/report/svg_plot.h"
#include "tests/unit/golden.h"
#include "tests/unit/report_samples.h"

namespace fvbench::limits_plot_test {
namespace {

using testing_samples::SampleLimits;
using testing_samples::SampleMeta;
using testing_samples::SampleRun;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// Points of each polyline, in order.
std::vector<size_t> PolylinePoints(const std::string& svg) {
  static const std::regex poly(R"re(<polyline points="([^"]*)")re");
  std::vector<size_t> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), poly), end; it != end; ++it) {
    const std::string pts = (*it)[1].str();
    out.push_back(static_cast<size_t>(std::count(pts.begin(), pts.end(), ',')));
  }
  return out;
}

TEST(LimitsPlot, GoldenFiles) {
  std::vector<ScenarioResult> run = SampleRun();
  run.push_back(SampleLimits());
  const std::vector<PlotFile> files = RenderLimitsPlots(run);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "limits_accuracy_per_key.svg");
  EXPECT_EQ(files[1].name, "limits_accuracy_per_second.svg");
  for (const PlotFile& f : files) {
    SCOPED_TRACE(f.name);
    testing_golden::CompareGolden("plot_" + f.name, f.svg, " and look at the plots");
  }
  // Part of every run's plots, after the six's; none without a limits result.
  const std::vector<PlotFile> all = RenderPlots(run, SampleMeta(), nullptr);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[4].name, files[0].name);
  EXPECT_EQ(all[5].svg, files[1].svg);
  EXPECT_EQ(RenderPlots(SampleRun(), SampleMeta(), nullptr).size(), 4u);
  EXPECT_TRUE(RenderLimitsPlots(SampleRun()).empty());
}

TEST(LimitsPlot, PerKeyShowsEachPhaseAgainstAllowedAndFloor) {
  const std::string svg = RenderLimitsPerKeyPlot(SampleLimits());
  EXPECT_EQ(PolylinePoints(svg), (std::vector<size_t>{6, 6}));  // one line per phase, a point per key
  EXPECT_NE(svg.find(">allowed 115 (2 workers)<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">allowed 115 (1 worker)<"), std::string::npos);
  EXPECT_NE(svg.find(">floor 75 (2 workers)<"), std::string::npos);
  EXPECT_EQ(Count(svg, "stroke-dasharray=\"7 4\""), 3u);  // two allowed lines and the legend's
  EXPECT_NE(svg.find(">keys, by admitted (rank)<"), std::string::npos);
  EXPECT_NE(svg.find(">admitted in the phase&apos;s window (requests)<"), std::string::npos);
  EXPECT_NE(svg.find(">2 workers: 6 keys over, 0 under<"), std::string::npos);
  EXPECT_NE(svg.find("token bucket per key: 10 tokens/s, burst 20; 6 keys"), std::string::npos);
  // The most admitted (230) is on the scale: a tick at 250 at least.
  EXPECT_NE(svg.find(">250<"), std::string::npos);
}

// A key sweep (limits.keys) names its phases by their key counts, not by
// the workers they share.
TEST(LimitsPlot, KeySweepNamesPhasesByKeys) {
  ScenarioResult r = SampleLimits();
  r.id = "limits.keys";
  r.limits[0].accuracy.keys_planned = 10;
  r.limits[1].accuracy.keys_planned = 1000;
  r.key_sweep = {{10, 10, std::nullopt, std::nullopt}, {1000, 10, std::nullopt, std::nullopt}};
  const std::string svg = RenderLimitsPerKeyPlot(r);
  EXPECT_NE(svg.find(">10 keys: 6 keys over, 0 under<"), std::string::npos) << svg;
  EXPECT_NE(svg.find("(1000 keys)<"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("workers"), std::string::npos) << svg;
  EXPECT_NE(svg.find("burst 20; 10 to 1000 keys"), std::string::npos) << svg;
}

TEST(LimitsPlot, PerSecondShowsEachPhaseAgainstKeysTimesRate) {
  const std::string svg = RenderLimitsPerSecondPlot(SampleLimits());
  EXPECT_EQ(PolylinePoints(svg), (std::vector<size_t>{10, 10}));
  EXPECT_NE(svg.find(">keys × rate: 60/s<"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">keys × (rate + burst): 180 in 1 s<"), std::string::npos);
  EXPECT_EQ(Count(svg, ">keys × rate: 60/s<"), 1u);  // the same bucket and keys: drawn once
  EXPECT_NE(svg.find(">seconds from the phase&apos;s first log line<"), std::string::npos);
  EXPECT_NE(svg.find(">admitted per second, all keys (requests)<"), std::string::npos);
  EXPECT_NE(svg.find("2 workers: the last point is 0.50 s, not a whole second (the log&apos;s window is 9.50 s)"), std::string::npos);
  EXPECT_NE(svg.find(">1 worker: 672 admitted in 9.5 s<"), std::string::npos);
}

TEST(LimitsPlot, EscapesTextAndWithoutSeriesSaysSo) {
  ScenarioResult r = SampleLimits();
  r.id = "limits.<x>&\"y\"";
  r.limits[0].workers = 0;
  r.limits[0].phase = "p<1>";
  r.limits[1].accuracy.admitted_per_key.clear();
  r.limits[1].accuracy.admitted_per_second.clear();
  const std::string keys = RenderLimitsPerKeyPlot(r);
  EXPECT_NE(keys.find("Admitted per key: limits.&lt;x&gt;&amp;&quot;y&quot;"), std::string::npos) << keys;
  EXPECT_NE(keys.find(">allowed 115 (p&lt;1&gt;)<"), std::string::npos);
  EXPECT_EQ(keys.find("<x>"), std::string::npos);
  EXPECT_EQ(PolylinePoints(keys).size(), 1u);
  EXPECT_NE(keys.find("1 worker: no per-key counts in this result (written before they were kept)"),
            std::string::npos);
  const std::string seconds = RenderLimitsPerSecondPlot(r);
  EXPECT_NE(seconds.find("1 worker: no per-second counts in this result"), std::string::npos) << seconds;
  EXPECT_EQ(PolylinePoints(seconds).size(), 1u);
  ScenarioResult none;
  none.id = "limits.accuracy";
  EXPECT_TRUE(LimitsPlotFiles(none).empty());
  EXPECT_NE(RenderLimitsPerKeyPlot(none).find("no limits phase in this result"), std::string::npos);
}

// LIMITS_KEYS' largest: the per-key line is drawn at 1000 ranks, the first
// and the last among them, so the file stays small.
TEST(LimitsPlot, ManyKeysAreDrawnAtAThousandRanks) {
  ScenarioResult r = SampleLimits();
  r.limits.resize(1);
  std::vector<uint64_t>& keys = r.limits[0].accuracy.admitted_per_key;
  keys.clear();
  for (uint64_t i = 0; i < 100000; ++i) keys.push_back(100 + i / 1000);
  r.limits[0].accuracy.keys_planned = 100000;
  const std::string svg = RenderLimitsPerKeyPlot(r);
  EXPECT_EQ(PolylinePoints(svg), (std::vector<size_t>{1000}));
  EXPECT_LT(svg.size(), 40000u);
  EXPECT_NE(svg.find("2 workers: 100000 keys, 1000 ranks spread evenly drawn"), std::string::npos);
  EXPECT_EQ(Count(svg, "<circle"), 1u);  // the legend's: no markers on a dense line
}

TEST(LimitsPlot, ReportLinksThePlotsFromItsSection) {
  std::vector<ScenarioResult> run = SampleRun();
  run.push_back(SampleLimits());
  const std::vector<std::string> files = PlotFilesOfRun(run);
  ASSERT_EQ(files.size(), PlotFilesOfRun(SampleRun()).size() + 2);  // after the six's
  EXPECT_EQ(files[files.size() - 2], "limits_accuracy_per_key.svg");
  EXPECT_EQ(files.back(), "limits_accuracy_per_second.svg");
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  const size_t section = md.find("### Limiter accuracy: limits.accuracy");
  const size_t link = md.find("[limits_accuracy_per_key.svg](limits_accuracy_per_key.svg)");
  ASSERT_NE(section, std::string::npos) << md;
  ASSERT_NE(link, std::string::npos) << md;
  EXPECT_GT(link, section);
  EXPECT_EQ(Count(md, "(limits_accuracy_per_second.svg)"), 1u) << md;  // not again in the plots line
  EXPECT_NE(md.find("Plots beside this file: [latency.svg](latency.svg)"), std::string::npos);
}

bool HaveRsvg() { return std::system("command -v rsvg-convert >/dev/null 2>&1") == 0; }

TEST(LimitsPlot, RsvgConvertAcceptsThem) {
  if (!HaveRsvg()) GTEST_SKIP() << "rsvg-convert not installed (apt-get install librsvg2-bin); not checked";
  ScenarioResult odd = SampleLimits();
  odd.id = "limits.\"<&>\"\x01";
  odd.limits[1].accuracy.admitted_per_second.clear();
  int n = 0;
  for (const PlotFile& f : RenderLimitsPlots({SampleLimits(), odd})) {
    const std::string in = ::testing::TempDir() + "limits_plot_" + std::to_string(n++) + ".svg";
    std::ofstream(in, std::ios::binary | std::ios::trunc) << f.svg;
    const std::string cmd = "rsvg-convert -f png -o '" + in + ".png' '" + in + "' 2>'" + in + ".err'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << f.name;
    std::ifstream err_in(in + ".err");
    std::stringstream err;
    err << err_in.rdbuf();
    EXPECT_TRUE(err.str().empty()) << f.name << ": " << err.str();
  }
}

}  // namespace
}  // namespace fvbench::limits_plot_test
