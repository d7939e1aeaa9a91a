#include "support/engine/loadgen_clocks.h"

#include <fmt/format.h>

#include <thread>

namespace fvbench {

double LoadgenClocks::age_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - measured_at_).count();
}

Result<std::vector<ClockOffset>> LoadgenClocks::Current(double max_offset_us) {
  if (!offsets_.empty() && age_s() < kClockRecheckS) return offsets_;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<Result<std::vector<ClockExchange>>> readings(hosts_.size(), Error{"not read"});
  auto one = [&](size_t i) { readings[i] = hosts_[i]->ExchangeClock(kClockExchanges, kClockReadTimeout); };
  if (parallel_) {
    std::vector<std::thread> threads;
    for (size_t i = 0; i < hosts_.size(); ++i) threads.emplace_back(one, i);
    for (auto& t : threads) t.join();
  } else {
    for (size_t i = 0; i < hosts_.size(); ++i) one(i);
  }
  std::vector<ClockOffset> offsets;
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (!readings[i]) {
      return Error{fmt::format("measuring the clock offset of loadgen host {}: {}", hosts_[i]->name(),
                               readings[i].error().message)};
    }
    auto o = EstimateClockOffset(*readings[i]);
    if (!o) return Error{fmt::format("loadgen host {}: clock offset: {}", hosts_[i]->name(), o.error().message)};
    if (auto ok = CheckClockOffset(hosts_[i]->name(), *o, max_offset_us); !ok) return ok.error();
    offsets.push_back(*o);
  }
  offsets_ = std::move(offsets);
  measured_at_ = std::chrono::steady_clock::now();
  cost_s_ = std::chrono::duration<double>(measured_at_ - t0).count();
  return offsets_;
}

}  // namespace fvbench
