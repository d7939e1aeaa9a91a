#!/usr/bin/env bash
# tools/remote_cost.sh: the README's remote example on network-namespace
# hosts of its own, timed, and where the time beyond the configured load went.
#
#   tools/remote_cost.sh [--local] [--shell-delay S] [--label L] <source tree>
#
# <source tree> is a built fvbench checkout (its build/ made with the default
# preset): the run uses its ctest presets and binaries, so a worktree of an
# older commit measures "before". The hosts come from THIS checkout's
# fixtures/testhosts/netns-hosts.sh with FVBENCH_TESTHOSTS_PREFIX (default
# fvc) and FVBENCH_TESTHOSTS_NET (default 10.236), brought up for the run and
# taken down after; --shell-delay S makes root's login shell on them sleep S
# seconds (FVBENCH_TESTHOSTS_SHELL_DELAY; default 0: a plain shell). --local
# runs the same settings with `ctest --preset local` instead (no hosts).
#
# The run: LATENCY_RPS=1000 LATENCY_DUR=5 WARMUP_DUR=2 and the default search
# (the README's remote example), LOADGEN_ENGINE=wrk (offline), edge from
# FAIRVISOR_EDGE_SRC (required), BENCH_DIR=/tmp/fvb-cost-<label>. Needs root
# (namespaces) and the machine to itself: take /tmp/fvb-real.lock around it.
#
# Prints one table: per scenario the configured load (load_s), the wall time
# inside the scenario, its fixed cost and parts (results.json
# fixed_cost_parts_s), the phases and the fixed cost per phase (everything
# but sut_start and after_load, over warmup + measured phases; and without
# quiet_wait, which is the SUT's own business: a machine busy with other work
# makes it wait up to QUIET_TIMEOUT per phase), and the time ctest spent on
# the scenario's process beyond the scenario (connect, provisioning check,
# report writing); then the suite's wall time over its configured load (and
# without the quiet waits). Also written to /tmp/fvb-cost-<label>.txt (ctest's
# log and JUnit file beside it).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
local_mode=0
delay=0
label=
while (($#)); do
  case $1 in
    --local) local_mode=1 ;;
    --shell-delay) delay=$2; shift ;;
    --label) label=$2; shift ;;
    -*) echo "remote_cost: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
(($# == 1)) || { echo "usage: $0 [--local] [--shell-delay S] [--label L] <source tree>" >&2; exit 2; }
tree=$(cd "$1" && pwd)
[[ -n ${FAIRVISOR_EDGE_SRC:-} ]] || { echo "remote_cost: set FAIRVISOR_EDGE_SRC to an edge checkout" >&2; exit 2; }
[[ -x $tree/build/tests/scenarios/fvbench_scenarios ]] || { echo "remote_cost: $tree/build is not built" >&2; exit 2; }
label=${label:-$(basename "$tree")-$( ((local_mode)) && echo local || echo "remote-shell$delay")}
bench=/tmp/fvb-cost-$label
export FVBENCH_TESTHOSTS_PREFIX=${FVBENCH_TESTHOSTS_PREFIX:-fvc}
export FVBENCH_TESTHOSTS_NET=${FVBENCH_TESTHOSTS_NET:-10.236}
hosts=$here/fixtures/testhosts/netns-hosts.sh

rm -rf "$bench"
vars=(LATENCY_RPS=1000 LATENCY_DUR=5 WARMUP_DUR=2 LOADGEN_ENGINE=wrk "FAIRVISOR_EDGE_SRC=$FAIRVISOR_EDGE_SRC"
      "BENCH_DIR=$bench")
if ((local_mode)); then
  preset=local
else
  preset=remote
  trap 'bash "$hosts" down' EXIT
  bash "$hosts" down
  FVBENCH_TESTHOSTS_SHELL_DELAY=$delay bash "$hosts" up >/dev/null
  eval "$(bash "$hosts" env)"
  vars+=("FAIRVISOR_REMOTE=$FAIRVISOR_REMOTE" "LOADGEN_REMOTE=$LOADGEN_REMOTE"
         "FAIRVISOR_TARGET_HOST=$FAIRVISOR_TARGET_HOST" "SSH_OPTS=$SSH_OPTS")
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s.%N)
(cd "$tree" && env "${vars[@]}" ctest --preset "$preset" >"$bench.ctest.log" 2>&1) || true
t1=$(date +%s.%N)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
cp "$tree/build/junit-$preset.xml" "$bench.junit.xml" 2>/dev/null || true

python3 - "$bench/report/results.json" "$bench.junit.xml" "$t0" "$t1" "$label" \
  "$load_before" "$load_after" <<'EOF' | tee "$bench.txt"
import json, sys, xml.etree.ElementTree as ET
results, junit, t0, t1, label, lb, la = sys.argv[1:]
doc = json.load(open(results))
ctest = {}
for case in ET.parse(junit).getroot().iter("testcase"):
    ctest[case.get("name")] = float(case.get("time") or 0)
wall = float(t1) - float(t0)
print(f"{label}: ctest wall {wall:.1f} s; load average before {lb}, after {la}")
print("| scenario | load s | in scenario s | fixed s | phases | per phase s | per phase s, no quiet_wait | sut_start | "
      "after_load | quiet_wait | phase_setup | engine | phase_checks | other | process outside s |")
print("|---" * 15 + "|")
total_load = quiet_all = 0.0
phase_costs, phase_costs_nq, phases_all = 0.0, 0.0, 0
for s in doc["scenarios"]:
    load = s.get("load_s") or 0.0
    total_load += load
    fixed = s.get("fixed_cost_s") or 0.0
    parts = s.get("fixed_cost_parts_s", {})
    inside = s["finished_unix"] - s["started_unix"]
    phases = 1 + (len(s["steps"]) if s.get("steps") else 1)  # the warmup + the measured phases
    per_phase_total = fixed - parts.get("sut_start", 0) - parts.get("after_load", 0)
    quiet = parts.get("quiet_wait", 0)
    quiet_all += quiet
    phase_costs += per_phase_total
    phase_costs_nq += per_phase_total - quiet
    phases_all += phases
    outside = ctest.get(s["id"], 0.0) - inside
    cells = [f"{parts.get(k, 0):.2f}" for k in
             ("sut_start", "after_load", "quiet_wait", "phase_setup", "engine", "phase_checks", "other")]
    print(f"| {s['id']} | {load:.1f} | {inside:.1f} | {fixed:.1f} | {phases} | {per_phase_total / phases:.2f} | "
          f"{(per_phase_total - quiet) / phases:.2f} | " + " | ".join(cells) + f" | {outside:.1f} |")
print(f"suite: wall {wall:.1f} s / configured load {total_load:.1f} s = {wall / total_load:.2f} "
      f"(without the {quiet_all:.1f} s of quiet waits: {(wall - quiet_all) / total_load:.2f}); "
      f"fixed cost per phase {phase_costs / max(1, phases_all):.2f} s "
      f"({phase_costs_nq / max(1, phases_all):.2f} s without quiet waits) over {phases_all} phases; "
      f"fixtures {ctest.get('fvbench.provision', 0):.1f} s provision + {ctest.get('fvbench.report', 0):.1f} s report")
EOF
