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

}  // namespace fvbench::detail
