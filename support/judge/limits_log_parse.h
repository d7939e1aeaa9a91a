// The reduced access log of a limits scenario's phase (core/limit_figures.h
// AccessLogCounts), as the SUT host's awk program writes it from edge's nginx
// access log (format `$msec $status $http_x_bench_key`). Pure. The text is
// the contract between that program and the controller:
//
//   fvbench-limits 1 <bin_ms>
//   lines <n> first <msec> last <msec> nokey <n> malformed <n>
//   k <key> <admitted> <rejected> <other>
//   b <key> <bin> <admitted>
//   s <n>
//
// Line 1, the header: format version 1 and the bin width in milliseconds, an
// integer that divides 1000 (1, 2, 4, 5, ..., 100, ..., 1000), so that a 1 s
// window is a whole number of bins.
// Line 2, the totals: every access-log line of the phase (`lines`), the
// first and last line's time as nginx's $msec prints it (seconds with a
// fraction of at most 3 digits, e.g. 1733251234.123; both 0 when lines is
// 0; last >= first), the lines whose key was absent or empty (`nokey`: the
// reducer counts nginx's "-" there) and the lines that were not
// "<msec> <status> <key>" (`malformed`).
// Then, in any order:
//   `k` one line per key seen: responses 2xx (admitted), 429 (rejected),
//       any other status (other);
//   `b` one line per key and bin in which the key was admitted (admitted > 0;
//       a 0 is accepted): bin = floor((msec - first) / bin) counted from 0;
//   `s` at most once: lines logged before the phase's window, left out of
//       every count (AccessLogCounts::before_window; 0 when absent).
// Blank lines are skipped; fields are separated by spaces or tabs; a
// trailing '\r' is ignored.
//
// The text comes from a host and is never trusted. ParseLimitsLog refuses,
// naming `source` and the line number: a wrong or missing header (version,
// bin width), a missing or wrong totals line, an unknown line tag, a wrong
// field count, a number that is not a decimal integer (or $msec time), a key
// longer than kMaxLimitsKeyBytes or with a byte outside 0x21..0x7e, a
// duplicate `k` key, a duplicate (key, bin), a bin at or beyond the window's
// bin count, a `b` line for a key without a `k` line, a key whose `b` lines
// do not sum to its `k` admitted, keyed counts + nokey + malformed != lines,
// `k` lines when lines is 0, more than kMaxLimitsBins bins in the window,
// more than kMaxLimitsKeys keys or kMaxLimitsCells bins over all keys (the
// memory the counts take is bounded).
//
// The result: bin_s = bin_ms / 1000; keys sorted by key (byte order); every
// key's admitted_per_bin has the window's bin count,
// ceil((last - first) / bin_s) + 1 (computed on whole milliseconds; 1 when
// first == last; 0 when lines is 0), bins without a `b` line 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "support/core/limit_figures.h"
#include "support/core/result.h"

namespace fvbench {

inline constexpr size_t kMaxLimitsKeyBytes = 128;
inline constexpr uint64_t kMaxLimitsBins = 100000;      // per key: 100 s at 1 ms, 10000 s at 100 ms
inline constexpr uint64_t kMaxLimitsKeys = 100000;
inline constexpr uint64_t kMaxLimitsCells = 20000000;   // keys x bins: 160 MB of counts at most

Result<AccessLogCounts> ParseLimitsLog(std::string_view text, std::string_view source = "limits log");

}  // namespace fvbench
