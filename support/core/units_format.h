// Number formatting shared by the reporters, the step search verdicts and
// threshold messages. Pure; one place so every report spells units the same.
// "µs" is U+00B5 MICRO SIGN throughout.
#pragma once

#include <string>

#include "support/core/load_result.h"

namespace fvbench::detail {

// Every Format... below prints a magnitude of kCompactFrom or more with 4
// significant digits and an exponent ("1e+308", "1.235e+20"), never hundreds
// of digits; and a value that is not a number as "n/a", an infinite one as
// "out of range" (never "nan" / "inf"). Readers refuse such values in their
// files (plausible.h); these are the last line.
inline constexpr double kCompactFrom = 1e15;

// Plain number: integers and |v| >= 100 without decimals ("20000", "446"),
// smaller fractions with 3 significant digits ("0.5", "12.3", "4.94e-324").
std::string FormatNumber(double v);
// Fixed decimals ("{:.2f}"): FormatFixed(3.1, 2) -> "3.10"; compact and
// non-finite as above.
std::string FormatFixed(double v, int decimals);
// The seed's latency style: < 1000 µs -> "812 µs", else "1.95 ms".
std::string FormatUs(double us);
// Same unit choice as FormatUs(unit_of) but without the unit name:
// FormatUsBare(2990, 2990) -> "2.99", FormatUsBare(112, 304) -> "112".
std::string FormatUsBare(double us, double unit_of);
// Measured fraction as a percentage with two decimals: 0.032 -> "3.20%".
std::string FormatPercent(double fraction);
// A limit as a short percentage: 0.01 -> "1%", 0.005 -> "0.5%".
std::string FormatPercentLimit(double fraction);
// Requests per second, no decimals: 110500 -> "110500".
std::string FormatRps(double rps);
// A change given as a fraction (run_report.h ComparedMetric::delta,
// (measured - comparison) / |comparison|) as a signed percentage with one
// decimal: 0.123 -> "+12.3 %", -0.04 -> "−4.0 %" (U+2212 MINUS SIGN), "+0.0 %"
// for no change; "" when fraction x 100 is not finite.
std::string FormatDeltaFraction(double fraction);

// The errors cell of a phase: "0.46 % (37 of 804 scheduled)", with
// "; N never sent" when the engine fell behind its schedule. A result
// without per-scheduled accounting (older files) reads "x % (failed of requests)".
std::string FormatErrors(const LoadResult& l);

// A latency of `l` (µs) as FormatUs prints it, with ">= " in front when the
// value is censored at the engine's timeout (LatencyUs::IsCensored): a lower
// bound, e.g. ">= 2 s".
std::string FormatLatency(const LatencyUs& l, double us);

// Display width in terminal columns of UTF-8 text (one per code point; the
// suite prints no wide characters).
size_t DisplayWidth(const std::string& s);
// Pads with spaces on the right to `width` columns (never truncates).
std::string PadRight(const std::string& s, size_t width);

}  // namespace fvbench::detail
