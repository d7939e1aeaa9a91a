#include "support/core/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "support/report/results_io.h"
#include "tests/unit/external_tool.h"
#include "tests/unit/report_samples.h"

namespace fvbench::detail {
namespace {

TEST(JsonWriter, WritesPrettyTwoSpaceDocumentInKeyOrder) {
  JsonWriter w;
  w.StartObject();
  w.Field("z", 1);
  w.Field("a", "text");
  w.Key("list");
  w.StartArray();
  w.Value(true);
  w.Value(uint64_t{18446744073709551615u});
  w.Value(-3);
  w.EndArray();
  w.Key("empty");
  w.StartArray();
  w.EndArray();
  w.Field("half", 0.5);
  w.EndObject();
  EXPECT_EQ(w.Take(),
            "{\n"
            "  \"z\": 1,\n"
            "  \"a\": \"text\",\n"
            "  \"list\": [\n"
            "    true,\n"
            "    18446744073709551615,\n"
            "    -3\n"
            "  ],\n"
            "  \"empty\": [],\n"
            "  \"half\": 0.5\n"
            "}\n");
}

TEST(JsonWriter, NonFiniteAndAbsentNumbersAreNull) {
  JsonWriter w;
  w.StartArray();
  w.Number(std::numeric_limits<double>::quiet_NaN());
  w.Number(std::numeric_limits<double>::infinity());
  w.Number(-std::numeric_limits<double>::infinity());
  w.Number(std::optional<double>{});
  w.Value(std::optional<uint64_t>{});
  w.Value(std::optional<uint64_t>{7});
  w.Number(std::optional<double>{1e-7});
  w.EndArray();
  auto doc = nlohmann::json::parse(w.Take());
  ASSERT_EQ(doc.size(), 7u);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(doc[i].is_null()) << i;
  EXPECT_EQ(doc[5], 7);
  EXPECT_DOUBLE_EQ(doc[6].get<double>(), 1e-7);
}

TEST(JsonWriter, DoublesRoundTripExactly) {
  const double values[] = {0.1, 1.0 / 3, 2156.4843750001, 1e300, 5e-324, -0.0, 123456789.123};
  JsonWriter w;
  w.StartArray();
  for (double v : values) w.Number(v);
  w.EndArray();
  auto doc = nlohmann::json::parse(w.Take());
  for (size_t i = 0; i < std::size(values); ++i) EXPECT_EQ(doc[i].get<double>(), values[i]) << i;
}

TEST(JsonWriter, ControlCharactersAndNulAreEscaped) {
  JsonWriter w;
  w.StartArray();
  w.String(std::string_view("a\"b\\c\nd\te\0f\x01", 12));
  w.EndArray();
  std::string text = w.Take();
  EXPECT_NE(text.find(R"("a\"b\\c\nd\te\u0000f\u0001")"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(text)[0].get<std::string>(), std::string("a\"b\\c\nd\te\0f\x01", 12));
}

// Control characters as a path holding ESC or an ANSI-coloured error message
// brings them: each byte 0x00-0x1F at every position of strings of 1..40
// bytes. The string starts at alignment (position + byte) % 16, so every
// position of every length is tried at all 16 alignments: RapidJSON 1.1.0's
// SSE2 scan (once enabled in json_writer.cc) read aligned 16-byte blocks and
// wrote 0x1A-0x1F in them raw. Each string is written as a value, beside its
// code points as decimal text, and as a key.
struct ControlCase {
  std::string text;
  std::string code_points;  // "97,98,27,99"
};

std::vector<ControlCase> ControlCharacterCases() {
  std::vector<ControlCase> cases;
  for (size_t len = 1; len <= 40; ++len) {
    for (size_t pos = 0; pos < len; ++pos) {
      for (int c = 0; c < 0x20; ++c) {
        ControlCase k;
        for (size_t i = 0; i < len; ++i) {
          char ch = i == pos ? static_cast<char>(c) : static_cast<char>('a' + i % 26);
          k.text += ch;
          k.code_points += (i == 0 ? "" : ",") + std::to_string(static_cast<unsigned char>(ch));
        }
        cases.push_back(std::move(k));
      }
    }
  }
  return cases;
}

// `text` copied to `align` bytes past a 16-byte boundary.
std::string_view AlignedCopy(const std::string& text, size_t align, std::vector<char>& storage) {
  storage.assign(text.size() + 32, '\0');
  char* p = storage.data();
  p += (16 - reinterpret_cast<uintptr_t>(p) % 16) % 16 + align;
  std::memcpy(p, text.data(), text.size());
  return {p, text.size()};
}

TEST(JsonWriter, EveryControlCharacterAtEveryPositionReadsBack) {
  const std::vector<ControlCase> cases = ControlCharacterCases();
  ASSERT_EQ(cases.size(), 820u * 32u);
  JsonWriter w;
  std::vector<char> storage;
  w.StartObject();
  w.Key("values");
  w.StartArray();
  for (size_t i = 0; i < cases.size(); ++i) {
    w.StartArray();
    w.String(AlignedCopy(cases[i].text, i % 16, storage));
    w.String(cases[i].code_points);
    w.EndArray();
  }
  w.EndArray();
  w.Key("keys");
  w.StartObject();
  for (size_t i = 0; i < cases.size(); ++i) {
    w.Key(AlignedCopy(cases[i].text, (i + 5) % 16, storage));
    w.String(cases[i].code_points);
  }
  w.EndObject();
  w.EndObject();
  const std::string text = w.Take();
  size_t raw = 0;  // control characters outside the pretty-printer's newlines
  for (unsigned char ch : text) raw += ch < 0x20 && ch != '\n';
  EXPECT_EQ(raw, 0u) << "raw control characters in the document";

  // The project's reader.
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
    ASSERT_EQ(doc["values"].size(), cases.size());
    ASSERT_EQ(doc["keys"].size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) {
      ASSERT_EQ(doc["values"][i][0].get<std::string>(), cases[i].text) << cases[i].code_points;
      ASSERT_TRUE(doc["keys"].contains(cases[i].text)) << cases[i].code_points;
    }
  } catch (const nlohmann::json::exception& e) {
    ADD_FAILURE() << "nlohmann/json cannot read the document: " << e.what();
  }

  // An independent reader: jq decodes every string to its code points and
  // counts those that differ from what was written.
  ASSERT_TRUE(testing_tools::HaveTool("jq")) << "jq not found (Debian package jq; support/setup-debian.sh)";
  auto jq = testing_tools::RunTool(
      "jq -r '[(.values[] | select((.[0] | explode | map(tostring) | join(\",\")) != .[1])), "
      "(.keys | to_entries[] | select((.key | explode | map(tostring) | join(\",\")) != .value))] | length'",
      text);
  EXPECT_EQ(jq.exit_code, 0) << jq.err.substr(0, 500);
  EXPECT_EQ(jq.out, "0\n") << "strings jq reads differently from what was written; " << jq.err.substr(0, 500);
}

TEST(JsonWriter, InvalidUtf8BecomesReplacementCharacter) {
  // A lone continuation byte, a truncated 3-byte sequence at the end, an
  // overlong '/', and valid multi-byte text that must pass unchanged.
  const std::string bad = "p99 \x80 µs \xC0\xAF ok \xE2\x82";
  EXPECT_EQ(ValidUtf8(bad), "p99 \xEF\xBF\xBD µs \xEF\xBF\xBD\xEF\xBF\xBD ok \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ValidUtf8("ünïcødé … 𝄞"), "ünïcødé … 𝄞");
  JsonWriter w;
  w.StartObject();
  w.Field(std::string("k\xFF"), bad);  // a key read from data (a literal key is trusted)
  w.EndObject();
  auto doc = nlohmann::json::parse(w.Take());  // throws on invalid UTF-8
  EXPECT_EQ(doc.at("k\xEF\xBF\xBD").get<std::string>(), ValidUtf8(bad));
}

TEST(JsonWriter, MisuseThrowsInsteadOfWritingBrokenJson) {
  {
    JsonWriter w;
    w.StartObject();
    EXPECT_THROW(w.Take(), std::logic_error);  // unfinished
  }
  {
    JsonWriter w;
    w.StartObject();
    EXPECT_THROW(w.Bool(true), std::logic_error);  // a value where a key is due
  }
  {
    JsonWriter w;
    w.StartArray();
    EXPECT_THROW(w.EndObject(), std::logic_error);
  }
  {
    JsonWriter w;
    w.Bool(true);
    EXPECT_THROW(w.Bool(false), std::logic_error);  // a second root
  }
}

TEST(JsonWriter, TakeLeavesAnEmptyWriterForTheNextDocument) {
  JsonWriter w;
  w.StartArray();
  w.EndArray();
  EXPECT_EQ(w.Take(), "[]\n");
  w.StartObject();
  w.EndObject();
  EXPECT_EQ(w.Take(), "{}\n");
}

// The documents built on the writer: an invalid byte in a note (e.g. an
// excerpt of a log) is replaced, and the whole run still reads back.
TEST(JsonWriter, RunWithInvalidUtf8NoteStillReadsBack) {
  auto run = testing_samples::SampleRun();
  ASSERT_FALSE(run.empty());
  run[0].notes.push_back("edge error.log: \xFF\xFE binary");
  std::string text = RunResultsToJson(run, testing_samples::SampleMeta());
  auto back = RunResultsFromJson(text, "results.json");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->scenarios[0].notes.back(), "edge error.log: \xEF\xBF\xBD\xEF\xBF\xBD binary");
}

}  // namespace
}  // namespace fvbench::detail
