#include "support/sut/environment_probe.h"

#include <fmt/format.h>

#include <cctype>
#include <chrono>

#include "support/host/shell_quote.h"
#include "support/judge/host_facts.h"
#include "support/sut/step_runner.h"

namespace fvbench {
namespace {

// s: a section's heading; c: a command's output as '|' lines (bounded;
// stderr dropped; the echo ends a last line without a newline); f: a file's.
const char kHostFacts[] = R"SH(
s() { printf '@%s\n' "$1"; }
c() { { "$@" 2>/dev/null | head -c 4096 | sed 's/^/|/'; echo; }; }
f() { s "$1"; [ -e "$2" ] && c cat -- "$2"; }
f kernel_release /proc/sys/kernel/osrelease
f kernel_cmdline /proc/cmdline
s cpu_vulnerabilities
for v in /sys/devices/system/cpu/vulnerabilities/*; do
  [ -f "$v" ] && printf '|%s:%s\n' "${v##*/}" "$(head -c 512 -- "$v" 2>/dev/null | tr -d '\n')"
done
f clocksource /sys/devices/system/clocksource/clocksource0/current_clocksource
s detect_virt
command -v systemd-detect-virt >/dev/null 2>&1 && c systemd-detect-virt
s cpuinfo
c grep -m1 -E '^model name[[:space:]]*:' /proc/cpuinfo
c grep -m1 -E '^flags[[:space:]]*:' /proc/cpuinfo
f smt /sys/devices/system/cpu/smt/active
f numa_nodes /sys/devices/system/node/online
f cpu_governor /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
f boost /sys/devices/system/cpu/cpufreq/boost
f no_turbo /sys/devices/system/cpu/intel_pstate/no_turbo
f thp_enabled /sys/kernel/mm/transparent_hugepage/enabled
f thp_defrag /sys/kernel/mm/transparent_hugepage/defrag
f somaxconn /proc/sys/net/core/somaxconn
f tcp_max_syn_backlog /proc/sys/net/ipv4/tcp_max_syn_backlog
f ip_local_port_range /proc/sys/net/ipv4/ip_local_port_range
f tcp_tw_reuse /proc/sys/net/ipv4/tcp_tw_reuse
f tcp_fin_timeout /proc/sys/net/ipv4/tcp_fin_timeout
f rmem_max /proc/sys/net/core/rmem_max
f wmem_max /proc/sys/net/core/wmem_max
f tcp_rmem /proc/sys/net/ipv4/tcp_rmem
f tcp_wmem /proc/sys/net/ipv4/tcp_wmem
f file_max /proc/sys/fs/file-max
s nofile
c ulimit -n
)SH";

// Lua inside the SUT's nginx (a config test does not run init_by_lua: the
// nginx starts, prints and exits from init_by_lua).
const char kLuajitConfTail[] = R"CONF(pid nginx.pid;
daemon off;
master_process off;
events {}
http {
  init_by_lua_block {
    local out = io.stdout
    if jit then
      out:write("version=", tostring(jit.version), "\n")
      out:write("jit=", jit.status() and "on" or "off", "\n")
      local ok, ffi = pcall(require, "ffi")
      if ok then out:write("gc64=", ffi.abi("gc64") and "yes" or "no", "\n") end
    end
    out:flush()
    os.exit(0)
  }
}
)CONF";

// A path nginx's configuration may hold unquoted.
bool PlainPath(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  for (char c : p) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-')) return false;
  }
  return true;
}

std::string SutFacts(const ProvisionInfo& info) {
  const std::string bin = ShellQuote(info.nginx_bin);
  std::string s = "s nginx_v\n{ " + bin + " -V 2>&1 | head -c 4096 | sed 's/^/|/'; echo; }\n";
  std::string conf;
  if (info.load_lua_modules) {
    if (!PlainPath(info.module_dir)) return s;  // no LuaJIT facts rather than a path nginx would misread
    conf += "load_module " + info.module_dir + "/ndk_http_module.so;\n";
    conf += "load_module " + info.module_dir + "/ngx_http_lua_module.so;\n";
  }
  conf += kLuajitConfTail;
  s += "s luajit\n";
  s += "d=$(mktemp -d 2>/dev/null) && {\n"
       "  mkdir -- \"$d/logs\"\n"
       "  cat > \"$d/nginx.conf\" <<'FVBENCH_LUAJIT_CONF'\n" +
       conf +
       "FVBENCH_LUAJIT_CONF\n"
       "  { timeout 20 " + bin + " -e stderr -p \"$d/\" -c \"$d/nginx.conf\" </dev/null 2>/dev/null | head -c 1024 "
       "| sed 's/^/|/'; echo; }\n"
       "  rm -rf -- \"$d\"\n"
       "}\n";
  return s;
}

}  // namespace

std::string EnvironmentProbeScript(const ProvisionInfo& info) {
  std::string s = kHostFacts;
  if (!info.nginx_bin.empty()) s += SutFacts(info);
  s += "exit 0\n";
  return s;
}

Result<HostEnvironment> ReadHostEnvironment(Host& host, const std::string& role, const ProvisionInfo& info) {
  Command c;
  c.argv = {"sh", "-c", EnvironmentProbeScript(info)};
  c.timeout = std::chrono::seconds(60);
  auto r = host.Run(c);
  if (!r) return Error{fmt::format("reading the environment of {} host {}: {}", role, host.name(), r.error().message)};
  if (!r->success()) {
    return Error{fmt::format("reading the environment of {} host {}: exit {}: {}", role, host.name(), r->exit_code,
                             TailOf(r->err, 300))};
  }
  HostEnvironment e = ParseHostFacts(r->out);
  e.role = role;
  e.host = host.name();
  return e;
}

}  // namespace fvbench
