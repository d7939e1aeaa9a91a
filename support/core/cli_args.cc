#include "support/core/cli_args.h"

#include <fmt/format.h>

namespace fvbench {

const std::string* CliArgs::Value(const std::string& option) const {
  const std::string* found = nullptr;
  for (const auto& [name, value] : values) {
    if (name == option) found = &value;
  }
  return found;
}

namespace {

bool OptionShaped(const std::string& word) { return word.size() > 1 && word[0] == '-'; }

const CliOption* Find(const std::vector<CliOption>& options, const std::string& name) {
  for (const CliOption& o : options) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

}  // namespace

Result<CliArgs> ParseCliArgs(const std::vector<std::string>& args, const std::vector<CliOption>& options) {
  CliArgs out;
  bool options_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (options_ended || !OptionShaped(word)) {
      out.positionals.push_back(word);
      continue;
    }
    if (word == "--") {
      options_ended = true;
      continue;
    }
    const size_t eq = word.rfind("--", 0) == 0 ? word.find('=') : std::string::npos;
    const std::string name = word.substr(0, eq);
    if (name == "--help" || name == "-h") {
      if (eq != std::string::npos) return Error{fmt::format("{} takes no value (given '{}')", name, word)};
      out.help = true;
      continue;
    }
    const CliOption* o = Find(options, name);
    if (o == nullptr) return Error{fmt::format("unknown option '{}'", word)};
    if (!o->takes_value) {
      if (eq != std::string::npos) return Error{fmt::format("{} takes no value (given '{}')", name, word)};
      out.flags.insert(name);
      continue;
    }
    std::string value;
    if (eq != std::string::npos) {
      value = word.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Error{fmt::format("{} needs a value", name)};
    }
    if (value.empty()) return Error{fmt::format("{} needs a value (given an empty one)", name)};
    if (value[0] == '-' && value != "-") {
      return Error{fmt::format("{} needs a value (given '{}', which starts with '-' like an option)", name, value)};
    }
    out.values.emplace_back(name, value);
  }
  return out;
}

Result<void> CheckPositionals(const std::vector<std::string>& positionals, const std::vector<std::string>& names,
                              size_t required) {
  for (size_t i = 0; i < positionals.size(); ++i) {
    if (i >= names.size()) return Error{fmt::format("unexpected argument '{}'", positionals[i])};
    if (positionals[i].empty()) return Error{fmt::format("<{}> is empty", names[i])};
  }
  if (positionals.size() < required) return Error{fmt::format("missing <{}>", names[positionals.size()])};
  return Ok();
}

}  // namespace fvbench
