#include "support/core/path_text.h"

#include <cstring>

namespace fvbench::detail {

std::string Basename(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string ErrnoText(int err) { return std::strerror(err); }

}  // namespace fvbench::detail
