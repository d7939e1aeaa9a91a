// A host's machine facts (core/host_environment.h) from the output of the
// environment probe (sut/environment_probe.h), which prints what it read as
// sections, one per fact:
//   @<section>
//   |<a line of what was read>
//   ...
// A section with no '|' lines is a fact the host does not expose (a file
// absent or unreadable, a command missing or failing): its value is "".
// The sections and what each becomes:
//   kernel_release kernel_cmdline clocksource smt numa_nodes cpu_governor
//   somaxconn tcp_max_syn_backlog ip_local_port_range tcp_tw_reuse
//   tcp_fin_timeout rmem_max wmem_max tcp_rmem tcp_wmem file_max nofile
//                      the key of that name: the first line, blanks
//                      trimmed (tabs in it as single spaces)
//   thp_enabled thp_defrag
//                      the [selected] word of "always [madvise] never";
//                      the whole text when nothing is bracketed
//   cpu_vulnerabilities  lines "<file>:<text>" of /sys/.../vulnerabilities/*
//                      -> "<file>: <text>" of those whose text is not "Not
//                      affected", joined by "; "; "all Not affected" when
//                      every one is; "" when there were none
//   detect_virt        systemd-detect-virt's word ("kvm", "none"...) ->
//                      virtualization; when absent, cpuinfo's flags decide:
//                      "hypervisor (CPU flag)" or "none (no hypervisor CPU flag)"
//   cpuinfo            the first "model name" and "flags" lines of
//                      /proc/cpuinfo -> cpu_model (and virtualization above)
//   boost, no_turbo    cpufreq/boost as is -> cpu_boost; else intel_pstate's
//                      no_turbo inverted ("0" -> "1", "1" -> "0")
//   nginx_v            `nginx -V` -> nginx_build, its lines joined by "; "
//   luajit             "version=" "jit=" "gc64=" lines printed by Lua inside
//                      the SUT's nginx -> luajit_version, luajit_jit, luajit_gc64
// Unknown sections are ignored. What a host printed is data: only printable
// ASCII is kept (every other byte dropped), each value cut at
// kMaxHostFactBytes. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "support/core/host_environment.h"

namespace fvbench {

inline constexpr size_t kMaxHostFactBytes = 2048;

// The values of one host's probe output (role and host left empty), every
// key of kEnvironmentKeys present, in that order ("" = not exposed).
HostEnvironment ParseHostFacts(std::string_view probe_output);

namespace detail {
// `text` with only printable ASCII kept (a tab as a space), cut at `max` bytes.
std::string CleanHostText(std::string_view text, size_t max = kMaxHostFactBytes);
// The [selected] word of a sysfs choice line ("always [madvise] never" ->
// "madvise"); the trimmed text when nothing is bracketed.
std::string SelectedWord(std::string_view line);
}  // namespace detail

}  // namespace fvbench
