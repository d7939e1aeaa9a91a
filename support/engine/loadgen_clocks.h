// The clock offsets of the loadgen hosts of a synchronised phase to the
// controller's clock (core/clock_offset.h), which engine/multi_loadgen.h
// uses to give each host the common start in its own clock and to map what
// each measured back.
//
// Each host: kClockExchanges exchanges over one command (Host::
// ExchangeClock), the least delay wins; the hosts in parallel (one after
// another in a dry run, which records them). Measured at the first phase
// that needs them and again when the last measurement is older than
// kClockRecheckS: an undisciplined clock drifts by up to ~50 ppm (3 ms a
// minute), within the 10 ms start-skew bound between two checks. Cost, on
// the namespace test hosts: one command per host, ~20-40 ms with a plain
// login shell, plus 8 round trips of ~0.1 ms
// (docs/load-generators.md "Several load generators"); a host whose login
// shell takes seconds to start takes that once per check.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "support/core/clock_offset.h"
#include "support/core/result.h"
#include "support/host/host.h"

namespace fvbench {

inline constexpr int kClockExchanges = 8;
inline constexpr double kClockRecheckS = 60;
inline constexpr std::chrono::seconds kClockReadTimeout{60};

class LoadgenClocks {
 public:
  // hosts[i] reads host i's clock (not owned; outlives this).
  LoadgenClocks(std::vector<Host*> hosts, bool parallel) : hosts_(std::move(hosts)), parallel_(parallel) {}

  // One offset per host: the last measured when younger than kClockRecheckS,
  // else measured now. Error naming the host whose readings failed, or whose
  // offset is beyond `max_offset_us` (CheckClockOffset).
  Result<std::vector<ClockOffset>> Current(double max_offset_us = kMaxLoadgenClockOffsetUs);

  // When the offsets in use were measured (steady clock) and what measuring
  // them took (s): for the phase's summary.
  double age_s() const;
  double cost_s() const { return cost_s_; }
  const std::vector<Host*>& hosts() const { return hosts_; }

 private:
  std::vector<Host*> hosts_;
  bool parallel_;
  std::vector<ClockOffset> offsets_;
  std::chrono::steady_clock::time_point measured_at_{};
  double cost_s_ = 0;
};

}  // namespace fvbench
