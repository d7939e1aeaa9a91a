// HostEnvironment: the machine facts under a run's numbers, per host (the
// SUT host and each load-generator host): kernel, clock source, CPU and
// power settings, transparent huge pages, the sysctls that bound a load test,
// the engine's open-file limit, the SUT runtime's build and its LuaJIT.
// Two runs of one commit differ when one of these differs; the history, the
// baseline comparison and the preflight lint read them.
//
// A value is text as the host gave it, trimmed; "" means the host does not
// expose it (a VM without cpufreq, a kernel without THP, a loadgen without
// nginx). Keys are the names below; a reader keeps keys it does not know, so
// a newer host reader's results stay readable.
//
// JSON (inside results.json's "meta" as "environment", run_meta.h): an array
// of {"role": "sut"|"loadgen", "host": "<name>", "values": {"<key>": "<value>"
// ...}}, values in the order of kEnvironmentKeys, empty values omitted.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "support/core/result.h"

namespace fvbench {

// The keys, in report order, with where each is read on a Linux host.
struct EnvironmentKey {
  std::string_view key;
  std::string_view source;  // file, command or API the value comes from
};
inline constexpr EnvironmentKey kEnvironmentKeys[] = {
    {"kernel_release", "/proc/sys/kernel/osrelease"},
    {"kernel_cmdline", "/proc/cmdline"},
    {"cpu_vulnerabilities", "/sys/devices/system/cpu/vulnerabilities/* (the lines that are not \"Not affected\")"},
    {"clocksource", "/sys/devices/system/clocksource/clocksource0/current_clocksource"},
    {"virtualization", "systemd-detect-virt, else the \"hypervisor\" CPU flag in /proc/cpuinfo"},
    {"cpu_model", "/proc/cpuinfo \"model name\""},
    {"smt", "/sys/devices/system/cpu/smt/active"},
    {"numa_nodes", "/sys/devices/system/node/online"},
    {"cpu_governor", "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"},
    {"cpu_boost", "/sys/devices/system/cpu/cpufreq/boost, else 1 - intel_pstate/no_turbo"},
    {"thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled (the [selected] word)"},
    {"thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag (the [selected] word)"},
    {"somaxconn", "/proc/sys/net/core/somaxconn"},
    {"tcp_max_syn_backlog", "/proc/sys/net/ipv4/tcp_max_syn_backlog"},
    {"ip_local_port_range", "/proc/sys/net/ipv4/ip_local_port_range"},
    {"tcp_tw_reuse", "/proc/sys/net/ipv4/tcp_tw_reuse"},
    {"tcp_fin_timeout", "/proc/sys/net/ipv4/tcp_fin_timeout"},
    {"rmem_max", "/proc/sys/net/core/rmem_max"},
    {"wmem_max", "/proc/sys/net/core/wmem_max"},
    {"tcp_rmem", "/proc/sys/net/ipv4/tcp_rmem"},
    {"tcp_wmem", "/proc/sys/net/ipv4/tcp_wmem"},
    {"file_max", "/proc/sys/fs/file-max"},
    {"nofile", "ulimit -n of the shell the engine or nginx starts from"},
    {"nginx_build", "<nginx or openresty> -V (version and configure arguments), SUT host only"},
    {"luajit_version", "jit.version inside the SUT's nginx"},
    {"luajit_jit", "jit.status() inside the SUT's nginx: \"on\" or \"off\""},
    {"luajit_gc64", "ffi.abi(\"gc64\") inside the SUT's nginx: \"yes\" or \"no\""},
    {"nginx_worker_processes", "the edge's worker_processes as fvbench renders it (FV_WORKER_PROCESSES, sut/nginx_conf.h)"},
};

struct EnvironmentValue {
  std::string key;
  std::string value;  // "" = not exposed
};

struct HostEnvironment {
  std::string role;  // "sut" | "loadgen"
  std::string host;  // Host::name(): "local" or the ssh target
  std::vector<EnvironmentValue> values;

  // The value of `key`; "" when absent or not exposed.
  std::string Get(std::string_view key) const;
  // Sets `key` (appended when new).
  void Set(std::string_view key, std::string value);
};

// How a report spells a value the host does not expose.
inline constexpr std::string_view kNotExposed = "not exposed";

namespace detail {
class JsonWriter;  // json_writer.h
}
// The JSON array above. FromJson: a value of the wrong type is an Error
// naming `path`[i].<field>; values come back in kEnvironmentKeys order, keys
// this reader does not know after them (by name).
void WriteEnvironments(detail::JsonWriter& w, const std::vector<HostEnvironment>& envs);
Result<std::vector<HostEnvironment>> EnvironmentsFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench
