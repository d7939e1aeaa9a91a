// Small text helpers, one definition each: trimming, ASCII lower case, the
// tail of a command's output as error messages show it, a commit as reports
// show it. Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fvbench::detail {

// `s` without leading and trailing blanks (space, tab, CR, LF).
std::string_view TrimSpace(std::string_view s);

// `s` without leading and trailing characters of `chars`; TrimLeft and
// TrimRight one end only. Trim("..ab..", ".") == "ab".
std::string_view Trim(std::string_view s, std::string_view chars);
std::string_view TrimLeft(std::string_view s, std::string_view chars);
std::string_view TrimRight(std::string_view s, std::string_view chars);

// The fields of `line` separated by runs of spaces, tabs and CRs (as /proc
// files and reduced logs write them); none for a blank line.
std::vector<std::string_view> SplitFields(std::string_view line);

// `s` with A-Z as a-z; every other byte (UTF-8 included) unchanged.
std::string AsciiLower(std::string_view s);

// The last `n` bytes of `s`, "..." before them when `s` was longer.
std::string TailBytes(std::string_view s, size_t n);

// As TailBytes, but a cut tail starts after its first line break when one
// is there and text follows it (no partial first line).
std::string TailBytesFromLine(std::string_view s, size_t n);

// The last `n` lines of `s`, each ending in '\n'; "(empty)" when there are
// none.
std::string TailLines(const std::string& s, size_t n);

// A commit as reports and plots show it: its first 12 characters; "-" when
// unknown (empty).
std::string ShortCommit(const std::string& commit);

}  // namespace fvbench::detail
