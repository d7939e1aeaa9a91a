#include "support/core/outcomes.h"

#include <algorithm>

namespace fvbench {

void AccountPerScheduledRequest(LoadResult& r, uint64_t scheduled, uint64_t sent, uint64_t bad_answers,
                                bool unsent_are_sut) {
  scheduled = std::max(scheduled, r.requests);
  bad_answers = std::min(bad_answers, r.requests);
  const uint64_t missing = scheduled - r.requests;  // no response at all
  const uint64_t not_sent = std::min(sent < scheduled ? scheduled - sent : 0, missing);
  r.scheduled = scheduled;
  r.succeeded = r.requests - bad_answers;
  r.failed_engine = unsent_are_sut ? 0 : not_sent;
  r.failed_sut = bad_answers + missing - r.failed_engine;
  r.failed = scheduled - r.succeeded;
  r.error_rate = scheduled == 0 ? 1.0 : static_cast<double>(r.failed) / static_cast<double>(scheduled);
}

uint64_t InFlightAtStop(uint64_t sent, uint64_t responses, uint64_t socket_errors, uint64_t timeouts,
                        uint64_t connections) {
  if (socket_errors > 0 || timeouts > 0 || sent <= responses) return 0;
  const uint64_t unanswered = sent - responses;
  return unanswered <= connections ? unanswered : 0;
}

void AccountWithInterrupted(LoadResult& r, uint64_t scheduled, uint64_t sent, uint64_t bad_answers,
                            uint64_t interrupted, bool unsent_are_sut) {
  // Never below the responses: an interrupted request got none.
  interrupted = std::min({interrupted, scheduled > r.requests ? scheduled - r.requests : 0,
                          sent > r.requests ? sent - r.requests : 0});
  AccountPerScheduledRequest(r, scheduled - interrupted, sent - interrupted, bad_answers, unsent_are_sut);
  r.interrupted = interrupted;
}

void CensorAtTimeout(LatencyUs& l, uint64_t recorded, uint64_t timeouts, double timeout_us) {
  if (timeouts == 0) return;
  const double total = static_cast<double>(recorded + timeouts);
  const struct {
    double q;
    double* value;
  } levels[] = {{0.5, &l.p50}, {0.9, &l.p90}, {0.99, &l.p99}, {0.999, &l.p999}};
  for (const auto& level : levels) {
    if (level.q * total > static_cast<double>(recorded)) *level.value = timeout_us;
  }
  l.max = timeout_us;
  l.censored_at_us = timeout_us;
}

double SutErrorRate(const LoadResult& r) {
  if (r.scheduled == 0) return r.error_rate;
  return static_cast<double>(r.failed_sut) / static_cast<double>(r.scheduled);
}

}  // namespace fvbench
