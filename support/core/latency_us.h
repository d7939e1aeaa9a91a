// One measurement's latency percentiles in µs (p50, p90, p99, p99.9, max),
// as the engines' parsers, the histograms (core/latency_histogram.h
// ToLatencyUs) and result files give them; a phase's (load_result.h) and,
// for k6 series, each interval's (core/interval_series.h).
#pragma once

namespace fvbench {

struct LatencyUs {
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double p999 = 0;  // p(99.9)
  double max = 0;
  // > 0: the engine's request timeout (µs). Requests that timed out are
  // samples of at least this latency (censored), never missing ones: a
  // percentile that falls among them is set to this value and is a LOWER
  // BOUND (reports print it as ">= 10 s", gates on it fail).
  double censored_at_us = 0;
  bool IsCensored(double value_us) const { return censored_at_us > 0 && value_us >= censored_at_us; }
  // Mean of the answered requests' latencies (µs); 0 = not known (an older
  // output, a merge of instances that lack it). wrk: pace.lua's
  // latency_us.mean (wrk's histogram: timeouts are not in it, wrk's
  // stats_correct() samples are); k6: http_req_duration `avg`. Last, so that
  // the positional initialisers {p50, p90, p99, p999, max, censored_at_us}
  // keep their meaning.
  double mean = 0;
};

}  // namespace fvbench
