// Outcomes of a load phase per scheduled request, shared by the k6 and wrk
// parsers. Pure. An open-model phase offers `scheduled` requests; each ends
// as exactly one of:
//   succeeded      a 2xx response within the engine's request timeout
//   failed_sut     the SUT's: a non-2xx or too-slow response (`bad_answers`),
//                  or a request that left the engine and got no response
//                  (connection reset, closed or refused by the SUT)
//   failed_engine  the engine's: scheduled but never sent (it fell behind),
//                  unless the caller knows the SUT refused the connections
// so that error_rate = (scheduled - succeeded) / scheduled. Engine counters
// of socket errors count attempts (a retried write is counted each time), not
// requests, and are therefore never used as a number of failed requests.
#pragma once

#include <cstdint>

#include "support/core/load_result.h"

namespace fvbench {

// Sets r.scheduled, succeeded, failed_sut, failed_engine, failed and
// error_rate from:
//   scheduled    requests the schedule offered (raised to r.requests if fewer:
//                a schedule that ran ahead offered more than planned)
//   sent         requests that left the engine (attempts; may exceed scheduled)
//   bad_answers  responses in r.requests that were non-2xx or too slow
//                (capped at r.requests)
//   unsent_are_sut  the requests never sent were the SUT's failures (its
//                connections were refused), not the engine's
// r.requests (responses received, any status) must be set. With nothing
// scheduled and nothing answered, error_rate is 1: nothing was served.
void AccountPerScheduledRequest(LoadResult& r, uint64_t scheduled, uint64_t sent, uint64_t bad_answers,
                                bool unsent_are_sut = false);

// Requests in flight when the engine stopped at the phase's end (see
// LoadResult::interrupted): the sent requests that got no response, when
// nothing else can explain a missing response (no socket error, which loses
// the request on its connection; no timeout), and there are at most
// `connections` of them (one request per connection at a time: fvbench never
// pipelines); otherwise 0, and they stay the SUT's failures. `connections` 0
// (unknown) gives 0. wrk stops at -d without waiting for them; k6 lets them
// finish (gracefulStop), so for neither engine are they the SUT's errors.
//
// Also when slots went unsent (the engine fell behind). Until 2026-12-02 they
// then stayed the SUT's failures, as a proxy that kept EngineLimitedReason
// (judge/step_search.h) from calling a SUT that starved the engine's pool
// "engine-limited". That proxy made the SUT's error rate untrue at the knee:
// measured (`ctest --preset local -R throughput`, unpinned, complex), 10 s
// bisect steps at 8439-8947 RPS read "SUT error_rate 1.09-1.15%" with every
// response a 2xx: 967-978 requests in flight at the stop over a pool of
// 1000, plus 33-641 slots never sent. The starved pool is now told directly
// (pace.lua's pool-exhausted share of the late sends, SutHeldThePool; Little's
// law), and these steps fail on the engine's schedule with the reason that
// every connection was waiting for the SUT. Measured since, on the namespace
// hosts (`ctest --preset remote -R throughput`): every first probe (18750
// RPS, ~1000 in flight at the stop, 100 % of its late sends pool-exhausted)
// is the SUT's, not "engine-limited" as in c9929c7.
uint64_t InFlightAtStop(uint64_t sent, uint64_t responses, uint64_t socket_errors, uint64_t timeouts,
                        uint64_t connections);

// AccountPerScheduledRequest for a phase whose `interrupted` requests were in
// flight at its end: they leave `scheduled` and `sent` (capped so that no
// count goes below the responses), and r.interrupted records them.
void AccountWithInterrupted(LoadResult& r, uint64_t scheduled, uint64_t sent, uint64_t bad_answers,
                            uint64_t interrupted, bool unsent_are_sut = false);

// Requests that timed out as censored latency samples: `timeouts` responses
// slower than `timeout_us` beside `recorded` samples at most that long. The
// percentile q is censored when its rank q x (recorded + timeouts) falls
// among the timeouts; it and max are then set to timeout_us, and
// l.censored_at_us = timeout_us (see LatencyUs). Values below keep the
// engine's figures (pace.lua already ranks them among recorded + timeouts).
// Nothing changes when timeouts is 0.
void CensorAtTimeout(LatencyUs& l, uint64_t recorded, uint64_t timeouts, double timeout_us);

// The SUT's share of the scheduled requests: failed_sut / scheduled; for a
// result without per-scheduled accounting (scheduled 0), error_rate.
double SutErrorRate(const LoadResult& r);

}  // namespace fvbench
