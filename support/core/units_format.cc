#include "support/core/units_format.h"

#include <fmt/format.h>

#include <cmath>

namespace fvbench::detail {

namespace {
// fmt::format("{:.0f}", v), several times faster: for finite |v| < 2^53
// std::nearbyint is exact and, in the default rounding mode, rounds half to
// even as fmt and printf do on the exact binary value; the integer is then
// printed by fmt::format_int. fmt's precision path (exact, but ~0.1 ms over
// a full report's few hundred numbers) is kept for the rest.
std::string Fixed0(double v) {
  if (std::fabs(v) < 9007199254740992.0) {
    double r = std::nearbyint(v);
    if (r == 0 && std::signbit(v)) return "-0";  // as fmt prints -0.4
    return fmt::format_int(static_cast<long long>(r)).str();
  }
  return fmt::format("{:.0f}", v);
}

// Not a number to show: what a reader is told instead (never "nan"/"inf").
std::string NonFinite(double v) { return std::isnan(v) ? "n/a" : "out of range"; }

// |v| >= kCompactFrom in 4 significant digits and an exponent ("1.235e+20").
bool Huge(double v) { return std::fabs(v) >= kCompactFrom; }
std::string Compact(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

std::string FormatNumber(double v) {
  if (!std::isfinite(v)) return NonFinite(v);
  if (Huge(v)) return Compact(v);
  if (std::fabs(v) >= 100 || v == std::round(v)) return Fixed0(v);
  return fmt::format("{:.3g}", v);
}

std::string FormatFixed(double v, int decimals) {
  if (!std::isfinite(v)) return NonFinite(v);
  if (Huge(v)) return Compact(v);
  return fmt::format("{:.{}f}", v, decimals);
}

std::string FormatUs(double us) {
  if (!std::isfinite(us)) return NonFinite(us);
  if (Huge(us)) return Compact(us) + " µs";
  if (us >= 1000) return fmt::format("{:.2f} ms", us / 1000);
  return Fixed0(us) + " µs";
}

std::string FormatUsBare(double us, double unit_of) {
  if (!std::isfinite(us) || Huge(us)) return FormatNumber(us);
  if (unit_of >= 1000) return fmt::format("{:.2f}", us / 1000);
  return Fixed0(us);
}

std::string FormatPercent(double fraction) {
  const double pct = fraction * 100;
  if (!std::isfinite(pct)) return NonFinite(pct);
  if (Huge(pct)) return Compact(pct) + "%";
  return fmt::format("{:.2f}%", pct);
}

std::string FormatPercentLimit(double fraction) {
  const double pct = fraction * 100;
  if (!std::isfinite(pct)) return NonFinite(pct);
  return fmt::format("{:g}%", pct);
}

std::string FormatRps(double rps) {
  if (!std::isfinite(rps) || Huge(rps)) return FormatNumber(rps);
  return Fixed0(rps);
}

std::string FormatDeltaFraction(double fraction) {
  double pct = fraction * 100;
  if (!std::isfinite(pct)) return "";
  std::string digits = Huge(pct) ? Compact(std::fabs(pct)) : fmt::format("{:.1f}", std::fabs(pct));
  if (digits == "0.0") return "+0.0 %";
  return (pct < 0 ? "\u2212" : "+") + digits + " %";
}

size_t DisplayWidth(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;  // count lead bytes only
  }
  return n;
}

std::string PadRight(const std::string& s, size_t width) {
  size_t w = DisplayWidth(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}

std::string FormatLatency(const LatencyUs& l, double us) {
  return l.IsCensored(us) ? ">= " + FormatUs(us) : FormatUs(us);
}

std::string FormatErrors(const LoadResult& l) {
  if (l.scheduled == 0) return fmt::format("{} ({} of {})", FormatPercent(l.error_rate), l.failed, l.requests);
  std::string out = fmt::format("{} ({} of {} scheduled", FormatPercent(l.error_rate), l.failed, l.scheduled);
  if (l.failed_engine > 0) out += fmt::format("; {} never sent", l.failed_engine);
  if (l.interrupted > 0) out += fmt::format("; {} in flight at the end, not counted", l.interrupted);
  return out + ")";
}

}  // namespace fvbench::detail
