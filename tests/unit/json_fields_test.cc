// Parsing JSON text (support/core/json_fields.h): every refusal names the
// file and where in it.
#include "support/core/json_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

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

// A document followed by a NUL byte and anything (a file padded after it was
// written): nlohmann stops at the NUL and would read the document alone.
TEST(ParseJsonText, NulByteAnywhereIsRefusedNamingTheFile) {
  const std::string padded = std::string("{\"a\": 1}\n") + std::string(4096, '\0');
  for (auto* parse : {+[](std::string_view t) { return detail::ParseJsonText(t, "host:/r/x.json").ok(); },
                      +[](std::string_view t) { return detail::ParseOrderedJsonText(t, "host:/r/x.json").ok(); }}) {
    EXPECT_FALSE(parse(padded));
    EXPECT_FALSE(parse(std::string("{\"a\": \"b\0c\"}", 13)));  // a raw NUL inside a string
    EXPECT_TRUE(parse("{\"a\": \"b\\u0000c\"}"));                  // an escaped one is JSON
  }
  auto r = detail::ParseJsonText(padded, "host:/r/x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message, HasSubstr("host:/r/x.json: a NUL byte at byte 9 of 4105 (line 2, column 1)"));
}

TEST(ParseJsonText, ContentAfterTheDocumentIsRefused) {
  for (const char* text : {"{\"a\": 1}\n{\"a\": 2}\n", "{\"a\": 1} trailing", "[1] [2]"}) {
    auto r = detail::ParseJsonText(text, "x.json");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_THAT(r.error().message, HasSubstr("content after the JSON document")) << text;
  }
  EXPECT_TRUE(detail::ParseJsonText("{\"a\": 1}\n\n  \t\n", "x.json").ok());  // whitespace is not content
}

// WriteTextFile never writes through a link at the destination or at a
// temporary name: the link is replaced by the new file, its target untouched.
// (Its temporary name was <path>.tmp.<pid>: a link planted there was written
// through.)
TEST(WriteTextFile, AnEmptyPathIsSaidToBeEmpty) {
  auto w = detail::WriteTextFile("", "x\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message, "cannot write a file with an empty name");
}

TEST(WriteTextFile, ReplacesALinkAtTheDestinationWithoutFollowingIt) {
  char tmpl[] = "/tmp/fvbench-json-fields-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string victim = dir + "/victim", dest = dir + "/out.json";
  ASSERT_TRUE(detail::WriteTextFile(victim, "precious\n").ok());
  ASSERT_EQ(::symlink(victim.c_str(), dest.c_str()), 0);
  const std::string guessed = dest + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink(victim.c_str(), guessed.c_str()), 0);
  ASSERT_TRUE(detail::WriteTextFile(dest, "{}\n").ok());
  EXPECT_EQ(*detail::ReadTextFile(victim), "precious\n");
  struct stat st;
  ASSERT_EQ(::lstat(dest.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(*detail::ReadTextFile(dest), "{}\n");
  EXPECT_EQ(st.st_mode & 07777, 0644u & ~[] { mode_t m = ::umask(0); ::umask(m); return m; }());
  std::string cmd = "rm -rf " + dir;
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

}  // namespace
}  // namespace fvbench::json_fields_test
