#include "support/core/text.h"

#include <sstream>
#include <vector>

namespace fvbench::detail {

std::string_view TrimSpace(std::string_view s) { return Trim(s, " \t\r\n"); }

std::vector<std::string_view> SplitFields(std::string_view line) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !blank(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::string_view Trim(std::string_view s, std::string_view chars) { return TrimRight(TrimLeft(s, chars), chars); }

std::string_view TrimLeft(std::string_view s, std::string_view chars) {
  const size_t b = s.find_first_not_of(chars);
  return b == std::string_view::npos ? std::string_view() : s.substr(b);
}

std::string_view TrimRight(std::string_view s, std::string_view chars) {
  const size_t e = s.find_last_not_of(chars);
  return e == std::string_view::npos ? std::string_view() : s.substr(0, e + 1);
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string TailBytes(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  return "..." + std::string(s.substr(s.size() - n));
}

std::string TailBytesFromLine(std::string_view s, size_t n) {
  if (s.size() <= n) return std::string(s);
  std::string_view t = s.substr(s.size() - n);
  if (const size_t nl = t.find('\n'); nl != std::string_view::npos && nl + 1 < t.size()) t = t.substr(nl + 1);
  return "..." + std::string(t);
}

std::string TailLines(const std::string& s, size_t n) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::string out;
  for (size_t i = lines.size() > n ? lines.size() - n : 0; i < lines.size(); ++i) out += lines[i] + "\n";
  return out.empty() ? "(empty)" : out;
}

std::string ShortCommit(const std::string& commit) { return commit.empty() ? "-" : commit.substr(0, 12); }

}  // namespace fvbench::detail
