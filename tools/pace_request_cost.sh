#!/usr/bin/env bash
# tools/pace_request_cost.sh: what support/engine/pace.lua's request() costs
# per call inside Debian's wrk (its LuaJIT), per request kind and number of
# rate-limit keys (FVBENCH_KEYS).
#
#   tools/pace_request_cost.sh <url> [calls] [cpu]
#
# <url>: any listening HTTP server (wrk test-connects to it before the
# script's init(); nothing is sent). A driver script loads pace.lua, runs its
# init() in wrk's one thread, calls request() 10000 times (warm-up), then
# <calls> times (default 2000000) under os.clock(), prints
# "<kind> keys=<K> ns_per_request=<ns>" and exits: request()'s own work (the
# request string; record_send returns at once, no slot being queued), not
# the network's. wrk runs under `taskset -c <cpu>` (default 1). Take
# /tmp/fvb-real.lock around it for figures worth keeping.
set -euo pipefail
url=${1:?usage: tools/pace_request_cost.sh <url> [calls] [cpu]}
calls=${2:-2000000}
cpu=${3:-1}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d /tmp/fvbench-pace-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '{"model":"m","messages":[{"role":"user","content":"hi"}]}' >"$tmp/body.json"
cat >"$tmp/driver.lua" <<'LUA'
dofile(os.getenv("FVBENCH_PACE"))
local pace_init = init
function init(args)
  pace_init(args)
  local n = tonumber(os.getenv("FVBENCH_CALLS"))
  local bytes = 0
  for _ = 1, 10000 do bytes = bytes + #request() end
  local t0 = os.clock()
  for _ = 1, n do bytes = bytes + #request() end
  local t1 = os.clock()
  io.write(string.format("%s keys=%s ns_per_request=%.1f\n", os.getenv("FVBENCH_KIND"),
                         os.getenv("FVBENCH_KEYS"), (t1 - t0) / n * 1e9))
  os.exit(0)
end
LUA
for kind in get decision post; do
  for keys in 0 7 10000; do
    FVBENCH_PACE="${FVBENCH_PACE:-$here/support/engine/pace.lua}" FVBENCH_CALLS="$calls" FVBENCH_RATE=1000 FVBENCH_THREADS=1 \
      FVBENCH_KIND=$kind FVBENCH_KEYS=$keys FVBENCH_BODY_FILE="$tmp/body.json" FVBENCH_OUT="$tmp/out.json" \
      taskset -c "$cpu" wrk -t1 -c1 -d1s -s "$tmp/driver.lua" "$url" | grep '^[a-z]* keys='
  done
done
