#include "support/judge/threshold_headroom.h"

#include <cmath>

#include <fmt/format.h>

#include "support/core/metric_names.h"
#include "support/core/units_format.h"

namespace fvbench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Headroom Of(HeadroomKind kind, double size, bool points) {
  Headroom h;
  h.kind = kind;
  h.size = size;
  h.points = points;
  return h;
}

bool Upper(std::string_view op) { return op == "<=" || op == "<"; }
bool Lower(std::string_view op) { return op == ">=" || op == ">"; }

// Points: "1 percentage point", "0.5 percentage points".
std::string Points(double size, std::string_view noun) {
  const double pct = size * 100;
  const std::string digits = detail::FormatNumber(pct);
  return fmt::format("{}{} {}{}", "+", digits, noun, pct == 1 ? "" : "s");
}

std::string Change(const Headroom& h, std::string_view point_noun) {
  if (h.points) {
    std::string p = Points(h.size, point_noun);
    if (h.kind == HeadroomKind::kFall) p.replace(0, 1, "\u2212");
    return p;
  }
  return detail::FormatDeltaFraction(h.kind == HeadroomKind::kFall ? -h.size : h.size);
}

Headroom Compute(std::string_view metric, std::string_view op, double measured, double limit, bool passed) {
  const bool points = HeadroomInPoints(metric);
  if (!passed) return Of(HeadroomKind::kFailsNow, 0, points);
  if (!std::isfinite(measured) || !std::isfinite(limit) || (!Upper(op) && !Lower(op))) {
    return Of(HeadroomKind::kUndefined, kNaN, points);
  }
  if (points) {
    if (Upper(op)) {
      if (metric == kMetricErrorRate && (limit > 1 || (op == "<=" && limit == 1))) {
        return Of(HeadroomKind::kNever, kNaN, points);
      }
      return Of(HeadroomKind::kRise, limit - measured, points);
    }
    // A fraction is never below 0 either.
    if (limit < 0 || (op == ">=" && limit == 0)) return Of(HeadroomKind::kNever, kNaN, points);
    return Of(HeadroomKind::kFall, measured - limit, points);
  }
  if (Lower(op)) {
    // Relative metrics are never below 0: a limit below 0 (or ">= 0") holds for any value.
    if (limit < 0 || (op == ">=" && limit == 0)) return Of(HeadroomKind::kNever, kNaN, points);
    if (measured <= 0) return Of(HeadroomKind::kUndefined, kNaN, points);
    return Of(HeadroomKind::kFall, 1 - limit / measured, points);
  }
  if (measured <= 0) return Of(HeadroomKind::kUndefined, kNaN, points);
  return Of(HeadroomKind::kRise, limit / measured - 1, points);
}

}  // namespace

bool HeadroomInPoints(std::string_view metric) {
  return IsFractionMetric(std::string(metric));
}

Headroom ComputeHeadroom(std::string_view metric, std::string_view op, double measured, double limit, bool passed) {
  const Headroom h = Compute(metric, op, measured, limit, passed);
  if ((h.kind == HeadroomKind::kRise || h.kind == HeadroomKind::kFall) && !(h.size >= 0)) {
    return Of(HeadroomKind::kUndefined, kNaN, h.points);  // passed, yet its numbers are over the limit
  }
  return h;
}

Headroom CheckHeadroom(const ThresholdCheck& c) {
  return ComputeHeadroom(c.metric, c.op, c.measured, c.limit, c.passed);
}

Headroom RatioCheckHeadroom(const RatioCheck& c) {
  return ComputeHeadroom(c.metric, c.op, c.measured, c.limit, c.passed);
}

std::string DescribeHeadroom(const Headroom& h) {
  switch (h.kind) {
    case HeadroomKind::kFailsNow: return "fails now";
    case HeadroomKind::kNever: return "catches no change";
    case HeadroomKind::kUndefined: return "headroom not defined";
    case HeadroomKind::kRise:
    case HeadroomKind::kFall:
      if (h.total_loss_only()) return "catches only a total loss (a fall of \u2212100 %)";
      if (h.size == 0) return fmt::format("catches any {}", h.kind == HeadroomKind::kRise ? "rise" : "fall");
      return fmt::format("catches a {} of {} or more", h.kind == HeadroomKind::kRise ? "rise" : "fall",
                         Change(h, "percentage point"));
  }
  return "";
}

std::string HeadroomCell(const Headroom& h) {
  switch (h.kind) {
    case HeadroomKind::kFailsNow: return "fails now";
    case HeadroomKind::kNever: return "no change";
    case HeadroomKind::kUndefined: return "\u2014";
    case HeadroomKind::kRise:
    case HeadroomKind::kFall:
      if (h.total_loss_only()) return "total loss only";
      if (h.size == 0) return fmt::format("any {}", h.kind == HeadroomKind::kRise ? "rise" : "fall");
      return fmt::format("{} of {}", h.kind == HeadroomKind::kRise ? "rise" : "fall", Change(h, "point"));
  }
  return "";
}

const char* HeadroomKindName(HeadroomKind k) {
  switch (k) {
    case HeadroomKind::kRise: return "rise";
    case HeadroomKind::kFall: return "fall";
    case HeadroomKind::kFailsNow: return "fails_now";
    case HeadroomKind::kNever: return "never";
    case HeadroomKind::kUndefined: return "undefined";
  }
  return "undefined";
}

}  // namespace fvbench
