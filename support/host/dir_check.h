// EnsurePrivateDirs: BENCH_DIR and its folders on one host, checked by the
// rule of core/private_dirs.h and created where missing, through the Host
// contract (LocalHost for the controller and local mode, SshHost for the
// SUT and loadgen hosts): one command prints `id -u` and what `stat` says of
// each directory of the chain (above BENCH_DIR followed, BENCH_DIR and below
// not); when every existing one passes and some are missing, a second
// command creates those (`mkdir -m <mode>`, no -p: parents first, each in a
// directory that passed) and prints `stat` again, and they are checked the
// same way: one made meanwhile by someone else is refused as any other.
// Nothing is created below a directory that was refused.
//
// DryRunHost: the first command is recorded in the plan and nothing is
// decided (there is nothing to look at).
#pragma once

#include <string>
#include <vector>

#include "support/core/private_dirs.h"
#include "support/core/result.h"
#include "support/host/host.h"

namespace fvbench {

// Err: the first directory refused (CheckDir's message, naming the host), or
// the command that failed.
Result<void> EnsurePrivateDirs(Host& host, const std::vector<DirToCheck>& chain);

}  // namespace fvbench
