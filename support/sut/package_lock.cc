#include "support/sut/package_lock.h"

#include <fmt/format.h>

#include <set>
#include <sstream>

namespace fvbench {
namespace {

constexpr const char kWrapperName[] = "fvbench-lock-wait";

// $1 seconds, $2 apt|dnf, then the command. Retries while a try failed on the
// lock and time is left (package_lock.h).
constexpr const char kLockWaitScript[] = R"SH(w=$1 kind=$2; shift 2
end=$(( $(date +%s) + w )); err=$(mktemp) || exit 1; trap 'rm -f "$err"' EXIT
while :; do
  left=$(( end - $(date +%s) )); [ "$left" -gt 0 ] || left=0
  if [ "$kind" = apt ]; then "$@" -o "DPkg::Lock::Timeout=$left" 2>"$err"; else "$@" 2>"$err"; fi
  rc=$?; cat "$err" >&2
  [ "$rc" -ne 0 ] && grep -q -e 'Could not get lock' -e 'Unable to acquire the dpkg frontend lock' \
    -e 'Unable to lock directory' -e 'already locked by' "$err" || exit "$rc"
  [ "$(date +%s)" -lt "$end" ] || { echo "fvbench: the package manager's lock is still held after $w s" >&2; exit 75; }
  sleep 2
done
)SH";

}  // namespace

const char kLockHoldersScript[] = R"SH(for f in /var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock /var/lib/rpm/.rpm.lock; do
  i=$(stat -L -c %i "$f" 2>/dev/null) || continue
  for p in $(awk -v i="$i" '$2 != "->" && $5 > 0 { n = split($6, a, ":"); if (a[n] == i) print $5 }' /proc/locks 2>/dev/null); do
    printf 'held=%s %s %s\n' "$f" "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"
  done
done
for f in /var/cache/dnf/metadata_lock.pid /var/cache/dnf/download_lock.pid /var/lib/dnf/rpmdb_lock.pid /var/log/log_lock.pid; do
  [ -f "$f" ] || continue
  p=$(head -c 20 "$f" 2>/dev/null | tr -cd 0-9)
  [ -n "$p" ] && [ -e "/proc/$p/stat" ] && printf 'held=%s %s %s\n' "$f" "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"
done
true
)SH";

std::vector<std::string> LockWaitArgv(PackageFamily family, std::vector<std::string> argv, int wait_s) {
  std::vector<std::string> a = {"sh", "-c", kLockWaitScript, kWrapperName, std::to_string(wait_s),
                                family == PackageFamily::kApt ? "apt" : "dnf"};
  a.insert(a.end(), std::make_move_iterator(argv.begin()), std::make_move_iterator(argv.end()));
  return a;
}

bool IsLockWaitArgv(const std::vector<std::string>& argv) {
  return argv.size() > 3 && argv[0] == "sh" && argv[1] == "-c" && argv[3] == kWrapperName;
}

std::vector<std::string> LockWaitedCommand(const std::vector<std::string>& argv) {
  if (!IsLockWaitArgv(argv) || argv.size() < 6) return argv;
  return std::vector<std::string>(argv.begin() + 6, argv.end());
}

std::vector<LockHolder> ParseLockHolders(const std::string& text) {
  std::vector<LockHolder> out;
  std::set<int> seen;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("held=", 0) != 0) continue;
    std::istringstream words(line.substr(5));
    LockHolder h;
    if (!(words >> h.file >> h.pid) || h.pid <= 0) continue;
    std::getline(words, h.comm);
    const size_t b = h.comm.find_first_not_of(" \t\r");
    h.comm = b == std::string::npos ? "" : h.comm.substr(b, h.comm.find_last_not_of(" \t\r") - b + 1);
    if (seen.insert(h.pid).second) out.push_back(std::move(h));
  }
  return out;
}

std::string DescribeLockHolders(const std::vector<LockHolder>& holders) {
  std::string s;
  for (const LockHolder& h : holders) {
    if (!s.empty()) s += ", ";
    s += fmt::format("process {} ({}) holding {}", h.pid, h.comm.empty() ? "gone" : h.comm, h.file);
  }
  return s;
}

}  // namespace fvbench
