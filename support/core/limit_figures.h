// What a limits scenario measures: how many requests edge admitted and
// rejected per rate-limit key in one measured phase, counted by the SUT's own
// access log, and how that compares with what the policy's token bucket
// allows. Shapes only; judge/limits_log_parse.h parses the counts, judge/
// limit_accuracy.h computes the figures.
//
// Units: times in seconds (Unix time for instants), rates in requests (=
// tokens) per second, counts in requests, shares as fractions 0..1.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fvbench {

// One key's responses in the phase, from the access log.
struct KeyCounts {
  std::string key;
  uint64_t admitted = 0;  // 2xx
  uint64_t rejected = 0;  // 429
  uint64_t other = 0;     // any other status
  // Admitted per bin of AccessLogCounts::bin_s; bin 0 starts at first_unix.
  std::vector<uint64_t> admitted_per_bin;
};

// The access log of one phase, reduced on the SUT host.
struct AccessLogCounts {
  double bin_s = 0.1;
  double first_unix = 0;  // the first line's time ($msec)
  double last_unix = 0;   // the last line's time
  uint64_t lines = 0;
  uint64_t without_key = 0;  // lines whose key header was absent or empty
  uint64_t malformed = 0;    // lines that were not "<msec> <status> <key>"
  // Lines logged before the phase's window (an earlier attempt of the phase:
  // several load generators run a phase again when one started late), left
  // out of every count above and below.
  uint64_t before_window = 0;
  std::vector<KeyCounts> keys;  // sorted by key
};

// A token bucket rule as edge's token_bucket.lua applies it per key: the
// bucket holds at most `burst` tokens, refills `rate_per_s` per second, and
// one request takes one token. An LLM rule's bucket is given here in
// requests: its tokens divided by what a request costs (judge/llm_bucket.h).
struct TokenBucketLimit {
  double rate_per_s = 0;
  double burst = 0;
};

// How the log's counts compare with the bucket. A correct limiter admits to
// one key, over any window of w seconds, at most rate * w + burst; a key
// offered more than its rate throughout is admitted at least rate * w - burst.
struct LimitAccuracy {
  TokenBucketLimit limit;
  int keys_planned = 0;   // keys the engine rotated through
  int keys_seen = 0;      // keys in the log
  double window_s = 0;    // last_unix - first_unix
  double offered_rps = 0; // the phase's target rate, all keys

  double allowed_per_key = 0;  // rate * window_s + burst
  double floor_per_key = 0;    // max(0, rate * window_s - burst)
  double admitted_min = 0, admitted_median = 0, admitted_max = 0;  // over the keys seen
  // Largest (admitted - allowed) / allowed over the keys, 0 when none is over.
  double over_admission = 0;
  std::string over_admission_key;  // the key with that largest excess ("" when none)
  uint64_t over_admission_key_admitted = 0;  // what that key was admitted
  int keys_over = 0;
  // Largest (floor - admitted) / floor over the keys, 0 when none is under
  // (or when floor_per_key is 0).
  double under_admission = 0;
  int keys_under = 0;

  // The most admitted to one key in any 1 s window (whole bins), against
  // rate * 1 + burst.
  double bin_s = 0;     // the log's bin width
  int window_bins = 0;  // bins per window: round(1 / bin_s), at least 1
  uint64_t worst_window_admitted = 0;
  double window_allowed = 0;
  std::string worst_window_key;

  uint64_t admitted = 0, rejected = 0, other = 0;  // all keys
  uint64_t before_window = 0;  // AccessLogCounts::before_window: lines left out
  double reject_share = 0;           // rejected / (admitted + rejected + other)
  // 1 - keys_planned * allowed_per_key / (offered_rps * window_s), at least 0.
  double expected_reject_share = 0;

  // For the plots (svg limits plots): each key's admitted count, ascending
  // (one entry per key seen, at most LIMITS_KEYS: 100000), and the admitted
  // count of all keys per whole second of the log, second 0 starting at
  // first_unix (ceil(window_s) entries or one more: the bins are summed by
  // floor(bin * bin_s)). Empty in results written before they were kept.
  std::vector<uint64_t> admitted_per_key;
  std::vector<uint64_t> admitted_per_second;
};

}  // namespace fvbench
