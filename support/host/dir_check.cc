#include "support/host/dir_check.h"

#include <fmt/format.h>

#include <sstream>

#include "support/core/text.h"
#include "support/host/dry_run_host.h"
#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

// Each argument "<F|N>:<path>": F follows a link (above BENCH_DIR), N does not.
// (One line each: a dry run's plan shows each command on one line.)
constexpr char kStatScript[] =
    "id -u; for a; do case $a in F:*) f=-L ;; *) f= ;; esac; "
    "LC_ALL=C stat $f -c '%u %f %U' -- \"${a#?:}\" 2>/dev/null || echo -; done";
// Each argument "<mode>:<F|N>:<path>".
constexpr char kMakeScript[] =
    "for a; do m=${a%%:*}; r=${a#*:}; case $r in F:*) f=-L ;; *) f= ;; esac; "
    "mkdir -m \"$m\" -- \"${r#?:}\" 2>/dev/null; "
    "LC_ALL=C stat $f -c '%u %f %U' -- \"${r#?:}\" 2>/dev/null || echo -; done";

std::string Tag(const DirToCheck& d) { return d.place == DirPlace::kAbove ? "F:" : "N:"; }

Result<std::vector<std::string>> RunLines(Host& host, std::vector<std::string> argv, const std::string& what) {
  Command c;
  c.argv = std::move(argv);
  c.timeout = std::chrono::seconds(30);
  auto r = host.Run(c);
  if (!r) return Error{fmt::format("{}: {}: {}", host.name(), what, r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("{}: {}: `{}` exit {}: {}", host.name(), what, ShellJoin(c.argv), r->exit_code,
                             detail::TrimSpace(r->err).substr(0, 300))};
  }
  std::vector<std::string> lines;
  std::istringstream in(r->out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Checks `dirs` against `lines` (one stat line each, from `first_line`);
// the missing ones are appended to `missing` (nullptr: a missing one is an
// Error). The first existing directory refused ends the check.
Result<void> Judge(const std::string& host, const std::vector<DirToCheck>& dirs, const std::vector<std::string>& lines,
                   size_t first_line, uint32_t uid, std::vector<DirToCheck>* missing) {
  if (lines.size() < first_line + dirs.size()) {
    return Error{fmt::format("{}: checking BENCH_DIR: stat printed {} lines for {} directories", host,
                             lines.size() - first_line, dirs.size())};
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    auto st = ParseDirStatLine(lines[first_line + i]);
    if (!st) return Error{fmt::format("{}: checking {}: {}", host, dirs[i].path, st.error().message)};
    if (!st->exists) {
      if (missing == nullptr) return Error{fmt::format("{}: cannot create {}", host, dirs[i].path)};
      missing->push_back(dirs[i]);
      continue;
    }
    if (auto ok = CheckDir(dirs[i], *st, uid, host); !ok) return ok;
  }
  return Ok();
}

}  // namespace

Result<void> EnsurePrivateDirs(Host& host, const std::vector<DirToCheck>& chain) {
  std::vector<std::string> argv = {"sh", "-c", kStatScript, "sh"};
  for (const DirToCheck& d : chain) argv.push_back(Tag(d) + d.path);
  auto lines = RunLines(host, argv, "checking BENCH_DIR");
  if (!lines) return lines.error();
  if (dynamic_cast<DryRunHost*>(&host) != nullptr) return Ok();  // recorded; nothing to look at
  if (lines->empty()) return Error{fmt::format("{}: checking BENCH_DIR: `id -u` printed nothing", host.name())};
  uint32_t uid = 0;
  try {
    uid = static_cast<uint32_t>(std::stoul(lines->front()));
  } catch (const std::exception&) {
    return Error{fmt::format("{}: checking BENCH_DIR: `id -u` printed '{}'", host.name(), lines->front())};
  }
  std::vector<DirToCheck> missing;
  if (auto ok = Judge(host.name(), chain, *lines, 1, uid, &missing); !ok) return ok;
  if (missing.empty()) return Ok();
  std::vector<std::string> make = {"sh", "-c", kMakeScript, "sh"};
  for (const DirToCheck& d : missing) make.push_back(fmt::format("{:o}:{}{}", d.create_mode, Tag(d), d.path));
  auto made = RunLines(host, make, "creating BENCH_DIR's folders");
  if (!made) return made.error();
  return Judge(host.name(), missing, *made, 0, uid, nullptr);
}

}  // namespace fvbench
