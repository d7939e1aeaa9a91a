// What changed in the machine facts (core/host_environment.h) between two
// runs, for the history and the baseline comparison. Pure.
//
// Hosts are matched by role and name; within a host, keys in the later run's
// order, then the keys only the earlier run has. One line per difference:
//   "sut local: kernel_release 6.1.0-18 -> 6.8.0-31"
//   "loadgen lg1: cpu_governor not exposed -> powersave"
//   "loadgen lg2: in the later run only"
//   "sut+loadgen local: kernel_release 6.1.0-18 -> 6.8.0-31" (one machine
//   recorded under both roles, as in local mode: one line)
// Two environments are compared only when both were recorded: a run from
// before environments were recorded (an empty list) changes nothing.
#pragma once

#include <string>
#include <vector>

#include "support/core/host_environment.h"

namespace fvbench {

std::vector<std::string> EnvironmentChanges(const std::vector<HostEnvironment>& before,
                                            const std::vector<HostEnvironment>& after);

// The canonical text of an environment, the input of its digest: one line
// per host ("<role> <host>") and one per value ("  <key>=<value>", values as
// stored, "" kept; a backslash and a newline escaped as \\ and \n), hosts and keys as
// ordered in `envs`.
std::string EnvironmentCanonicalText(const std::vector<HostEnvironment>& envs);

}  // namespace fvbench
