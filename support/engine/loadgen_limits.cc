#include "support/engine/loadgen_limits.h"

#include <charconv>
#include <limits>
#include <sstream>
#include <vector>

#include <fmt/format.h>

namespace fvbench {
namespace {

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

bool ToU64(std::string_view s, uint64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

Result<uint64_t> OpenFiles(const std::string& line, const char* what) {
  if (line == "unlimited") return std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  if (!ToU64(line, &v)) return Error{fmt::format("{} is \"{}\", expected a number or \"unlimited\"", what, line)};
  return v;
}

}  // namespace

Result<LoadgenLimits> ParseLoadgenLimits(std::string_view probe_output) {
  const std::vector<std::string> l = Lines(probe_output);
  if (l.size() != 4) {
    return Error{fmt::format("load-generator limits probe ({}): expected 4 lines, got {}: \"{}\"",
                             kLoadgenLimitsProbe, l.size(), probe_output)};
  }
  LoadgenLimits out;
  auto soft = OpenFiles(l[0], "ulimit -Sn");
  if (!soft) return soft.error();
  auto hard = OpenFiles(l[1], "ulimit -Hn");
  if (!hard) return hard.error();
  out.open_files_soft = *soft;
  out.open_files_hard = *hard;
  std::istringstream range(l[2]);
  std::string lo, hi, extra;
  uint64_t low = 0, high = 0;
  range >> lo >> hi >> extra;
  if (!ToU64(lo, &low) || !ToU64(hi, &high) || !extra.empty() || low > 65535 || high > 65535 || low > high) {
    return Error{fmt::format("ip_local_port_range is \"{}\", expected \"<low> <high>\" within 0..65535", l[2])};
  }
  out.port_low = static_cast<uint32_t>(low);
  out.port_high = static_cast<uint32_t>(high);
  uint64_t cpus = 0;
  if (!ToU64(l[3], &cpus) || cpus == 0 || cpus > 1u << 20) {
    return Error{fmt::format("nproc printed \"{}\", expected a CPU count", l[3])};
  }
  out.cpus = static_cast<int>(cpus);
  return out;
}

Result<void> CheckLoadgenLimits(const std::string& host, const LoadgenNeeds& n, const LoadgenLimits& l) {
  const bool k6 = n.engine == "k6";
  const uint64_t files = k6 ? l.open_files_hard : l.open_files_soft;
  if (n.open_files > files) {
    return Error{fmt::format(
        "load generator {}: {} needs {} open files ({} connections + its own) but its shell allows {} "
        "(ulimit -{}n); raise it (ulimit -n, /etc/security/limits.conf, LimitNOFILE) or lower "
        "LOADGEN_CONNECTIONS / the rate",
        host, n.engine, n.open_files, n.connections, files, k6 ? "H" : "S")};
  }
  if (n.connections > l.ports()) {
    return Error{fmt::format(
        "load generator {}: {} connections need {} local ports but ip_local_port_range {}-{} has {}; widen "
        "/proc/sys/net/ipv4/ip_local_port_range or lower LOADGEN_CONNECTIONS / the rate",
        host, n.connections, n.connections, l.port_low, l.port_high, l.ports())};
  }
  if (n.pinned_cpus > l.cpus) {
    return Error{fmt::format("load generator {}: the engine's cpuset names {} CPUs but its shell may use {} (nproc); "
                             "fix K6_CPUSET",
                             host, n.pinned_cpus, l.cpus)};
  }
  return Ok();
}

}  // namespace fvbench
