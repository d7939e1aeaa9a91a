#include "support/core/folded_stacks.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>

namespace fvbench {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// What is wrong with `stack`, "" when nothing.
std::string StackProblem(std::string_view stack) {
  if (stack.empty()) return "a count without a stack";
  if (stack.front() == ';') return "the stack starts with ';' (an empty root frame)";
  if (stack.back() == ';') return "the stack ends with ';' (an empty leaf frame)";
  if (stack.find(";;") != std::string_view::npos) return "an empty frame (';;') in the stack";
  return "";
}

}  // namespace

uint64_t FoldedStacks::total() const {
  uint64_t sum = 0;
  for (const auto& [stack, n] : counts) sum = SaturatingAdd(sum, n);
  return sum;
}

Result<FoldedStacks> ParseFolded(std::string_view text, const std::string& where) {
  FoldedStacks out;
  uint64_t total = 0;
  size_t line_no = 0;
  auto fail = [&](const std::string& what) {
    return Error{fmt::format("{}: line {}: {}", where, line_no, what)};
  };
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    while (!line.empty() && IsBlank(line.back())) line.remove_suffix(1);
    size_t first = 0;
    while (first < line.size() && IsBlank(line[first])) ++first;
    if (first == line.size()) continue;
    size_t sep = line.find_last_of(" \t");
    if (sep == std::string_view::npos || sep < first) {
      return fail("no count: a folded line is '<frames separated by ;> <count>'");
    }
    std::string_view count_text = line.substr(sep + 1);
    uint64_t count = 0;
    auto [end, ec] = std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (ec == std::errc::result_out_of_range) return fail(fmt::format("count '{}' does not fit 64 bits", count_text));
    if (ec != std::errc() || end != count_text.data() + count_text.size()) {
      return fail(fmt::format("count '{}' is not a decimal integer", count_text.substr(0, 40)));
    }
    std::string_view stack = line.substr(first, sep - first);
    while (!stack.empty() && IsBlank(stack.back())) stack.remove_suffix(1);
    std::string problem = StackProblem(stack);
    if (!problem.empty()) return fail(problem);
    if (count == 0) continue;
    if (total > kMax - count) return fail("the total of the counts does not fit 64 bits");
    total += count;
    out.counts[std::string(stack)] += count;
  }
  return out;
}

std::string WriteFolded(const FoldedStacks& f) {
  std::string out;
  for (const auto& [stack, n] : f.counts) {
    if (n == 0) continue;
    out += stack;
    out += ' ';
    out += std::to_string(n);
    out += '\n';
  }
  return out;
}

void MergeInto(FoldedStacks& into, const FoldedStacks& from) {
  for (const auto& [stack, n] : from.counts) {
    uint64_t& to = into.counts[stack];
    to = SaturatingAdd(to, n);
  }
}

std::vector<std::string_view> SplitFrames(std::string_view stack) {
  std::vector<std::string_view> frames;
  size_t start = 0;
  while (true) {
    size_t semi = stack.find(';', start);
    if (semi == std::string_view::npos) {
      frames.push_back(stack.substr(start));
      return frames;
    }
    frames.push_back(stack.substr(start, semi - start));
    start = semi + 1;
  }
}

FoldedStacks WithoutFramePrefix(const FoldedStacks& f, std::string_view prefix) {
  if (prefix.empty()) return f;
  FoldedStacks out;
  for (const auto& [stack, n] : f.counts) {
    std::string cut;
    cut.reserve(stack.size());
    bool first = true;
    for (std::string_view frame : SplitFrames(stack)) {
      if (!first) cut += ';';
      first = false;
      const bool strip = frame.size() > prefix.size() && frame.substr(0, prefix.size()) == prefix;
      cut += strip ? frame.substr(prefix.size()) : frame;
    }
    constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
    uint64_t& into = out.counts[cut];
    into = n > kMax - into ? kMax : into + n;
  }
  return out;
}

}  // namespace fvbench
