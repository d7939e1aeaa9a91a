// The CPUs a process may use on a host, probed over the Host interface (so
// the same over SSH as locally): its affinity within its cgroup's cpuset
// (core/cpu_list.h UsableCpus). The probe is one `sh -c` round trip.
#pragma once

#include <string>
#include <vector>

#include "support/core/result.h"
#include "support/host/host.h"

namespace fvbench {

// Prints three key=value lines: cpus_affinity= the Cpus_allowed_list of the
// shell's processes (what the processes it starts inherit), cpus_cgroup= the
// cgroup v2 cpuset.cpus.effective of its cgroup (or of the nearest ancestor
// that has one), cpus_online= the online count. provision.h's probe runs it too.
extern const char kUsableCpusScript[];

// Parses the script's output (UsableCpus of its lines).
std::vector<int> ParseUsableCpusProbe(const std::string& out);

// Runs the script on `host`. Err when the command cannot run.
Result<std::vector<int>> ProbeUsableCpus(Host& host);

// This process, without a shell: sched_getaffinity(2) within its cgroup's
// cpuset.cpus.effective (read from /proc/self/cgroup and /sys/fs/cgroup).
std::vector<int> UsableCpusOfThisProcess();

// Restricts the calling thread to `cpus` (sched_setaffinity(2) on it); the
// threads and processes it starts afterwards inherit the set. Err naming the
// list and errno's text when the kernel refuses it.
Result<void> RunThisThreadOn(const std::vector<int>& cpus);

// The same for every thread of this process (/proc/self/task), those
// started before too. Err as above, naming the thread.
Result<void> RunThisProcessOn(const std::vector<int>& cpus);

}  // namespace fvbench
