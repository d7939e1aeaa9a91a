// The SVG writer the report's plots share (svg_plot.h, limits_plot.h):
// colours, a coordinate type printed with one decimal by integer arithmetic,
// XML escaping of text, text shortening and wrapping by code points, the Svg
// element appender and a linear axis with "nice" ticks. Output is
// deterministic and locale-independent (fmt, never the C locale); no
// coordinate is ever NaN (C() maps it to 0 and bounds every value to
// +-1e6). Pure; header-only so the appender's small functions inline.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/core/units_format.h"

namespace fvbench {
namespace detail {
// A coordinate or length in the output: fixed one decimal.
struct SvgCoord {
  double v;
};
}  // namespace detail
}  // namespace fvbench

template <>
struct fmt::formatter<fvbench::detail::SvgCoord> : fmt::formatter<double> {
  // Integer arithmetic: fmt's "{:.1f}" for doubles is exact but several times
  // slower, and a plot prints a few thousand coordinates. Half-way cases
  // round away from zero. C() bounds the value, so the product fits.
  template <typename FormatContext>
  auto format(const fvbench::detail::SvgCoord& c, FormatContext& ctx) const {
    long long tenths = std::llround(c.v * 10);
    if (tenths == 0) return fmt::format_to(ctx.out(), "0.0");
    unsigned long long a = tenths < 0 ? static_cast<unsigned long long>(-tenths) : static_cast<unsigned long long>(tenths);
    return fmt::format_to(ctx.out(), "{}{}.{}", tenths < 0 ? "-" : "", a / 10, a % 10);
  }
};

namespace fvbench::svg {

inline constexpr const char* kFont = "DejaVu Sans, Helvetica, Arial, sans-serif";
inline constexpr const char* kInk = "#222222";
inline constexpr const char* kMuted = "#666666";
inline constexpr const char* kGrid = "#e4e4e4";
inline constexpr const char* kGridMinor = "#f2f2f2";
inline constexpr const char* kFailInk = "#b8001f";
// Okabe-Ito colours (distinguishable with the common colour-vision deficiencies).
inline constexpr const char* kBlue = "#0072B2";
inline constexpr const char* kVermillion = "#D55E00";
inline constexpr const char* kGreen = "#009E73";
inline constexpr const char* kGrey = "#555555";

// A coordinate or length: fixed one decimal, locale-independent (fmt), never
// NaN, never "-0.0", bounded so a wild value cannot produce absurd output.
inline detail::SvgCoord C(double v) {
  if (!std::isfinite(v)) v = 0;
  v = std::clamp(v, -1e6, 1e6);
  return {v};
}

inline std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': case '\r': case '\t': out += ' '; break;
      default:
        // Other control characters are not allowed in XML 1.0.
        if (static_cast<unsigned char>(ch) < 0x20) out += ' ';
        else out += ch;
    }
  }
  return out;
}

// At most `max` code points (UTF-8 aware), with "…" when cut; newlines become spaces.
inline std::string Shorten(std::string_view s, size_t max) {
  std::string out;
  size_t points = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char ch = static_cast<unsigned char>(s[i]);
    bool lead = (ch & 0xC0) != 0x80;
    if (lead) {
      if (points == max) {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        return out + "…";
      }
      ++points;
    }
    out += (ch == '\n' || ch == '\r') ? ' ' : s[i];
  }
  return out;
}

// Splits text into at most `max_lines` lines of at most `width` code points at
// spaces (a word longer than a line is cut); the last line is shortened with
// "…" when text remains.
inline std::vector<std::string> Wrap(std::string_view text, size_t width, size_t max_lines) {
  std::string s = Shorten(text, 100000);  // newlines -> spaces
  std::vector<std::string> lines;
  while (!s.empty() && lines.size() < max_lines) {
    if (detail::DisplayWidth(s) <= width || lines.size() + 1 == max_lines) {
      lines.push_back(Shorten(s, width));
      break;
    }
    // Byte offset of the width-th code point.
    size_t bytes = 0, points = 0;
    while (bytes < s.size() && points < width) {
      ++bytes;
      while (bytes < s.size() && (static_cast<unsigned char>(s[bytes]) & 0xC0) == 0x80) ++bytes;
      ++points;
    }
    size_t cut = s.rfind(' ', bytes);
    if (cut == std::string::npos || cut < bytes / 2) cut = bytes;
    lines.push_back(s.substr(0, cut));
    s = s.substr(cut);
    while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  }
  return lines;
}

// Appends elements with plain string operations (no format-string parsing:
// a plot has a few thousand numbers, and this is several times faster than
// fmt::format_to per element).
class Svg {
 public:
  explicit Svg(double width) : width_(width) { body_.reserve(16384); }

  void Rect(double x, double y, double w, double h, const char* fill, const char* stroke = "none",
            double stroke_width = 0) {
    Put("<rect");
    Attr("x", x);
    Attr("y", y);
    Attr("width", std::max(w, 0.0));
    Attr("height", std::max(h, 0.0));
    Attr("fill", fill);
    if (std::string_view(stroke) != "none") {
      Attr("stroke", stroke);
      Attr("stroke-width", stroke_width);
    }
    Put("/>\n");
  }
  void Line(double x1, double y1, double x2, double y2, const char* stroke, double width,
            std::string_view dash = {}) {
    Put("<line");
    Attr("x1", x1);
    Attr("y1", y1);
    Attr("x2", x2);
    Attr("y2", y2);
    Attr("stroke", stroke);
    Attr("stroke-width", width);
    if (!dash.empty()) Attr("stroke-dasharray", dash);
    Put("/>\n");
  }
  void Polyline(const std::vector<std::pair<double, double>>& pts, const char* stroke, double width,
                std::string_view dash = {}) {
    if (pts.size() < 2) return;
    Put("<polyline points=\"");
    Points(pts);
    Put('"');
    Attr("fill", "none");
    Attr("stroke", stroke);
    Attr("stroke-width", width);
    if (!dash.empty()) Attr("stroke-dasharray", dash);
    Put("/>\n");
  }
  // halo: a white outline under the glyphs, so lines crossing a label do not
  // make it unreadable (SVG 2 paint-order; renderers without it draw plain text).
  void Text(double x, double y, std::string_view text, double size, const char* anchor = "start",
            const char* fill = kInk, bool bold = false, bool vertical = false, bool halo = false) {
    Put("<text");
    Attr("x", x);
    Attr("y", y);
    Attr("font-size", size);
    Attr("text-anchor", anchor);
    Attr("fill", fill);
    if (bold) Put(R"( font-weight="bold")");
    if (halo) Put(R"( stroke="#ffffff" stroke-width="3.0" stroke-linejoin="round" paint-order="stroke")");
    if (vertical) {
      Put(" transform=\"rotate(-90 ");
      Num(x);
      Put(' ');
      Num(y);
      Put(")\"");
    }
    Put('>');
    Put(Escape(text));
    Put("</text>\n");
  }
  // shape: 'o' circle, 's' square, 'd' diamond, 't' triangle. Filled: solid
  // colour; hollow: white inside, thicker coloured outline.
  void Marker(char shape, double x, double y, double r, const char* color, bool filled) {
    switch (shape) {
      case 's':
        Put("<rect");
        Attr("x", x - r * 0.9);
        Attr("y", y - r * 0.9);
        Attr("width", r * 1.8);
        Attr("height", r * 1.8);
        break;
      case 'd':
        Put("<polygon points=\"");
        Points({{x, y - r * 1.25}, {x + r * 1.25, y}, {x, y + r * 1.25}, {x - r * 1.25, y}});
        Put('"');
        break;
      case 't':
        Put("<polygon points=\"");
        Points({{x, y - r * 1.2}, {x + r * 1.1, y + r * 0.8}, {x - r * 1.1, y + r * 0.8}});
        Put('"');
        break;
      default:
        Put("<circle");
        Attr("cx", x);
        Attr("cy", y);
        Attr("r", r);
    }
    Attr("fill", filled ? color : "#ffffff");
    Attr("stroke", color);
    Attr("stroke-width", filled ? 1.0 : 2.0);
    Put("/>\n");
  }
  // A group with a tooltip (renderers show <title> on hover): <g><title>..</title>
  // then the group's elements, then EndGroup().
  void Group(std::string_view title) {
    Put("<g><title>");
    Put(Escape(title));
    Put("</title>");
  }
  void EndGroup() { Put("</g>\n"); }
  void Comment(std::string_view text) {
    std::string t(text);
    for (size_t p; (p = t.find("--")) != std::string::npos;) t.replace(p, 2, "- -");
    Put("<!-- ");
    Put(t);
    Put(" -->\n");
  }

  // The document; the height is known only after the notes are laid out.
  std::string Finish(std::string_view title, double height) const {
    std::string out = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
        "viewBox=\"0 0 {0} {1}\" font-family=\"{2}\">\n"
        "<title>{3}</title>\n",
        C(width_), C(height), kFont, Escape(title));
    out += fmt::format(R"(<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>)", C(width_), C(height));
    out.reserve(out.size() + body_.size() + 16);
    out += '\n';
    out.append(body_.data(), body_.size());
    out += "</svg>\n";
    return out;
  }

 private:
  // Numbers are written in place: Room(n) makes room for up to n chars at
  // the end of the body, Commit(p) ends the body at p. One attribute or one
  // point is one append instead of five (appending dominated the plot time).
  static constexpr size_t kNumMax = 24;  // C() bounds |v| <= 1e6: "-1000000.0" is 10 chars
  char* Room(size_t n) {
    size_t at = body_.size();
    body_.resize(at + n);
    return body_.data() + at;
  }
  void Commit(const char* end) { body_.resize(static_cast<size_t>(end - body_.data())); }
  // A coordinate: C()'s bounds, one decimal, half-way away from zero (as SvgCoord).
  static char* WriteNum(char* p, double v) {
    long long tenths = std::llround(C(v).v * 10);
    if (tenths < 0) {
      *p++ = '-';
      tenths = -tenths;
    }
    p = std::to_chars(p, p + 20, tenths / 10).ptr;
    *p++ = '.';
    *p++ = static_cast<char>('0' + tenths % 10);
    return p;
  }
  void Num(double v) { Commit(WriteNum(Room(kNumMax), v)); }
  void Attr(const char* name, double v) {
    size_t n = std::strlen(name);
    char* p = Room(n + 4 + kNumMax);
    *p++ = ' ';
    std::memcpy(p, name, n);
    p += n;
    *p++ = '=';
    *p++ = '"';
    p = WriteNum(p, v);
    *p++ = '"';
    Commit(p);
  }
  void Attr(const char* name, std::string_view v) {
    size_t n = std::strlen(name);
    char* p = Room(n + v.size() + 4);
    *p++ = ' ';
    std::memcpy(p, name, n);
    p += n;
    *p++ = '=';
    *p++ = '"';
    std::memcpy(p, v.data(), v.size());
    p += v.size();
    *p++ = '"';
    Commit(p);
  }
  void Attr(const char* name, const char* v) { Attr(name, std::string_view(v)); }
  void Point(double x, double y, bool first) {
    char* p = Room(2 * kNumMax + 2);
    if (!first) *p++ = ' ';
    p = WriteNum(p, x);
    *p++ = ',';
    p = WriteNum(p, y);
    Commit(p);
  }
  void Points(std::initializer_list<std::pair<double, double>> pts) {
    bool first = true;
    for (const auto& [x, y] : pts) {
      Point(x, y, first);
      first = false;
    }
  }
  void Points(const std::vector<std::pair<double, double>>& pts) {
    bool first = true;
    for (const auto& [x, y] : pts) {
      Point(x, y, first);
      first = false;
    }
  }

  double width_;
  // fmt's buffer: its push_back and append are inline (std::string's are
  // out-of-line calls into libstdc++, which made appending a third of the
  // plot rendering time).
  void Put(std::string_view s) { body_.append(s.data(), s.data() + s.size()); }
  void Put(char c) { body_.push_back(c); }

  fmt::memory_buffer body_;
};

// Approximate rendered width of text at a font size (no font metrics here:
// 0.6 em per code point is generous for DejaVu Sans / Helvetica).
inline double TextWidth(std::string_view s, double size) {
  return static_cast<double>(detail::DisplayWidth(std::string(s))) * size * 0.6;
}


// Linear axis [lo, hi] with "nice" ticks (1, 2, 5 x 10^k) and at most ~`n` of them.
struct LinAxis {
  double lo = 0, hi = 1, step = 1;
  double p0 = 0, p1 = 0;  // pixels of lo, hi
  double Map(double v) const { return p0 + (v - lo) / (hi - lo) * (p1 - p0); }
  std::vector<double> Ticks() const {
    std::vector<double> t;
    for (int i = 0; i <= 1000; ++i) {
      double v = lo + step * i;
      if (v > hi + step * 1e-6) break;
      t.push_back(v);
    }
    return t;
  }
};

inline LinAxis MakeLinAxis(double lo, double hi, int n, double p0, double p1) {
  LinAxis a;
  a.p0 = p0;
  a.p1 = p1;
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi) || hi <= lo) hi = lo + 1;
  double raw = (hi - lo) / n;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double norm = raw / mag;
  a.step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
  a.lo = std::floor(lo / a.step + 1e-9) * a.step;
  a.hi = std::ceil(hi / a.step - 1e-9) * a.step;
  if (a.hi <= a.lo) a.hi = a.lo + a.step;
  return a;
}

// Tick labels: enough decimals for the step, no exponent for ordinary rates.
inline std::string TickLabel(double v, double step) {
  if (std::fabs(v) < step * 1e-6) v = 0;
  if (std::fabs(step) >= 1e6) return TickLabel(v / 1e6, step / 1e6) + "M";  // keeps labels short
  if (step >= 1) return fmt::format("{:.0f}", v);
  int decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(step) - 1e-9)), 0, 6);
  return fmt::format("{:.{}f}", v, decimals);
}

}  // namespace fvbench::svg
