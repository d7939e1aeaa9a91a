#include "support/sut/policy_files.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "support/core/config.h"
#include "support/core/json_fields.h"

namespace fvbench {

namespace {

Result<void> CheckBundle(const std::string& file) {
  auto text = detail::ReadTextFile(file);
  if (!text) return text.error();
  auto doc = detail::ParseJsonText(*text, file);
  if (!doc) return doc.error();
  if (!doc->is_object()) return Error{fmt::format("{}: not a JSON object (edge reads a policy bundle object)", file)};
  auto it = doc->find("policies");
  if (it == doc->end() || !it->is_array()) {
    return Error{fmt::format("{}: no \"policies\" array (edge's policy bundle: see fixtures/policies)", file)};
  }
  return Ok();
}

}  // namespace

Result<void> CheckPolicyDir(const char* variable, const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    return Error{fmt::format("{}='{}': not a directory", variable, dir)};
  }
  for (const char* name : kPolicyFiles) {
    if (auto b = CheckBundle(dir + "/" + name); !b) {
      return Error{fmt::format("{}='{}': {}", variable, dir, b.error().message)};
    }
  }
  return Ok();
}

}  // namespace fvbench
