#include "support/judge/environment_lint.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include <fmt/format.h>

namespace fvbench {
namespace {

using Severity = EnvironmentFinding::Severity;

std::optional<uint64_t> ToU64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// "32768\t60999" -> 28232; nullopt when not two numbers low <= high.
std::optional<uint64_t> PortCount(const std::string& range) {
  std::istringstream in(range);
  std::string lo, hi, extra;
  in >> lo >> hi >> extra;
  auto l = ToU64(lo), h = ToU64(hi);
  if (!l || !h || !extra.empty() || *l > *h) return std::nullopt;
  return *h - *l + 1;
}

class Linter {
 public:
  Linter(const HostEnvironment& env, const EnvironmentNeeds& needs, std::vector<EnvironmentFinding>& out)
      : env_(env), needs_(needs), out_(out) {}

  void Run() {
    if (env_.role == "sut") {
      ListenBacklog();
      QueueBound("somaxconn", "net.core.somaxconn");
      QueueBound("tcp_max_syn_backlog", "net.ipv4.tcp_max_syn_backlog");
    }
    if (env_.role == "loadgen") {
      PortRange();
      OpenFiles();
    }
    Thp();
    Governor();
  }

 private:
  void Add(Severity s, const char* key, const std::string& value, const std::string& why) {
    out_.push_back(EnvironmentFinding{s, env_.role, env_.host, key, value,
                                      fmt::format("{} {}: {} {}", env_.role, env_.host, key, why)});
  }

  // nginx's own listen backlog (NGINX_LISTEN_BACKLOG, else 511) against the
  // connections the phase opens at once: a run's setting, judged with the
  // SUT host's queue sysctls since it bounds them.
  void ListenBacklog() {
    if (needs_.listen_backlog >= needs_.sut_connections) return;
    Add(Severity::kWarn, "NGINX_LISTEN_BACKLOG", std::to_string(needs_.listen_backlog),
        fmt::format("{}: nginx's listen backlog is below the {} connections the busiest phase opens to the SUT at "
                    "once: while its workers are busy, SYNs beyond the queue are dropped and retried after 1 s; set "
                    "NGINX_LISTEN_BACKLOG={} (and somaxconn at least as high)",
                    needs_.listen_backlog, needs_.sut_connections, needs_.sut_connections));
  }

  // The SUT's accept (or SYN) queue against the connections the phase opens
  // at once, as far as the listen backlog lets the queue grow.
  void QueueBound(const char* key, const char* sysctl) {
    const std::string v = env_.Get(key);
    auto n = ToU64(v);
    const uint64_t need = std::min(needs_.sut_connections, needs_.listen_backlog);
    if (!n || *n >= need) return;
    Add(Severity::kWarn, key, v,
        fmt::format("{} is below the {} connections the busiest phase opens to the SUT at once (nginx's listen "
                    "backlog {}, NGINX_LISTEN_BACKLOG): SYNs beyond the queue are dropped and retried after 1 s; raise it with "
                    "`sysctl -w {}={}`",
                    v, needs_.sut_connections, needs_.listen_backlog, sysctl, need));
  }

  void PortRange() {
    const std::string v = env_.Get("ip_local_port_range");
    auto ports = PortCount(v);
    if (!ports || *ports >= needs_.host_connections) return;
    Add(Severity::kRefuse, "ip_local_port_range", v,
        fmt::format("\"{}\" has {} local ports but this host's engine processes open {} connections to the "
                    "SUT's one address and port; widen it (`sysctl -w net.ipv4.ip_local_port_range=\"1024 "
                    "65535\"`) or lower LOADGEN_CONNECTIONS / the rate",
                    v, *ports, needs_.host_connections));
  }

  void OpenFiles() {
    const std::string v = env_.Get("nofile");
    if (v.empty() || v == "unlimited") return;
    auto n = ToU64(v);
    if (!n || *n >= needs_.process_open_files) return;
    const bool k6 = needs_.engine == "k6";
    Add(k6 ? Severity::kWarn : Severity::kRefuse, "nofile", v,
        fmt::format("{} is below the {} open files one {} process needs (its connections + its own files){}; "
                    "raise it (ulimit -n, /etc/security/limits.conf nofile, LimitNOFILE) or lower "
                    "LOADGEN_CONNECTIONS / the rate",
                    v, needs_.process_open_files, needs_.engine.empty() ? "engine" : needs_.engine,
                    k6 ? " (k6 raises its soft limit to the hard one, which is checked before each phase)"
                       : ""));
  }

  void Thp() {
    const std::string v = env_.Get("thp_enabled");
    if (v != "always") return;
    Add(Severity::kWarn, "thp_enabled", v,
        "is \"always\": page compaction (khugepaged) stalls show as latency; set it to madvise "
        "(`echo madvise > /sys/kernel/mm/transparent_hugepage/enabled`)");
  }

  void Governor() {
    const std::string v = env_.Get("cpu_governor");
    if (v.empty() || v == "performance") return;
    Add(Severity::kWarn, "cpu_governor", v,
        fmt::format("is \"{}\": the CPU clock follows the load, so the numbers measure the governor too; set "
                    "`cpupower frequency-set -g performance`",
                    v));
  }

  const HostEnvironment& env_;
  const EnvironmentNeeds& needs_;
  std::vector<EnvironmentFinding>& out_;
};

}  // namespace

std::vector<EnvironmentFinding> LintEnvironments(const std::vector<HostEnvironment>& envs,
                                                 const EnvironmentNeeds& needs) {
  std::vector<EnvironmentFinding> out;
  for (const HostEnvironment& e : envs) Linter(e, needs, out).Run();
  return out;
}

bool AnyRefusal(const std::vector<EnvironmentFinding>& findings) {
  return std::any_of(findings.begin(), findings.end(),
                     [](const EnvironmentFinding& f) { return f.severity == Severity::kRefuse; });
}

std::string DescribeFinding(const EnvironmentFinding& f) {
  return fmt::format("{}: {}", f.severity == Severity::kRefuse ? "refused" : "warning", f.message);
}

}  // namespace fvbench
