#include "support/core/clock_offset.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace fvbench {

Result<ClockOffset> EstimateClockOffset(const std::vector<ClockExchange>& exchanges) {
  if (exchanges.empty()) return Error{"no clock reading"};
  const ClockExchange* best = nullptr;
  for (const ClockExchange& e : exchanges) {
    if (!(e.received_us >= e.sent_us) || !std::isfinite(e.remote_us)) continue;
    if (best == nullptr || e.received_us - e.sent_us < best->received_us - best->sent_us) best = &e;
  }
  if (best == nullptr) {
    return Error{fmt::format("no consistent clock reading of {} (each answer arrived before it was asked: the "
                             "controller's clock stepped)",
                             exchanges.size())};
  }
  ClockOffset o;
  o.delay_us = best->received_us - best->sent_us;
  o.offset_us = best->remote_us - (best->sent_us + best->received_us) / 2;
  o.exchanges = static_cast<int>(exchanges.size());
  return o;
}

std::string FormatClockOffset(double us) {
  const char* sign = us < 0 ? "-" : "+";
  const double a = std::fabs(us);
  if (a >= 1e6) return fmt::format("{}{:.3f} s", sign, a / 1e6);
  if (a >= 1e3) return fmt::format("{}{:.1f} ms", sign, a / 1e3);
  return fmt::format("{}{:.0f} µs", sign, a);
}

Result<void> CheckClockOffset(const std::string& host, const ClockOffset& offset, double max_offset_us) {
  if (std::fabs(offset.offset_us) <= max_offset_us) return Ok();
  return Error{fmt::format(
      "loadgen host {}: its clock is {} {} the controller's (+- {}, the best of {} round trips): beyond the {} "
      "fvbench corrects for. A clock that far off is kept by no time service and may be stepped while a phase "
      "runs, moving that host's schedule; synchronise it (chrony, ntpd or systemd-timesyncd) and run again",
      host, FormatClockOffset(std::fabs(offset.offset_us)).substr(1), offset.offset_us > 0 ? "ahead of" : "behind",
      FormatClockOffset(offset.uncertainty_us()).substr(1), offset.exchanges,
      FormatClockOffset(max_offset_us).substr(1))};
}

Result<double> ParseClockReading(const std::string& line) {
  std::string t = line;
  while (!t.empty() && (t.back() == '\r' || t.back() == ' ')) t.pop_back();
  const auto bad = [&] {
    return Error{fmt::format("clock reading '{}': expected <seconds>.<fraction> or <nanoseconds> since the epoch",
                             t.substr(0, 40))};
  };
  const size_t sep = t.find_first_of(".,");
  const std::string whole = t.substr(0, sep);
  const std::string frac = sep == std::string::npos ? "" : t.substr(sep + 1);
  auto digits = [](const std::string& d, size_t max) {
    return !d.empty() && d.size() <= max && d.find_first_not_of("0123456789") == std::string::npos;
  };
  if (sep == std::string::npos) {
    if (!digits(whole, 19)) return bad();
    return std::strtod(whole.c_str(), nullptr) / 1e3;  // nanoseconds
  }
  if (!digits(whole, 12) || !digits(frac, 9)) return bad();
  return std::strtod(whole.c_str(), nullptr) * 1e6 + std::strtod(("0." + frac).c_str(), nullptr) * 1e6;
}

}  // namespace fvbench
