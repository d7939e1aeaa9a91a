#include "support/host/usable_cpus.h"

#include <sched.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/core/cpu_list.h"

namespace fvbench {

const char kUsableCpusScript[] = R"SH(
printf 'cpus_affinity=%s\n' "$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status 2>/dev/null)"
cg=$(sed -n 's/^0:://p' /proc/self/cgroup 2>/dev/null)
d=/sys/fs/cgroup$cg
while [ -n "$cg" ] && [ ! -r "$d/cpuset.cpus.effective" ] && [ "$d" != /sys/fs/cgroup ]; do d=${d%/*}; done
printf 'cpus_cgroup=%s\n' "$( [ -n "$cg" ] && cat "$d/cpuset.cpus.effective" 2>/dev/null)"
printf 'cpus_online=%s\n' "$(getconf _NPROCESSORS_ONLN 2>/dev/null)"
)SH";

std::vector<int> ParseUsableCpusProbe(const std::string& out) {
  std::istringstream in(out);
  std::string affinity, cgroup, online_text;
  for (std::string l; std::getline(in, l);) {
    for (auto [key, out_value] : {std::pair{"cpus_affinity=", &affinity}, std::pair{"cpus_cgroup=", &cgroup},
                                  std::pair{"cpus_online=", &online_text}}) {
      if (l.rfind(key, 0) == 0) *out_value = l.substr(std::string(key).size());
    }
  }
  int online = 0;
  if (!online_text.empty() && online_text.size() < 6 &&
      online_text.find_first_not_of("0123456789") == std::string::npos) {
    online = std::stoi(online_text);
  }
  return UsableCpus(affinity, cgroup, online);
}

Result<std::vector<int>> ProbeUsableCpus(Host& host) {
  Command c;
  c.argv = {"sh", "-c", kUsableCpusScript};
  c.timeout = std::chrono::seconds(20);
  auto r = host.Run(c);
  if (!r) return r.error();
  return ParseUsableCpusProbe(r->out);
}

namespace {

std::string ReadFirstLine(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

std::string CgroupCpuset() {
  std::ifstream f("/proc/self/cgroup");
  std::string cg;
  for (std::string l; std::getline(f, l);) {
    if (l.rfind("0::", 0) == 0) cg = l.substr(3);
  }
  if (cg.empty()) return "";
  for (std::string d = "/sys/fs/cgroup" + cg;; d = d.substr(0, d.rfind('/'))) {
    std::string v = ReadFirstLine(d + "/cpuset.cpus.effective");
    if (!v.empty() || d.size() <= std::string("/sys/fs/cgroup").size()) return v;
  }
}

}  // namespace

std::vector<int> UsableCpusOfThisProcess() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> affinity;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int i = 0; i < CPU_SETSIZE; ++i) {
      if (CPU_ISSET(i, &set)) affinity.push_back(i);
    }
  }
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  return UsableCpus(FormatCpuList(affinity), CgroupCpuset(), online > 0 ? static_cast<int>(online) : 1);
}

namespace {

Result<void> SetAffinity(pid_t tid, const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) {
    if (c < 0 || c >= CPU_SETSIZE) return Error{fmt::format("CPU {} is outside cpu_set_t ({} CPUs)", c, CPU_SETSIZE)};
    CPU_SET(c, &set);
  }
  if (sched_setaffinity(tid, sizeof(set), &set) != 0) {
    return Error{fmt::format("sched_setaffinity{} to CPUs {}: {}", tid == 0 ? "" : fmt::format(" of thread {}", tid),
                             FormatCpuList(cpus), std::strerror(errno))};
  }
  return Ok();
}

}  // namespace

Result<void> RunThisThreadOn(const std::vector<int>& cpus) { return SetAffinity(0, cpus); }

Result<void> RunThisProcessOn(const std::vector<int>& cpus) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    const std::string tid = e.path().filename();
    if (tid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (auto r = SetAffinity(static_cast<pid_t>(std::stol(tid)), cpus); !r) return r;
  }
  if (ec) return Error{"reading /proc/self/task: " + ec.message()};
  return Ok();
}

}  // namespace fvbench
