// fvbench warmup: the same requests as constant_rate.js, at RATE for DURATION,
// unmeasured. Writes no summary file and prints no summary.
//
//   [JWT=...] k6 run --quiet --no-color --include-system-env-vars -e TARGET_URL=... -e RATE=... \
//     -e DURATION=... -e KIND=get|decision|post [-e BODY_FILE=...] \
//     -e PRE_VUS=... -e MAX_VUS=... -e KEYS=... warmup.js
//
// Parameters and sources: see common.js.

import { arrivalScenario, kind, makeRequest, requiredEnv } from './common.js';

const KIND = kind();
const BODY = KIND === 'post' ? open(requiredEnv('BODY_FILE')) : '';

/** @type {import('k6/options').Options} */
export const options = {
  scenarios: { warmup: arrivalScenario() },
  discardResponseBodies: true,
};

const request = makeRequest(KIND, BODY);

export default function () {
  request();
}

// Returning an empty object suppresses both the default stdout summary and any
// file output (custom-summary docs: the returned map decides every output).
export function handleSummary() {
  return {};
}
