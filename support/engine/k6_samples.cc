#include "support/engine/k6_samples.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

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

}  // namespace

K6SampleReducer::K6SampleReducer(Format format, std::string source)
    : format_(format), source_(std::move(source)) {}

Result<void> K6SampleReducer::Add(std::string_view value_ms, std::string_view error_code) {
  if (error_code == kK6TimeoutErrorCode) {
    ++samples_;
    return hist_.RecordTimeouts(1, kK6RequestTimeoutUs);
  }
  double ms = 0;
  const auto [end, ec] = std::from_chars(value_ms.data(), value_ms.data() + value_ms.size(), ms);
  if (ec != std::errc{} || end != value_ms.data() + value_ms.size() || !std::isfinite(ms) || ms < 0) {
    return Error{fmt::format("{}:{}: http_req_duration value \"{}\" is not a non-negative number of ms", source_,
                             line_, value_ms)};
  }
  ++samples_;
  hist_.RecordUs(ms * 1000.0);
  return Ok();
}

Result<void> K6SampleReducer::CsvHeader(std::string_view line) {
  std::vector<std::string_view> f;
  if (!SplitCsv(line, f)) return Error{fmt::format("{}:{}: header: unterminated quote", source_, line_)};
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] == "metric_name") col_name_ = static_cast<int>(i);
    if (f[i] == "metric_value") col_value_ = static_cast<int>(i);
    if (f[i] == "error_code") col_error_code_ = static_cast<int>(i);
  }
  if (col_name_ < 0 || col_value_ < 0) {
    return Error{fmt::format("{}:{}: not a k6 CSV header (needs metric_name and metric_value columns): \"{}\"",
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
  const std::string_view code =
      col_error_code_ >= 0 && col_error_code_ < static_cast<int>(f.size()) ? f[col_error_code_] : std::string_view{};
  return Add(f[col_value_], code);
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
  return Add(line.substr(start, end - start), JsonStringAfter(line, "\"error_code\":\"", value));
}

Result<void> K6SampleReducer::Line(std::string_view line) {
  ++line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return Ok();
  return format_ == Format::kCsv ? CsvLine(line) : JsonLine(line);
}

Result<void> K6SampleReducer::Feed(std::string_view chunk) {
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
  return hist_;
}

Result<LatencyHistogram> ReduceK6Samples(std::string_view text, K6SampleReducer::Format format,
                                         const std::string& source) {
  K6SampleReducer r(format, source);
  if (auto fed = r.Feed(text); !fed.ok()) return fed.error();
  return r.Finish();
}

}  // namespace fvbench
