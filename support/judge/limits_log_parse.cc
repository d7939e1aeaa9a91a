#include "support/judge/limits_log_parse.h"

#include <fmt/format.h>

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>
#include "support/core/text.h"

namespace fvbench {
namespace {

using detail::SplitFields;

// A field quoted for an error message: at most 60 bytes, bytes outside
// 0x20..0x7e as \xNN (host data goes into messages printed on terminals).
std::string Shown(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 60; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c <= 0x7e) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (s.size() > 60) out += "...";
  return "'" + out + "'";
}

bool ToCount(std::string_view s, uint64_t& v) {
  if (s.empty() || s[0] < '0' || s[0] > '9') return false;
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  return ec == std::errc() && p == end;
}

// nginx's $msec: whole seconds, optionally '.' and up to 3 digits; in
// milliseconds. At most 11 digits of seconds (year 5138): no overflow.
bool ToMs(std::string_view s, uint64_t& ms) {
  const size_t dot = s.find('.');
  const std::string_view whole = s.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (whole.empty() || whole.size() > 11 || frac.size() > 3) return false;
  if (dot != std::string_view::npos && frac.empty()) return false;
  uint64_t v = 0;
  for (char c : whole) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  uint64_t f = 0;
  for (size_t i = 0; i < 3; ++i) {
    const char c = i < frac.size() ? frac[i] : '0';
    if (c < '0' || c > '9') return false;
    f = f * 10 + static_cast<uint64_t>(c - '0');
  }
  ms = v * 1000 + f;
  return true;
}

// "" when the key is acceptable, else what is wrong with it.
std::string KeyProblem(std::string_view key) {
  if (key.size() > kMaxLimitsKeyBytes) {
    return fmt::format("key {} is {} bytes long, more than {}", Shown(key), key.size(), kMaxLimitsKeyBytes);
  }
  for (char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x21 || c > 0x7e) return fmt::format("key {} has byte 0x{:02x}, outside 0x21..0x7e", Shown(key), c);
  }
  return "";
}

struct KeyLine {
  KeyCounts counts;
  size_t line = 0;
};

struct BinLine {
  uint64_t admitted = 0;
  size_t line = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  Result<AccessLogCounts> Run(std::string_view text);

 private:
  Error Fail(size_t line, const std::string& what) const {
    return Error{fmt::format("{}: line {}: {}", source_, line, what)};
  }
  Result<void> Header(size_t line, const std::vector<std::string_view>& f);
  Result<void> Totals(size_t line, const std::vector<std::string_view>& f);
  Result<void> Key(size_t line, const std::vector<std::string_view>& f);
  Result<void> Bin(size_t line, const std::vector<std::string_view>& f);
  Result<void> Skipped(size_t line, const std::vector<std::string_view>& f);
  Result<AccessLogCounts> Assemble();

  std::string_view source_;
  uint64_t bin_ms_ = 0;
  uint64_t bins_ = 0;
  uint64_t lines_ = 0, nokey_ = 0, malformed_ = 0;
  uint64_t first_ms_ = 0, last_ms_ = 0;
  std::optional<uint64_t> before_window_;
  std::map<std::string, KeyLine, std::less<>> keys_;
  std::map<std::pair<std::string, uint64_t>, BinLine> bins_by_key_;
  size_t last_line_ = 0;
};

Result<void> Parser::Header(size_t line, const std::vector<std::string_view>& f) {
  if (f.empty() || f[0] != "fvbench-limits") {
    return Fail(line, fmt::format("{} is not the header 'fvbench-limits 1 <bin_ms>'",
                                  f.empty() ? std::string("''") : Shown(f[0])));
  }
  if (f.size() != 3) return Fail(line, fmt::format("the header has {} fields, expected 3", f.size()));
  if (f[1] != "1") return Fail(line, fmt::format("format version {}, expected 1", Shown(f[1])));
  if (!ToCount(f[2], bin_ms_) || bin_ms_ == 0 || bin_ms_ > 1000 || 1000 % bin_ms_ != 0) {
    return Fail(line, fmt::format("bin width {} is not a whole number of milliseconds that divides 1000", Shown(f[2])));
  }
  return Ok();
}

Result<void> Parser::Totals(size_t line, const std::vector<std::string_view>& f) {
  static constexpr const char* kWords[] = {"lines", "first", "last", "nokey", "malformed"};
  if (f.size() != 10) {
    return Fail(line, fmt::format("{} fields where the totals line 'lines <n> first <msec> last <msec> nokey <n> "
                                  "malformed <n>' has 10",
                                  f.size()));
  }
  for (size_t i = 0; i < 5; ++i) {
    if (f[2 * i] != kWords[i]) {
      return Fail(line, fmt::format("field {} of the totals line is {}, expected '{}'", 2 * i + 1, Shown(f[2 * i]),
                                    kWords[i]));
    }
  }
  if (!ToCount(f[1], lines_)) return Fail(line, fmt::format("lines {} is not a count", Shown(f[1])));
  if (!ToMs(f[3], first_ms_)) return Fail(line, fmt::format("first {} is not a $msec time", Shown(f[3])));
  if (!ToMs(f[5], last_ms_)) return Fail(line, fmt::format("last {} is not a $msec time", Shown(f[5])));
  if (!ToCount(f[7], nokey_)) return Fail(line, fmt::format("nokey {} is not a count", Shown(f[7])));
  if (!ToCount(f[9], malformed_)) return Fail(line, fmt::format("malformed {} is not a count", Shown(f[9])));
  if (lines_ == 0) {
    if (first_ms_ != 0 || last_ms_ != 0) return Fail(line, "lines is 0 but first or last is not 0");
    if (nokey_ != 0 || malformed_ != 0) return Fail(line, "lines is 0 but nokey or malformed is not");
    bins_ = 0;
    return Ok();
  }
  if (last_ms_ < first_ms_) {
    return Fail(line, fmt::format("last {} is before first {}", Shown(f[5]), Shown(f[3])));
  }
  const uint64_t span_ms = last_ms_ - first_ms_;
  bins_ = (span_ms + bin_ms_ - 1) / bin_ms_ + 1;
  if (bins_ > kMaxLimitsBins) {
    return Fail(line, fmt::format("the window of {} ms is {} bins of {} ms, more than {}", span_ms, bins_, bin_ms_,
                                  kMaxLimitsBins));
  }
  return Ok();
}

Result<void> Parser::Key(size_t line, const std::vector<std::string_view>& f) {
  if (f.size() != 5) return Fail(line, fmt::format("a 'k' line has {} fields, expected 5", f.size()));
  if (std::string why = KeyProblem(f[1]); !why.empty()) return Fail(line, why);
  if (lines_ == 0) return Fail(line, fmt::format("key {} in a log of 0 lines", Shown(f[1])));
  if (auto it = keys_.find(f[1]); it != keys_.end()) {
    return Fail(line, fmt::format("key {} again (its 'k' line is line {})", Shown(f[1]), it->second.line));
  }
  if (keys_.size() >= kMaxLimitsKeys) return Fail(line, fmt::format("more than {} keys", kMaxLimitsKeys));
  if (bins_ * (keys_.size() + 1) > kMaxLimitsCells) {
    return Fail(line, fmt::format("{} keys of {} bins each are more than {} bins in all", keys_.size() + 1, bins_,
                                  kMaxLimitsCells));
  }
  KeyLine k;
  k.line = line;
  k.counts.key = std::string(f[1]);
  static constexpr const char* kNames[] = {"admitted", "rejected", "other"};
  uint64_t* values[] = {&k.counts.admitted, &k.counts.rejected, &k.counts.other};
  for (size_t i = 0; i < 3; ++i) {
    if (!ToCount(f[2 + i], *values[i])) {
      return Fail(line, fmt::format("{} {} of key {} is not a count", kNames[i], Shown(f[2 + i]), Shown(f[1])));
    }
  }
  keys_.emplace(k.counts.key, std::move(k));
  return Ok();
}

Result<void> Parser::Bin(size_t line, const std::vector<std::string_view>& f) {
  if (f.size() != 4) return Fail(line, fmt::format("a 'b' line has {} fields, expected 4", f.size()));
  if (std::string why = KeyProblem(f[1]); !why.empty()) return Fail(line, why);
  uint64_t bin = 0, admitted = 0;
  if (!ToCount(f[2], bin)) return Fail(line, fmt::format("bin {} of key {} is not a count", Shown(f[2]), Shown(f[1])));
  if (!ToCount(f[3], admitted)) {
    return Fail(line, fmt::format("admitted {} of key {} is not a count", Shown(f[3]), Shown(f[1])));
  }
  if (bin >= bins_) {
    return Fail(line, fmt::format("bin {} of key {} is beyond the window's {} bins of {} ms", bin, Shown(f[1]), bins_,
                                  bin_ms_));
  }
  auto [it, added] = bins_by_key_.try_emplace({std::string(f[1]), bin}, BinLine{admitted, line});
  if (!added) {
    return Fail(line, fmt::format("bin {} of key {} again (first on line {})", bin, Shown(f[1]), it->second.line));
  }
  return Ok();
}

Result<AccessLogCounts> Parser::Assemble() {
  // A 'b' line's key must have a 'k' line; its bins fill the key's counts.
  for (auto& [kb, b] : bins_by_key_) {
    auto it = keys_.find(kb.first);
    if (it == keys_.end()) {
      return Fail(b.line, fmt::format("bin {} of key {}, which has no 'k' line", kb.second, Shown(kb.first)));
    }
    std::vector<uint64_t>& per_bin = it->second.counts.admitted_per_bin;
    if (per_bin.empty()) per_bin.assign(bins_, 0);
    per_bin[kb.second] = b.admitted;
  }
  AccessLogCounts out;
  out.bin_s = static_cast<double>(bin_ms_) / 1000.0;
  out.first_unix = static_cast<double>(first_ms_) / 1000.0;
  out.last_unix = static_cast<double>(last_ms_) / 1000.0;
  out.lines = lines_;
  out.without_key = nokey_;
  out.malformed = malformed_;
  out.before_window = before_window_.value_or(0);
  // Every total below is at most `lines` (checked as it grows): no overflow.
  uint64_t counted = 0;
  auto add = [&](uint64_t v) {
    if (v > lines_ - counted) return false;
    counted += v;
    return true;
  };
  bool within = add(nokey_) && add(malformed_);
  for (auto& [key, k] : keys_) {
    KeyCounts& c = k.counts;
    if (c.admitted_per_bin.empty()) c.admitted_per_bin.assign(bins_, 0);
    uint64_t binned = 0;
    for (uint64_t n : c.admitted_per_bin) {
      if (n > c.admitted - binned) {
        binned = c.admitted + 1;  // more than admitted: reported below
        break;
      }
      binned += n;
    }
    if (binned != c.admitted) {
      return Fail(k.line, fmt::format("key {} admitted {} but its 'b' lines {}", Shown(key), c.admitted,
                                      binned > c.admitted ? std::string("sum to more")
                                                          : fmt::format("sum to {}", binned)));
    }
    within = within && add(c.admitted) && add(c.rejected) && add(c.other);
    out.keys.push_back(std::move(c));
  }
  if (!within || counted != lines_) {
    return Error{fmt::format("{}: the 'k' counts + nokey + malformed {} lines {}", source_,
                             within ? fmt::format("are {}, not the", counted) : std::string("are more than the"),
                             lines_)};
  }
  return out;
}

Result<void> Parser::Skipped(size_t line, const std::vector<std::string_view>& f) {
  if (f.size() != 2) return Fail(line, fmt::format("an 's' line has {} fields, expected 2", f.size()));
  if (before_window_) return Fail(line, "a second 's' line");
  uint64_t n = 0;
  if (!ToCount(f[1], n)) return Fail(line, fmt::format("skipped {} is not a count", Shown(f[1])));
  before_window_ = n;
  return Ok();
}

Result<AccessLogCounts> Parser::Run(std::string_view text) {
  size_t number = 0;
  int seen = 0;  // 0: expecting the header, 1: the totals, 2: k and b lines
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    const std::vector<std::string_view> f = SplitFields(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++number;
    if (f.empty()) continue;
    Result<void> r;
    if (seen == 0) {
      r = Header(number, f);
      seen = 1;
    } else if (seen == 1) {
      r = Totals(number, f);
      seen = 2;
    } else if (f[0] == "k") {
      r = Key(number, f);
    } else if (f[0] == "b") {
      r = Bin(number, f);
    } else if (f[0] == "s") {
      r = Skipped(number, f);
    } else {
      r = Fail(number, fmt::format("unknown line tag {}, expected 'k', 'b' or 's'", Shown(f[0])));
    }
    if (!r) return r.error();
  }
  if (seen == 0) return Fail(number + 1, "no header 'fvbench-limits 1 <bin_ms>' (empty)");
  if (seen == 1) return Fail(number + 1, "no totals line after the header");
  return Assemble();
}

}  // namespace

Result<AccessLogCounts> ParseLimitsLog(std::string_view text, std::string_view source) {
  return Parser(source).Run(text);
}

}  // namespace fvbench
