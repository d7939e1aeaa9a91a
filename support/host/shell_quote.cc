#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

bool IsSafe(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '_': case '@': case '%': case '+': case '=': case ':': case ',': case '.':
    case '/': case '-':
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string ShellQuote(std::string_view word) {
  bool safe = !word.empty();
  for (char c : word) safe = safe && IsSafe(c);
  if (safe) return std::string(word);
  std::string out;
  out.reserve(word.size() + 2);
  out.push_back('\'');
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string ShellJoin(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out.push_back(' ');
    out += ShellQuote(w);
  }
  return out;
}

}  // namespace fvbench
