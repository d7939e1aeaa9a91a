// Reading a history (support/history): the trend plots, the report section,
// the in-memory "with this run" history and commit order. Histories are
// perturbed copies of a real run (history_samples.h), built in memory.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/history/environment_history.h"
#include "support/history/history_report.h"
#include "support/history/render.h"
#include "support/history/trend_plot.h"
#include "tests/unit/history_samples.h"

namespace fvbench::history_render_test {
namespace {

using namespace history_samples;

// runs 0..n-1 in memory; decision_service p99 x factor from slow_from on.
History MemoryHistory(int runs, int slow_from, double factor, uint64_t seed = 5) {
  History h;
  detection_study::Rng rng(seed);
  for (int i = 0; i < runs; ++i) {
    auto rec = RunRecordFromResultsJson(PerturbedRun(i, rng, slow_from, factor), fmt::format("run{}.json", i));
    EXPECT_TRUE(rec.ok()) << rec.error().message;
    if (rec.ok()) WithRun(h, *rec);
  }
  return h;
}

const MetricSeries& Find(const std::vector<MetricSeries>& series, const std::string& scenario,
                         const std::string& metric) {
  auto it = std::find_if(series.begin(), series.end(),
                         [&](const MetricSeries& s) { return s.scenario == scenario && s.metric == metric; });
  EXPECT_NE(it, series.end()) << scenario << " " << metric;
  return *it;
}

TEST(HistoryRender, TrendPlotMarksTheChangePointWithCommitsAndP) {
  auto series = BuildSeries(MemoryHistory(40, 30, 1.10));
  const MetricSeries& p99 = Find(series, "latency.decision_service", "p99_us");
  ASSERT_FALSE(p99.change_points.empty());
  const size_t at = p99.change_points.back().index;
  EXPECT_EQ(at, 30u);
  std::string svg = RenderTrendPlot(series, "latency.decision_service");
  ASSERT_FALSE(svg.empty());
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("p99_us (40 runs, "), std::string::npos);
  // The label names both commits (12 digits) and the p-value.
  EXPECT_NE(svg.find(fmt::format("#30 {} -&gt; {} +", Commit(29).substr(0, 12), Commit(30).substr(0, 12))),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("p=0.00"), std::string::npos);
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg, RenderTrendPlot(series, "latency.decision_service"));  // deterministic
  EXPECT_EQ(RenderTrendPlot(series, "no.such.scenario"), "");
  // One panel per metric of the scenario.
  size_t panels = 0;
  for (const MetricSeries& s : series) panels += s.scenario == "latency.decision_service";
  size_t rects = 0;
  for (size_t p = svg.find("stroke=\"#888\""); p != std::string::npos; p = svg.find("stroke=\"#888\"", p + 1)) ++rects;
  EXPECT_EQ(rects, panels);
}

TEST(HistoryRender, ReportSectionNamesTheRegressionAndLinksEachPlot) {
  auto series = BuildSeries(MemoryHistory(40, 35, 1.08));
  HistoryReport r = RenderHistoryReport(series, GateOptions{}, "/tmp/h.sqlite");
  ASSERT_EQ(r.regressions.size(), 1u) << r.markdown;
  EXPECT_EQ(r.regressions[0].metric, "p99_us");
  EXPECT_NE(r.markdown.find("**1 regression(s)**"), std::string::npos) << r.markdown;
  EXPECT_NE(r.markdown.find("latency.decision_service p99_us: +"), std::string::npos);
  EXPECT_NE(r.markdown.find(Commit(34)), std::string::npos);
  EXPECT_NE(r.markdown.find(Commit(35)), std::string::npos);
  for (const PlotFile& f : r.plots) EXPECT_NE(r.markdown.find("](" + f.name + ")"), std::string::npos) << f.name;
  EXPECT_EQ(r.plots.front().name, "history_" + series.front().scenario + ".svg");

  HistoryReport quiet = RenderHistoryReport(BuildSeries(MemoryHistory(40, -1, 1.0)), GateOptions{}, "x");
  EXPECT_TRUE(quiet.regressions.empty());
  EXPECT_NE(quiet.markdown.find("No significant change for the worse"), std::string::npos);
}

// decision_service p99 x 1.08 from run 35 on; the kernel changes at run 35
// (`kernel_from`) or not at all (-1). In memory, run i has id i + 1.
History KernelHistory(int kernel_from) {
  History h;
  detection_study::Rng rng(5);
  for (int i = 0; i < 40; ++i) {
    auto rec = RunRecordFromResultsJson(RunOnKernel(i, rng, 35, 1.08, kernel_from), fmt::format("run{}.json", i));
    EXPECT_TRUE(rec.ok()) << rec.error().message;
    if (rec.ok()) WithRun(h, *rec);
  }
  return h;
}

TEST(HistoryRender, AChangePointWhereTheEnvironmentChangedNamesWhatChanged) {
  const History h = KernelHistory(35);
  const auto series = BuildSeries(h);
  const std::string note =
      "environment changed between runs 35 and 36: sut+loadgen local: kernel_release 6.1.0-18 -> 6.8.0-31";
  const std::string shown = ShowSeries(series, 20, &h);
  EXPECT_NE(shown.find("  change at #35 (run 36"), std::string::npos) << shown;
  EXPECT_NE(shown.find("    " + note + "\n"), std::string::npos) << shown;
  EXPECT_EQ(ShowSeries(series, 20).find("environment changed"), std::string::npos) << "without the history: as before";
  auto found = FindRegressions(series);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(DescribeRegression(found[0], Find(series, "latency.decision_service", "p99_us"), &h).find("; " + note),
            std::string::npos);
  HistoryReport r = RenderHistoryReport(series, GateOptions{}, "x", &h);
  EXPECT_NE(r.markdown.find("environment changed between runs 35 and 36"), std::string::npos) << r.markdown;
  EXPECT_NE(EnvironmentDigest(h.environments.at(35)), EnvironmentDigest(h.environments.at(36)));
  EXPECT_EQ(EnvironmentDigest(h.environments.at(1)), EnvironmentDigest(h.environments.at(35)));
  EXPECT_EQ(EnvironmentDigest(h.environments.at(1)).size(), 64u);
}

TEST(HistoryRender, TheSameHistoryOnOneKernelNamesNothing) {
  const History h = KernelHistory(-1);
  const auto series = BuildSeries(h);
  ASSERT_EQ(FindRegressions(series).size(), 1u) << "the change point is there";
  EXPECT_EQ(ShowSeries(series, 20, &h).find("environment changed"), std::string::npos);
  HistoryReport r = RenderHistoryReport(series, GateOptions{}, "x", &h);
  EXPECT_EQ(r.markdown.find("environment changed"), std::string::npos);
}

TEST(HistoryRender, WithRunAddsTheRunOnceAsTheNewest) {
  History h = MemoryHistory(5, -1, 1.0);
  detection_study::Rng rng(9);
  auto rec = RunRecordFromResultsJson(PerturbedRun(7, rng), "new.json");
  ASSERT_TRUE(rec.ok());
  WithRun(h, *rec);
  WithRun(h, *rec);
  ASSERT_EQ(h.runs.size(), 6u);
  EXPECT_EQ(h.runs.back().edge_commit, Commit(7));
  EXPECT_EQ(h.runs.back().id, 6);
}

// Runs recorded out of commit order (a re-run of an old commit, a backport):
// by run time the slow commits are interleaved; by commit order they are one
// block and the change point sits at the first slow commit.
TEST(HistoryRender, CommitOrderFollowsTheCommitSequence) {
  History h;
  detection_study::Rng rng(3);
  std::vector<int> recorded_order;  // commit index of each run, in recording (time) order
  for (int i = 0; i < 40; ++i) recorded_order.push_back(i % 2 == 0 ? i / 2 : 20 + i / 2);
  for (size_t t = 0; t < recorded_order.size(); ++t) {
    const int c = recorded_order[t];
    nlohmann::json d = nlohmann::json::parse(PerturbedRun(static_cast<int>(t), rng, c >= 30 ? 0 : -1, 1.10));
    d["meta"]["edge_commit"] = Commit(c) + (c == 31 ? " (dirty)" : "");
    auto rec = RunRecordFromResultsJson(d.dump(), "run.json");
    ASSERT_TRUE(rec.ok()) << rec.error().message;
    WithRun(h, *rec);
  }
  std::string list = "# edge commits, oldest first\n";
  for (int c = 0; c < 40; ++c) list += (c == 5 ? Commit(c).substr(0, 12) : Commit(c)) + "\n";
  auto commits = ParseCommitSequence(list, "commits.txt");
  ASSERT_TRUE(commits.ok()) << commits.error().message;
  ASSERT_EQ(commits->size(), 40u);
  SeriesOrder order{SeriesOrder::By::kCommit, *commits};
  const MetricSeries by_commit = Find(BuildSeries(h, {}, order), "latency.decision_service", "p99_us");
  ASSERT_EQ(by_commit.points.size(), 40u);
  EXPECT_EQ(by_commit.unordered, 0u);
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(by_commit.points[i].edge_commit.substr(0, 10), Commit(static_cast<int>(i)).substr(0, 10)) << i;
  ASSERT_EQ(by_commit.change_points.size(), 1u);
  EXPECT_EQ(by_commit.change_points[0].index, 30u);
  const MetricSeries by_time = Find(BuildSeries(h), "latency.decision_service", "p99_us");
  EXPECT_EQ(by_time.points[1].edge_commit, Commit(20));
  for (const ChangePoint& cp : by_time.change_points) EXPECT_NE(cp.index, 30u);

  // A run whose commit is not in the sequence is left out and counted.
  commits->pop_back();
  const MetricSeries partial = Find(BuildSeries(h, {}, {SeriesOrder::By::kCommit, *commits}), "latency.decision_service", "p99_us");
  EXPECT_EQ(partial.points.size(), 39u);
  EXPECT_EQ(partial.unordered, 1u);
}

TEST(HistoryRender, CommitSequenceErrorsNameTheLine) {
  auto bad = ParseCommitSequence("abcdef0\n\nnot-a-commit\n", "list.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("list.txt:3"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(ParseCommitSequence("abc\n", "l").ok());  // too short to be a commit
  auto upper = ParseCommitSequence("ABCDEF0123\n", "l");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ((*upper)[0], "abcdef0123");
  // A commit twice, or once abbreviated: which place would its runs take?
  for (const char* twice : {"abcdef0123\n1234567\nabcdef0123\n", "abcdef0123\n1234567\nABCDEF0\n"}) {
    auto dup = ParseCommitSequence(twice, "list.txt");
    ASSERT_FALSE(dup.ok()) << twice;
    EXPECT_NE(dup.error().message.find("list.txt:3: commit abcdef0"), std::string::npos) << dup.error().message;
    EXPECT_NE(dup.error().message.find("listed twice (also on line 1)"), std::string::npos) << dup.error().message;
  }
  // Two commits sharing their first 7 digits are two commits.
  auto clash = ParseCommitSequence("abcdef01\nabcdef02\n", "l");
  ASSERT_TRUE(clash.ok()) << clash.error().message;
  EXPECT_EQ(clash->size(), 2u);
}

}  // namespace
}  // namespace fvbench::history_render_test
