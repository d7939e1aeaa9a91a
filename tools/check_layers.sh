#!/usr/bin/env bash
# tools/check_layers.sh [source dir]: the layer rules of support/
# (docs/architecture.md "Architecture"), checked from the sources' #include "support/..." lines.
#   1. A file includes only its own folder and the folders below it:
#        suite > report > run > sut > engine > host > judge > core
#   2. No include cycle between components (a .h and its .cc are one
#      component): `tsort` of the component graph finds no loop.
#   3. The pure library's sources (support/CMakeLists.txt FVBENCH_PURE_*)
#      include no I/O library header: nothing of host/ sut/ run/, of engine/
#      only the output parsers, of host/ only ssh_target and shell_quote; and
#      no <libssh/...>, <openssl/...>, <thread>, <mutex>, <condition_variable>.
#   4. With --pure-link LIBS: fvbench_pure's link libraries name none of
#      ssh, OpenSSL/crypto, Threads/pthread; with --pure-binary FILE (a test
#      executable linked only with fvbench_pure, repeatable): `ldd FILE`
#      lists no libssh and no libcrypto.
# --pure-sources LIST (";"-separated .cc paths, from CMake) names the pure
# library's sources; without it they are read from each folder's
# fvbench_layer_sources(...) line in support/*/CMakeLists.txt.
# Usage: tools/check_layers.sh [SOURCE_DIR] [--pure-sources LIST]
#        [--pure-link LIBS] [--pure-binary FILE]...
# Prints every violation; exit 1 when there is one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -gt 0 && $1 != --* ]]; then root=$1; shift; fi
pure_sources="" pure_link="" pure_binaries=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --pure-sources) pure_sources=$2; shift 2 ;;
    --pure-link) pure_link=$2; shift 2 ;;
    --pure-binary) pure_binaries+=("$2"); shift 2 ;;
    *) echo "check_layers.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
cd "$root"
if [[ -z $pure_sources ]]; then
  # The build's own lists: each folder's fvbench_layer_sources(...) line.
  for f in support/*/CMakeLists.txt; do
    dir=${f%/CMakeLists.txt}
    args=$(sed -n 's/^fvbench_layer_sources(\(.*\))$/\1/p' "$f")
    if [[ $args == ALL_PURE ]]; then
      for c in "$dir"/*.cc; do pure_sources+="$root/$c;"; done
    else
      for n in $args; do pure_sources+="$root/$dir/$n;"; done
    fi
  done
fi

rank() {
  case $1 in
    core) echo 0 ;; judge) echo 1 ;; host) echo 2 ;; engine) echo 3 ;;
    sut) echo 4 ;; run) echo 5 ;; report) echo 6 ;; suite) echo 7 ;; *) echo 99 ;;
  esac
}
# The pure library: whole folders, plus single components of engine/ and host/.
pure_component() {
  if [[ -n $pure_sources ]]; then
    [[ ";$pure_sources;" == *"/support/$1.cc;"* || ";$pure_sources;" == *"/support/$1.h;"* ]] && return 0
    # A header-only component (no .cc) is pure when its folder is all pure.
    [[ -e support/$1.cc ]] && return 1
  fi
  case $1 in
    core/* | judge/* | report/*) return 0 ;;
    engine/k6_summary | engine/wrk_output | host/ssh_target | host/shell_quote) return 0 ;;
  esac
  return 1
}

bad=0
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in support/*/*.h support/*/*.cc; do
  rel=${f#support/}
  comp=${rel%.*}
  layer=${rel%%/*}
  echo "$comp $comp" >>"$edges"
  while IFS= read -r inc; do
    target=${inc#support/}
    tcomp=${target%.h}
    tlayer=${target%%/*}
    [[ $tcomp == "$comp" ]] && continue
    echo "$comp $tcomp" >>"$edges"
    if (($(rank "$tlayer") > $(rank "$layer"))); then
      echo "layer: $f includes $inc ($tlayer is above $layer)"
      bad=1
    fi
    if pure_component "$comp" && ! pure_component "$tcomp"; then
      echo "pure: $f (pure library) includes $inc (I/O library)"
      bad=1
    fi
  done < <(sed -nE 's/^#include "(support\/[a-z]+\/[a-z0-9_]+\.h)".*/\1/p' "$f")
  if pure_component "$comp"; then
    if grep -nE '^#include <(libssh/|openssl/|thread>|mutex>|condition_variable>|future>)' "$f"; then
      echo "pure: $f (pure library) includes an I/O dependency (above)"
      bad=1
    fi
  fi
done
if [[ -n $pure_link ]] && grep -qiE 'ssh|openssl|crypto|thread' <<<"$pure_link"; then
  echo "pure: fvbench_pure links an I/O library: $pure_link"
  bad=1
fi
for b in "${pure_binaries[@]}"; do
  if ldd "$b" | grep -E 'libssh|libcrypto'; then
    echo "pure: $b (linked with fvbench_pure only) needs the libraries above"
    bad=1
  fi
done
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
  echo "include cycle between components:"
  sed -e "s#^tsort: ##" -e "s#^$edges: ##" "$edges.err" | sed "s/^/  /"
  bad=1
fi
rm -f "$edges.err"
if ((bad == 0)); then
  echo "support/: $(ls support/*/*.h support/*/*.cc | wc -l) files in $(ls support/*/CMakeLists.txt | wc -l) layer folders: layers respected, no include cycle, pure library free of I/O"
fi
exit $bad
