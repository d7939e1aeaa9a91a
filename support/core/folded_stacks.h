// Folded stacks, the interchange format of flamegraph.pl, inferno and
// speedscope (Brendan Gregg's FlameGraph README, "2. Fold stacks"): one line
// per distinct stack,
//
//   root;caller;...;leaf <count>
//
// frames separated by ';' root first, then one or more spaces or tabs and
// the number of samples, a decimal integer. A frame may contain spaces (C++
// signatures, a process name such as "nginx: worker"): the count is the last
// whitespace-separated field of the line, and the stack is everything
// before it (without the blanks around it). A frame never contains ';' (the collapsers replace it). Pure.
//
// ParseFolded reads that text. Blank lines are skipped; a trailing '\r'
// (CRLF files) is ignored; a stack that appears on several lines adds up; a
// line whose count is 0 adds nothing. It refuses, naming `where` and the
// line number ("<where>: line <n>: ..."): a line without a count, a count
// that is not a decimal integer or does not fit 64 bits, a line with a
// count but no stack, an empty frame (";;", or ';' at either end), a total
// that overflows 64 bits.
//
// WriteFolded writes the same format: one line per stack with a count > 0,
// sorted by stack (byte order), one space before the count, each line
// '\n'-terminated; "" for no stacks. ParseFolded(WriteFolded(f)) == f.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

struct FoldedStacks {
  std::map<std::string, uint64_t> counts;  // "root;...;leaf" -> samples
  uint64_t total() const;                  // saturates at UINT64_MAX
};

Result<FoldedStacks> ParseFolded(std::string_view text, const std::string& where);
std::string WriteFolded(const FoldedStacks& f);
// Adds every stack of `from` to `into` (counts saturate at UINT64_MAX).
void MergeInto(FoldedStacks& into, const FoldedStacks& from);
// The frames of a stack, root first: "a;b;c" -> {"a", "b", "c"}.
std::vector<std::string_view> SplitFrames(std::string_view stack);
// `f` with `prefix` cut from every frame that starts with it and is longer
// ("/opt/edge/src/x.lua:f" -> "src/x.lua:f" for "/opt/edge/"); stacks that
// become equal are merged. An empty prefix changes nothing.
FoldedStacks WithoutFramePrefix(const FoldedStacks& f, std::string_view prefix);

}  // namespace fvbench
