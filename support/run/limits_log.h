// Edge's limits log on the SUT host (sut/nginx_conf.h, FairvisorOptions::
// limits_log: one line per request, `$msec $status $http_x_bench_key`), the
// truth of the limits scenarios: emptied before a measured phase and reduced
// after it ON the SUT host (locally and over SSH alike), so only a small text
// comes back through the command's stdout (judge/limits_log_parse.h parses it).
//
// ResetLimitsLog: `truncate -s 0 -- <path>` (no shell). nginx opens access
// logs with O_APPEND, so its writes continue at the new end.
//
// ReduceLimitsLog: ONE fixed awk program (POSIX awk: mawk, Debian's default,
// and gawk alike), no shell. The path travels in the command's environment
// (FVB_LIMITS_LOG, read in BEGIN with getline from ENVIRON: on awk's command
// line a path could be read as an option or a `var=value` assignment); a
// relative path is read as ./<path>. bin_ms travels as `-v bin_ms=<n>`, an
// integer checked here (1..kMaxLimitsBinMs). LC_ALL=C. Output, the contract
// (lines in any order after the first two; fields separated by one space):
//
//   fvbench-limits 1 <bin_ms>
//   lines <n> first <msec> last <msec> nokey <n> malformed <n>
//   k <key> <admitted> <rejected> <other>
//   b <key> <bin> <admitted>
//
//  - lines: every line of the log. A line is malformed unless it has exactly
//    3 blank-separated fields, field 1 matches ^[0-9]+\.[0-9]+$ and field 2
//    ^[0-9][0-9][0-9]$ (so a key holding a blank makes its line malformed; a
//    printed key never holds one).
//  - first / last: the least and greatest msec of the well-formed lines (those
//    with key "-" included), in seconds with 3 decimals, taken in whole
//    milliseconds (further decimals dropped); "0.000" both when there is none.
//  - nokey: well-formed lines whose key is "-" (nginx's absent header; a
//    header whose value is "-" looks the same). They have no k or b line.
//  - k: one per other key, as logged (nginx's escapes kept; the parser
//    validates keys): admitted = status 2xx, rejected = 429, other = any
//    other status.
//  - b: one per key and bin with admitted > 0; bin = (msec - first) in whole
//    milliseconds / bin_ms, rounded down (integer milliseconds: no float drift).
//
// Errors name the host, the path and the tail of awk's stderr: a log awk
// cannot open (missing, unreadable), an awk that fails or cannot start. On a
// DryRunHost (DRY_RUN) nothing runs and the text is "" (the parser's error).
// ResetLimitsLog creates a missing log (truncate's way; nginx creates its
// log when it starts) and fails where the directory is missing.
#pragma once

#include <string>

#include "support/core/result.h"
#include "support/host/host.h"

namespace fvbench {

inline constexpr int kMaxLimitsBinMs = 3600 * 1000;

Result<void> ResetLimitsLog(Host& sut, const std::string& path);
// window_ms > 0: only the lines of the last window_ms milliseconds before
// the newest well-formed line are counted; the older ones are only counted,
// in the `s` line (a phase run again after an attempt whose load generators
// started late logged that attempt too). 0: every line, no `s` line.
Result<std::string> ReduceLimitsLog(Host& sut, const std::string& path, int bin_ms, int window_ms = 0);

namespace detail {
// The awk program ReduceLimitsLog runs.
extern const char kLimitsReduceAwk[];
// ReduceLimitsLog with the awk to run (argv[0], looked up in PATH): the tests
// run mawk and gawk both.
Result<std::string> ReduceLimitsLogWith(Host& sut, const std::string& path, int bin_ms, const std::string& awk,
                                        int window_ms = 0);
}  // namespace detail

}  // namespace fvbench
