// Shared pieces of the fvbench k6 scripts (constant_rate.js, warmup.js).
//
// The scripts are static files: every run-time value arrives through
// `k6 run -e NAME=value` as __ENV.NAME, except the secret JWT, which comes
// from k6's environment (`JWT=... k6 run --include-system-env-vars`): a
// command line is readable by every user of the host. Nothing is generated
// and nothing is imported from the network (only k6 built-in modules and
// this file).
//
// Parameters (all via -e, JWT via the environment):
//   TARGET_URL  full URL of the system under test                    (required)
//   RATE        iterations started per second, integer >= 1           (required)
//   DURATION    scenario length in seconds, e.g. 60 or 0.5            (required)
//   KIND        get | decision | post                                 (default get)
//   JWT         bearer token; no Authorization header when empty/unset
//   BODY_FILE   KIND=post only: file whose content is the POST body
//   PRE_VUS     constant-arrival-rate preAllocatedVUs, integer >= 1   (required)
//   MAX_VUS     constant-arrival-rate maxVUs, integer >= PRE_VUS      (required)
//   KEYS        rate-limit keys K, integer 0..100000                  (default 0)
//               K > 0: every request carries `X-Bench-Key: k<i>` with
//               i = exec.scenario.iterationInTest % K: iterations are
//               numbered in the order the schedule starts them, across VUs
//               and across the instances of a segmented test, so the keys
//               are taken in turn and each is offered RATE / K. 0: no header.
//
// Sources (k6 0.4x .. 1.x):
//   executor options  https://grafana.com/docs/k6/latest/using-k6/scenarios/executors/constant-arrival-rate/
//     (duration, rate, preAllocatedVUs required; timeUnit default "1s"; maxVUs)
//   open()            https://grafana.com/docs/k6/latest/javascript-api/init-context/
//     (init context only; k6 rejects an empty file name)
//   Response.headers  keys are in Go canonical form (grafana/k6-docs PR #1232),
//     so the gateway's "RateLimit" header is seen as "Ratelimit".
//   exec.scenario.iterationInTest  https://grafana.com/docs/k6/latest/javascript-api/k6-execution/
//     (zero-based, sequential, unique in the scenario in local and segmented runs)

import exec from 'k6/execution';
import http from 'k6/http';

export function env(name, fallback) {
  const v = __ENV[name];
  return v === undefined || v === '' ? fallback : v;
}

export function requiredEnv(name) {
  const v = env(name, undefined);
  if (v === undefined) {
    throw new Error(`fvbench k6 script: -e ${name}=... is required`);
  }
  return v;
}

function positiveInt(name) {
  const raw = requiredEnv(name);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(`fvbench k6 script: ${name}='${raw}' must be an integer >= 1`);
  }
  return n;
}

function positiveNumber(name) {
  const raw = requiredEnv(name);
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new Error(`fvbench k6 script: ${name}='${raw}' must be a number > 0`);
  }
  return n;
}

// The header and bound of KEYS (support/engine/load_engine.h kBenchKeyHeader, kMaxBenchKeys).
export const BENCH_KEY_HEADER = 'X-Bench-Key';
const MAX_KEYS = 100000;

export function keys() {
  const raw = env('KEYS', '0');
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > MAX_KEYS) {
    throw new Error(`fvbench k6 script: KEYS='${raw}' must be an integer in 0..${MAX_KEYS}`);
  }
  return n;
}

// This iteration's key, "k<i>", of n > 0 keys.
/** @param {number} n */
function benchKey(n) {
  return `k${exec.scenario.iterationInTest % n}`;
}

export const KINDS = ['get', 'decision', 'post'];

export function kind() {
  const k = env('KIND', 'get');
  if (KINDS.indexOf(k) < 0) {
    throw new Error(`fvbench k6 script: KIND='${k}' must be one of ${KINDS.join(', ')}`);
  }
  return k;
}

// The open-model scenario both scripts run: `rate` iterations started each
// second for `duration`, one HTTP request per iteration. When no VU is free an
// iteration is not started and k6 counts it in `dropped_iterations`
// (https://grafana.com/docs/k6/latest/using-k6/scenarios/concepts/dropped-iterations/);
// the suite treats any dropped iteration as "the load generator did not keep up".
/** @returns {import('k6/options').ConstantArrivalRateScenario} */
export function arrivalScenario() {
  const pre = positiveInt('PRE_VUS');
  const max = positiveInt('MAX_VUS');
  if (max < pre) {
    throw new Error(`fvbench k6 script: MAX_VUS=${max} must be >= PRE_VUS=${pre}`);
  }
  return {
    executor: 'constant-arrival-rate',
    rate: positiveInt('RATE'),
    timeUnit: '1s',
    duration: `${positiveNumber('DURATION')}s`,
    preAllocatedVUs: pre,
    maxVUs: max,
    // Iterations still in flight at the end run for at most 2 s more (k6's
    // default is 30 s), so a phase ends at its duration plus a bounded grace
    // however slow the SUT is; the ones cut are scheduled requests without a
    // response. support/core/load_result.h kK6GracefulStopS holds the same 2.
    gracefulStop: '2s',
  };
}

// Returns a function that sends one request of the configured kind and
// returns the k6 Response. `body` is the POST body for KIND=post (read by the
// calling script with open() in its init context).
// With KEYS > 0 each request also carries its key header (benchKey); with
// KEYS = 0 the requests are built exactly as without it.
export function makeRequest(k, body) {
  const url = requiredEnv('TARGET_URL');
  const jwt = env('JWT', '');
  const n = keys();
  /** @type {Record<string, string>} */
  const base = {};
  if (jwt) base['Authorization'] = 'Bearer ' + jwt;

  if (k === 'get') {
    if (n > 0) return () => http.get(url, { headers: Object.assign({}, base, { [BENCH_KEY_HEADER]: benchKey(n) }) });
    const params = { headers: base };
    return () => http.get(url, params);
  }
  if (k === 'decision') {
    // A decision request as an auth_request subrequest would carry it: the
    // original method and URI in headers, a client address that varies by VU
    // (203.0.113.0/24 is TEST-NET-3, RFC 5737).
    return () => {
      const headers = Object.assign({}, base, {
        'Content-Type': 'application/json',
        'X-Original-Method': 'POST',
        'X-Original-URI': '/v1/chat/completions',
        'X-Forwarded-For': `203.0.113.${(__VU % 254) + 1}`,
      });
      if (n > 0) headers[BENCH_KEY_HEADER] = benchKey(n);
      return http.post(url, '{}', { headers: headers });
    };
  }
  // post
  return () => {
    const headers = Object.assign({}, base, {
      'Content-Type': 'application/json',
      'X-Request-Id': `${__VU}-${__ITER}`,
    });
    if (n > 0) headers[BENCH_KEY_HEADER] = benchKey(n);
    return http.post(url, body, { headers: headers });
  };
}

// True when the response carries a RateLimit header field
// (draft-ietf-httpapi-ratelimit-headers: "RateLimit", or the older split
// "RateLimit-Limit" form). Keys are canonicalised by k6 (see above).
export function hasRateLimitHeader(res) {
  const h = res.headers;
  return h['Ratelimit'] !== undefined || h['Ratelimit-Limit'] !== undefined;
}
