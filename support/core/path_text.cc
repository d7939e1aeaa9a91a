#include "support/core/path_text.h"

#include <cstring>

namespace fvbench::detail {

std::string Basename(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ErrnoText(int err) { return std::strerror(err); }

std::string PhaseFileStem(std::string_view scenario_id) {
  std::string stem(scenario_id);
  for (char& ch : stem) {
    if (ch == '.') ch = '_';
  }
  return stem;
}

bool IsScenarioId(std::string_view id) {
  if (id.empty() || id.size() > 100 || id.front() == '.' || id.front() == '-') return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace fvbench::detail
