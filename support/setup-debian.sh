#!/usr/bin/env bash
# Installs everything fvbench needs on a Debian 12 / Ubuntu controller that is
# also the SUT and load-generator host (local mode): the build toolchain and
# libraries, Debian's nginx with the Lua module (the SUT runtime when OpenResty
# is absent), wrk (the offline load engine), and the tools the provisioning
# and probes call. Idempotent: apt-get skips what is already installed.
# Run as root or with sudo available.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config
  ccache  # optional compiler cache (CMakeLists.txt uses it when present): CI rebuilds reuse objects
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libfmt-dev libssl-dev libssh-dev
  rapidjson-dev  # header-only: streaming JSON writer of results.json (support/core/json_writer.h)
  libboost-math-dev  # header-only: Student's t quantile of the A/B comparison (support/judge/ab_compare.h)
  # the results history (support/history): SQLite file store, PostgreSQL client; the
  # PostgreSQL server and sqlite3 CLI for its tests (tests/unit/history_*_test.cc)
  libsqlite3-dev libpq-dev postgresql sqlite3
  # Python's csv module and PyYAML read the history's exports back (fixtures/history/cli-test.sh)
  python3 python3-yaml
  # SUT runtime (used when OpenResty is not installed) and fairvisor edge's Lua deps
  nginx libnginx-mod-http-lua lua-cjson lua-resty-core
  # load engine available offline; provisioning, probes, pinning
  wrk curl git ca-certificates openssl iproute2 procps util-linux
  # gnupg (gpg with gpg-agent, which `gpg --import` starts): the vendor key check
  # (tests/unit/vendor_keys_test.cc runs its script on a stand-in key); the same
  # package provisioning installs on apt hosts (support/sut/os_packages.cc)
  gnupg
  # debootstrap: fixtures/clean-root/run.sh (the README's test command on a clean Debian root)
  debootstrap
  # rsvg-convert: the unit tests check that the SVG plots render (svg_plot_test)
  librsvg2-bin
  # the SSH test hosts (fixtures/testhosts/netns-hosts.sh): sshd in each namespace, ssh/ssh-keygen on the controller
  openssh-server openssh-client
  # libfaketime: a test host whose clock is off (fixtures/testhosts/host-quirk.sh clock-ahead;
  # tests/faults_remote/loadgen_clocks_test.cc)
  libfaketime
  # jq: the tests read written JSON back with an independent reader; cmark-gfm: report.md rendered as GitHub does
  jq cmark-gfm
  # report.html (support/report/html_report.h): report.md rendered by the cmark-gfm library
  libcmark-gfm-dev libcmark-gfm-extensions-dev
  # chromium: report.html opened in a real headless browser (tests/unit/html_report_browser_test.cc)
  chromium
  # perf: FVBENCH_PROFILE=cpu|both on the local SUT, the perf fault test (tests/faults/perf_capture_real_test.cc)
  # and .ci/run's A/B profile run. Ubuntu ships it as linux-tools-common (below).
  linux-perf
  # luajit: fixtures/inject/slow-edge-test.sh runs the injected CPU burn under the LuaJIT of the
  # nginx Lua module: Debian 12's module links libluajit2 (OpenResty's branch), whose interpreter
  # is luajit2 (package luajit conflicts with it and would remove the module). Elsewhere: luajit.
  luajit2
)

# Ubuntu has no linux-perf: its perf is linux-tools-common's wrapper, which
# runs the kernel's own linux-tools-<release> (installed when the archive has it).
if [ -r /etc/os-release ] && [ "$(. /etc/os-release && echo "$ID")" = ubuntu ]; then
  packages=("${packages[@]/linux-perf/linux-tools-common}")
  if apt-cache show "linux-tools-$(uname -r)" >/dev/null 2>&1; then packages+=("linux-tools-$(uname -r)"); fi
fi

# node + npm: the k6 scripts' type check (k6/typecheck/check.sh, in .ci/run)
# installs TypeScript and @types/k6 from the npm registry. A node that came
# with its own npm (e.g. a vendor build) is kept; Debian's packages otherwise.
if ! command -v npm >/dev/null 2>&1; then packages+=(nodejs npm); fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# An archive without luajit2 has no libluajit2 either: its nginx Lua module links the original
# LuaJIT, whose interpreter is luajit. (Read from the package lists; empty lists are updated first.)
if ! apt-cache show luajit2 >/dev/null 2>&1 && ! apt-cache show luajit >/dev/null 2>&1; then $SUDO apt-get update -qq; fi
if ! apt-cache show luajit2 >/dev/null 2>&1; then packages=("${packages[@]/luajit2/luajit}"); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup-debian: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup-debian: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian enables and starts the packaged nginx on port 80; fvbench never uses
# it (it starts its own nginx processes from configs under BENCH_DIR).
