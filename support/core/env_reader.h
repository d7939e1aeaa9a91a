// EnvReader: the one checked parser of variables (config.h, validity_params.h,
// progress_params.h). Every numeric and list variable goes through it with a
// range; a value that is not in it is refused before any host is touched,
// the error naming the variable and the value:
//   "LATENCY_RPS='10k': not a number (expected requests per second > 0)"
//   "REPEAT='0': out of range 1..100 (expected runs per measured phase, 1..100)"
//   "ORESTY_CPUSET='1-0': 1-0 is a reversed range (1 > 0) (expected a taskset -c list ...)"
// Numbers are decimal (std::from_chars: no leading '+' or blanks, no hex, no
// trailing text); inf, nan and subnormal values are refused (plausible.h).
// Unset means "the default"; a number set but empty (NAME=) is refused, named,
// as an empty path is ("LATENCY_RPS='': set but empty; unset it to use the
// default 10000"). The other accessors read set-but-empty as unset.
// Given an EnvNamesRead, the reader adds to it every name it is asked about.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "support/core/env_map.h"
#include "support/core/result.h"

namespace fvbench {

// The shortest duration and the lowest rate a variable may set: below them a
// phase holds no request (config_fuzz found LATENCY_DUR=5e-304 accepted).
inline constexpr double kMinSeconds = 0.001;
inline constexpr double kMinRateRps = 0.001;

// [lo, hi], or (lo, hi] when lo_open.
struct NumRange {
  double lo;
  double hi;
  bool lo_open = false;
};

class EnvReader {
 public:
  // `env` (and `names_read`, when given) must outlive the reader.
  explicit EnvReader(const EnvMap& env, EnvNamesRead* names_read = nullptr) : env_(env), names_read_(names_read) {}
  explicit EnvReader(EnvMap&&, EnvNamesRead* = nullptr) = delete;

  bool has(const char* name) const;             // set and non-empty
  bool set_but_empty(const char* name) const;   // NAME= (usually a script bug)
  std::string str(const char* name, const std::string& def) const;

  // A double in `r`; `what` says what is expected ("seconds > 0").
  Result<double> Number(const char* name, double def, NumRange r, const char* what) const;
  // Seconds in [kMinSeconds, 1e9] (plausible.h kMaxPhaseSeconds), or 0 too when zero_ok.
  Result<double> Seconds(const char* name, double def, bool zero_ok = false) const;
  // Requests per second in [kMinRateRps, 1e9] (plausible.h kMaxRateRps).
  Result<double> Rate(const char* name, double def) const;
  // A decimal integer in [lo, hi] (no overflow: checked before conversion).
  Result<long long> Integer(const char* name, long long def, long long lo, long long hi, const char* what) const;
  // 0 or 1.
  Result<bool> Flag(const char* name, bool def) const;
  // One of `choices`; `hint` explains them in the error.
  Result<std::string> OneOf(const char* name, const std::string& def, std::initializer_list<const char*> choices,
                            const char* hint) const;
  // A CPU list (cpu_list.h); unset = {}.
  Result<std::vector<int>> CpuList(const char* name) const;

 private:
  Result<double> AtLeast(Result<double> v, const char* name, double min, const char* unit) const;
  void Note(const char* name) const {
    if (names_read_ != nullptr) names_read_->insert(name);
  }
  const EnvMap& env_;
  EnvNamesRead* names_read_;
};

// Pure helpers, exposed for tests and the other parsers of numbers.
// A finite decimal number, the whole of `s`; nullopt-like Error otherwise.
Result<double> ParseDecimal(const std::string& s);

}  // namespace fvbench
