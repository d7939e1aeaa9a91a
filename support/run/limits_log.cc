#include "support/run/limits_log.h"

#include <fmt/format.h>

#include <chrono>

#include "support/core/text.h"
#include "support/host/shell_quote.h"

namespace fvbench {
namespace detail {

// Everything in BEGIN: no input files, no main rules. Admitted lines are
// counted per key and millisecond (the millisecond kept as its text, never a
// number turned back into a string: mawk would print a large one as %.6g),
// and binned once `first` is known.
const char kLimitsReduceAwk[] = R"AWK(
# "<s>.<fraction>" -> whole milliseconds as text (mawk prints large numbers in
# exponent form).
function ms_of(t,  dot) {
  dot = index(t, ".")
  return substr(t, 1, dot - 1) substr(substr(t, dot + 1) "000", 1, 3)
}
function msec(ms,  s) {
  s = int(ms / 1000)
  return sprintf("%.0f.%03d", s, ms - s * 1000)
}
BEGIN {
  path = ENVIRON["FVB_LIMITS_LOG"]
  if (path == "") { print "FVB_LIMITS_LOG is not set" > "/dev/stderr"; exit 2 }
  if (bin_ms !~ /^[1-9][0-9]*$/) { print "bin_ms is not a positive integer" > "/dev/stderr"; exit 2 }
  if (window_ms !~ /^[0-9]+$/) { print "window_ms is not a whole number" > "/dev/stderr"; exit 2 }
  bin_ms += 0; window_ms += 0
  # The window: the last window_ms before the newest line (0 = every line).
  cut = -1
  if (window_ms > 0) {
    newest = -1
    while ((rc = (getline line < path)) > 0) {
      if (split(line, f, " ") == 3 && f[1] ~ /^[0-9]+\.[0-9]+$/ && f[2] ~ /^[0-9][0-9][0-9]$/) {
        ms = ms_of(f[1]) + 0
        if (ms > newest) newest = ms
      }
    }
    if (rc < 0) { print "cannot open the log (missing or unreadable)" > "/dev/stderr"; exit 2 }
    close(path)
    if (newest >= 0) cut = newest - window_ms
  }
  lines = 0; good = 0; nokey = 0; bad = 0; nk = 0; first = 0; last = 0; skipped = 0
  while ((rc = (getline line < path)) > 0) {
    if (split(line, f, " ") != 3 || f[1] !~ /^[0-9]+\.[0-9]+$/ || f[2] !~ /^[0-9][0-9][0-9]$/) { lines++; bad++; continue }
    ms_text = ms_of(f[1])
    ms = ms_text + 0
    if (ms < cut) { skipped++; continue }
    lines++
    if (good == 0 || ms < first) first = ms
    if (good == 0 || ms > last) last = ms
    good++
    if (f[3] == "-") { nokey++; continue }
    if (!(f[3] in id)) { id[f[3]] = ++nk; name[nk] = f[3]; adm[nk] = 0; rej[nk] = 0; oth[nk] = 0 }
    k = id[f[3]]
    status = f[2] + 0
    if (status >= 200 && status <= 299) { adm[k]++; at[k "," ms_text]++ }
    else if (status == 429) rej[k]++
    else oth[k]++
  }
  if (rc < 0) { print "cannot open the log (missing or unreadable)" > "/dev/stderr"; exit 2 }
  close(path)
  printf "fvbench-limits 1 %d\n", bin_ms
  printf "lines %d first %s last %s nokey %d malformed %d\n", lines, msec(first), msec(last), nokey, bad
  if (window_ms > 0) printf "s %d\n", skipped
  for (k = 1; k <= nk; k++) printf "k %s %d %d %d\n", name[k], adm[k], rej[k], oth[k]
  for (kt in at) {
    split(kt, p, ",")
    per[p[1] "," sprintf("%.0f", int((p[2] - first) / bin_ms))] += at[kt]
  }
  for (kb in per) {
    split(kb, p, ",")
    printf "b %s %s %d\n", name[p[1]], p[2], per[kb]
  }
}
)AWK";

Result<std::string> ReduceLimitsLogWith(Host& sut, const std::string& path, int bin_ms, const std::string& awk,
                                        int window_ms) {
  if (path.empty()) return Error{fmt::format("host {}: reducing the limits log: no path", sut.name())};
  if (bin_ms < 1 || bin_ms > kMaxLimitsBinMs) {
    return Error{fmt::format("host {}: reducing the limits log {}: bin {} ms is outside 1..{}", sut.name(), path,
                             bin_ms, kMaxLimitsBinMs)};
  }
  Command c;
  if (window_ms < 0) {
    return Error{fmt::format("host {}: reducing the limits log {}: window {} ms is below 0", sut.name(), path,
                             window_ms)};
  }
  c.argv = {awk, "-v", fmt::format("bin_ms={}", bin_ms), "-v", fmt::format("window_ms={}", window_ms),
            kLimitsReduceAwk};
  // gawk and mawk give "-" (and gawk /dev/stdin-like names) a meaning of their own.
  c.env["FVB_LIMITS_LOG"] = path.front() == '/' ? path : "./" + path;
  c.env["LC_ALL"] = "C";
  c.timeout = std::chrono::minutes(5);
  auto r = sut.Run(c);
  if (!r) {
    return Error{fmt::format("host {}: reducing the limits log {}: could not run {}: {}", sut.name(), path, awk,
                             r.error().message)};
  }
  if (!r->success()) {
    return Error{fmt::format("host {}: reducing the limits log {}: {} {}: {}", sut.name(), path, awk,
                             r->timed_out ? "timed out" : fmt::format("exited {}", r->exit_code),
                             TrimSpace(TailBytesFromLine(r->err, 600)))};
  }
  return r->out;
}

}  // namespace detail

Result<void> ResetLimitsLog(Host& sut, const std::string& path) {
  Command c;
  c.argv = {"truncate", "-s", "0", "--", path};
  c.timeout = std::chrono::seconds(30);
  auto r = sut.Run(c);
  if (!r) return Error{fmt::format("host {}: `{}`: {}", sut.name(), ShellJoin(c.argv), r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("host {}: `{}` exited {}: {}", sut.name(), ShellJoin(c.argv), r->exit_code,
                             detail::TrimSpace(detail::TailBytesFromLine(r->err, 600)))};
  }
  return Ok();
}

Result<std::string> ReduceLimitsLog(Host& sut, const std::string& path, int bin_ms, int window_ms) {
  return detail::ReduceLimitsLogWith(sut, path, bin_ms, "awk", window_ms);
}

}  // namespace fvbench
