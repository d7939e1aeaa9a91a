#include "support/judge/loadgen_shards.h"

#include <fmt/format.h>

#include <cmath>

namespace fvbench {
namespace {

std::string Fraction(size_t num, size_t den) {
  if (num == 0) return "0";
  if (num == den) return "1";
  return fmt::format("{}/{}", num, den);
}

}  // namespace

std::vector<ShardPlan> PlanShards(double total_rps, size_t n) {
  std::vector<ShardPlan> plans;
  if (n == 0 || !(total_rps > 0)) return plans;
  std::string sequence;
  for (size_t i = 0; i <= n; ++i) sequence += (i ? "," : "") + Fraction(i, n);
  for (size_t i = 0; i < n; ++i) {
    ShardPlan p;
    p.index = i;
    p.count = n;
    p.rate_rps = total_rps / static_cast<double>(n);
    p.offset_us = static_cast<double>(i) * 1e6 / total_rps;
    p.k6_segment = Fraction(i, n) + ":" + Fraction(i + 1, n);
    p.k6_sequence = sequence;
    plans.push_back(std::move(p));
  }
  return plans;
}

double StartEpochUs(double now_epoch_us, double lead_us) {
  return std::ceil((now_epoch_us + lead_us) / 1000.0) * 1000.0;
}

}  // namespace fvbench
