#include "support/judge/flame_profile.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

namespace fvbench {
namespace {

double Share(uint64_t part, uint64_t all) {
  return all == 0 ? 0 : static_cast<double>(part) / static_cast<double>(all);
}

}  // namespace

std::vector<FrameShare> FrameShares(const FoldedStacks& f) {
  std::map<std::string_view, FrameShare> by_name;
  std::set<std::string_view> seen;
  for (const auto& [stack, n] : f.counts) {
    if (n == 0) continue;
    std::vector<std::string_view> frames = SplitFrames(stack);
    seen.clear();
    for (std::string_view frame : frames) {
      if (seen.insert(frame).second) by_name[frame].total += n;
    }
    by_name[frames.back()].self += n;
  }
  const uint64_t all = f.total();
  std::vector<FrameShare> out;
  out.reserve(by_name.size());
  for (auto& [name, s] : by_name) {
    s.frame = std::string(name);
    s.self_share = Share(s.self, all);
    s.total_share = Share(s.total, all);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<FrameShare> TopFrames(const FoldedStacks& f, size_t n, bool by_self) {
  std::vector<FrameShare> all = FrameShares(f);
  std::stable_sort(all.begin(), all.end(), [by_self](const FrameShare& x, const FrameShare& y) {
    return by_self ? x.self > y.self : x.total > y.total;  // stable: ties stay by name
  });
  if (all.size() > n) all.resize(n);
  return all;
}

namespace {

// The deltas of named sample counts of A and B, each divided by its requests.
std::vector<FrameDelta> Growth(const std::map<std::string, uint64_t>& a, uint64_t requests_a, uint64_t a_total,
                               const std::map<std::string, uint64_t>& b, uint64_t requests_b, size_t n) {
  if (requests_a == 0 || requests_b == 0) return {};
  const double ra = static_cast<double>(requests_a), rb = static_cast<double>(requests_b);
  const double a_all = static_cast<double>(a_total) / ra;
  std::map<std::string, FrameDelta> by_name;
  for (const auto& [name, count] : a) by_name[name].a_per_request = static_cast<double>(count) / ra;
  for (const auto& [name, count] : b) by_name[name].b_per_request = static_cast<double>(count) / rb;
  std::vector<FrameDelta> out;
  out.reserve(by_name.size());
  for (auto& [name, d] : by_name) {
    d.frame = name;
    d.delta_per_request = d.b_per_request - d.a_per_request;
    d.delta_share_of_a = a_all > 0 ? d.delta_per_request / a_all : 0;
    d.new_in_b = d.a_per_request == 0;
    d.relative_change = d.new_in_b ? 0 : d.delta_per_request / d.a_per_request;
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const FrameDelta& x, const FrameDelta& y) {
    return x.delta_per_request > y.delta_per_request;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

std::map<std::string, uint64_t> Totals(const FoldedStacks& f) {
  std::map<std::string, uint64_t> out;
  for (FrameShare& s : FrameShares(f)) out.emplace(std::move(s.frame), s.total);
  return out;
}

std::map<std::string, uint64_t> Selves(const FoldedStacks& f) {
  std::map<std::string, uint64_t> out;
  for (FrameShare& s : FrameShares(f)) {
    if (s.self > 0) out.emplace(std::move(s.frame), s.self);
  }
  return out;
}

}  // namespace

std::vector<FrameDelta> TopSelfGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                      uint64_t requests_b, size_t n) {
  return Growth(Selves(a), requests_a, a.total(), Selves(b), requests_b, n);
}

std::vector<FrameDelta> TopGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                  uint64_t requests_b, size_t n) {
  if (requests_a == 0 || requests_b == 0) return {};
  return Growth(Totals(a), requests_a, a.total(), Totals(b), requests_b, n);
}

std::vector<FrameDelta> TopStackGrowth(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                                       uint64_t requests_b, size_t n) {
  return Growth(a.counts, requests_a, a.total(), b.counts, requests_b, n);
}

}  // namespace fvbench
