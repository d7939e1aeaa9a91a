// The load-generator hosts of a run, one list (Testbed::loadgens()): each
// entry its host, what provisioning learned there (its CPUs, taskset, boot_id:
// ProvisionInfo), the engine's cpuset there and each of its processes' part.
// Local mode has one entry, this machine. The functions below are pure: they
// decide from the entries' facts and Config, and never write into Config.
//
// Pinning of the engine, per host (PinLoadgenHosts):
//   local mode   Config's K6_CPUSET as Config decided it (the 50/50 split of
//                this machine's usable CPUs with >= 8 of them, config.h);
//   remote mode  K6_CPUSET as given, which must name CPUs that host's
//                processes may use; unset: the second half of THAT host's
//                usable CPUs when it has taskset and >= 8 of them, else
//                unpinned. A host with a cpuset and no taskset is refused.
// Processes (SplitProcessCpusets): LOADGEN_PROCS_PER_HOST per host, each
// pinned to its own part of the cpuset (SplitCpuList). Hosts that are one
// machine (the same boot_id) and have the same cpuset split it among all
// their processes together, as processes of one host do: processes on one
// machine never share a CPU when pinned.
//
// One machine: hosts whose ProvisionInfo::boot_id is the same run on one
// kernel (containers, network namespaces) and share its CPUs. A loadgen host
// on the SUT's kernel is treated as local mode's engine (SutSharing): its
// CPU use is not gated where it counts the SUT's, the phase notes the
// sharing. The controller is compared too (MachineNote).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/core/config.h"
#include "support/core/result.h"
#include "support/host/host.h"
#include "support/sut/provision.h"

namespace fvbench {

struct LoadgenHost {
  std::string target;          // LOADGEN_REMOTE's entry; "local" in local mode
  Host* host = nullptr;        // its first connection: the first process's engine, the phase monitor, its clock
  std::unique_ptr<Host> owned; // that connection when the testbed owns it (remote, dry run)
  std::unique_ptr<Host> path;  // a PATH wrapper around it (k6 off the ssh session's PATH); `host` points here then
  ProvisionInfo info;          // its CPUs (cpus, cores), have_taskset, boot_id, engine
  std::string cpuset;          // the engine's CPUs there; "" = unpinned
  bool cpuset_auto = false;    // cpuset is the automatic split of its own CPUs
  std::vector<std::string> process_cpusets;  // one per engine process on it (SplitProcessCpusets)
  // The engine's CPUs there as a CPU list: the cpuset, else its usable CPUs; "" when unknown.
  std::string engine_cpus() const;
};

// Sets each host's cpuset and cpuset_auto as described above. Error naming
// the host: K6_CPUSET names a CPU it may not use, or it has a cpuset and no
// taskset (not checked in a dry run, which probes nothing).
Result<void> PinLoadgenHosts(const Config& c, std::vector<LoadgenHost>& hosts);

// Sets each host's process_cpusets (procs_per_host each). Error naming the
// hosts and the numbers when a machine's cpuset has fewer CPUs than the
// processes that share it.
Result<void> SplitProcessCpusets(int procs_per_host, std::vector<LoadgenHost>& hosts);

// The loadgen hosts on the SUT's kernel (boot_ids known and equal); their
// targets.
std::vector<std::string> HostsOnSutKernel(const std::vector<LoadgenHost>& hosts, const ProvisionInfo& sut);

// PhaseContext::sharing for the run: local mode as CoreSharing; remote mode
// "" unless a loadgen host runs on the SUT's kernel, then how that host's
// engine and the SUT share its CPUs (MachineCoreSharing, the machine named
// by its hosts and boot_id). Error on a cpuset that does not parse.
Result<std::string> SutSharing(bool remote, const std::string& sut_cpuset, const ProvisionInfo& sut,
                               const std::vector<LoadgenHost>& hosts);

// Which hosts (and the controller, `controller_boot_id`) are one machine:
// "one machine: the SUT host, loadgen hosts b, c and the controller run one
// kernel (boot_id 1a2b3c4d): they share its CPUs and its clock"; several
// such groups "; "-joined; "" when every host is its own machine or boot_ids
// are unknown. Remote mode only (local mode is one machine by definition).
std::string MachineNote(const std::string& sut_target, const ProvisionInfo& sut,
                        const std::vector<LoadgenHost>& hosts, const std::string& controller_boot_id);

// The pinning note of remote mode, naming every host: "SUT a: nginx cpuset
// 0-3 (auto 50/50 split; 8 cores, taskset yes); loadgen b: engine cpuset 4-7
// (...); loadgen c: engine unpinned (...)", then the machine note if any.
// The engine's cpusets for the run's meta: the one cpuset when every host
// has it ("" = unpinned everywhere), else "<target>: <cpuset or unpinned>"
// for each host, ", "-joined.
std::string LoadgenCpusetsText(const std::vector<LoadgenHost>& hosts);

namespace detail {
// The 50/50 split of one host's usable CPUs (ProvisionInfo::cpus): the first
// (the SUT's) or the second half (the engine's) as a CPU list when
// have_taskset and >= 8 of them, else "".
std::string AutoCpuset(const std::vector<int>& cpus, bool have_taskset, bool first_half);
// The same for CPUs 0..cores-1.
std::string AutoCpuset(int cores, bool have_taskset, bool first_half);
}  // namespace detail

std::string RemotePinningNote(const std::string& sut_target, const std::string& sut_cpuset, bool sut_auto,
                              const ProvisionInfo& sut, const std::vector<LoadgenHost>& hosts,
                              const std::string& machine_note);

}  // namespace fvbench
