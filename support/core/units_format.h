// Number formatting shared by the reporters, the step search verdicts and
// threshold messages. Pure; one place so every report spells units the same.
// "µs" is U+00B5 MICRO SIGN throughout.
#pragma once

#include <string>

namespace fvbench::detail {

// Plain number: integers and |v| >= 100 without decimals ("20000", "446"),
// smaller fractions with 3 significant digits ("0.5", "12.3"); "nan" / "inf".
std::string FormatNumber(double v);
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
// Change of `measured` against `reference` as a signed percentage with one
// decimal: (measured - reference) / reference -> "+12.3 %", "−4.0 %" (U+2212
// MINUS SIGN), "+0.0 %" for no change; "" when either value is not finite or
// reference is 0 (no meaningful percentage).
std::string FormatDeltaPercent(double measured, double reference);

// Display width in terminal columns of UTF-8 text (one per code point; the
// suite prints no wide characters).
size_t DisplayWidth(const std::string& s);
// Pads with spaces on the right to `width` columns (never truncates).
std::string PadRight(const std::string& s, size_t width);

}  // namespace fvbench::detail
