// ShellQuote: one word for a POSIX shell (sh, bash, dash), so that
// `sh -c "printf %s " + ShellQuote(s)` prints exactly `s`. Pure, no I/O.
//
// Words made only of [A-Za-z0-9_@%+=:,./-] are returned unchanged (and are
// non-empty); everything else is wrapped in single quotes, each ' inside
// becoming '\'' . So spaces, quotes, $, `, ;, |, &, *, ?, ~, #, newlines,
// backslashes and non-ASCII bytes reach the command literally. The empty
// string becomes ''. Used for dry-run plans and for ssh command lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fvbench {

std::string ShellQuote(std::string_view word);

// The words quoted and joined by single spaces: a pasteable command line.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace fvbench
