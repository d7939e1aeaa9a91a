// Inputs the libFuzzer targets (tests/fuzz) found crashing a parser, kept as
// files under fixtures/fuzz/regressions/. Each must now give an Error that
// names the source, never an exception or a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "support/engine/k6_summary.h"
#include "support/core/run_meta.h"
#include "fvbench/source_dir.h"

namespace fvbench::fuzz_regressions_test {
namespace {

std::string Fixture(const std::string& name) {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return std::string(dir != nullptr ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/fuzz/regressions/" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// k6_summary_fuzz: a legacy --summary-export file with the number
// 611.69999999991e308999. nlohmann::json throws out_of_range (406, number
// overflow) for it, not parse_error, and the parser caught only parse_error:
// the exception escaped ParseK6Summary (std::terminate).
TEST(FuzzRegressions, K6SummaryNumberOverflow) {
  const std::string path = Fixture("k6_summary_number_overflow.json");
  const std::string text = Slurp(path);
  ASSERT_NE(text.find("e308999"), std::string::npos) << path << " is not the recorded crash input";
  auto r = ParseK6Summary(text, path, 500);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not valid JSON"), std::string::npos) << r.error().message;
}

TEST(FuzzRegressions, K6SummaryNumberOverflowMinimal) {
  auto r = ParseK6Summary(R"({"metrics": {"http_reqs": {"count": 1e999}}})", "min.json", 500);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("min.json: ", 0), 0u) << r.error().message;
}

// run_meta_fuzz: a run meta whose started_unix is 1.796e83. RunMetaFromJson
// accepts any finite number; writing it back (RunMetaToJson -> FormatUtc)
// converted it to time_t: undefined behaviour (UBSan: "outside the range of
// representable values of type 'long'").
TEST(FuzzRegressions, RunMetaHugeStartedUnix) {
  const std::string path = Fixture("run_meta_huge_started_unix.json");
  auto r = RunMetaFromJson(Slurp(path), path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_GT(r->started_unix, 1e80) << path << " is not the recorded crash input";
  const std::string back = RunMetaToJson(*r);  // aborts under the asan preset if the UB is back
  EXPECT_NE(back.find("\"started_utc\": \"\""), std::string::npos) << back;
}

TEST(FuzzRegressions, FormatUtcOutOfRange) {
  EXPECT_EQ(FormatUtc(1e300), "");
  EXPECT_EQ(FormatUtc(253402300800.0), "");  // 10000-01-01
  EXPECT_EQ(FormatUtc(253402300799.0), "9999-12-31T23:59:59Z");
  EXPECT_EQ(FormatUtc(-1), "");
}

}  // namespace
}  // namespace fvbench::fuzz_regressions_test
