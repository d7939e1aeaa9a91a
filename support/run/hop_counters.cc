#include "support/run/hop_counters.h"

#include <fmt/format.h>

#include <chrono>
#include <sstream>

#include "support/run/progress.h"

namespace fvbench {

namespace {

// Every read of every hop in one command (one round trip to the SUT host),
// the reads themselves at once: positional arguments "<socket> <port>" per
// hop; per hop and read a line "@@<kind> <i> <exit status>" and its output.
constexpr char kHopReadsScript[] = R"SH(d=$(mktemp -d) || exit 1
n=0
while [ $# -ge 2 ]; do
  if [ -n "$1" ]; then
    { curl -sS --max-time 2 --unix-socket "$1" http://localhost/fvbench_status >"$d/s$n" 2>/dev/null; echo $? >"$d/sr$n"; } &
  fi
  if [ "$2" -gt 0 ]; then
    { ss -Htan state time-wait "( sport = :$2 or dport = :$2 )" >"$d/t$n" 2>/dev/null; echo $? >"$d/tr$n"; } &
  fi
  shift 2; n=$((n+1))
done
wait
i=0
while [ $i -lt $n ]; do
  for k in s t; do
    [ -f "$d/${k}r$i" ] || continue
    printf '@@%s %s %s\n' "$k" "$i" "$(cat "$d/${k}r$i")"
    cat "$d/$k$i"
  done
  i=$((i+1))
done
rm -rf "$d"
)SH";

}  // namespace

namespace detail {

std::vector<HopCounters> ParseHopReads(std::string_view out, size_t hops) {
  std::vector<HopCounters> result(hops);
  std::istringstream in{std::string(out)};
  std::string line, kind, body;
  size_t index = 0;
  int status = -1;
  auto flush = [&] {
    if (kind.empty() || index >= hops || status != 0) return;
    if (kind == "s") {
      if (auto st = ParseStubStatus(body)) {
        result[index].accepts = st->accepts;
        result[index].requests = st->requests;
      }
    } else if (kind == "t") {
      result[index].time_wait = CountSsSockets(body);
    }
  };
  while (std::getline(in, line)) {
    if (line.rfind("@@", 0) == 0) {
      flush();
      std::istringstream head(line.substr(2));
      kind.clear();
      body.clear();
      index = hops;
      status = -1;
      head >> kind >> index >> status;
      continue;
    }
    body += line + "\n";
  }
  flush();
  return result;
}

}  // namespace detail

std::vector<HopCounters> ReadHops(Host& sut, const std::vector<HopTarget>& targets) {
  if (targets.empty()) return {};
  Command c;
  c.argv = {"sh", "-c", kHopReadsScript, "sh"};
  for (const HopTarget& t : targets) {
    c.argv.push_back(t.status_socket);
    c.argv.push_back(std::to_string(t.port));
  }
  c.timeout = std::chrono::seconds(6);
  auto r = sut.Run(c);
  if (!r || !r->success()) return std::vector<HopCounters>(targets.size());
  return detail::ParseHopReads(r->out, targets.size());
}

}  // namespace fvbench
