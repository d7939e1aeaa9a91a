// fvbench measured phase: constant arrival rate, one request per iteration.
// Used for latency phases and for every throughput search step.
//
//   [JWT=...] k6 run --quiet --no-color --include-system-env-vars -e TARGET_URL=... -e RATE=... \
//     -e DURATION=... -e KIND=get|decision|post [-e BODY_FILE=...] \
//     -e PRE_VUS=... -e MAX_VUS=... -e KEYS=... -e SUMMARY_OUT=/path/phase.json \
//     -e COUNT_RATELIMIT=0|1 constant_rate.js
//
// See common.js for the parameters and their sources. Additionally:
//   SUMMARY_OUT      where handleSummary writes the summary JSON      (required)
//   COUNT_RATELIMIT  '1': count responses carrying a RateLimit header
//
// Output: SUMMARY_OUT receives JSON.stringify(data) of handleSummary's `data`
// (https://grafana.com/docs/k6/latest/results-output/end-of-test/custom-summary/):
// metrics.<name>.{type, contains, values}; trend values in milliseconds keyed
// by the literal summaryTrendStats strings ("p(99.9)"); http_req_failed is a
// rate whose `passes` counts FAILED requests; dropped_iterations is absent
// when nothing was dropped. support/engine/k6_summary.h parses it.
//
// Custom counters (one sample per response, so they are present whenever any
// response arrived and a count of 0 is a measured 0, not a missing metric):
//   non_2xx             responses with status outside 200..299 (0 = transport error)
//   ratelimit_evidence  responses with a RateLimit header (COUNT_RATELIMIT=1 only)

import { Counter } from 'k6/metrics';
import { arrivalScenario, env, hasRateLimitHeader, kind, makeRequest, requiredEnv } from './common.js';

const KIND = kind();
const SUMMARY_OUT = requiredEnv('SUMMARY_OUT');
const COUNT_RATELIMIT = env('COUNT_RATELIMIT', '0') === '1';
// open() works only in the init context and rejects an empty name, so read the
// body only for KIND=post.
const BODY = KIND === 'post' ? open(requiredEnv('BODY_FILE')) : '';

const non2xx = new Counter('non_2xx');
const ratelimitEvidence = COUNT_RATELIMIT ? new Counter('ratelimit_evidence') : null;

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: { measured: arrivalScenario() },
  // Trend keys in the summary are these literal strings; the parser needs
  // p(50), p(90), p(99), p(99.9) and max of http_req_duration.
  summaryTrendStats: ['p(50)', 'p(90)', 'p(99)', 'p(99.9)', 'max', 'avg', 'min'],
  // Headers and status are kept; bodies are not needed and cost loadgen CPU.
  discardResponseBodies: true,
};

const request = makeRequest(KIND, BODY);

export default function () {
  const res = request();
  non2xx.add(res.status >= 200 && res.status < 300 ? 0 : 1);
  if (ratelimitEvidence !== null) {
    ratelimitEvidence.add(hasRateLimitHeader(res) ? 1 : 0);
  }
}

function count(data, name) {
  const m = data.metrics[name];
  return m && m.values && m.values.count !== undefined ? m.values.count : 0;
}

export function handleSummary(data) {
  const d = data.metrics.http_req_duration;
  const p99 = d && d.values ? d.values['p(99)'] : undefined;
  const line =
    `fvbench k6: requests=${count(data, 'http_reqs')}` +
    ` non_2xx=${count(data, 'non_2xx')}` +
    ` dropped_iterations=${count(data, 'dropped_iterations')}` +
    ` p99_ms=${p99 === undefined ? 'n/a' : p99}` +
    ` summary=${SUMMARY_OUT}\n`;
  return { [SUMMARY_OUT]: JSON.stringify(data), stdout: line };
}
