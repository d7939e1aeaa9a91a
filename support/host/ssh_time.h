// OpenSSH's time format, as ssh_config(5) "TIME FORMATS" defines it and
// misc.c convtime() reads it: a sequence of <number>[unit] with units
// s|S seconds (also no unit), m|M minutes, h|H hours, d|D days, w|W weeks,
// summed ("1h30m" = 5400, "90" = 90, "1m30s" = 90). Pure.
#pragma once

#include <optional>
#include <string_view>

namespace fvbench {

// Seconds, or nullopt for anything convtime() refuses: empty text, a unit
// without a number, an unknown unit, a sign or space, or a total above
// INT_MAX (2147483647 s, as convtime). "0" is 0 (for ConnectTimeout: none).
std::optional<long> ParseSshTime(std::string_view text);

}  // namespace fvbench
