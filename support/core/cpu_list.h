// CPU lists in the kernel's "List format" (cpuset(7); what `taskset -c`
// takes and /proc/<pid>/status Cpus_allowed_list and
// /sys/fs/cgroup/.../cpuset.cpus.effective print): comma-separated CPU ids
// and inclusive ranges, a range optionally with a stride ("0-3,6", "0-10:2").
// The one parser of CPU lists in fvbench (config, engines, monitor, validity).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

// Highest CPU id accepted: the kernel's largest NR_CPUS (8192) minus one.
inline constexpr int kMaxCpuId = 8191;

// Sorted, without duplicates. Errors say what is wrong with which part,
// e.g. "99999999999 is above the highest CPU id 8191", "1-0 is a reversed
// range (1 > 0)", "'x' is not a CPU id or range (expected a list like 0-3,6)",
// "empty" (an empty list; callers treat an unset variable before parsing).
Result<std::vector<int>> ParseCpuList(std::string_view list);

// The compact list form: {0,1,2,3,6} -> "0-3,6"; {} -> "".
std::string FormatCpuList(const std::vector<int>& cpus);

// `cpus` cut into `parts` contiguous groups of nearly equal size (the first
// ones get the extra CPU): {0,1,2,3}, 2 -> {{0,1},{2,3}}. Empty when parts is
// 0 or more than the CPUs (every part needs at least one CPU).
std::vector<std::vector<int>> SplitCpuList(const std::vector<int>& cpus, size_t parts);

// The CPUs in both sorted lists.
std::vector<int> IntersectCpus(const std::vector<int>& a, const std::vector<int>& b);

// The CPUs of sorted `a` that are not in sorted `b`.
std::vector<int> CpusOutside(const std::vector<int>& a, const std::vector<int>& b);

// The CPUs a process may use on a host, the source of every CPU count
// (pinning validation, the >= 8-CPU auto split, the engine's busy share, the
// SUT's quiet check, nginx worker_processes): its affinity (`affinity`,
// /proc/self/status Cpus_allowed_list, what sched_getaffinity(2) and `nproc`
// see) within its cgroup v2 cpuset (`cgroup_cpuset`, cpuset.cpus.effective).
// Either may be "" or unreadable (cgroup v1, no cpuset controller); blanks
// around the lists are ignored. Neither usable: 0..online-1; online <= 0: {}.
std::vector<int> UsableCpus(std::string_view affinity, std::string_view cgroup_cpuset, int online);

}  // namespace fvbench
