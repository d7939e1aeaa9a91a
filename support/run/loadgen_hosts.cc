#include "support/run/loadgen_hosts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "support/core/cpu_list.h"
#include "support/judge/validity.h"

namespace fvbench {
namespace {

std::string ShortBootId(const std::string& id) { return id.substr(0, 8); }

std::string HostFacts(const ProvisionInfo& info) {
  return info.cores > 0 ? fmt::format("{} cores, taskset {}", info.cores, info.have_taskset ? "yes" : "no")
                        : "cores unknown";
}

std::string Pinning(const char* what, const std::string& cpuset, bool autoset, const ProvisionInfo& info) {
  if (cpuset.empty()) {
    return fmt::format("{} unpinned ({}{})", what, HostFacts(info),
                       info.cores > 0 ? "; auto split needs taskset and >= 8 cores" : "");
  }
  return fmt::format("{} cpuset {} ({}; {})", what, cpuset, autoset ? "auto 50/50 split" : "as given",
                     HostFacts(info));
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  }
  return out;
}

}  // namespace

namespace detail {

std::string AutoCpuset(const std::vector<int>& cpus, bool have_taskset, bool first_half) {
  if (!have_taskset || cpus.size() < 8) return "";
  const auto mid = cpus.begin() + static_cast<long>(cpus.size() / 2);
  return FormatCpuList(first_half ? std::vector<int>(cpus.begin(), mid) : std::vector<int>(mid, cpus.end()));
}

std::string AutoCpuset(int cores, bool have_taskset, bool first_half) {
  std::vector<int> cpus;
  for (int i = 0; i < cores; ++i) cpus.push_back(i);
  return AutoCpuset(cpus, have_taskset, first_half);
}

}  // namespace detail

std::string LoadgenHost::engine_cpus() const { return cpuset.empty() ? FormatCpuList(info.cpus) : cpuset; }

Result<void> PinLoadgenHosts(const Config& c, std::vector<LoadgenHost>& hosts) {
  for (LoadgenHost& h : hosts) {
    if (!c.remote()) {
      h.cpuset = c.loadgen_cpuset;
      h.cpuset_auto = c.cpusets_auto && !h.cpuset.empty();
      continue;
    }
    if (!c.loadgen_cpuset.empty()) {
      auto given = ParseCpuList(c.loadgen_cpuset);
      if (!given) return Error{fmt::format("K6_CPUSET='{}': {}", c.loadgen_cpuset, given.error().message)};
      const std::vector<int>& usable = h.info.cpus;
      for (int cpu : *given) {
        if (c.dry_run || usable.empty() || std::binary_search(usable.begin(), usable.end(), cpu)) continue;
        return Error{fmt::format("K6_CPUSET='{}': CPU {} does not exist or may not be used on loadgen host {} (its "
                                 "processes may use CPUs {}: their affinity within their cgroup's cpuset)",
                                 c.loadgen_cpuset, cpu, h.target, FormatCpuList(usable))};
      }
      h.cpuset = c.loadgen_cpuset;
      h.cpuset_auto = false;
    } else {
      h.cpuset = detail::AutoCpuset(h.info.cpus, h.info.have_taskset, false);
      h.cpuset_auto = !h.cpuset.empty();
    }
    if (!h.cpuset.empty() && !h.info.have_taskset && !c.dry_run) {
      return Error{fmt::format("loadgen host {}: K6_CPUSET={} but taskset is not installed there", h.target,
                               h.cpuset)};
    }
  }
  return Ok();
}

Result<void> SplitProcessCpusets(int procs_per_host, std::vector<LoadgenHost>& hosts) {
  const auto n = static_cast<size_t>(std::max(procs_per_host, 1));
  // Hosts that pin to one cpuset on one machine, in list order: one group.
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < hosts.size(); ++i) {
    hosts[i].process_cpusets.assign(n, "");
    if (hosts[i].cpuset.empty()) continue;
    // An unknown boot_id is a machine of its own (keyed by the host's index).
    const std::string machine = hosts[i].info.boot_id.empty() ? "#" + std::to_string(i) : hosts[i].info.boot_id;
    groups[{machine, hosts[i].cpuset}].push_back(i);
  }
  for (auto& [key, members] : groups) {
    auto cpus = ParseCpuList(key.second);
    if (!cpus) return Error{fmt::format("K6_CPUSET='{}': {}", key.second, cpus.error().message)};
    const size_t total = members.size() * n;
    if (total == 1) {
      hosts[members.front()].process_cpusets = {key.second};
      continue;
    }
    auto parts = SplitCpuList(*cpus, total);
    if (parts.empty()) {
      std::vector<std::string> names;
      for (size_t m : members) names.push_back(hosts[m].target);
      return Error{fmt::format(
          "LOADGEN_PROCS_PER_HOST={} on loadgen host{} {}{}: {} engine processes, but their cpuset {} has {} CPU(s): "
          "each process needs at least one of its own",
          n, members.size() > 1 ? "s" : "", JoinNames(names),
          members.size() > 1 ? fmt::format(" (one machine, boot_id {})", ShortBootId(key.first)) : "", total,
          key.second, cpus->size())};
    }
    size_t k = 0;
    for (size_t m : members) {
      for (size_t p = 0; p < n; ++p) hosts[m].process_cpusets[p] = FormatCpuList(parts[k++]);
    }
  }
  return Ok();
}

std::vector<std::string> HostsOnSutKernel(const std::vector<LoadgenHost>& hosts, const ProvisionInfo& sut) {
  std::vector<std::string> out;
  if (sut.boot_id.empty()) return out;
  for (const LoadgenHost& h : hosts) {
    if (h.info.boot_id == sut.boot_id) out.push_back(h.target);
  }
  return out;
}

Result<std::string> SutSharing(bool remote, const std::string& sut_cpuset, const ProvisionInfo& sut,
                               const std::vector<LoadgenHost>& hosts) {
  if (hosts.empty()) return std::string();
  if (!remote) return CoreSharing(true, sut_cpuset, hosts.front().cpuset);
  for (const LoadgenHost& h : hosts) {
    if (sut.boot_id.empty() || h.info.boot_id != sut.boot_id) continue;
    const std::string machine =
        fmt::format("one machine (the SUT host and loadgen host {} run one kernel, boot_id {})", h.target,
                    ShortBootId(sut.boot_id));
    auto sharing = MachineCoreSharing(machine, sut_cpuset, h.cpuset);
    if (!sharing || !sharing->empty()) return sharing;
  }
  return std::string();
}

std::string MachineNote(const std::string& sut_target, const ProvisionInfo& sut,
                        const std::vector<LoadgenHost>& hosts, const std::string& controller_boot_id) {
  // boot_id -> the hosts on it, in the order they are first seen (SUT first).
  std::vector<std::pair<std::string, std::vector<std::string>>> machines;
  auto add = [&](const std::string& id, const std::string& who) {
    if (id.empty()) return;
    for (auto& [m, names] : machines) {
      if (m == id) {
        names.push_back(who);
        return;
      }
    }
    machines.push_back({id, {who}});
  };
  add(sut.boot_id, "the SUT host " + sut_target);
  for (const LoadgenHost& h : hosts) add(h.info.boot_id, "loadgen host " + h.target);
  std::string out;
  for (auto& [id, names] : machines) {
    const bool controller = id == controller_boot_id;
    if (names.size() < 2 && !controller) continue;
    if (controller) names.push_back("the controller");
    out += fmt::format("{}one machine: {} run one kernel (boot_id {}): they share its CPUs and its clock",
                       out.empty() ? "" : "; ", JoinNames(names), ShortBootId(id));
  }
  return out;
}

std::string LoadgenCpusetsText(const std::vector<LoadgenHost>& hosts) {
  bool same = true;
  for (const LoadgenHost& h : hosts) same = same && h.cpuset == hosts.front().cpuset;
  if (hosts.empty() || same) return hosts.empty() ? "" : hosts.front().cpuset;
  std::string out;
  for (const LoadgenHost& h : hosts) {
    out += fmt::format("{}{}: {}", out.empty() ? "" : ", ", h.target, h.cpuset.empty() ? "unpinned" : h.cpuset);
  }
  return out;
}

std::string RemotePinningNote(const std::string& sut_target, const std::string& sut_cpuset, bool sut_auto,
                              const ProvisionInfo& sut, const std::vector<LoadgenHost>& hosts,
                              const std::string& machine_note) {
  std::string out = fmt::format("SUT {}: {}", sut_target, Pinning("nginx", sut_cpuset, sut_auto, sut));
  for (const LoadgenHost& h : hosts) {
    out += fmt::format("; loadgen {}: {}", h.target, Pinning("engine", h.cpuset, h.cpuset_auto, h.info));
    bool split = false;
    for (const std::string& p : h.process_cpusets) split = split || (!p.empty() && p != h.cpuset);
    if (split) out += fmt::format(" [processes: {}]", fmt::join(h.process_cpusets, " "));
  }
  if (!machine_note.empty()) out += "; " + machine_note;
  return out;
}

}  // namespace fvbench
