// A host's wall clock against the controller's, from readings taken over a
// round trip each (NTP's on-wire estimate, RFC 5905 section 8, without its
// protocol). Pure.
//
// One exchange: the controller notes its clock (sent), the host reads its
// own (remote) and answers, the controller notes its clock again
// (received). If both legs took equally long, the host read its clock at
// the midpoint, so
//   offset = remote - (sent + received) / 2     (host clock - controller clock)
//   delay  = received - sent                    (the round trip)
// and whatever the legs took, the true offset lies within +- delay / 2 of
// it. Of several exchanges the one with the least delay wins (the others
// waited somewhere: a scheduler, a busy link), as NTP's clock filter does.
// Times are µs since the Unix epoch.
#pragma once

#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

struct ClockExchange {
  double sent_us = 0;      // the controller's clock when it asked
  double remote_us = 0;    // the host's clock when it answered
  double received_us = 0;  // the controller's clock when the answer arrived
};

struct ClockOffset {
  double offset_us = 0;  // host clock - controller clock
  double delay_us = 0;   // the best exchange's round trip; the offset is known to +- delay_us / 2
  int exchanges = 0;     // how many were taken
  double uncertainty_us() const { return delay_us / 2; }
};

// The best exchange's estimate. Error for no exchange, or when no exchange
// is consistent (received before sent: the controller's clock stepped).
Result<ClockOffset> EstimateClockOffset(const std::vector<ClockExchange>& exchanges);

// The largest offset a loadgen host's clock may have: each host is given the
// common start in its own clock and its measured window is mapped back
// through its offset, which works for any offset that stays put. A clock this
// far off is kept by no time service (ntpd steps a clock more than 128 ms
// off, chrony as its makestep says, at any moment), so it may step while a
// phase runs and move that host's schedule with it: such a host is refused.
inline constexpr double kMaxLoadgenClockOffsetUs = 1e6;

// "+1.502 s" / "-0.4 ms" / "+12 µs", for messages: the unit chosen by size.
std::string FormatClockOffset(double offset_us);

// Error naming the host, its offset and uncertainty when |offset| >
// max_offset_us, with what to do about it.
Result<void> CheckClockOffset(const std::string& host, const ClockOffset& offset,
                              double max_offset_us = kMaxLoadgenClockOffsetUs);

// One host's answer line -> its clock (µs since the epoch): "<nanoseconds>"
// (date +%s%N) or "<seconds>.<fraction>" ('.' or ',', as locales write it).
// Error for anything else (a `date` without %N prints "<seconds>N" or
// "<seconds>%N").
Result<double> ParseClockReading(const std::string& line);

}  // namespace fvbench
