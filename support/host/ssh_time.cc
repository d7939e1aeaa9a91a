#include "support/host/ssh_time.h"

#include <climits>

namespace fvbench {

std::optional<long> ParseSshTime(std::string_view text) {
  if (text.empty()) return std::nullopt;
  long total = 0;
  size_t i = 0;
  while (i < text.size()) {
    long number = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
      number = number * 10 + (text[i] - '0');
      if (number > INT_MAX) return std::nullopt;
    }
    if (digits == 0) return std::nullopt;
    long multiplier = 1;
    if (i < text.size()) {
      switch (text[i++]) {
        case 's': case 'S': multiplier = 1; break;
        case 'm': case 'M': multiplier = 60; break;
        case 'h': case 'H': multiplier = 60 * 60; break;
        case 'd': case 'D': multiplier = 24 * 60 * 60; break;
        case 'w': case 'W': multiplier = 7 * 24 * 60 * 60; break;
        default: return std::nullopt;
      }
    }
    if (number > INT_MAX / multiplier) return std::nullopt;
    number *= multiplier;
    if (total > INT_MAX - number) return std::nullopt;
    total += number;
  }
  return total;
}

}  // namespace fvbench
