#include "support/host/remote_script.h"

#include <algorithm>

namespace fvbench {

Result<std::string> FramedScript(std::string_view script) {
  if (script.find('\0') != std::string_view::npos)
    return Error{"the remote script holds a NUL byte at offset " + std::to_string(script.find('\0')) +
                 " (a shell cannot carry it)"};
  std::string body(script);
  if (body.empty() || body.back() != '\n') body += '\n';
  const auto lines = std::count(body.begin(), body.end(), '\n');
  return std::to_string(lines) + "\n" + body;
}

}  // namespace fvbench
