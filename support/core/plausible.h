// The bounds of numbers fvbench plans with and reads back. A value outside
// them cannot have been configured for or measured by a run (a typo, a
// hand-edited or corrupted file): config.h refuses it in a variable, and the
// readers of results, baselines, references and threshold profiles refuse it
// naming the file and the key. So no table cell, message, JSON value or
// check works with inf, NaN, a subnormal or a 300-digit number.
#pragma once

#include <optional>
#include <string>

#include "support/core/load_result.h"

namespace fvbench {

// Longest load phase, budget or timeout fvbench plans, in seconds (about 31.7
// years). The integer types durations end up in hold it with room: wrk's -d
// (seconds, sleep(3)'s unsigned int: 4294967295), k6's duration (Go's
// int64 nanoseconds: 9223372036 s), the command timeouts (int64 ms).
inline constexpr double kMaxPhaseSeconds = 1e9;
// Highest arrival rate fvbench asks for, requests per second; the k6 rate
// (int64), wrk's connection count (int) and every derived count stay finite.
inline constexpr double kMaxRateRps = 1e9;
// Longest latency a run can have measured, µs: the longest phase.
inline constexpr double kMaxLatencyUs = kMaxPhaseSeconds * 1e6;
// Latest wall-clock time a result can carry, µs since the Unix epoch
// (2100-01-01T00:00:00Z): a sample or interval time beyond it is not a time.
inline constexpr double kMaxEpochUs = 4102444800e6;
// Most CPU cores one host's processes can use, and most memory one host's
// processes can hold (MiB: 2^24 MiB = 16 TiB), for figures read back.
inline constexpr double kMaxHostCores = 65536;
inline constexpr double kMaxHostMib = 16777216;
// Largest factor of a threshold limit relative to the reference or to
// another scenario (x_reference, ratio factor).
inline constexpr double kMaxLimitFactor = 1e6;

// "" when `v` is finite, in [lo, hi], and 0 or a normal number (not
// subnormal: |v| >= DBL_MIN); else why not, with the value compactly, e.g.
// "4.94e-324 is subnormal (closer to 0 than any measured or meant value)",
// "1e+308 is above 1e+15", "-1 is below 0", "not a number".
std::string WhyOutOfRange(double v, double lo, double hi);
// The same for a value that must also be > 0: "0 is not > 0".
std::string WhyNotPositive(double v, double hi);

// Latencies of one measurement, µs: each > 0, normal, at most kMaxLatencyUs,
// and p50 <= p90 <= p99 <= p99.9 (<= max when `with_max`). nullopt when
// plausible; else the first key that is not ("p50", "p90", "p99", "p999",
// "max") and why, e.g. {"p90", "4.94e-324 is subnormal (...) (a latency in
// µs)"} or {"p999", "302 µs is below p99's 1e+308 µs (percentiles must not
// decrease: ...)"}.
struct Implausible {
  std::string key;
  std::string why;
};
std::optional<Implausible> CheckLatencyUs(const LatencyUs& l, bool with_max);

}  // namespace fvbench
