#include "support/report/timeline_exits.h"

#include <fmt/format.h>

#include <cmath>

#include "support/core/units_format.h"

namespace fvbench {

using detail::FormatNumber;

std::string DrawProcessExits(svg::Svg& svg, const SutTimeline& t, const IntervalSeries& s, const svg::LinAxis& x,
                             double y0, double y1) {
  if (t.exits.empty()) return "";
  const double span_s = static_cast<double>(s.size()) * s.width_us / 1e6;
  size_t drawn = 0;
  std::string names;
  for (const SutProcessExit& e : t.exits) {
    const double gone_s = (e.gone_epoch_us - s.start_epoch_us) / 1e6;
    const double last_s = (e.last_seen_epoch_us - s.start_epoch_us) / 1e6;
    if (!std::isfinite(gone_s) || gone_s < 0 || gone_s > span_s) continue;
    const std::string who = fmt::format("{} pid {}", e.service, e.pid);
    const double px = x.Map(gone_s);
    svg.Group(fmt::format("{} exited between {} s (last seen) and {} s (gone)", who, FormatNumber(last_s),
                          FormatNumber(gone_s)));
    svg.Line(px, y0, px, y1, svg::kInk, 1.5, "2 3");
    if (drawn < kMaxExitLabels) {
      svg.Text(px + 4, y0 + 14 + 13 * static_cast<double>(drawn), who + " exited", 10, "start", svg::kInk, false,
               false, true);
    }
    svg.EndGroup();
    names += (drawn == 0 ? "" : ", ") + fmt::format("{} at {} s", who, FormatNumber(gone_s));
    ++drawn;
  }
  const size_t outside = t.exits.size() - drawn;
  std::string note;
  if (drawn > 0) {
    note = fmt::format("Dotted rules: SUT processes that exited (gone from the next sample): {}; nginx starts "
                       "another worker in a dead one's place, which the samples leave out.",
                       names);
  }
  if (outside > 0) {
    note += fmt::format("{}{} process exit{} outside these intervals, not drawn.", note.empty() ? "" : " ", outside,
                        outside == 1 ? "" : "s");
  }
  return note;
}

}  // namespace fvbench
