// Reading a host's machine facts (core/host_environment.h): one fixed POSIX
// sh script per host, one round trip, printing what it read as the sections
// judge/host_facts.h parses (files under /proc and /sys, the first "model
// name" and "flags" lines of /proc/cpuinfo, `systemd-detect-virt` where
// installed, `ulimit -n`). On the SUT host (ProvisionInfo::nginx_bin set)
// also `<nginx bin> -V`, and the LuaJIT facts from Lua inside that nginx: a
// throwaway nginx in a private temporary prefix (mktemp -d, removed after),
// with the Lua module loaded as the SUT's configurations load it, whose
// init_by_lua prints jit.version, jit.status() and ffi.abi("gc64") and
// exits before it listens anywhere (daemon and master process off). The
// script holds no user value: the nginx binary and module directory are
// provisioning's absolute paths, shell-quoted.
//
// Not read here: nginx_worker_processes (ngx.worker.count() of the running
// edge; the run meta's sut_edge_workers says what the edge is given).
#pragma once

#include <string>

#include "support/core/host_environment.h"
#include "support/core/result.h"
#include "support/host/host.h"
#include "support/sut/provision.h"

namespace fvbench {

// The probe script for a host provisioned as `info` (SUT facts when
// info.nginx_bin is set).
std::string EnvironmentProbeScript(const ProvisionInfo& info);

// Runs the script on `host` and parses its output; role and host set
// ("sut" | "loadgen", Host::name()). Error (naming the host): the command
// could not run or exited non-zero.
Result<HostEnvironment> ReadHostEnvironment(Host& host, const std::string& role, const ProvisionInfo& info);

}  // namespace fvbench
