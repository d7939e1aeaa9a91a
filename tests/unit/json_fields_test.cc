// Parsing JSON text (support/core/json_fields.h): every refusal names the
// file and where in it.
#include "support/core/json_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace fvbench::json_fields_test {
namespace {

using ::testing::HasSubstr;

TEST(ParseJsonText, SyntaxErrorNamesTheFileAndPosition) {
  auto r = detail::ParseJsonText("{\n  \"a\": [1,\n}", "profile.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("profile.json: not valid JSON"));
  EXPECT_THAT(r.error().message, HasSubstr("line 3"));
}

// nlohmann reports a number beyond a double (out_of_range.406) without a
// position: the first such literal is located in the text.
TEST(ParseJsonText, NumberOverflowNamesItsLineAndColumn) {
  const std::string text = "{\n  \"scenarios\": {\n    \"p99_us\": {\"<=\": 1e999}\n  }\n}\n";
  auto r = detail::ParseJsonText(text, "t.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("number overflow parsing '1e999'"));
  EXPECT_THAT(r.error().message, HasSubstr("(at line 3, column 22)"));
  auto o = detail::ParseOrderedJsonText(text, "t.json");
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(o.error().message, HasSubstr("(at line 3, column 22)"));
}

}  // namespace
}  // namespace fvbench::json_fields_test
