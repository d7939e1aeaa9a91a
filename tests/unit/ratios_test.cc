#include "support/judge/ratios.h"

#include <gtest/gtest.h>

#include "support/report/markdown_report.h"
#include "support/report/summary_table.h"
#include "tests/unit/report_samples.h"

namespace fvbench::ratios_test {
namespace {

using testing_samples::SampleMeta;
using testing_samples::SampleRunAllMeasured;

bool HasRatio(const std::vector<Ratio>& v, const std::string& scenario) {
  for (const Ratio& x : v) {
    if (x.scenario == scenario) return true;
  }
  return false;
}

TEST(SameRunRatios, EveryPairOfOneRun) {
  auto v = SameRunRatios(SampleRunAllMeasured(), SampleMeta().started_unix);
  EXPECT_TRUE(HasRatio(v, "latency.decision_service"));
  EXPECT_TRUE(HasRatio(v, "latency.reverse_proxy"));
  EXPECT_TRUE(HasRatio(v, "throughput.complex"));
  EXPECT_TRUE(HasRatio(v, "throughput.llm"));
}

// `-R latency` then `-R raw_nginx` into one BENCH_DIR: decision_service is the
// earlier ctest run's. A ratio of two runs is not a same-run ratio.
TEST(SameRunRatios, NeverPairsAResultOfAnEarlierCtestRun) {
  auto run = SampleRunAllMeasured();
  const double started = SampleMeta().started_unix;
  for (auto& r : run) {
    if (r.id == "latency.decision_service" || r.id == "throughput.simple") r.started_unix = started - 600;
  }
  auto v = SameRunRatios(run, started);
  EXPECT_FALSE(HasRatio(v, "latency.decision_service"));  // earlier itself
  EXPECT_TRUE(HasRatio(v, "latency.reverse_proxy"));      // both of this run
  EXPECT_FALSE(HasRatio(v, "throughput.complex"));        // its yardstick is earlier
  EXPECT_FALSE(HasRatio(v, "throughput.llm"));
  EXPECT_TRUE(FromEarlierRun(run[1], started));
  EXPECT_FALSE(FromEarlierRun(run[1], 0));  // run start unknown: no claim

  // The table and report.md show only the ratios of one run.
  RunMeta meta = SampleMeta();
  std::string table = RenderSummaryTable(run, meta, nullptr);
  EXPECT_EQ(table.find("latency.decision_service / latency.raw_nginx"), std::string::npos) << table;
  EXPECT_NE(table.find("latency.reverse_proxy / latency.raw_nginx"), std::string::npos) << table;
  std::string md = RenderMarkdownReport(run, meta, nullptr);
  EXPECT_EQ(md.find("| latency.decision_service | latency.raw_nginx |"), std::string::npos) << md;
  EXPECT_NE(md.find("| latency.reverse_proxy | latency.raw_nginx |"), std::string::npos) << md;
}

}  // namespace
}  // namespace fvbench::ratios_test
