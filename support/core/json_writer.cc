#include "support/core/json_writer.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

// RapidJSON checks its call sequence with RAPIDJSON_ASSERT (rapidjson.h),
// assert() by default and so compiled out under NDEBUG. Here a broken
// sequence is a bug in fvbench's writer code: make it throw in every build.
// Only this file includes RapidJSON, so the definition is the same for every
// instantiation.
#define RAPIDJSON_ASSERT(x) \
  do { \
    if (!(x)) throw std::logic_error("JsonWriter: misuse (RapidJSON assertion " #x ")"); \
  } while (false)
// No SIMD string scan: the SSE2 path of RapidJSON 1.1.0 (Debian's
// rapidjson-dev; Writer<StringBuffer>::ScanWriteUnescapedString) tests
// "byte <= 0x19" instead of "byte < 0x20", so 0x1A-0x1F (ESC among them) in a
// string of 16 bytes or more were written raw: invalid JSON. The portable
// loop escapes every control character (tests/unit/json_writer_test.cc).
#if defined(RAPIDJSON_SSE2) || defined(RAPIDJSON_SSE42) || defined(RAPIDJSON_NEON)
#error "json_writer.cc: RapidJSON's SIMD string scan is not used here (1.1.0's SSE2 scan lets 0x1A-0x1F through)"
#endif
#include <rapidjson/memorystream.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace fvbench::detail {

namespace {
// Output stream that keeps nothing (UTF8<>::Validate copies what it reads).
struct Discard {
  using Ch = char;
  void Put(char) {}
};

// Length of the valid UTF-8 code point at s[0], or 0 when s[0] does not
// start one. UTF8<>::Validate reads past the end as '\0' (MemoryStream), which
// fails a truncated sequence.
size_t ValidPrefix(std::string_view s) {
  rapidjson::MemoryStream in(s.data(), s.size());
  Discard out;
  if (!rapidjson::UTF8<>::Validate(in, out)) return 0;
  return in.Tell();
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    // ASCII runs are the common case: 8 bytes per step while no byte has
    // its high bit set.
    if (s.size() - i >= 8) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t n = ValidPrefix(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}
}  // namespace

std::string ValidUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  size_t i = 0;
  while (i < s.size()) {
    size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : ValidPrefix(s.substr(i));
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(s.data() + i, n);
      i += n;
    }
  }
  return out;
}

struct JsonWriter::Impl {
  rapidjson::StringBuffer buffer{nullptr, 16384};
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer{buffer};
  Impl() { writer.SetIndent(' ', 2); }
};

JsonWriter::JsonWriter() : impl_(std::make_unique<Impl>()) {}
JsonWriter::~JsonWriter() = default;

void JsonWriter::StartObject() { impl_->writer.StartObject(); }
void JsonWriter::EndObject() { impl_->writer.EndObject(); }
void JsonWriter::StartArray() { impl_->writer.StartArray(); }
void JsonWriter::EndArray() { impl_->writer.EndArray(); }

void JsonWriter::Key(std::string_view key) {
  // Keys are fvbench's own names or scenario/metric ids read from files.
  std::string valid;
  if (!IsValidUtf8(key)) key = valid = ValidUtf8(key);
  impl_->writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void JsonWriter::LiteralKey(std::string_view key) {
  impl_->writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void JsonWriter::String(std::string_view v) {
  std::string valid;
  if (!IsValidUtf8(v)) v = valid = ValidUtf8(v);
  if (v.size() > UINT32_MAX) throw std::logic_error("JsonWriter: string longer than 4 GiB");
  impl_->writer.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

void JsonWriter::Bool(bool v) { impl_->writer.Bool(v); }
void JsonWriter::Int(int64_t v) { impl_->writer.Int64(v); }
void JsonWriter::Uint(uint64_t v) { impl_->writer.Uint64(v); }
void JsonWriter::Null() { impl_->writer.Null(); }

void JsonWriter::Number(double v) {
  if (std::isfinite(v)) impl_->writer.Double(v);
  else impl_->writer.Null();
}

void JsonWriter::Number(const std::optional<double>& v) {
  if (v) Number(*v);
  else Null();
}

std::string JsonWriter::Take() {
  if (!impl_->writer.IsComplete()) throw std::logic_error("JsonWriter: Take() of an unfinished document");
  std::string out;
  out.reserve(impl_->buffer.GetSize() + 1);  // one allocation: += '\n' on an exact-size string doubled it
  out.append(impl_->buffer.GetString(), impl_->buffer.GetSize());
  out += '\n';
  impl_->buffer.Clear();
  impl_->writer.Reset(impl_->buffer);
  return out;
}

}  // namespace fvbench::detail
