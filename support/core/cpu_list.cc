#include "support/core/cpu_list.h"

#include "support/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

namespace fvbench {
namespace {

// A CPU id: decimal digits only, at most kMaxCpuId. Returns the error or "".
std::string CpuId(std::string_view s, int* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) {
    return fmt::format("'{}' is not a CPU id (expected a list like 0-3,6)", s);
  }
  if (s.size() > 5 || std::stoi(std::string(s)) > kMaxCpuId) {
    return fmt::format("{} is above the highest CPU id {}", s, kMaxCpuId);
  }
  *out = std::stoi(std::string(s));
  return "";
}

// One part: "N", "N-M" or "N-M:S" into `cpus`. Returns the error or "".
std::string AddPart(std::string_view part, std::set<int>& cpus) {
  if (part.empty()) return "an empty part (expected a list like 0-3,6)";
  const size_t dash = part.find('-');
  const size_t colon = part.find(':');
  int lo = 0, hi = 0, stride = 1;
  if (dash == std::string_view::npos) {
    if (colon != std::string_view::npos) return fmt::format("'{}': a stride needs a range (N-M:S)", part);
    if (std::string e = CpuId(part, &lo); !e.empty()) return e;
    cpus.insert(lo);
    return "";
  }
  std::string_view hi_text = part.substr(dash + 1, colon == std::string_view::npos ? std::string_view::npos
                                                                                     : colon - dash - 1);
  if (std::string e = CpuId(part.substr(0, dash), &lo); !e.empty()) return e;
  if (std::string e = CpuId(hi_text, &hi); !e.empty()) return e;
  if (colon != std::string_view::npos) {
    std::string e = CpuId(part.substr(colon + 1), &stride);
    if (!e.empty() || stride < 1) return fmt::format("'{}': the stride must be an integer >= 1", part);
  }
  if (hi < lo) return fmt::format("{} is a reversed range ({} > {})", part, lo, hi);
  for (int c = lo; c <= hi; c += stride) cpus.insert(c);
  return "";
}

}  // namespace

Result<std::vector<int>> ParseCpuList(std::string_view list) {
  if (list.empty()) return Error{"empty (expected a list like 0-3,6)"};
  std::set<int> cpus;
  size_t pos = 0;
  while (true) {
    const size_t comma = list.find(',', pos);
    std::string_view part = list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (std::string e = AddPart(part, cpus); !e.empty()) return Error{e};
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

std::string FormatCpuList(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> IntersectCpus(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

std::vector<int> UsableCpus(std::string_view affinity, std::string_view cgroup_cpuset, int online) {
  auto a = ParseCpuList(detail::TrimSpace(affinity));
  auto g = ParseCpuList(detail::TrimSpace(cgroup_cpuset));
  if (a && g) {
    auto both = IntersectCpus(*a, *g);
    if (!both.empty()) return both;
  }
  if (a) return *a;
  if (g) return *g;
  std::vector<int> all;
  for (int i = 0; i < online; ++i) all.push_back(i);
  return all;
}

std::vector<std::vector<int>> SplitCpuList(const std::vector<int>& cpus, size_t parts) {
  std::vector<std::vector<int>> out;
  if (parts == 0 || parts > cpus.size()) return out;
  const size_t base = cpus.size() / parts, extra = cpus.size() % parts;
  size_t at = 0;
  for (size_t i = 0; i < parts; ++i) {
    const size_t n = base + (i < extra ? 1 : 0);
    out.emplace_back(cpus.begin() + static_cast<std::ptrdiff_t>(at), cpus.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return out;
}

std::vector<int> CpusOutside(const std::vector<int>& a, const std::vector<int>& b) {
  std::vector<int> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace fvbench
