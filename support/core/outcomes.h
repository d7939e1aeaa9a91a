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
// the request on its connection; no timeout) and the engine sent every
// scheduled slot, and there are at most `connections` of them (one request
// per connection at a time: fvbench never pipelines); otherwise 0, and they
// stay the SUT's failures. `connections` 0 (unknown) gives 0.
//
// Why not in a phase with unsent slots: there every connection was busy
// waiting for responses (measured: ~940 unanswered at the end of an 18750 RPS
// probe with 938 connections), and counting them as the SUT's is what keeps
// EngineLimitedReason (judge/step_search.h), which asks for a SUT error rate
// below the limit, from calling a SUT whose slow responses starved the
// engine's connections "engine-limited". Tried, measured and undone: with
// them interrupted, every search on the namespace testbed ended at its first
// probe as engine-limited. They overstate the SUT's errors by at most one per
// connection. Since then EngineLimitedReason tells a starved pool by Little's
// law (needed concurrency = rate x mean latency against the connections) and
// leaves these requests out of the SUT's errors when the pool was ample; the
// error rate with them stays its guard where Little's law cannot tell (the
// band between, a result without connections or mean latency).
uint64_t InFlightAtStop(uint64_t scheduled, uint64_t sent, uint64_t responses, uint64_t socket_errors,
                        uint64_t timeouts, uint64_t connections);

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
