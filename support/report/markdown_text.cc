#include "support/report/markdown_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace fvbench::detail {

namespace {

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Characters that may need a replacement (MarkdownCell); runs without any
// are appended whole.
constexpr std::array<bool, 256> kMaybeSpecial = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\\|`*~[]$_<&\n\r")) t[c] = true;
  return t;
}();

// `text` cut to at most `n` bytes at a UTF-8 code point boundary.
std::string_view CutUtf8(std::string_view text, size_t n) {
  if (text.size() <= n) return text;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

void AppendEscaped(std::string& out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    while (j < text.size() && !kMaybeSpecial[static_cast<unsigned char>(text[j])]) ++j;
    out.append(text, i, j - i);
    if (j == text.size()) break;
    const char c = text[j];
    const char prev = j > 0 ? text[j - 1] : '\0';
    const char next = j + 1 < text.size() ? text[j + 1] : '\0';
    switch (c) {
      case '\n': out += "<br>"; break;
      case '\r': break;
      case '_':
        if (!IsAsciiAlnum(prev) || !IsAsciiAlnum(next)) out += '\\';
        out += c;
        break;
      case '<':
        if (IsAsciiAlpha(next) || next == '/' || next == '!' || next == '?') out += "&lt;";
        else out += c;
        break;
      case '&':
        if (IsAsciiAlpha(next) || next == '#') out += '\\';
        out += c;
        break;
      default:  // \ | ` * ~ [ ] $
        out += '\\';
        out += c;
    }
    i = j + 1;
  }
}

size_t LongestBacktickRun(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

// What a cut after the lines kept so far has to close.
struct OpenBlocks {
  std::string fence;         // the open code fence's indentation + backticks; "" when none
  int details = 0;           // <details> not yet closed
  bool last_blank = true;    // the last kept line is empty (a paragraph may follow)

  void Take(std::string_view line) {
    std::string_view body = line;
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.remove_suffix(1);
    last_blank = body.find_first_not_of(" \t") == std::string_view::npos;
    size_t indent = body.find_first_not_of(' ');
    std::string_view rest = indent == std::string_view::npos ? std::string_view() : body.substr(indent);
    size_t ticks = 0;
    while (ticks < rest.size() && rest[ticks] == '`') ++ticks;
    if (fence.empty()) {
      if (ticks >= 3) fence = std::string(body.substr(0, indent + ticks));
      else if (rest.rfind("<details>", 0) == 0) ++details;
      else if (rest.rfind("</details>", 0) == 0 && details > 0) --details;
    } else {
      const size_t open_ticks = fence.size() - fence.find('`');
      if (ticks >= open_ticks && rest.substr(ticks).find_first_not_of(" \t") == std::string_view::npos) fence.clear();
    }
  }
  std::string Closers() const {
    std::string s;
    if (!fence.empty()) s += fence + "\n";
    for (int i = 0; i < details; ++i) s += "\n</details>\n";
    if (!last_blank || !s.empty()) s += "\n";
    return s;
  }
};

std::string ShortenedNote(size_t kept, size_t total, size_t max_bytes, const std::string& where) {
  return fmt::format("*(shortened: {} of {} lines of this section shown, to keep report.md within {} bytes for a CI "
                     "job summary; the whole text is in results.json beside this file: {})*\n\n",
                     kept, total, max_bytes, MarkdownCell(where));
}

// `text` in at most `limit` bytes, the note included (when the note alone fits).
std::string ShortenSection(const std::string& text, size_t limit, size_t max_bytes, const std::string& where) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string::npos ? text.size() : nl + 1;
    lines.emplace_back(text.data() + pos, end - pos);
    pos = end;
  }
  OpenBlocks open, trial;
  size_t kept_bytes = 0, kept = 0;
  for (std::string_view line : lines) {
    trial = open;
    trial.Take(line);
    const size_t note = ShortenedNote(kept + 1, lines.size(), max_bytes, where).size();
    if (kept_bytes + line.size() + trial.Closers().size() + note > limit) break;
    open = trial;
    kept_bytes += line.size();
    ++kept;
  }
  std::string out = text.substr(0, kept_bytes);
  if (!out.empty() && out.back() != '\n') out += '\n';
  out += open.Closers();
  out += ShortenedNote(kept, lines.size(), max_bytes, where);
  return out;
}

}  // namespace

void AppendMarkdownCell(std::string& out, std::string_view text) {
  const size_t start = out.size();
  if (text.size() <= kMaxCellBytes) {
    AppendEscaped(out, text);
  } else {
    std::string_view head = CutUtf8(text, kMaxCellBytes);
    AppendEscaped(out, head);
    AppendEscaped(out, fmt::format(" … ({} more bytes; the whole text is in results.json)", text.size() - head.size()));
  }
  while (out.size() >= start + 4 && out.compare(out.size() - 4, 4, "<br>") == 0) out.resize(out.size() - 4);
}

std::string MarkdownCell(std::string_view text) {
  std::string out;
  AppendMarkdownCell(out, text);
  return out;
}

std::string MarkdownCodeSpan(std::string_view text) {
  std::string body(text);
  std::replace(body.begin(), body.end(), '\n', ' ');
  body.erase(std::remove(body.begin(), body.end(), '\r'), body.end());
  const std::string ticks(LongestBacktickRun(body) + 1, '`');
  const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return ticks + (pad ? " " : "") + body + (pad ? " " : "") + ticks;
}

std::string MarkdownFence(std::string_view text) { return std::string(std::max<size_t>(3, LongestBacktickRun(text) + 1), '`'); }

std::string FitMarkdownSections(const std::vector<MarkdownSection>& sections, size_t max_bytes) {
  size_t total = 0, fixed = 0, largest = 0;
  for (const MarkdownSection& s : sections) {
    total += s.text.size();
    if (s.whole_text_in.empty()) fixed += s.text.size();
    else largest = std::max(largest, s.text.size());
  }
  std::string out;
  if (total <= max_bytes) {
    out.reserve(total);
    for (const MarkdownSection& s : sections) out += s.text;
    return out;
  }
  // The largest cap c (bytes per shortenable section, its note included)
  // with fixed + sum(min(size, c)) <= max_bytes.
  const size_t budget = max_bytes > fixed ? max_bytes - fixed : 0;
  auto used = [&](size_t cap) {
    size_t n = 0;
    for (const MarkdownSection& s : sections) {
      if (!s.whole_text_in.empty()) n += std::min(s.text.size(), cap);
    }
    return n;
  };
  size_t lo = 0, hi = largest;
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (used(mid) <= budget) lo = mid;
    else hi = mid - 1;
  }
  for (const MarkdownSection& s : sections) {
    if (s.whole_text_in.empty() || s.text.size() <= lo) out += s.text;
    else out += ShortenSection(s.text, lo, max_bytes, s.whole_text_in);
  }
  return out;
}

}  // namespace fvbench::detail
