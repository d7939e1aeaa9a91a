// Golden-file test of the Markdown report (report.md).
//
// The expected output is fixtures/golden/report.md. After an intended change
// to the report's layout, regenerate it and review the diff:
//
//   FVBENCH_UPDATE_GOLDEN=1 ctest --test-dir <build> -R unit.MarkdownReport
//   git diff fixtures/golden/report.md
#include "support/report/markdown_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>

#include "support/report/baseline.h"
#include "support/judge/reference.h"
#include "support/report/results_io.h"
#include "support/report/svg_plot.h"
#include "tests/unit/golden.h"
#include "tests/unit/golden_run.h"
#include "tests/unit/report_samples.h"

namespace fvbench::markdown_report_test {
namespace {

using testing_samples::GoldenRun;
using testing_samples::SampleMeta;
using testing_samples::TestReference;

using testing_golden::CompareGolden;
using testing_golden::FixturesDir;

TEST(MarkdownReport, MatchesGoldenFile) {
  Reference ref = TestReference();
  std::string got = RenderMarkdownReport(GoldenRun(), SampleMeta(), &ref);
  CompareGolden("report.md", got);
}

bool Has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// What the golden file is meant to show, asserted directly so a careless
// regeneration cannot hide its loss.
TEST(MarkdownReport, ShowsVerdictsDeltasSearchAndEnvironment) {
  Reference ref = TestReference();
  std::string md = RenderMarkdownReport(GoldenRun(), SampleMeta(), &ref);
  EXPECT_TRUE(Has(md, "**FAIL** — 2 PASS, 2 FAIL, 1 INVALID of 5 scenarios run (1 not run)")) << md;
  EXPECT_TRUE(Has(md, "| latency.decision_service | FAIL | 1 check failed (p99_us) |")) << md;
  EXPECT_TRUE(Has(md, "| throughput.complex | INVALID | validity failed: loadgen_cpu |")) << md;
  EXPECT_TRUE(Has(md, "| latency.raw_nginx | PASS | — |")) << md;
  // Cells: µs / ms with the reference value and the signed delta.
  EXPECT_TRUE(Has(md, "| p50 | 304 µs (ref 112 µs, +171.4 %) | FAILED | 71 µs (ref 71 µs, +0.6 %) |")) << md;
  EXPECT_TRUE(Has(md, "2.00 ms (ref 426 µs, +369.5 %)")) << md;
  EXPECT_TRUE(Has(md, "446 µs (420 µs–1.21 ms, n=3) (ref 446 µs, +0.0 %)")) << md;  // REPEAT spread
  EXPECT_TRUE(Has(md, "| Simple rate limit (1 rule) | 99261 (ref 110500, −10.2 %) | yes | 1.0 % | 220 s | 0.00% |")) << md;
  EXPECT_TRUE(Has(md, "at least 1296 (ceiling reached) (ref ≥ 67600)")) << md;
  EXPECT_TRUE(Has(md, "| LLM token-budget policy | not run |")) << md;
  // Each search step, collapsed.
  EXPECT_TRUE(Has(md, "<details><summary>throughput.simple: 10 steps (bisect search)</summary>")) << md;
  EXPECT_TRUE(Has(md, "| 10 | confirm | 99360 | 99261 | 40 s | 950 µs | 0.00% |")) << md;
  // Checks: measured vs limit vs reference.
  EXPECT_TRUE(Has(md, "| latency.decision_service | p99_us | 2000 µs | <= 639 µs | 426 µs | **FAIL** |")) << md;
  EXPECT_TRUE(Has(md, "| throughput.complex | rps = 1296 RPS = 0.01 x throughput.simple")) << md;
  // Validity and resources.
  EXPECT_TRUE(Has(md, "| throughput.complex | **INVALID** | loadgen_cpu")) << md;
  EXPECT_TRUE(Has(md, "| throughput.complex | fv | 5 | 3.10 | 80.2 | 96.5 |")) << md;
  // Escaped cells and fenced error text.
  EXPECT_TRUE(Has(md, "not measured: fairvisor edge did not become healthy: \\`nginx -t\\` said a\\|b |")) << md;
  EXPECT_TRUE(Has(md, "  <html> in the body\n  ```")) << md;  // inside the fence, verbatim
  // Environment.
  EXPECT_TRUE(Has(md, "| Load engine | k6 v0.54.0 (go1.22.5, linux/amd64) |")) << md;
  EXPECT_TRUE(Has(md, "| CPU pinning | SUT cpuset 0-3, engine cpuset 4-7 (auto split) |")) << md;
  EXPECT_TRUE(Has(md, "| fairvisor edge | https://github.com/fairvisor/edge @ 0123456789abcdef")) << md;
}

// The machine facts per host (core/host_environment.h): a table key x
// host, "not exposed" for a value a host does not expose, every known key a
// row; absent when the meta has none (the golden meta has none).
TEST(MarkdownReport, HostEnvironmentTable) {
  RunMeta m = SampleMeta();
  EXPECT_FALSE(Has(RenderMarkdownReport(GoldenRun(), m, nullptr), "### Host environment"));
  HostEnvironment sut{"sut", "root@10.0.0.2", {}};
  sut.Set("kernel_release", "6.1.0-18-amd64");
  sut.Set("thp_enabled", "madvise");
  sut.Set("nginx_build", "nginx version: nginx/1.22.1; configure arguments: --with-cc-opt='-g | x'");
  HostEnvironment lg{"loadgen", "root@10.0.0.3", {}};
  lg.Set("kernel_release", "6.8.0");
  lg.Set("a_newer_key", "42");
  m.environments = {sut, lg};
  const std::string md = RenderMarkdownReport(GoldenRun(), m, nullptr);
  EXPECT_TRUE(Has(md, "### Host environment\n")) << md;
  EXPECT_TRUE(Has(md, "| | sut root@10.0.0.2 | loadgen root@10.0.0.3 |\n|---|---|---|\n")) << md;
  EXPECT_TRUE(Has(md, "| kernel_release | 6.1.0-18-amd64 | 6.8.0 |")) << md;
  EXPECT_TRUE(Has(md, "| thp_enabled | madvise | not exposed |")) << md;
  EXPECT_TRUE(Has(md, "| cpu_governor | not exposed | not exposed |")) << md;
  EXPECT_TRUE(Has(md, "configure arguments: --with-cc-opt='-g \\| x' | not exposed |")) << md;
  EXPECT_TRUE(Has(md, "| a_newer_key | not exposed | 42 |")) << md;
  // After the run's own environment table.
  EXPECT_LT(md.find("### Environment\n"), md.find("### Host environment")) << md;
}

TEST(MarkdownReport, UnpinnedAndNoComparison) {
  RunMeta m = SampleMeta();
  m.sut_cpuset.clear();
  m.loadgen_cpuset.clear();
  std::string md = RenderMarkdownReport(testing_samples::SampleRunAllMeasured(), m, nullptr);
  EXPECT_TRUE(Has(md, "| CPU pinning | unpinned: engine and SUT share cores |")) << md;
  EXPECT_TRUE(Has(md, "No reference or baseline: cells show measured values only.")) << md;
  EXPECT_FALSE(Has(md, "(ref ")) << md;
  EXPECT_TRUE(Has(md, "**PASS** — 6 PASS, 0 FAIL, 0 INVALID of 6 scenarios run\n")) << md;
}

// A search that ran steps and found no number: its row says why in the
// Resolution column and shows the load it used (the second fresh-user trial
// read "| FAILED | — | — | — | — |" beside "no resolution (no step passed)").
TEST(MarkdownReport, ASearchWithoutANumberSaysWhyInItsRow) {
  auto run = testing_samples::SampleRunAllMeasured();
  for (ScenarioResult& r : run) {
    if (r.id != "throughput.simple") continue;
    r.measured = false;
    r.throughput_rps = 0;
    r.error = "no step passed in 2 steps";
    r.search = "bisect";
    r.search_resolution.reset();
    r.search_load_s = 4.19;
    for (StepResult& s : r.steps) s.passed = false;
  }
  std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "| — | none (no step passed) | 4.19 s | — |")) << md;
}

TEST(MarkdownReport, EmptyRunIsNotAPass) {
  std::string md = RenderMarkdownReport({}, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "**FAIL** — 0 PASS, 0 FAIL, 0 INVALID of 0 scenarios run (6 not run) (no results")) << md;
}

// Only scenarios that were run get a plot file (the report step writes
// exactly these) and a link; `ctest -R latency` gives latency.svg only.
TEST(MarkdownReport, PlotFilesOnlyForScenariosRun) {
  auto all = testing_samples::SampleRunAllMeasured();
  std::vector<std::string> rendered;
  for (const PlotFile& f : RenderPlots(all, SampleMeta(), nullptr)) rendered.push_back(f.name);
  EXPECT_EQ(PlotFilesOfRun(all), rendered);  // the same names as RenderPlots, in its order

  std::vector<ScenarioResult> latency_only(all.begin(), all.begin() + 3);
  EXPECT_EQ(PlotFilesOfRun(latency_only), std::vector<std::string>{"latency.svg"});
  std::string md = RenderMarkdownReport(latency_only, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "Plots beside this file: [latency.svg](latency.svg) (percentile curves).\n")) << md;
  EXPECT_FALSE(Has(md, "throughput_")) << md;

  std::vector<ScenarioResult> llm_and_raw = {all[5], all[0]};  // order of results does not matter
  EXPECT_EQ(PlotFilesOfRun(llm_and_raw), (std::vector<std::string>{"latency.svg", "throughput_llm.svg"}));
  std::vector<ScenarioResult> simple_only = {all[3]};
  EXPECT_EQ(PlotFilesOfRun(simple_only), std::vector<std::string>{"throughput_simple.svg"});
  md = RenderMarkdownReport(simple_only, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "Plots beside this file: [throughput_simple.svg](throughput_simple.svg) (search steps: p99, "
                      "errors and achieved rate per target).\n"))
      << md;
  EXPECT_FALSE(Has(md, "latency.svg")) << md;

  EXPECT_TRUE(PlotFilesOfRun({}).empty());
  EXPECT_FALSE(Has(RenderMarkdownReport({}, SampleMeta(), nullptr), "Plots beside")) << "no plots, no links";
  // A scenario that failed before measuring was run: its plot says why.
  ScenarioResult failed;
  failed.id = "throughput.complex";
  failed.error = "edge did not start";
  EXPECT_EQ(PlotFilesOfRun({failed}), std::vector<std::string>{"throughput_complex.svg"});
}

TEST(MarkdownReport, BaselineNamesItselfInHeaderAndCells) {
  auto run = testing_samples::SampleRunAllMeasured();
  RunMeta meta = SampleMeta();
  auto base = ParseBaseline(RunResultsToJson(run, meta), "/runs/main/results.json");
  ASSERT_TRUE(base.ok()) << base.error().message;
  run[0].load.latency_us.p50 = 71.4 * 1.1;  // 10 % slower than the baseline
  std::string md = RenderMarkdownReport(run, meta, &*base);
  EXPECT_TRUE(Has(md, "Cells show the baseline value and the delta (measured − base) / base; baseline: "
                      "/runs/main/results.json (run started 2026-03-04T04:53:20Z, edge 0123456789ab).")) << md;
  EXPECT_TRUE(Has(md, "79 µs (base 71 µs, +10.0 %)")) << md;
  EXPECT_TRUE(Has(md, "| Baseline | /runs/main/results.json")) << md;
  EXPECT_FALSE(Has(md, "(ref ")) << md;
}

TEST(MarkdownReport, CellEscaping) {
  EXPECT_EQ(detail::MarkdownCell("a|b`c"), "a\\|b\\`c");
  EXPECT_EQ(detail::MarkdownCell("line1\nline2\n"), "line1<br>line2");
  EXPECT_EQ(detail::MarkdownCell("<= 5 and <script>"), "<= 5 and &lt;script>");
  EXPECT_EQ(detail::MarkdownCell("x\r\n"), "x");
  // Backslash first, so "\|" is a backslash and a pipe (GFM showed "prof|x.json").
  EXPECT_EQ(detail::MarkdownCell("prof\\|x.json"), "prof\\\\\\|x.json");
  EXPECT_EQ(detail::MarkdownCell("*x* [a](b) ~s~ $m$ _u_ p99_us &amp; a & b"),
            "\\*x\\* \\[a\\](b) \\~s\\~ \\$m\\$ \\_u\\_ p99_us \\&amp; a & b");
}

}  // namespace
}  // namespace fvbench::markdown_report_test

namespace fvbench::markdown_report_test {
namespace {

TEST(MarkdownReport, LimiterAccuracyTableOneColumnPerPhase) {
  std::vector<ScenarioResult> run = GoldenRun();
  EXPECT_FALSE(Has(RenderMarkdownReport(run, SampleMeta(), nullptr), "### Limiter accuracy"));
  ScenarioResult r;
  r.id = "limits.accuracy";
  r.measured = true;
  for (int workers : {2, 1}) {
    LimitRun lr;
    lr.workers = workers;
    lr.phase = "limits_accuracy_w" + std::to_string(workers);
    lr.load.latency_us = {150, 300, 900, 1500, 2000};
    LimitAccuracy& a = lr.accuracy;
    a.limit = {10, 20};
    a.keys_planned = 50;
    a.keys_seen = 50;
    a.window_s = 10;
    a.offered_rps = 2000;
    a.allowed_per_key = 120;
    a.floor_per_key = 80;
    a.admitted_min = 100;
    a.admitted_median = 110;
    a.admitted_max = workers == 2 ? 180 : 119;
    a.over_admission = workers == 2 ? 0.5 : 0;
    a.over_admission_key = workers == 2 ? "k3" : "";
    a.keys_over = workers == 2 ? 4 : 0;
    a.worst_window_admitted = workers == 2 ? 45 : 30;
    a.window_allowed = 30;
    a.worst_window_key = "k3";
    a.admitted = 5500;
    a.rejected = 14500;
    a.reject_share = 0.725;
    a.expected_reject_share = 0.7;
    r.limits.push_back(lr);
  }
  run.push_back(r);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "### Limiter accuracy: limits.accuracy\n")) << md;
  EXPECT_TRUE(Has(md, "Token bucket per key: 10 requests/s, burst 20")) << md;
  EXPECT_TRUE(Has(md, "| | 2 workers | 1 worker |\n|---|---|---|\n")) << md;
  EXPECT_TRUE(Has(md, "| keys seen / sent | 50 / 50 | 50 / 50 |")) << md;
  EXPECT_TRUE(Has(md, "| admitted per key min / median / max | 100 / 110 / 180 | 100 / 110 / 119 |")) << md;
  EXPECT_TRUE(Has(md, "| over-admission (worst key) | 50.00% (k3; 4 keys) | none |")) << md;
  EXPECT_TRUE(Has(md, "| worst 1 s window (rate + burst) | 45 of 30 (k3) | 30 of 30 (k3) |")) << md;
  EXPECT_TRUE(Has(md, "| 429 share (a correct limiter's least) | 72.50% (70.00%) |")) << md;
}

// limits.reject_cost: one column per phase, the 429 share beside the mix's
// latency, the ratios; nothing for a run without it.
TEST(MarkdownReport, RejectCostTableOneColumnPerPhase) {
  std::vector<ScenarioResult> run = GoldenRun();
  EXPECT_FALSE(Has(RenderMarkdownReport(run, SampleMeta(), nullptr), "What a rejection costs"));
  ScenarioResult r = testing_samples::SampleRejectCost();
  r.reject_cost->rejected.fv_cpu_cores = std::numeric_limits<double>::quiet_NaN();
  r.reject_cost->rejected.cpu_us_per_request = std::numeric_limits<double>::quiet_NaN();
  r.reject_cost->cpu_ratio = std::numeric_limits<double>::quiet_NaN();
  run.push_back(r);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "### What a rejection costs: limits.reject_cost\n")) << md;
  EXPECT_TRUE(Has(md, "the rejected phase's latency is that of a mix")) << md;
  EXPECT_TRUE(Has(md, "| | admitted | rejected |\n|---|---|---|\n")) << md;
  EXPECT_TRUE(Has(md, "| keys (offered per key) | 2000 (5 RPS) | 50 (200 RPS) |")) << md;
  EXPECT_TRUE(Has(md, "| 2xx / 429 / other | 599910 / 0 / 0 | 29990 / 569900 / 20 |")) << md;
  EXPECT_TRUE(Has(md, "| 429 share | 0.00% | 95.00% |")) << md;
  EXPECT_TRUE(Has(md, "| edge CPU per request | 150 µs (1.50 cores) | not sampled |")) << md;
  EXPECT_TRUE(Has(md, "Rejected / admitted: p50 0.75 ×, p99 1.25 ×, edge CPU per request not known.")) << md;
  // Its gated ratio is a plain multiple in the checks table, not a latency.
  run.back().checks.push_back({"reject_p99_ratio", "<=", 0.264, 2, std::nullopt, true});
  const std::string checked = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(checked, "| limits.reject_cost | reject_p99_ratio | 0.264 × | <= 2 × | — | pass |")) << checked;
}

// limits.keys: the phases' columns named by their key counts, one sweep row
// per point, and the break line.
TEST(MarkdownReport, KeySweepTableAndBreakLine) {
  std::vector<ScenarioResult> run = GoldenRun();
  ScenarioResult r;
  r.id = "limits.keys";
  r.measured = true;
  for (int keys : {10, 1000}) {
    LimitRun lr;
    lr.workers = 2;
    lr.phase = "limits_keys_k" + std::to_string(keys);
    lr.load.latency_us = {150, 300, 900, 1500, 2000};
    lr.load.achieved_rps = 999;
    lr.accuracy.limit = {0.01, 1};
    lr.accuracy.keys_planned = keys;
    lr.accuracy.allowed_per_key = 1.1;
    lr.accuracy.admitted_max = keys == 10 ? 1 : 5;
    lr.accuracy.over_admission = keys == 10 ? 0 : 3.5454;
    lr.accuracy.keys_over = keys == 10 ? 0 : 1000;
    r.limits.push_back(lr);
    r.key_sweep.push_back({keys, 10, keys == 10 ? std::optional<double>(20.4) : std::nullopt, 21.0});
  }
  run.push_back(r);
  const std::string md = RenderMarkdownReport(run, SampleMeta(), nullptr);
  EXPECT_TRUE(Has(md, "| | 10 keys | 1000 keys |\n")) << md;
  EXPECT_TRUE(Has(md, "#### Limiter state at scale: limits.keys\n")) << md;
  EXPECT_TRUE(Has(md, "| 10 | 10 s | 999 RPS | 150 µs / 900 µs | 0.00% (0) | 1 / 1.1 | 0.00% | 20.4 MiB / 21.0 MiB |"))
      << md;
  EXPECT_TRUE(Has(md, "| 1000 | 10 s | 999 RPS |")) << md;
  EXPECT_TRUE(Has(md, "not sampled / 21.0 MiB |")) << md;
  EXPECT_TRUE(Has(md, "Break point: accuracy breaks at K=1000 (over-admission 354.54% > 2.00%).")) << md;
}

}  // namespace
}  // namespace fvbench::markdown_report_test
