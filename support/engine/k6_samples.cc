#include "support/engine/k6_samples.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "support/core/interval_latency.h"
#include "support/core/json_fields.h"
#include "support/core/latency_histogram_json.h"
#include "support/core/load_result.h"

namespace fvbench {
namespace {

constexpr std::string_view kDuration = "http_req_duration";

// Splits one CSV record into fields (RFC 4180 quoting; "" inside quotes is a
// quote). Returns false on an unterminated quote. Quoted fields come back with
// their quotes stripped only when they hold no doubled quote (enough for the
// columns read here: names and numbers never carry quotes).
bool SplitCsv(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  size_t i = 0;
  while (true) {
    if (i < line.size() && line[i] == '"') {
      size_t j = i + 1;
      while (true) {
        j = line.find('"', j);
        if (j == std::string_view::npos) return false;
        if (j + 1 < line.size() && line[j + 1] == '"') {
          j += 2;
          continue;
        }
        break;
      }
      out.push_back(line.substr(i + 1, j - i - 1));
      i = j + 1;
    } else {
      const size_t j = line.find(',', i);
      out.push_back(line.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
      if (j == std::string_view::npos) return true;
      i = j;
    }
    if (i >= line.size()) return true;
    if (line[i] != ',') return false;
    ++i;
    if (i == line.size()) {
      out.push_back({});
      return true;
    }
  }
}

// The string value after `"key":"` up to the closing quote; empty when absent.
std::string_view JsonStringAfter(std::string_view line, std::string_view key, size_t from = 0) {
  const size_t at = line.find(key, from);
  if (at == std::string_view::npos) return {};
  const size_t start = at + key.size();
  const size_t end = line.find('"', start);
  return end == std::string_view::npos ? std::string_view{} : line.substr(start, end - start);
}

// The same for the LAST occurrence: k6 writes "metric" as the line's last key,
// so this finds it in a few bytes on the lines that are skipped.
std::string_view JsonStringAfterLast(std::string_view line, std::string_view key) {
  const size_t at = line.rfind(key);
  return at == std::string_view::npos ? std::string_view{} : JsonStringAfter(line, key, at);
}

// A latency in µs as LatencyHistogram::RecordUs stores it (ns).
uint64_t NsOfUs(double us) {
  if (us >= 1.8e16) return uint64_t{1} << LatencyHistogram::kMaxExponent;
  return us > 0 ? static_cast<uint64_t>(std::llround(us * 1000.0)) : 0;
}

bool Digits(std::string_view s, size_t at, size_t n, int64_t& out) {
  if (at + n > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// "YYYY-MM-DDTHH:MM:SS[.f{1,9}](Z|+hh:mm|-hh:mm)" -> ns since the epoch.
bool ParseRfc3339(std::string_view s, int64_t& ns, bool& fraction) {
  int64_t y, mo, d, h, mi, se;
  if (s.size() < 20 || !Digits(s, 0, 4, y) || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || s[10] != 'T' || !Digits(s, 11, 2, h) || s[13] != ':' || !Digits(s, 14, 2, mi) ||
      s[16] != ':' || !Digits(s, 17, 2, se)) {
    return false;
  }
  if (y < 1970 || y > 2261 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) return false;
  size_t i = 19;
  int64_t frac = 0;
  fraction = false;
  if (s[i] == '.') {
    size_t n = 0;
    for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++n) {
      if (n == 9) return false;
      frac = frac * 10 + (s[i] - '0');
    }
    if (n == 0) return false;
    for (size_t k = n; k < 9; ++k) frac *= 10;
    fraction = true;
  }
  int64_t offset_s = 0;
  if (i + 1 == s.size() && s[i] == 'Z') {
    // UTC
  } else if (i + 6 == s.size() && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
    int64_t oh, om;
    if (!Digits(s, i + 1, 2, oh) || !Digits(s, i + 4, 2, om) || oh > 23 || om > 59) return false;
    offset_s = (s[i] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
  } else {
    return false;
  }
  const int64_t secs = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset_s;
  ns = secs * 1000000000 + frac;
  return true;
}

const char* TimeKindName(int kind, bool fraction) {
  switch (kind) {
    case 1: return "unix";
    case 2: return "unix_milli";
    case 3: return "unix_micro";
    case 4: return "unix_nano";
    case 5: return fraction ? "rfc3339_nano" : "rfc3339";
  }
  return "";
}

std::string FormatNs(uint64_t ns) {
  if (ns >= 1000000000 && ns % 1000000000 == 0) return fmt::format("{} s", ns / 1000000000);
  if (ns >= 1000000 && ns % 1000000 == 0) return fmt::format("{} ms", ns / 1000000);
  if (ns >= 1000 && ns % 1000 == 0) return fmt::format("{} µs", ns / 1000);
  return fmt::format("{} ns", ns);
}

bool Is2xx(std::string_view status) { return status.size() == 3 && status[0] == '2'; }

}  // namespace

void K6SampleReducer::Window::Record(uint64_t ns) {
  const size_t index = LatencyHistogram::BucketIndex(ns);
  if (counts.empty()) {
    base = index;
    counts.assign(1, 0);
  } else if (index < base) {
    const size_t grow = std::max(base - index, counts.size() / 2);
    const size_t new_base = base > grow ? base - grow : 0;
    counts.insert(counts.begin(), base - new_base, 0);
    base = new_base;
  } else if (index >= base + counts.size()) {
    counts.resize(index - base + 1, 0);
  }
  ++counts[index - base];
  ++recorded;
  min_ns = std::min(min_ns, ns);
  max_ns = std::max(max_ns, ns);
}

K6SampleReducer::K6SampleReducer(Format format, std::string source, std::optional<K6IntervalGrid> grid)
    : format_(format), source_(std::move(source)), grid_(grid) {
  if (grid_ && std::isfinite(grid_->origin_epoch_us) && std::isfinite(grid_->width_us) &&
      grid_->origin_epoch_us < 1e17 && grid_->width_us < 1e15) {
    origin_ns_ = static_cast<int64_t>(std::llround(grid_->origin_epoch_us)) * 1000;
    width_ns_ = static_cast<int64_t>(std::llround(grid_->width_us)) * 1000;
  }
}

Result<size_t> K6SampleReducer::IntervalOf(std::string_view time) {
  int64_t ns = 0;
  TimeKind kind = TimeKind::kRfc3339;
  bool fraction = false;
  const bool digits = !time.empty() && time.find_first_not_of("0123456789") == std::string_view::npos;
  if (digits && time.size() <= 20) {
    kind = time.size() <= 11 ? TimeKind::kUnixS
           : time.size() <= 14 ? TimeKind::kUnixMs
           : time.size() <= 17 ? TimeKind::kUnixUs
                               : TimeKind::kUnixNs;
    uint64_t v = 0;
    const auto parsed = std::from_chars(time.data(), time.data() + time.size(), v);
    const uint64_t scale = kind == TimeKind::kUnixS ? 1000000000 : kind == TimeKind::kUnixMs ? 1000000
                           : kind == TimeKind::kUnixUs ? 1000 : 1;
    if (parsed.ec != std::errc{} || v > static_cast<uint64_t>(INT64_MAX) / scale) {
      return Error{fmt::format("{}:{}: timestamp \"{}\" is beyond the year 2262", source_, line_, time)};
    }
    ns = static_cast<int64_t>(v * scale);
  } else if (!ParseRfc3339(time, ns, fraction)) {
    return Error{fmt::format("{}:{}: timestamp \"{}\" is neither unix seconds/ms/µs/ns digits nor RFC 3339 "
                             "(k6 csv timeFormat unix, unix_milli, unix_micro, unix_nano, rfc3339, rfc3339_nano)",
                             source_, line_, time.substr(0, 60))};
  }
  if (time_kind_ == TimeKind::kNone) {
    time_kind_ = kind;
  } else if (time_kind_ != kind) {
    return Error{fmt::format("{}:{}: timestamp \"{}\" is {}, earlier ones were {}", source_, line_, time,
                             TimeKindName(static_cast<int>(kind), fraction),
                             TimeKindName(static_cast<int>(time_kind_), time_fraction_))};
  }
  time_fraction_ = time_fraction_ || fraction;
  if (ns < origin_ns_) {
    ++before_origin_;
    return size_t{0};
  }
  const auto index = static_cast<uint64_t>((ns - origin_ns_) / width_ns_);
  if (index >= kMaxK6Intervals) {
    return Error{fmt::format("{}:{}: timestamp \"{}\" lies {} intervals of {} µs after the origin {} µs: more than "
                             "{}",
                             source_, line_, time, index, width_ns_ / 1000, origin_ns_ / 1000, kMaxK6Intervals)};
  }
  return static_cast<size_t>(index);
}

Result<void> K6SampleReducer::Add(std::string_view value_ms, std::string_view error_code, std::string_view time,
                                  std::string_view status) {
  Window* w = nullptr;
  if (grid_) {
    auto at = IntervalOf(time);
    if (!at) return at.error();
    if (windows_.size() <= *at) windows_.resize(*at + 1);
    w = &windows_[*at];
  }
  if (error_code == kK6TimeoutErrorCode) {
    ++samples_;
    if (w != nullptr) ++w->timeouts;
    return hist_.RecordTimeouts(1, kK6RequestTimeoutUs);
  }
  double ms = 0;
  const auto [end, ec] = std::from_chars(value_ms.data(), value_ms.data() + value_ms.size(), ms);
  if (ec != std::errc{} || end != value_ms.data() + value_ms.size() || !std::isfinite(ms) || ms < 0) {
    return Error{fmt::format("{}:{}: http_req_duration value \"{}\" is not a non-negative number of ms", source_,
                             line_, value_ms)};
  }
  ++samples_;
  const uint64_t ns = NsOfUs(ms * 1000.0);
  hist_.RecordNs(ns);
  if (w != nullptr) {
    w->Record(ns);
    if (!Is2xx(status)) ++w->non_2xx;
  }
  return Ok();
}


Result<void> K6SampleReducer::CsvHeader(std::string_view line) {
  std::vector<std::string_view> f;
  if (!SplitCsv(line, f)) return Error{fmt::format("{}:{}: header: unterminated quote", source_, line_)};
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == "metric_name") col_name_ = static_cast<int>(i);
    if (f[i] == "metric_value") col_value_ = static_cast<int>(i);
    if (f[i] == "error_code") col_error_code_ = static_cast<int>(i);
    if (f[i] == "timestamp") col_time_ = static_cast<int>(i);
    if (f[i] == "status") col_status_ = static_cast<int>(i);
  }
  if (col_name_ < 0 || col_value_ < 0) {
    return Error{fmt::format("{}:{}: not a k6 CSV header (needs metric_name and metric_value columns): \"{}\"",
                             source_, line_, line.substr(0, 120))};
  }
  if (grid_ && (col_time_ < 0 || col_status_ < 0)) {
    return Error{fmt::format("{}:{}: the counts per interval need the timestamp and status columns: \"{}\"",
                             source_, line_, line.substr(0, 120))};
  }
  have_header_ = true;
  return Ok();
}

Result<void> K6SampleReducer::CsvLine(std::string_view line) {
  if (!have_header_) return CsvHeader(line);
  // Fast reject: the metric name is the first column in every k6 version.
  if (col_name_ == 0 && line.substr(0, kDuration.size() + 1) != "http_req_duration,") return Ok();
  thread_local std::vector<std::string_view> f;
  if (!SplitCsv(line, f)) return Error{fmt::format("{}:{}: unterminated quote", source_, line_)};
  if (static_cast<int>(f.size()) <= std::max(col_name_, col_value_)) {
    return Error{fmt::format("{}:{}: {} fields, the header names column {} as metric_value", source_, line_,
                             f.size(), col_value_ + 1)};
  }
  if (f[col_name_] != kDuration) return Ok();
  auto field = [&](int col) { return col >= 0 && col < static_cast<int>(f.size()) ? f[col] : std::string_view{}; };
  return Add(f[col_value_], field(col_error_code_), field(col_time_), field(col_status_));
}

Result<void> K6SampleReducer::JsonLine(std::string_view line) {
  // k6 writes one JSON object per line; anything else is another file.
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos || line[first] != '{') {
    return Error{fmt::format("{}:{}: not a k6 JSON line (k6 --out json writes one object per line): \"{}\"", source_,
                             line_, line.substr(0, 60))};
  }
  ++json_objects_;
  if (JsonStringAfterLast(line, "\"metric\":\"") != kDuration) return Ok();
  if (JsonStringAfter(line, "\"type\":\"") != "Point") return Ok();
  const size_t data = line.find("\"data\":{");
  const size_t value = data == std::string_view::npos ? data : line.find("\"value\":", data);
  if (value == std::string_view::npos) {
    return Error{fmt::format("{}:{}: http_req_duration point without data.value", source_, line_)};
  }
  const size_t start = value + 8;
  size_t end = start;
  while (end < line.size() && line[end] != ',' && line[end] != '}') ++end;
  const std::string_view time = grid_ ? JsonStringAfter(line, "\"time\":\"", data) : std::string_view{};
  const std::string_view status = grid_ ? JsonStringAfter(line, "\"status\":\"", value) : std::string_view{};
  return Add(line.substr(start, end - start), JsonStringAfter(line, "\"error_code\":\"", value), time, status);
}

Result<void> K6SampleReducer::Line(std::string_view line) {
  ++line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return Ok();
  return format_ == Format::kCsv ? CsvLine(line) : JsonLine(line);
}

Result<void> K6SampleReducer::CheckGrid() const {
  if (!grid_) return Ok();
  const K6IntervalGrid& g = *grid_;
  if (width_ns_ < 1000 || origin_ns_ <= 0 || g.width_us != std::floor(g.width_us) ||
      g.origin_epoch_us != std::floor(g.origin_epoch_us)) {
    return Error{fmt::format("{}: interval grid origin {} µs, width {} µs: expected whole µs, origin > 0, width >= 1",
                             source_, g.origin_epoch_us, g.width_us)};
  }
  return Ok();
}

Result<void> K6SampleReducer::Feed(std::string_view chunk) {
  if (auto g = CheckGrid(); !g) return g;
  // k6 writes text: a NUL byte is a file padded or damaged after the fact.
  if (const size_t nul = chunk.find('\0'); nul != std::string_view::npos) {
    const size_t lines_before = static_cast<size_t>(std::count(chunk.begin(), chunk.begin() + nul, '\n'));
    return Error{fmt::format("{}:{}: a NUL byte: not k6 output", source_, line_ + 1 + lines_before)};
  }
  if (!pending_.empty()) {
    const size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) {
      pending_.append(chunk);
      return Ok();
    }
    pending_.append(chunk.substr(0, nl));
    const std::string joined = std::move(pending_);
    pending_.clear();
    if (auto r = Line(joined); !r.ok()) return r;
    chunk.remove_prefix(nl + 1);
  }
  while (true) {
    const size_t nl = chunk.find('\n');
    if (nl == std::string_view::npos) break;
    if (auto r = Line(chunk.substr(0, nl)); !r.ok()) return r;
    chunk.remove_prefix(nl + 1);
  }
  pending_.assign(chunk);
  return Ok();
}

Result<void> K6SampleReducer::FeedFile(std::FILE* in) {
  std::vector<char> buf(1 << 20);
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), in)) > 0) {
    if (auto r = Feed(std::string_view(buf.data(), n)); !r.ok()) return r;
  }
  if (std::ferror(in)) return Error{fmt::format("{}: read error: {}", source_, std::strerror(errno))};
  return Ok();
}

Result<LatencyHistogram> K6SampleReducer::Finish() {
  auto r = FinishReduction();
  if (!r) return r.error();
  return std::move(r->histogram);
}

Result<K6Reduction> K6SampleReducer::FinishReduction() {
  if (auto g = CheckGrid(); !g) return g.error();
  if (!pending_.empty()) {
    const std::string last = std::move(pending_);
    pending_.clear();
    if (auto r = Line(last); !r.ok()) return r.error();
  }
  if (format_ == Format::kCsv && !have_header_) {
    return Error{fmt::format("{}: empty: no k6 CSV header line", source_)};
  }
  if (format_ == Format::kJson && json_objects_ == 0) {
    return Error{fmt::format("{}: empty: no k6 JSON line", source_)};
  }
  K6Reduction out;
  out.histogram = hist_;
  if (!grid_) return out;
  out.before_origin = before_origin_;
  out.time_format = TimeKindName(static_cast<int>(time_kind_), time_fraction_);
  switch (time_kind_) {
    case TimeKind::kNone: out.time_resolution_ns = 0; break;
    case TimeKind::kUnixS: out.time_resolution_ns = 1000000000; break;
    case TimeKind::kUnixMs: out.time_resolution_ns = 1000000; break;
    case TimeKind::kUnixUs: out.time_resolution_ns = 1000; break;
    case TimeKind::kUnixNs: out.time_resolution_ns = 1; break;
    case TimeKind::kRfc3339: out.time_resolution_ns = time_fraction_ ? 1 : 1000000000; break;
  }
  const auto r = static_cast<int64_t>(out.time_resolution_ns);
  if (r > 1 && (origin_ns_ % r != 0 || width_ns_ % r != 0)) {
    out.intervals_absent = fmt::format(
        "{}: the timestamps ({}) have a resolution of {}, and the intervals of {} from {} µs do not start on "
        "multiples of it: a sample near an interval's edge could not be placed (k6 >= v0.44 with "
        "K6_CSV_TIME_FORMAT=unix_micro writes µs)",
        source_, out.time_format, FormatNs(out.time_resolution_ns), FormatNs(static_cast<uint64_t>(width_ns_)),
        origin_ns_ / 1000);
    return out;
  }
  IntervalSeries& s = out.intervals;
  s.start_epoch_us = static_cast<double>(origin_ns_ / 1000);
  s.width_us = static_cast<double>(width_ns_ / 1000);
  s.sends_counted = false;
  for (const Window& w : windows_) {
    IntervalLatency l;
    for (size_t i = 0; i < w.counts.size(); ++i) {
      if (w.counts[i] > 0) l.buckets.emplace_back(static_cast<uint32_t>(w.base + i), w.counts[i]);
    }
    if (w.recorded > 0) {
      l.min_ns = w.min_ns;
      l.max_ns = w.max_ns;
    }
    l.timeouts = w.timeouts;
    l.timeout_us = w.timeouts > 0 ? kK6RequestTimeoutUs : 0;
    s.latency.push_back(std::move(l));
    s.completed.push_back(w.recorded);
    s.non_2xx.push_back(w.non_2xx);
  }
  s.scheduled.assign(s.completed.size(), 0);
  s.sent.assign(s.completed.size(), 0);
  s.late_10ms.assign(s.completed.size(), 0);
  return out;
}

Result<LatencyHistogram> ReduceK6Samples(std::string_view text, K6SampleReducer::Format format,
                                         const std::string& source) {
  K6SampleReducer r(format, source);
  if (auto fed = r.Feed(text); !fed.ok()) return fed.error();
  return r.Finish();
}

Result<K6Reduction> ReduceK6SamplesPerInterval(std::string_view text, K6SampleReducer::Format format,
                                               const std::string& source, const K6IntervalGrid& grid) {
  K6SampleReducer r(format, source, grid);
  if (auto fed = r.Feed(text); !fed.ok()) return fed.error();
  return r.FinishReduction();
}

nlohmann::json K6ReductionToJson(const K6Reduction& r) {
  nlohmann::json out = HistogramToJson(r.histogram);
  if (!r.intervals_absent.empty()) out["intervals_absent"] = r.intervals_absent;
  if (!r.time_format.empty()) out["time_format"] = r.time_format;
  if (r.before_origin > 0) out["before_origin"] = r.before_origin;
  const IntervalSeries& s = r.intervals;
  if (s.empty()) return out;
  nlohmann::json latency = nlohmann::json::array();
  for (const IntervalLatency& l : s.latency) latency.push_back(HistogramToJson(IntervalHistogram(l)));
  out["intervals"] = {{"start_epoch_us", static_cast<int64_t>(std::llround(s.start_epoch_us))},
                      {"width_us", static_cast<int64_t>(std::llround(s.width_us))},
                      {"completed", s.completed},
                      {"non_2xx", s.non_2xx},
                      {"latency", std::move(latency)}};
  return out;
}

Result<K6Reduction> K6ReductionFromJson(const nlohmann::json& doc, const std::string& source) {
  auto h = HistogramFromJson(doc, source);
  if (!h) return h.error();
  K6Reduction out;
  out.histogram = std::move(*h);
  if (!doc.is_object()) return out;
  if (auto it = doc.find("intervals_absent"); it != doc.end()) {
    if (!it->is_string()) return Error{source + ": field `intervals_absent`: not a string"};
    out.intervals_absent = it->get<std::string>();
  }
  if (auto it = doc.find("time_format"); it != doc.end() && it->is_string()) out.time_format = it->get<std::string>();
  if (auto it = doc.find("before_origin"); it != doc.end() && it->is_number_unsigned()) {
    out.before_origin = it->get<uint64_t>();
  }
  auto it = doc.find("intervals");
  if (it == doc.end()) return out;
  const nlohmann::json& v = *it;
  const std::string at = source + ": intervals";
  if (!v.is_object()) return Error{at + ": not an object"};
  IntervalSeries s;
  for (auto [key, field] : {std::pair{"start_epoch_us", &s.start_epoch_us}, std::pair{"width_us", &s.width_us}}) {
    if (!v.contains(key) || !v[key].is_number() || !(v[key].get<double>() > 0)) {
      return Error{fmt::format("{}.{}: missing or not a positive number", at, key)};
    }
    *field = v[key].get<double>();
  }
  for (auto [key, field] : {std::pair{"completed", &s.completed}, std::pair{"non_2xx", &s.non_2xx}}) {
    if (!v.contains(key) || !v[key].is_array()) return Error{fmt::format("{}.{}: missing or not an array", at, key)};
    for (size_t i = 0; i < v[key].size(); ++i) {
      if (!v[key][i].is_number_unsigned()) return Error{fmt::format("{}.{}[{}]: not a count", at, key, i)};
      field->push_back(v[key][i].get<uint64_t>());
    }
  }
  if (!v.contains("latency") || !v["latency"].is_array()) return Error{at + ".latency: missing or not an array"};
  const nlohmann::json& lat = v["latency"];
  if (lat.size() != s.completed.size() || s.non_2xx.size() != s.completed.size()) {
    return Error{fmt::format("{}: series of different lengths (completed {}, non_2xx {}, latency {})", at,
                             s.completed.size(), s.non_2xx.size(), lat.size())};
  }
  for (size_t i = 0; i < lat.size(); ++i) {
    auto li = HistogramFromJson(lat[i], fmt::format("{}.latency[{}]", at, i));
    if (!li) return li.error();
    if (li->recorded() != s.completed[i]) {
      return Error{fmt::format("{}.latency[{}]: {} samples, completed says {}", at, i, li->recorded(),
                               s.completed[i])};
    }
    s.latency.push_back(IntervalLatencyOf(*li));
  }
  s.sends_counted = false;
  s.scheduled.assign(s.completed.size(), 0);
  s.sent.assign(s.completed.size(), 0);
  s.late_10ms.assign(s.completed.size(), 0);
  out.intervals = std::move(s);
  return out;
}

Result<K6Reduction> ParseK6ReductionJson(std::string_view text, const std::string& source) {
  auto doc = detail::ParseJsonText(text, source);
  if (!doc.ok()) return doc.error();
  return K6ReductionFromJson(*doc, source);
}

}  // namespace fvbench
