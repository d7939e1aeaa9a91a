// Internal helpers for the suite's own JSON documents (results, reference,
// threshold profiles, run meta): typed field access whose failures name the
// source file and the key path, and whole-file read/write.
//
// Inside a parser the getters throw detail::JsonFieldError; every public entry
// point catches it (and nlohmann::json::exception) and returns an Error, so no
// exception crosses a public API.
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "support/core/result.h"

namespace fvbench::detail {

struct JsonFieldError {
  std::string message;  // "<path>: <what>", the source name is prefixed by the caller
};

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string JoinPath(const std::string& path, std::string_view key);

// Required fields: throw JsonFieldError("<path.key>: missing" / "...: expected a number, got string").
double GetNumber(const nlohmann::json& obj, std::string_view key, const std::string& path);
std::string GetString(const nlohmann::json& obj, std::string_view key, const std::string& path);
bool GetBool(const nlohmann::json& obj, std::string_view key, const std::string& path);
uint64_t GetUint(const nlohmann::json& obj, std::string_view key, const std::string& path);
const nlohmann::json& GetObject(const nlohmann::json& obj, std::string_view key, const std::string& path);
const nlohmann::json& GetArray(const nlohmann::json& obj, std::string_view key, const std::string& path);
// A required number that may be null (the writer's non-finite values): null -> NaN.
double GetNumberOrNaN(const nlohmann::json& obj, std::string_view key, const std::string& path);

// Optional fields: absent or null -> fallback / nullopt; present with a wrong type -> throw.
double OptNumber(const nlohmann::json& obj, std::string_view key, const std::string& path, double fallback);
std::optional<double> OptNumberOrNull(const nlohmann::json& obj, std::string_view key, const std::string& path);
std::string OptString(const nlohmann::json& obj, std::string_view key, const std::string& path,
                      std::string fallback = {});
bool OptBool(const nlohmann::json& obj, std::string_view key, const std::string& path, bool fallback);
uint64_t OptUint(const nlohmann::json& obj, std::string_view key, const std::string& path, uint64_t fallback);
std::optional<uint64_t> OptUintOrNull(const nlohmann::json& obj, std::string_view key, const std::string& path);

// Throws unless `v` is an object; `what` names it in the message.
void RequireObject(const nlohmann::json& v, const std::string& path);

// "schema_version": absent is accepted only when `required` is false; any
// value other than `expected` is rejected.
void CheckSchemaVersion(const nlohmann::json& doc, int expected, bool required);

// JSON read from files, the suite's own and what hosts send back, is the
// document alone. nlohmann::json ends its input at the first NUL byte (it
// also parses C strings), so a document followed by a NUL and anything at all
// would read as the document: a NUL anywhere is refused here ("<source>: a
// NUL byte at byte N (line L, column C): not JSON ..."); JSON has no raw NUL
// (RFC 8259 escapes every control character in strings). Any other content
// after the document is nlohmann's own parse error ("expected end of input"),
// to which AfterDocumentHint adds what it means.
Result<void> RefuseNulBytes(std::string_view text, const std::string& source_name);
// " (content after the JSON document: the file must hold the document
// alone)" when a parse error's text says the input went on past the document,
// else "".
std::string AfterDocumentHint(std::string_view parse_error_text);

// Parses `text`, returning an Error "<source>: not valid JSON: <detail>"
// (RefuseNulBytes first).
Result<nlohmann::json> ParseJsonText(std::string_view text, const std::string& source_name);
// For files people write (threshold profiles): as ParseJsonText, keeping
// the keys' order, and an object that holds one key twice is an Error naming
// the key and its path ("<source>: scenarios.latency.raw_nginx.p99_us: the
// key '<=' appears twice"): a JSON parser keeps the last of them, so the
// first would vanish without a word (RFC 8259 4: names SHOULD be unique).
Result<nlohmann::ordered_json> ParseOrderedJsonText(std::string_view text, const std::string& source_name);

// The whole of a regular file, at most `max_bytes` of it. Error names the
// path and the errno text, or what the path is instead of a regular file
// ("<path>: is a directory, not a file", "<path>: is a character device, not
// a regular file": /dev/zero or a FIFO would never end), or the bound.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{1} << 30;  // 1 GiB
Result<std::string> ReadTextFile(const std::string& path, uint64_t max_bytes = kMaxTextFileBytes);
// Writes `path` through a new temporary file in the same directory
// (<path>.tmp.<pid>.<random>, created with O_EXCL | O_NOFOLLOW, mode 0644 less
// the umask) and rename(2), so a reader never sees half a document and
// nothing is written through a link someone put at either name. Errors start
// with `path` (the destination) and name the temporary file after the reason;
// an empty `path` is an Error saying so.
Result<void> WriteTextFile(const std::string& path, std::string_view text);

}  // namespace fvbench::detail
