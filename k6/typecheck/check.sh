#!/usr/bin/env bash
# Type-checks fvbench's k6 scripts (k6/*.js) against k6's published API, the
# @types/k6 definitions pinned in package.json to the k6 version fvbench
# installs, with TypeScript's checker (tsc --noEmit, allowJs + checkJs; see
# tsconfig.json). k6 itself is not needed. Both packages come from the npm
# registry at the versions and integrity hashes of package-lock.json.
#
# Then it proves that the check can fail: copies of the scripts with a
# misspelled constant-arrival-rate option and with a wrong http.post params
# key must both be rejected.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null
tsc="$here/node_modules/.bin/tsc"
"$tsc" -p tsconfig.json
echo "k6 type check: k6/*.js agree with @types/k6 $(node -p "require('./node_modules/@types/k6/package.json').version") (typescript $("$tsc" --version | awk '{print $2}'))"

tmp=$(mktemp -d /tmp/fvbench-k6-typecheck.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# must_fail NAME SED-EXPRESSION FILE WORD: the mutated copy is rejected, naming WORD.
must_fail() {
  rm -rf "$tmp/k6"
  mkdir -p "$tmp/k6/typecheck"
  cp "$here"/../*.js "$tmp/k6/"
  cp "$here/tsconfig.json" "$tmp/k6/typecheck/"
  ln -s "$here/node_modules" "$tmp/k6/typecheck/node_modules"
  sed -i "$2" "$tmp/k6/$3"
  cmp -s "$here/../$3" "$tmp/k6/$3" && { echo "k6 type check self-test: '$2' changed nothing in $3" >&2; exit 1; }
  if "$tsc" -p "$tmp/k6/typecheck/tsconfig.json" >"$tmp/out" 2>&1; then
    echo "k6 type check self-test: $1 passed the check; it must fail" >&2
    exit 1
  fi
  grep -q "$4" "$tmp/out" || { echo "k6 type check self-test: $1 failed without naming '$4':" >&2; cat "$tmp/out" >&2; exit 1; }
  echo "k6 type check self-test: $1 is rejected: $(grep -m1 "$4" "$tmp/out")"
}
must_fail "a misspelled executor option (preAllocatedVU)" 's/preAllocatedVUs:/preAllocatedVU:/' common.js preAllocatedVU
must_fail "a wrong http.post params key (headerz)" 's/{ headers: headers }/{ headerz: headers }/' common.js headerz
