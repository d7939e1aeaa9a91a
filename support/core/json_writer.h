// JsonWriter: streaming JSON output for the documents fvbench writes
// (BENCH_DIR/report/results.json, controller-results/<scenario>.json,
// run_meta.json).
//
// Values go straight into one output buffer through RapidJSON's PrettyWriter
// (rapidjson/prettywriter.h, Debian rapidjson-dev): 2-space indent, keys in
// the order written, no document tree. Building an nlohmann/json tree and
// dumping it took 2-3 ms for the 187 kB results.json of a recorded full run;
// this writer takes 0.34-0.5 ms (BM_RecordedRunResultsJson,
// tests/bench/report_bench.cc; docs/building.md "What rendering the report costs").
// Reading stays with nlohmann/json (json_fields.h).
//
// Values:
//   - Number(double): shortest round-trip form (RapidJSON's Grisu2);
//     NaN and +-Inf are written as null (JSON has no such numbers; the
//     readers turn null back into NaN).
//   - String: UTF-8. A byte that is not part of valid UTF-8 is written as
//     U+FFFD, so one odd byte in, e.g., an error-log excerpt cannot cost the
//     whole results file (RFC 8259 section 8.1: JSON text is UTF-8). Every
//     control character 0x00-0x1F is escaped (\n, \u0000, \u001B, ...),
//     in values and keys alike: RapidJSON's portable scan, not its SSE2 one
//     (json_writer.cc says why).
// Misuse RapidJSON detects (a value where a key is due, EndObject in an
// array or EndArray in an object, a second root) and Take() of an unfinished
// document throw std::logic_error: a bug in the caller, never a property of
// the measured data. A key left without its value before EndObject is not
// detected (RapidJSON 1.1 does not check it); the round-trip tests of every
// document (results_io_test) would.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace fvbench::detail {

class JsonWriter {
 public:
  JsonWriter();
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  void StartObject();
  void EndObject();
  void StartArray();
  void EndArray();
  void Key(std::string_view key);

  void String(std::string_view v);
  void Bool(bool v);
  void Int(int64_t v);
  void Uint(uint64_t v);
  void Number(double v);                          // non-finite -> null
  void Number(const std::optional<double>& v);    // absent or non-finite -> null
  void Null();

  // One value of any of the kinds above, chosen by type.
  template <typename T>
  void Value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      Bool(v);
    } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      Int(v);
    } else if constexpr (std::is_integral_v<T>) {
      Uint(v);
    } else if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, std::optional<double>>) {
      Number(v);
    } else if constexpr (std::is_same_v<T, std::optional<uint64_t>>) {
      if (v) Uint(*v);
      else Null();
    } else {
      String(std::string_view(v));
    }
  }
  // Key + value.
  template <typename T>
  void Field(std::string_view key, const T& v) {
    Key(key);
    Value(v);
  }
  // A key that is a string literal in fvbench's source: known to be valid
  // UTF-8, so it skips the check (most keys are literals).
  template <size_t N, typename T>
  void Field(const char (&key)[N], const T& v) {
    LiteralKey(std::string_view(key, N - 1));
    Value(v);
  }
  template <size_t N>
  void Key(const char (&key)[N]) {
    LiteralKey(std::string_view(key, N - 1));
  }

  // key: [each(item) for every item], e.g.
  //   w.Array("checks", r.checks, [&](const ThresholdCheck& c) { WriteCheck(w, c); });
  template <size_t N, typename Range, typename Fn>
  void Array(const char (&key)[N], const Range& items, Fn&& each) {
    Key(key);
    StartArray();
    for (const auto& item : items) each(item);
    EndArray();
  }

  // The finished document followed by a newline. Throws std::logic_error
  // when an object or array is still open. The writer is empty afterwards.
  std::string Take();

 private:
  void LiteralKey(std::string_view key);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// `s` when it is valid UTF-8, else a copy with each invalid byte replaced by
// U+FFFD (the check is RapidJSON's UTF8<>::Validate, one code point at a time).
std::string ValidUtf8(std::string_view s);

}  // namespace fvbench::detail
