// The command-line arguments of the programs in apps/, read one way: an
// option is a word starting with '-' (other than "-" alone, which programs
// read as stdin); a word after "--" is never one. Each program names the
// options it reads; any other is refused, named. Pure.
//
//   ParseCliArgs({"save", "dir", "--force"}, {{"--force", false}}) -> flags {--force},
//       positionals {save, dir}
//   ParseCliArgs({"save", "dir", "-x"}, ...) -> Error "unknown option '-x'"
//   ParseCliArgs({"show", "--last"}, {{"--last", true}}) -> Error "--last needs a value"
//
// An option that takes a value reads the next word ("--last 5") or the text
// after '=' ("--last=5"); a value that is empty or starts with '-' (other than "-") is refused
// (an option-shaped word is never taken as a file name or number by
// accident: write ./-x for a file of that name). "--help" and "-h" are
// flags every program reads (CliArgs::help).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

struct CliOption {
  std::string name;           // "--force", "-o"
  bool takes_value = false;
};

struct CliArgs {
  bool help = false;                             // --help or -h given
  std::set<std::string> flags;                   // options without a value that were given
  std::vector<std::pair<std::string, std::string>> values;  // (option, value), in order
  std::vector<std::string> positionals;          // in order

  bool Has(const std::string& flag) const { return flags.count(flag) != 0; }
  // The last value given for `option`; nullptr when it was not given.
  const std::string* Value(const std::string& option) const;
};

Result<CliArgs> ParseCliArgs(const std::vector<std::string>& args, const std::vector<CliOption>& options);

// The positionals against their names ("BENCH_DIR", "dest.json"): an Error
// "missing <dest.json>", "<dest.json> is empty" or "unexpected argument 'x'".
// The first `required` names are required, the rest optional.
Result<void> CheckPositionals(const std::vector<std::string>& positionals, const std::vector<std::string>& names,
                              size_t required);

}  // namespace fvbench
