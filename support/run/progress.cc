#include "support/run/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "support/core/text.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

// Blanks inside a stub_status line (LF splits lines).
constexpr std::string_view kBlanks = " \t\r";

std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<uint64_t> ToU64(std::string_view s) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string Excerpt(std::string_view s) {
  std::string out(s.substr(0, 60));
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return s.size() > 60 ? out + "..." : out;
}

}  // namespace

Result<StubStatus> ParseStubStatus(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = detail::Trim(text.substr(start, nl - start), kBlanks);
    if (!l.empty()) lines.push_back(l);
    start = nl + 1;
  }
  StubStatus st;
  bool have_active = false, have_counts = false, have_rww = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view l = lines[i];
    if (l.rfind("Active connections:", 0) == 0) {
      auto v = ToU64(detail::Trim(l.substr(19), kBlanks));
      if (!v) return Error{fmt::format("stub_status: 'Active connections:' is not followed by a number: '{}'", l)};
      st.active = *v;
      have_active = true;
    } else if (l.rfind("server accepts handled requests", 0) == 0) {
      if (i + 1 >= lines.size()) return Error{"stub_status: no counter line after 'server accepts handled requests'"};
      auto w = Words(lines[i + 1]);
      // nginx prints three numbers; forks (Tengine) append request_time: extra ones are ignored.
      if (w.size() < 3) {
        return Error{fmt::format("stub_status: expected 'accepts handled requests' numbers, got '{}'", lines[i + 1])};
      }
      uint64_t* fields[] = {&st.accepts, &st.handled, &st.requests};
      for (int k = 0; k < 3; ++k) {
        auto v = ToU64(w[k]);
        if (!v) return Error{fmt::format("stub_status: counter '{}' in '{}' is not a number", w[k], lines[i + 1])};
        *fields[k] = *v;
      }
      have_counts = true;
      ++i;
    } else if (l.rfind("Reading:", 0) == 0) {
      auto w = Words(l);
      const char* names[] = {"Reading:", "Writing:", "Waiting:"};
      uint64_t* fields[] = {&st.reading, &st.writing, &st.waiting};
      if (w.size() != 6) return Error{fmt::format("stub_status: expected 'Reading: r Writing: w Waiting: w', got '{}'", l)};
      for (int k = 0; k < 3; ++k) {
        auto v = ToU64(w[2 * k + 1]);
        if (w[2 * k] != names[k] || !v) {
          return Error{fmt::format("stub_status: expected '{} <number>' in '{}'", names[k], l)};
        }
        *fields[k] = *v;
      }
      have_rww = true;
    }
  }
  if (!have_counts) {
    return Error{fmt::format("stub_status: no 'server accepts handled requests' line (not a stub_status page? "
                             "got '{}')",
                             Excerpt(text))};
  }
  if (!have_active) return Error{"stub_status: no 'Active connections:' line"};
  if (!have_rww) return Error{"stub_status: no 'Reading: r Writing: w Waiting: w' line"};
  return st;
}

void ServedRate::Add(double t_s, uint64_t requests) {
  if (!reads_.empty() && (requests < reads_.back().requests || t_s <= reads_.back().t_s)) {
    // The counter went down (nginx restarted) or time did not advance: start again.
    reads_.clear();
    first_ = last_ = -1;
  }
  reads_.push_back({t_s, requests});
  const int i = static_cast<int>(reads_.size()) - 1;
  if (i == 0) return;
  // The later read counts itself: more than one request means load in between.
  const bool active = requests - reads_[i - 1].requests > 1;
  if (active) {
    if (first_ < 0) first_ = i;  // load began before read i
    last_ = i;                   // ... and ran up to read i (so far)
  } else if (first_ >= 0 && last_ == i - 1 && last_ > first_) {
    // The first quiet interval after load: the load ended somewhere in the
    // interval before read last_, so that read's interval was partial.
    --last_;
  }
}

void ServedRate::LoadEnded() {
  const int latest = static_cast<int>(reads_.size()) - 1;
  if (last_ == latest && last_ > first_) --last_;
}

uint64_t ServedRate::WindowRequests() const {
  if (first_ < 0 || last_ <= first_) return 0;
  const uint64_t gained = reads_[last_].requests - reads_[first_].requests;
  const uint64_t own = static_cast<uint64_t>(last_ - first_);
  return gained > own ? gained - own : 0;
}

double ServedRate::WindowSeconds() const {
  if (first_ < 0 || last_ <= first_) return 0;
  return reads_[last_].t_s - reads_[first_].t_s;
}

std::optional<double> ServedRate::SoFarRps() const {
  const double s = WindowSeconds();
  if (s <= 0) return std::nullopt;
  return static_cast<double>(WindowRequests()) / s;
}

std::string FormatProgressLine(const ProgressTick& t) {
  using detail::FormatNumber;
  std::string rate;
  if (t.served_rps) {
    rate = fmt::format("SUT served {} RPS so far", FormatNumber(std::round(*t.served_rps)));
  } else if (t.rate_failed) {
    rate = t.rate_na.empty() ? "rate n/a" : fmt::format("rate n/a ({})", t.rate_na);
  } else {
    rate = "no load seen by the SUT yet";
  }
  std::string line = fmt::format("{}: {} {} RPS: {:.0f}/{} s, {}", t.scenario, t.phase, FormatNumber(t.target_rps),
                                 std::floor(t.elapsed_s), FormatNumber(t.total_s), rate);
  if (t.search_load_s) {
    line += t.budget_s > 0
                ? fmt::format("; load {:.0f}/{} s of budget", std::floor(*t.search_load_s), FormatNumber(t.budget_s))
                : fmt::format("; load {:.0f} s of the search", std::floor(*t.search_load_s));
  }
  return line;
}

}  // namespace fvbench
