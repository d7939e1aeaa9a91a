// ParseCliArgs and CheckPositionals (core/cli_args.h): options read as
// options wherever they are, unknown ones and missing values named.
#include "support/core/cli_args.h"

#include <gtest/gtest.h>

namespace fvbench::cli_args_test {
namespace {

const std::vector<CliOption> kOptions = {{"--force", false}, {"--last", true}, {"-o", true}};

std::string ErrorOf(const std::vector<std::string>& args) {
  auto r = ParseCliArgs(args, kOptions);
  return r.ok() ? "(accepted)" : r.error().message;
}

TEST(CliArgs, FlagsAndValuesAreReadAnywhere) {
  auto r = ParseCliArgs({"save", "--force", "dir", "-o", "out.json", "--last=5", "dest"}, kOptions);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->Has("--force"));
  EXPECT_FALSE(r->help);
  ASSERT_NE(r->Value("-o"), nullptr);
  EXPECT_EQ(*r->Value("-o"), "out.json");
  EXPECT_EQ(*r->Value("--last"), "5");
  EXPECT_EQ(r->positionals, (std::vector<std::string>{"save", "dir", "dest"}));
  EXPECT_EQ(r->Value("--metric"), nullptr);
}

TEST(CliArgs, UnknownOptionsAreRefusedByName) {
  EXPECT_EQ(ErrorOf({"save", "dir", "-x"}), "unknown option '-x'");
  EXPECT_EQ(ErrorOf({"save", "dir", "--forse"}), "unknown option '--forse'");
  EXPECT_EQ(ErrorOf({"--force=yes"}), "--force takes no value (given '--force=yes')");
}

TEST(CliArgs, AMissingEmptyOrOptionShapedValueIsNamed) {
  EXPECT_EQ(ErrorOf({"show", "--last"}), "--last needs a value");
  EXPECT_EQ(ErrorOf({"show", "--last="}), "--last needs a value (given an empty one)");
  EXPECT_EQ(ErrorOf({"-o", ""}), "-o needs a value (given an empty one)");
  EXPECT_EQ(ErrorOf({"-o", "--force"}), "-o needs a value (given '--force', which starts with '-' like an option)");
}

TEST(CliArgs, DoubleDashEndsOptionsAndDashAloneIsAPositional) {
  auto r = ParseCliArgs({"-", "--", "--force", "-x"}, kOptions);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->Has("--force"));
  EXPECT_EQ(r->positionals, (std::vector<std::string>{"-", "--force", "-x"}));
}

TEST(CliArgs, HelpIsReadByEveryProgram) {
  auto r = ParseCliArgs({"save", "--help"}, {});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->help);
  EXPECT_TRUE(ParseCliArgs({"-h"}, {})->help);
}

TEST(CliArgs, PositionalsAreCheckedAgainstTheirNames) {
  EXPECT_TRUE(CheckPositionals({"dir", "dest"}, {"BENCH_DIR", "dest.json"}, 2).ok());
  EXPECT_EQ(CheckPositionals({"dir"}, {"BENCH_DIR", "dest.json"}, 2).error().message, "missing <dest.json>");
  EXPECT_EQ(CheckPositionals({"dir", ""}, {"BENCH_DIR", "dest.json"}, 2).error().message, "<dest.json> is empty");
  EXPECT_EQ(CheckPositionals({"a", "b", "c"}, {"BENCH_DIR", "dest.json"}, 2).error().message,
            "unexpected argument 'c'");
  EXPECT_TRUE(CheckPositionals({}, {"FILE"}, 0).ok());
}

}  // namespace
}  // namespace fvbench::cli_args_test
