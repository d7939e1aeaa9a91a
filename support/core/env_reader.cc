#include "support/core/env_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "support/core/cpu_list.h"
#include "support/core/plausible.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

std::string Short(double v) { return detail::FormatNumber(v); }

std::string RangeText(NumRange r) {
  return fmt::format("{}{}, {}]", r.lo_open ? "(" : "[", Short(r.lo), Short(r.hi));
}

}  // namespace

Result<double> ParseDecimal(const std::string& s) {
  double v = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v, std::chars_format::general);
  if (s.empty() || ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range) || std::isnan(v)) {
    return Error{"not a number"};
  }
  if (ec == std::errc::result_out_of_range || std::isinf(v)) {
    // from_chars leaves v unchanged on a range error: tell overflow from underflow by the exponent's sign.
    const size_t e = s.find_first_of("eE");
    const bool tiny = e != std::string::npos && e + 1 < s.size() && s[e + 1] == '-';
    if (std::isinf(v)) return Error{"not a finite number"};  // "inf", "infinity"
    if (!tiny) return Error{"not a finite number (beyond 1.8e308, the largest double)"};  // 1e999
    return Error{fmt::format("{} is subnormal (closer to 0 than any meant value)", s)};
  }
  return v;
}

// Every other accessor asks has() or set_but_empty() first.
bool EnvReader::has(const char* name) const {
  Note(name);
  auto it = env_.find(name);
  return it != env_.end() && !it->second.empty();
}

bool EnvReader::set_but_empty(const char* name) const {
  Note(name);
  auto it = env_.find(name);
  return it != env_.end() && it->second.empty();
}

std::string EnvReader::str(const char* name, const std::string& def) const {
  return has(name) ? env_.at(name) : def;
}

// NAME= for a number: refused like an empty path (config_paths.cc), since
// taking the default would hide the script that meant to set it.
static Error SetButEmpty(const char* name, const std::string& def) {
  return Error{fmt::format("{}='': set but empty; unset it to use the default {}", name, def)};
}

Result<double> EnvReader::Number(const char* name, double def, NumRange r, const char* what) const {
  if (set_but_empty(name)) return SetButEmpty(name, Short(def));
  if (!has(name)) return def;
  const std::string& s = env_.at(name);
  auto v = ParseDecimal(s);
  if (!v) {
    if (v.error().message.rfind("not a", 0) == 0) {
      return Error{fmt::format("{}='{}': {} (expected {})", name, s, v.error().message, what)};
    }
    return Error{fmt::format("{}='{}': {} (expected {}, in {})", name, s, v.error().message, what, RangeText(r))};
  }
  if (r.lo_open && r.lo == 0 && *v <= 0) return Error{fmt::format("{}='{}': must be > 0 (expected {})", name, s, what)};
  const bool low = r.lo_open ? *v <= r.lo : *v < r.lo;
  if (low) return Error{fmt::format("{}='{}': below {} (expected {}, in {})", name, s, Short(r.lo), what, RangeText(r))};
  if (std::string why = WhyOutOfRange(*v, r.lo, r.hi); !why.empty()) {
    // `why` names the bound it broke (WhyOutOfRange: "... is above 1e9",
    // "... is subnormal"); "at most" beside a value too small would read as
    // a contradiction ("5e-324 ... 0 < x <= 0.5, at most 1000000000").
    return Error{fmt::format("{}='{}': {} (expected {})", name, s, why, what)};
  }
  return *v;
}

// A value > 0 below `min` (5e-304 s is a normal double, but no phase or rate).
Result<double> EnvReader::AtLeast(Result<double> v, const char* name, double min, const char* unit) const {
  if (v && *v != 0 && *v < min) {
    return Error{fmt::format("{}='{}': below {} {} (the shortest / lowest fvbench plans with)", name, env_.at(name),
                             Short(min), unit)};
  }
  return v;
}

Result<double> EnvReader::Seconds(const char* name, double def, bool zero_ok) const {
  return AtLeast(Number(name, def, NumRange{0, kMaxPhaseSeconds, !zero_ok}, zero_ok ? "seconds >= 0" : "seconds > 0"),
                 name, kMinSeconds, "s");
}

Result<double> EnvReader::Rate(const char* name, double def) const {
  return AtLeast(Number(name, def, NumRange{0, kMaxRateRps, true}, "requests per second > 0"), name, kMinRateRps,
                 "RPS");
}

Result<long long> EnvReader::Integer(const char* name, long long def, long long lo, long long hi,
                                     const char* what) const {
  if (set_but_empty(name)) return SetButEmpty(name, std::to_string(def));
  if (!has(name)) return def;
  const std::string& s = env_.at(name);
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ptr != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range)) {
    return Error{fmt::format("{}='{}': not an integer (expected {})", name, s, what)};
  }
  if (ec == std::errc::result_out_of_range || v < lo || v > hi) {
    return Error{fmt::format("{}='{}': out of range {}..{} (expected {})", name, s, lo, hi, what)};
  }
  return v;
}

Result<bool> EnvReader::Flag(const char* name, bool def) const {
  auto v = OneOf(name, def ? "1" : "0", {"0", "1"}, "0 or 1");
  if (!v) return v.error();
  return *v == "1";
}

Result<std::string> EnvReader::OneOf(const char* name, const std::string& def,
                                     std::initializer_list<const char*> choices, const char* hint) const {
  std::string v = str(name, def);
  for (const char* c : choices) {
    if (v == c) return v;
  }
  return Error{fmt::format("{}='{}': expected {}", name, v, hint)};
}

Result<std::vector<int>> EnvReader::CpuList(const char* name) const {
  if (!has(name)) return std::vector<int>{};
  auto cpus = ParseCpuList(env_.at(name));
  if (!cpus) {
    return Error{fmt::format("{}='{}': {} (expected a taskset -c cpu list like 0-3,6)", name, env_.at(name),
                             cpus.error().message)};
  }
  return cpus;
}

}  // namespace fvbench
