#!/usr/bin/env bash
# tools/pace_capacity.sh: the most requests per second one wrk thread
# drives, paced by support/engine/pace.lua against wrk's own closed loop, on
# the same nginx, side by side.
#
#   tools/pace_capacity.sh [rounds] [seconds] [sut_cpu] [engine_cpu] [connections]
#
# Starts Debian's nginx (one worker, `return 200`, no access log) on
# 127.0.0.1, pinned to <sut_cpu> (default 0), and runs wrk -t1 pinned to
# <engine_cpu> (default 1) against it, alternating <rounds> (default 6)
# rounds of <seconds> (default 5) of:
#   closed  wrk's closed loop, no script: each connection sends its next
#           request as soon as its response is read;
#   paced   pace.lua at a target rate far above what one thread drives
#           (FVBENCH_RATE=1000000): every slot is already due when a
#           connection asks, so delay() returns 0 and the thread sends as
#           fast as its event loop turns; requests/s is then its capacity.
#   before  only with PACE_BEFORE=<file>: that pace.lua (an earlier version,
#           e.g. `git show <commit>:support/engine/pace.lua > f`) as paced, so
#           a change to the script is measured against the one before it in
#           the same rounds.
# Each run prints its requests/s (wrk's "Requests/sec") and wrk's CPU time
# per request (user + system, bash's `time`). The summary is the
# median of each and paced / closed. Then, when perf is usable (root), one
# more run of each mode under `perf stat` on the syscalls tracepoints prints
# the engine's system calls per request by kind (kept out of the timed runs:
# tracing slows each call, and the paced mode makes more of them).
#
# Bounded: rounds x 2 x seconds of load, to loopback only. Take
# /tmp/fvb-real.lock around it, and run it on a quiet machine: a compiler on
# either CPU moves the figures by more than the difference measured.
set -euo pipefail
rounds=${1:-6}
secs=${2:-5}
sut_cpu=${3:-0}
engine_cpu=${4:-1}
conns=${5:-16}
usage="usage: tools/pace_capacity.sh [rounds 1..100] [seconds 1..600] [sut_cpu] [engine_cpu] [connections 1..10000]"
(( $# <= 5 )) || { echo "pace_capacity.sh: $# arguments, at most 5 ($usage)" >&2; exit 2; }
# Up to 6 digits, no leading zero (or 0 itself), before any arithmetic: bash
# wraps larger numbers and reads a leading 0 as octal.
for v in "$rounds" "$secs" "$sut_cpu" "$engine_cpu" "$conns"; do
  [[ $v =~ ^(0|[1-9][0-9]{0,5})$ ]] || { echo "pace_capacity.sh: '$v' is not a whole number of at most 6 digits ($usage)" >&2; exit 2; }
done
(( rounds >= 1 && rounds <= 100 && secs >= 1 && secs <= 600 && conns >= 1 && conns <= 10000 )) ||
  { echo "pace_capacity.sh: out of range ($usage)" >&2; exit 2; }
ncpu=$(nproc --all)
(( sut_cpu < ncpu && engine_cpu < ncpu )) ||
  { echo "pace_capacity.sh: sut_cpu $sut_cpu and engine_cpu $engine_cpu must be CPUs of this machine (0..$((ncpu - 1)))" >&2; exit 2; }
if [ -n "${PACE_BEFORE:-}" ] && ! [ -f "$PACE_BEFORE" -a -r "$PACE_BEFORE" ]; then
  echo "pace_capacity.sh: PACE_BEFORE='$PACE_BEFORE' is not a readable file" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/fvbench-pace-capacity.XXXXXX)
nginx_pid=
cleanup() {
  if [ -n "$nginx_pid" ]; then
    kill "$nginx_pid" 2>/dev/null || true
    wait "$nginx_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$tmp/logs"
cat >"$tmp/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $tmp/nginx.pid;
error_log $tmp/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 100000000;
  server {
    listen 127.0.0.1:$port;
    location / { return 200 "ok\n"; }
  }
}
EOF
taskset -c "$sut_cpu" nginx -p "$tmp" -c "$tmp/nginx.conf" &
nginx_pid=$!
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
url=http://127.0.0.1:$port/

perf_ok=0
if command -v perf >/dev/null && perf stat -e 'syscalls:sys_enter_epoll_wait' true >/dev/null 2>&1; then perf_ok=1; fi
syscalls='syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_read,syscalls:sys_enter_write'

run_timed() {  # <command>...: wrk's output in wrk.txt, its user and system CPU seconds in time.txt
  local TIMEFORMAT='%U %S'
  { time "$@" >"$tmp/wrk.txt" 2>&1; } 2>"$tmp/time.txt"
}

run() {  # <mode> [perf] -> "<mode> <rps> <cpu_us_per_req>", or with perf the syscalls per request
  local mode=$1 traced=${2:-} script=() rps cpu_s n
  case $mode in
    paced) script=(-s "$here/support/engine/pace.lua") ;;
    before) script=(-s "$PACE_BEFORE") ;;
  esac
  local cmd=(taskset -c "$engine_cpu" wrk -t1 -c"$conns" -d"${secs}s" --latency "${script[@]}" "$url")
  if [ -n "$traced" ]; then
    cmd=(perf stat -x, -o "$tmp/perf.txt" -e "$syscalls" -- "${cmd[@]}")
  fi
  FVBENCH_RATE=1000000 FVBENCH_THREADS=1 FVBENCH_CONNECTIONS="$conns" FVBENCH_KIND=get \
    FVBENCH_DURATION_S="$secs" FVBENCH_OUT="$tmp/pace.json" \
    run_timed "${cmd[@]}"
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$tmp/wrk.txt")
  n=$(awk '/requests in/ {print $1}' "$tmp/wrk.txt")
  cpu_s=$(awk '{print $1 + $2}' "$tmp/time.txt")
  if [ -n "$traced" ]; then
    awk -F, -v n="$n" -v m="$mode" '$1 ~ /^[0-9]+$/ {sub(/.*sys_enter_/, "", $3); t += $1; out = out sprintf(" %s %.2f", $3, $1 / n)}
      END {printf "%s system calls per request: %.2f (%s)\n", m, t / n, substr(out, 2)}' "$tmp/perf.txt"
    return
  fi
  awk -v m="$mode" -v r="$rps" -v c="$cpu_s" -v n="$n" 'BEGIN {printf "%s %.0f %.2f\n", m, r, c / n * 1e6}'
}

echo "# nginx on CPU $sut_cpu, wrk -t1 -c$conns on CPU $engine_cpu, $rounds rounds of ${secs} s; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# mode rps engine_cpu_us_per_request"
: >"$tmp/all.txt"
modes=(closed paced)
if [ -n "${PACE_BEFORE:-}" ]; then modes+=(before); fi
for _ in $(seq "$rounds"); do
  for mode in "${modes[@]}"; do
    run "$mode" | tee -a "$tmp/all.txt"
  done
done
awk '
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { k = ++n[$1]; r[$1, k] = $2; c[$1, k] = $3 }
  END {
    for (m in n) {
      delete x; for (i = 1; i <= n[m]; i++) x[i] = r[m, i]; mr[m] = median(x, n[m])
      delete x; for (i = 1; i <= n[m]; i++) x[i] = c[m, i]; mc[m] = median(x, n[m])
      printf "median %s: %.0f requests/s, %.2f us of engine CPU per request\n", m, mr[m], mc[m]
    }
    printf "paced / closed: %.3f of the requests per second\n", mr["paced"] / mr["closed"]
    if ("before" in mr) printf "before / closed: %.3f of the requests per second\n", mr["before"] / mr["closed"]
  }' "$tmp/all.txt"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$perf_ok" = 1 ]; then
  for mode in closed paced; do run "$mode" perf; done
fi
