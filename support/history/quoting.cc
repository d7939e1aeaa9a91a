#include "support/history/quoting.h"

#include <fmt/format.h>

namespace fvbench {
namespace {

// The code point of the UTF-8 sequence at s[i] (advancing i), or -1 when
// that is no well-formed UTF-8 (overlong, a surrogate, above U+10FFFF, cut).
long NextCodePoint(std::string_view s, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t len = 0;
  long cp = 0, min = 0;
  if (b < 0x80) {
    ++i;
    return b;
  } else if ((b & 0xE0) == 0xC0) {
    len = 2, cp = b & 0x1F, min = 0x80;
  } else if ((b & 0xF0) == 0xE0) {
    len = 3, cp = b & 0x0F, min = 0x800;
  } else if ((b & 0xF8) == 0xF0) {
    len = 4, cp = b & 0x07, min = 0x10000;
  } else {
    return -1;
  }
  if (i + len > s.size()) return -1;
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  i += len;
  return cp;
}

// Characters YAML reads back as themselves inside a double-quoted scalar:
// printable (YAML 1.1 c-printable), not a line break, not the BOM.
bool PrintsAsItself(long cp) {
  return (cp >= 0x20 && cp <= 0x7E) || (cp >= 0xA0 && cp <= 0xD7FF && cp != 0x2028 && cp != 0x2029) ||
         (cp >= 0xE000 && cp <= 0xFFFD && cp != 0xFEFF) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

}  // namespace

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

Result<std::string> YamlQuoted(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const long cp = NextCodePoint(text, i);
    if (cp < 0) {
      return Error{fmt::format("not UTF-8 text (byte {} of {}); YAML holds Unicode text only", at, text.size())};
    }
    if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (PrintsAsItself(cp)) {
      out.append(text.substr(at, i - at));
    } else if (cp <= 0xFF) {
      out += fmt::format("\\x{:02X}", cp);
    } else if (cp <= 0xFFFF) {
      out += fmt::format("\\u{:04X}", cp);
    } else {
      out += fmt::format("\\U{:08X}", cp);
    }
  }
  return out + "\"";
}

}  // namespace fvbench
