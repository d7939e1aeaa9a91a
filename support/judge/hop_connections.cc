#include "support/judge/hop_connections.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "support/core/units_format.h"

namespace fvbench {

uint64_t CountSsSockets(std::string_view out) {
  uint64_t n = 0;
  bool blank = true;
  for (char ch : out) {
    if (ch == '\n') {
      n += blank ? 0 : 1;
      blank = true;
    } else if (ch != ' ' && ch != '\t' && ch != '\r') {
      blank = false;
    }
  }
  return n + (blank ? 0 : 1);
}

namespace {

std::optional<uint64_t> Delta(const std::optional<uint64_t>& a, const std::optional<uint64_t>& b) {
  if (!a || !b || *b < *a) return std::nullopt;
  return *b - *a;
}

}  // namespace

ValidityCheck DescribeHop(const std::string& hop, int port, const HopCounters& before, const HopCounters& after) {
  ValidityCheck c;
  c.name = "hop_connections";
  c.informational = true;
  c.measured = c.limit = std::numeric_limits<double>::quiet_NaN();
  const auto conns = Delta(before.accepts, after.accepts);
  const auto reqs = Delta(before.requests, after.requests);
  std::string text = fmt::format("{} :{}: ", hop, port);
  if (conns && reqs && *reqs > 0) {
    c.measured = static_cast<double>(*conns) / static_cast<double>(*reqs);
    text += fmt::format("{} new connections for {} requests ({} per request{})", *conns, *reqs,
                        c.measured >= 0.01 ? detail::FormatFixed(c.measured, 2) : fmt::format("{:.4f}", c.measured),
                        c.measured >= kConnectionPerRequestShare ? ": a connection per request" : "");
  } else {
    text += "connections per request n/a (stub_status not read before and after)";
  }
  if (before.time_wait && after.time_wait) {
    const auto growth = static_cast<int64_t>(*after.time_wait) - static_cast<int64_t>(*before.time_wait);
    text += fmt::format("; TIME_WAIT on :{} {} -> {} ({}{})", port, *before.time_wait, *after.time_wait,
                        growth >= 0 ? "+" : "", growth);
  } else {
    text += fmt::format("; TIME_WAIT on :{} n/a (ss not read)", port);
  }
  c.detail = text;
  return c;
}

}  // namespace fvbench
