#!/usr/bin/env bash
# faults.PackageLockHeld*: provisioning on a host whose dpkg and apt locks
# another process holds, as unattended-upgrades does for minutes after a
# fresh cloud VM boots. Usage: package-lock-test.sh FVBENCH_FIXTURE
#
# Everything runs in a private mount + network namespace, never on the
# machine's own apt state: /var/lib/dpkg is a copy; /var/lib/apt/lists,
# /var/cache/apt and /var/log/apt are empty scratch directories; /usr and
# /etc are read-only; /usr/bin/taskset is hidden behind a non-executable
# file, so that provisioning installs util-linux (already installed: apt has
# nothing to do once it has the lock). A stand-in whose process name is
# "unattended-upgr" holds /var/lib/dpkg/lock-frontend, /var/lib/dpkg/lock and
# /var/lib/apt/lists/lock.
#   1. held 5 s, FVBENCH_PACKAGE_LOCK_WAIT_S=60: provisioning says that it
#      waits, naming the holder, and passes after the holder let go.
#   2. held throughout, FVBENCH_PACKAGE_LOCK_WAIT_S=3: provisioning fails
#      within 3..40 s, naming the holder by pid and name (before: it gave up
#      in 0.5 s saying only that apt could not get the lock).
# Needs root, unshare, apt-get, python3 and what local provisioning with
# NGINX_RUNTIME=nginx LOADGEN_ENGINE=wrk finds installed (Debian's nginx with
# its Lua module, wrk); exits 77 (skipped) saying why otherwise.
set -u
fixture=$1
skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

if [ "${1:-}" != --inner ]; then
  [ "$(id -u)" = 0 ] || skip "needs root (a private mount namespace over /var/lib/dpkg)"
  for t in unshare apt-get python3 dpkg-query; do
    command -v "$t" > /dev/null || skip "no $t"
  done
  for p in nginx libnginx-mod-http-lua lua-cjson lua-resty-core wrk util-linux; do
    dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' ||
      skip "package $p is not installed (local provisioning would install it)"
  done
  w=$(mktemp -d /tmp/fvb-pkglock.XXXXXX) || fail "mktemp"
  trap 'rm -rf "$w"' EXIT
  cp -a /var/lib/dpkg "$w/dpkg" || fail "cannot copy /var/lib/dpkg"
  mkdir -p "$w/lists/partial" "$w/cache/archives/partial" "$w/log" "$w/bench"
  printf '#!/bin/sh\nexit 1\n' > "$w/taskset-hidden"
  chmod 644 "$w/taskset-hidden"
  unshare -m -n --propagation private bash "$0" --inner "$fixture" "$w"
  exit $?
fi

# ---- inside the namespace ----
fixture=$2 w=$3
mount --bind /usr /usr && mount -o remount,bind,ro /usr &&
  mount --bind /etc /etc && mount -o remount,bind,ro /etc &&
  mount --bind "$w/taskset-hidden" /usr/bin/taskset &&
  mount --bind "$w/dpkg" /var/lib/dpkg &&
  mount --bind "$w/lists" /var/lib/apt/lists &&
  mount --bind "$w/cache" /var/cache/apt &&
  mount --bind "$w/log" /var/log/apt || fail "cannot set up the namespace's mounts"
ip link set lo up 2> /dev/null
[ -x /usr/bin/taskset ] && fail "taskset is not hidden"
py=$(command -v /usr/bin/python3 || command -v python3)

# Holds the locks for $1 seconds (0: until killed) as "unattended-upgr".
hold() {
  "$py" - "$1" "$w/holder.ready" <<'PY' &
import ctypes, fcntl, sys, time
ctypes.CDLL(None).prctl(15, b"unattended-upgr", 0, 0, 0)  # PR_SET_NAME
fs = [open(p, "a") for p in ("/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock", "/var/lib/apt/lists/lock")]
for f in fs:
    fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
time.sleep(float(sys.argv[1]) or 3600)
PY
  holder=$!
  for _ in $(seq 100); do [ -e "$w/holder.ready" ] && break; sleep 0.1; done
  [ -e "$w/holder.ready" ] || fail "the stand-in lock holder did not start"
  rm -f "$w/holder.ready"
}

provision() {  # $1 = FVBENCH_PACKAGE_LOCK_WAIT_S; output in $w/out, seconds in $secs
  local t0 t1
  t0=$(date +%s.%N)
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root BENCH_DIR="$w/bench" NGINX_RUNTIME=nginx LOADGEN_ENGINE=wrk \
    FVBENCH_EDGE_OPTIONAL=1 FVBENCH_PACKAGE_LOCK_WAIT_S="$1" "$fixture" provision > "$w/out" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# 1. The holder lets go after 5 s: provisioning waits for it, saying so.
hold 5
provision 60
wait "$holder"
echo "--- 1. lock held 5 s, wait up to 60 s: rc=$rc after $secs s"
cat "$w/out"
[ "$rc" = 0 ] || fail "provisioning failed although the lock was freed after 5 s"
grep -q "process $holder (unattended-upgr) holding /var/lib/dpkg/lock-frontend: .* waits up to 60 s for it" "$w/out" ||
  fail "provisioning did not say that it waits, naming the holder $holder"
awk -v s="$secs" 'BEGIN { exit !(s >= 3.5) }' || fail "provisioning took $secs s: it did not wait for the lock"

# 2. The holder keeps the lock: provisioning gives up after its wait, naming it.
hold 0
provision 3
kill "$holder" 2> /dev/null
wait "$holder" 2> /dev/null
echo "--- 2. lock held throughout, wait up to 3 s: rc=$rc after $secs s"
cat "$w/out"
[ "$rc" != 0 ] || fail "provisioning passed although the lock was held throughout"
grep -q "still held after 3 s (FVBENCH_PACKAGE_LOCK_WAIT_S)" "$w/out" || fail "the error does not say the wait ended"
grep -q "held now by process $holder (unattended-upgr)" "$w/out" || fail "the error does not name the holder $holder"
awk -v s="$secs" 'BEGIN { exit !(s >= 2.5 && s <= 40) }' || fail "provisioning gave up after $secs s, not after its 3 s wait"
echo "PASS"
