#include "support/engine/wrk_output.h"


#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/latency_histogram_json.h"
#include "support/core/json_fields.h"
#include "support/core/outcomes.h"

namespace fvbench {
namespace {

using nlohmann::json;

constexpr const char* kSchema = "fvbench.wrk.pace/1";

// Field access that turns every problem into an Error naming the source and
// the dotted field path.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  Error Fail(const std::string& what) const { return Error{fmt::format("{}: {}", source_, what)}; }

  Result<const json*> Field(const json& obj, const std::string& parent, const char* name) const {
    const std::string path = parent.empty() ? name : parent + "." + name;
    if (!obj.is_object()) return Fail(fmt::format("`{}` is not an object", parent));
    auto it = obj.find(name);
    if (it == obj.end()) return Fail(fmt::format("missing field `{}`", path));
    return &*it;
  }

  Result<double> Number(const json& obj, const std::string& parent, const char* name) const {
    auto f = Field(obj, parent, name);
    if (!f) return f.error();
    const std::string path = parent.empty() ? name : parent + "." + name;
    const json& v = **f;
    if (v.is_null()) return Fail(fmt::format("field `{}` is null, expected a number", path));
    if (!v.is_number()) {
      return Fail(fmt::format("field `{}` is a {}, expected a number", path, v.type_name()));
    }
    double d = v.get<double>();
    if (!std::isfinite(d)) return Fail(fmt::format("field `{}` is not finite", path));
    return d;
  }

  Result<double> NonNegative(const json& obj, const std::string& parent, const char* name) const {
    auto d = Number(obj, parent, name);
    if (!d) return d;
    if (*d < 0) {
      return Fail(fmt::format("field `{}` is {}, expected >= 0",
                              parent.empty() ? name : parent + "." + name, *d));
    }
    return d;
  }

  Result<uint64_t> Count(const json& obj, const std::string& parent, const char* name) const {
    const std::string path = parent.empty() ? name : parent + "." + name;
    auto f = Field(obj, parent, name);
    if (!f) return f.error();
    const json& v = **f;
    if (v.is_number_unsigned()) return v.get<uint64_t>();
    if (v.is_number_integer()) {
      return Fail(fmt::format("field `{}` is {}, expected a count >= 0", path, v.get<int64_t>()));
    }
    auto d = Number(obj, parent, name);
    if (!d) return d.error();
    if (*d < 0 || *d != std::floor(*d) || *d > 9007199254740992.0) {
      return Fail(fmt::format("field `{}` is {}, expected a whole count >= 0", path, *d));
    }
    return static_cast<uint64_t>(*d);
  }

  Result<std::string> String(const json& obj, const std::string& parent, const char* name) const {
    auto f = Field(obj, parent, name);
    if (!f) return f.error();
    const json& v = **f;
    if (!v.is_string()) {
      return Fail(fmt::format("field `{}` is a {}, expected a string",
                              parent.empty() ? name : parent + "." + name, v.type_name()));
    }
    return v.get<std::string>();
  }

 private:
  const std::string& source_;
};

// Assigns `*out` from `expr` (a Result<T>) or returns its error.
#define FVB_ASSIGN(out, expr)           \
  do {                                  \
    auto fvb_r = (expr);                \
    if (!fvb_r) return fvb_r.error();   \
    (out) = *fvb_r;                     \
  } while (0)

// The parts of ParseWrkPaceOutput, in the order of the JSON's fields.

Result<json> ParseDocument(std::string_view text, const Reader& r) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return r.Fail("empty output (pace.lua's done() did not run or wrote nothing)");
  }
  if (text.find('\0') != std::string_view::npos) {
    const size_t at = text.find('\0');
    return r.Fail(fmt::format("a NUL byte at byte {} of {}: not JSON (pace.lua writes the document alone)", at,
                              text.size()));
  }
  json doc;
  try {
    doc = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return r.Fail(fmt::format("not valid JSON at byte {} of {} (truncated, or not pace.lua output): {}{}",
                              e.byte, text.size(), e.what(), detail::AfterDocumentHint(e.what())));
  } catch (const std::exception& e) {
    return r.Fail(fmt::format("not valid JSON: {}", e.what()));
  }
  if (!doc.is_object()) {
    return r.Fail(fmt::format("top level is a {}, expected an object", doc.type_name()));
  }
  std::string schema;
  FVB_ASSIGN(schema, r.String(doc, "", "schema"));
  if (schema != kSchema) {
    return r.Fail(fmt::format("field `schema` is \"{}\", expected \"{}\"", schema, kSchema));
  }
  return doc;
}

// What the script was asked to offer: the rate and the threads it paced with.
Result<void> ReadOffered(const json& doc, const Reader& r, double target_rps, WrkOutput& out) {
  double target_rate = 0;
  FVB_ASSIGN(target_rate, r.Number(doc, "", "target_rate"));
  if (!(target_rps > 0) || std::fabs(target_rate - target_rps) > 1e-6 * target_rps) {
    return r.Fail(fmt::format("field `target_rate` is {} but the phase asked for {} req/s",
                              target_rate, target_rps));
  }
  out.load.target_rps = target_rps;
  uint64_t threads = 0, threads_requested = 0;
  FVB_ASSIGN(threads, r.Count(doc, "", "threads"));
  FVB_ASSIGN(threads_requested, r.Count(doc, "", "threads_requested"));
  if (threads == 0 || threads != threads_requested) {
    return r.Fail(fmt::format(
        "field `threads` is {} but `threads_requested` (FVBENCH_THREADS) is {}: each thread paced "
        "rate/threads_requested, so the offered rate was not the target",
        threads, threads_requested));
  }
  out.threads = static_cast<int>(threads);
  if (auto it = doc.find("connections"); it != doc.end() && !it->is_null()) {
    uint64_t c = 0;
    FVB_ASSIGN(c, r.Count(doc, "", "connections"));
    out.connections = static_cast<int>(c);
    out.load.connections = c;
  }
  return Ok();
}

// Requests, sends, wrk's runtime and its error counters.
Result<void> ReadCounts(const json& doc, const Reader& r, WrkOutput& out) {
  LoadResult& load = out.load;
  FVB_ASSIGN(load.requests, r.Count(doc, "", "requests"));
  FVB_ASSIGN(out.sent, r.Count(doc, "", "sent"));
  double duration_us = 0;
  FVB_ASSIGN(duration_us, r.Number(doc, "", "duration_us"));
  if (!(duration_us > 0)) {
    return r.Fail(fmt::format("field `duration_us` is {}, expected > 0", duration_us));
  }
  load.duration_s = duration_us / 1e6;
  const json* errors = nullptr;
  FVB_ASSIGN(errors, r.Field(doc, "", "errors"));
  FVB_ASSIGN(out.errors.connect, r.Count(*errors, "errors", "connect"));
  FVB_ASSIGN(out.errors.read, r.Count(*errors, "errors", "read"));
  FVB_ASSIGN(out.errors.write, r.Count(*errors, "errors", "write"));
  FVB_ASSIGN(out.errors.status, r.Count(*errors, "errors", "status"));
  FVB_ASSIGN(out.errors.timeout, r.Count(*errors, "errors", "timeout"));
  FVB_ASSIGN(load.non_2xx, r.Count(doc, "", "non_2xx"));
  FVB_ASSIGN(out.non_2xx_source, r.String(doc, "", "non_2xx_source"));
  return Ok();
}

// The percentiles and the send lag.
Result<void> ReadLatencyAndLag(const json& doc, const Reader& r, WrkOutput& out) {
  LatencyUs& l = out.load.latency_us;
  const json* lat = nullptr;
  FVB_ASSIGN(lat, r.Field(doc, "", "latency_us"));
  FVB_ASSIGN(l.p50, r.NonNegative(*lat, "latency_us", "p50"));
  FVB_ASSIGN(l.p90, r.NonNegative(*lat, "latency_us", "p90"));
  FVB_ASSIGN(l.p99, r.NonNegative(*lat, "latency_us", "p99"));
  FVB_ASSIGN(l.p999, r.NonNegative(*lat, "latency_us", "p99_9"));
  FVB_ASSIGN(l.max, r.NonNegative(*lat, "latency_us", "max"));
  if (auto it = lat->find("mean"); it != lat->end() && !it->is_null()) {  // older outputs lack it
    FVB_ASSIGN(l.mean, r.NonNegative(*lat, "latency_us", "mean"));
  }
  const json* lag = nullptr;
  FVB_ASSIGN(lag, r.Field(doc, "", "send_lag_us"));
  FVB_ASSIGN(out.send_lag.max_us, r.NonNegative(*lag, "send_lag_us", "max"));
  FVB_ASSIGN(out.send_lag.mean_us, r.NonNegative(*lag, "send_lag_us", "mean"));
  FVB_ASSIGN(out.send_lag.late_1ms, r.Count(*lag, "send_lag_us", "late_1ms"));
  FVB_ASSIGN(out.send_lag.late_10ms, r.Count(*lag, "send_lag_us", "late_10ms"));
  if (lag->contains("late_10ms_pool_exhausted")) {
    uint64_t n = 0;
    FVB_ASSIGN(n, r.Count(*lag, "send_lag_us", "late_10ms_pool_exhausted"));
    if (n > out.send_lag.late_10ms) {
      return r.Fail(fmt::format("send_lag_us.late_10ms_pool_exhausted {} is more than late_10ms {}", n,
                                out.send_lag.late_10ms));
    }
    out.send_lag.late_10ms_pool_exhausted = n;
  }
  if (lag->contains("max_early")) {
    FVB_ASSIGN(out.send_lag.max_early_us, r.NonNegative(*lag, "send_lag_us", "max_early"));
  }
  return Ok();
}

// Fields older or non-counting outputs lack.
Result<void> ReadOptional(const json& doc, const Reader& r, WrkOutput& out) {
  if (doc.contains("latency_samples")) {
    FVB_ASSIGN(out.latency_samples, r.Count(doc, "", "latency_samples"));
    FVB_ASSIGN(out.latency_recorded, r.Count(doc, "", "latency_recorded"));
  }
  if (doc.contains("unsent_at_stop")) {
    FVB_ASSIGN(out.unsent_at_stop, r.Count(doc, "", "unsent_at_stop"));
  }
  if (doc.contains("ratelimit_evidence")) {
    uint64_t rl = 0;
    FVB_ASSIGN(rl, r.Count(doc, "", "ratelimit_evidence"));
    out.load.ratelimit_evidence = rl;
  }
  if (auto it = doc.find("status_counts"); it != doc.end()) {
    if (!it->is_object()) return r.Fail("field `status_counts` is not an object");
    for (const auto& [key, value] : it->items()) {
      char* end = nullptr;
      long code = std::strtol(key.c_str(), &end, 10);
      if (key.empty() || *end != '\0' || code < 100 || code > 999) {
        return r.Fail(fmt::format("field `status_counts` has key \"{}\", expected an HTTP status", key));
      }
      uint64_t n = 0;
      FVB_ASSIGN(n, r.Count(*it, "status_counts", key.c_str()));
      out.load.status_counts[static_cast<int>(code)] = n;
    }
  }
  return Ok();
}

// The schedule window and the mergeable histogram (several load generators), when written.
Result<void> ReadWindowAndHistogram(const json& doc, const Reader& r, WrkOutput& out) {
  if (auto it = doc.find("window"); it != doc.end() && !it->is_null()) {
    if (!it->is_object()) return r.Fail("field `window` is not an object");
    auto sync = it->find("synchronised");
    if (sync == it->end() || !sync->is_boolean()) return r.Fail("field `window.synchronised` is not true or false");
    out.window.synchronised = sync->get<bool>();
    FVB_ASSIGN(out.window.start_epoch_us, r.NonNegative(*it, "window", "start_epoch_us"));
    FVB_ASSIGN(out.window.end_epoch_us, r.NonNegative(*it, "window", "end_epoch_us"));
    if (!(out.window.end_epoch_us > out.window.start_epoch_us)) {
      return r.Fail(fmt::format("field `window`: end_epoch_us {} is not after start_epoch_us {}",
                                out.window.end_epoch_us, out.window.start_epoch_us));
    }
    if (auto lag = it->find("first_send_lag_us"); lag != it->end() && !lag->is_null()) {
      if (!lag->is_number() || !std::isfinite(lag->get<double>())) {
        return r.Fail("field `window.first_send_lag_us` is not a finite number");
      }
      out.window.first_send_lag_us = lag->get<double>();
    }
    if (it->contains("wrk_start_epoch_us")) {
      FVB_ASSIGN(out.window.wrk_start_epoch_us, r.NonNegative(*it, "window", "wrk_start_epoch_us"));
    }
    if (it->contains("missed_slots")) FVB_ASSIGN(out.window.missed_slots, r.Count(*it, "window", "missed_slots"));
    if (out.window.synchronised) out.load.duration_s = (out.window.end_epoch_us - out.window.start_epoch_us) / 1e6;
  }
  if (auto it = doc.find("histogram"); it != doc.end() && !it->is_null()) {
    auto h = HistogramFromJson(*it, r.Fail("field `histogram`").message);
    if (!h) return h.error();
    out.histogram = std::move(*h);
  }
  return Ok();
}

// One series of `intervals`: an array of counts.
Result<std::vector<uint64_t>> ReadSeries(const json& obj, const Reader& r, const char* name) {
  const json* v = nullptr;
  FVB_ASSIGN(v, r.Field(obj, "intervals", name));
  if (!v->is_array()) return r.Fail(fmt::format("field `intervals.{}` is a {}, expected an array of counts", name, v->type_name()));
  std::vector<uint64_t> out;
  out.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i) {
    const json& n = (*v)[i];
    if (!n.is_number_unsigned() &&
        !(n.is_number_float() && n.get<double>() >= 0 && n.get<double>() == std::floor(n.get<double>()) &&
          n.get<double>() <= 9007199254740992.0)) {
      return r.Fail(fmt::format("field `intervals.{}[{}]` is {}, expected a whole count >= 0", name, i, n.dump()));
    }
    out.push_back(n.is_number_unsigned() ? n.get<uint64_t>() : static_cast<uint64_t>(n.get<double>()));
  }
  return out;
}

// The counts per interval (field `intervals`, pace.lua "Results over time"),
// when written: four series of one length, summing to the phase's own
// counts where pace.lua makes them (scheduled, sent, late_10ms).
Result<void> ReadIntervals(const json& doc, const Reader& r, WrkOutput& out) {
  auto it = doc.find("intervals");
  if (it == doc.end() || it->is_null()) return Ok();
  if (!it->is_object()) return r.Fail(fmt::format("field `intervals` is a {}, expected an object", it->type_name()));
  IntervalSeries s;
  FVB_ASSIGN(s.start_epoch_us, r.NonNegative(*it, "intervals", "start_epoch_us"));
  FVB_ASSIGN(s.width_us, r.Number(*it, "intervals", "width_us"));
  if (!(s.width_us > 0)) return r.Fail(fmt::format("field `intervals.width_us` is {}, expected > 0", s.width_us));
  FVB_ASSIGN(s.scheduled, ReadSeries(*it, r, "scheduled"));
  FVB_ASSIGN(s.sent, ReadSeries(*it, r, "sent"));
  FVB_ASSIGN(s.completed, ReadSeries(*it, r, "completed"));
  FVB_ASSIGN(s.late_10ms, ReadSeries(*it, r, "late_10ms"));
  const size_t n = s.scheduled.size();
  if (s.sent.size() != n || s.completed.size() != n || s.late_10ms.size() != n) {
    return r.Fail(fmt::format("field `intervals`: series of different lengths (scheduled {}, sent {}, completed {}, "
                              "late_10ms {})",
                              n, s.sent.size(), s.completed.size(), s.late_10ms.size()));
  }
  if (auto it_s = doc.find("scheduled");
      it_s != doc.end() && it_s->is_number() && static_cast<double>(SeriesTotal(s.scheduled)) != it_s->get<double>()) {
    return r.Fail(fmt::format("field `intervals.scheduled` sums to {}, but `scheduled` is {}", SeriesTotal(s.scheduled),
                              it_s->dump()));
  }
  if (SeriesTotal(s.sent) != out.sent) {
    return r.Fail(fmt::format("field `intervals.sent` sums to {}, but `sent` is {}", SeriesTotal(s.sent), out.sent));
  }
  if (SeriesTotal(s.late_10ms) != out.send_lag.late_10ms) {
    return r.Fail(fmt::format("field `intervals.late_10ms` sums to {}, but `send_lag_us.late_10ms` is {}",
                              SeriesTotal(s.late_10ms), out.send_lag.late_10ms));
  }
  out.load.intervals = std::move(s);
  return Ok();
}

// Timeouts as censored latency samples (outcomes.h CensorAtTimeout).
Result<void> CensorTimeouts(const json& doc, const Reader& r, WrkOutput& out) {
  double timeout_us = kWrkDefaultTimeoutUs;
  if (auto it = doc.find("timeout_us"); it != doc.end() && !it->is_null()) {
    FVB_ASSIGN(timeout_us, r.Number(doc, "", "timeout_us"));
    if (!(timeout_us > 0)) return r.Fail(fmt::format("field `timeout_us` is {}, expected > 0", timeout_us));
  }
  const uint64_t timeouts = std::min(out.errors.timeout, out.load.requests);
  const uint64_t recorded = out.latency_samples > 0 ? out.latency_samples : out.load.requests - timeouts;
  CensorAtTimeout(out.load.latency_us, recorded, timeouts, timeout_us);
  return Ok();
}

// Outcomes per scheduled request, rates and whether the engine kept up
// (definitions in the header).
Result<void> Derive(const json& doc, const Reader& r, double target_rps, double max_late_share, WrkOutput& out) {
  LoadResult& load = out.load;
  // pace.lua counts the slots of each thread's schedule; older outputs lack
  // the field: target rate x wrk's duration.
  auto scheduled = static_cast<uint64_t>(std::llround(target_rps * load.duration_s));
  if (auto it = doc.find("scheduled"); it != doc.end() && !it->is_null()) {
    FVB_ASSIGN(scheduled, r.Count(doc, "", "scheduled"));
  }
  // wrk counts a refused connect() and a socket it could not open alike
  // (errors.connect); requests never sent while connects failed are counted
  // as the SUT's (refused), the rest of the unsent as the engine's.
  // A request in flight when wrk stopped at -d (wrk does not wait for it) is
  // interrupted, not failed (InFlightAtStop).
  // A slot whose timer wrk's stop cut off while on time is left out of
  // `scheduled` by pace.lua itself (unsent_at_stop; absent in older outputs).
  const uint64_t interrupted = InFlightAtStop(out.sent, load.requests,
                                              out.errors.connect + out.errors.read + out.errors.write,
                                              out.errors.timeout, static_cast<uint64_t>(out.connections));
  AccountWithInterrupted(load, scheduled, out.sent, out.errors.timeout + load.non_2xx, interrupted,
                         /*unsent_are_sut=*/out.errors.connect > 0);
  load.interrupted += out.unsent_at_stop;
  load.achieved_rps = static_cast<double>(load.requests) / load.duration_s;
  load.max_send_lag_us = out.send_lag.max_us;
  load.max_early_send_us = out.send_lag.max_early_us;
  const bool paced = out.sent > 0 || load.requests == 0;
  load.late_send_share =
      out.sent == 0 ? 0.0 : static_cast<double>(out.send_lag.late_10ms) / static_cast<double>(out.sent);
  if (out.send_lag.late_10ms_pool_exhausted && out.send_lag.late_10ms > 0) {
    load.late_pool_exhausted_share = static_cast<double>(*out.send_lag.late_10ms_pool_exhausted) /
                                     static_cast<double>(out.send_lag.late_10ms);
  }
  load.kept_up = paced && load.late_send_share <= max_late_share &&
                 load.max_early_send_us <= kDefaultMaxSendLagUs;
  return Ok();
}

}  // namespace

Result<WrkOutput> ParseWrkPaceOutput(std::string_view text, const std::string& source_name,
                                     double target_rps, double max_late_share) {
  Reader r(source_name);
  auto doc = ParseDocument(text, r);
  if (!doc) return doc.error();
  WrkOutput out;
  out.load.engine = "wrk";
  out.load.raw_path = source_name;
  if (auto s = ReadOffered(*doc, r, target_rps, out); !s) return s.error();
  if (auto s = ReadCounts(*doc, r, out); !s) return s.error();
  if (auto s = ReadLatencyAndLag(*doc, r, out); !s) return s.error();
  if (auto s = ReadOptional(*doc, r, out); !s) return s.error();
  if (auto s = ReadWindowAndHistogram(*doc, r, out); !s) return s.error();
  if (auto s = ReadIntervals(*doc, r, out); !s) return s.error();
  if (auto s = CensorTimeouts(*doc, r, out); !s) return s.error();
  if (auto s = Derive(*doc, r, target_rps, max_late_share, out); !s) return s.error();
  return out;
}

Result<LoadResult> ParseWrkOutput(std::string_view text, const std::string& source_name,
                                  double target_rps, double max_late_share) {
  auto parsed = ParseWrkPaceOutput(text, source_name, target_rps, max_late_share);
  if (!parsed) return parsed.error();
  return std::move(parsed->load);
}

}  // namespace fvbench
