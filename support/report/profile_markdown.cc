#include "support/report/profile_markdown.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "support/core/units_format.h"
#include "support/report/markdown_text.h"

namespace fvbench {

namespace {

using detail::FormatNumber;
using detail::MarkdownCell;

std::string Us(double v) { return std::isnan(v) ? "not measured" : FormatNumber(std::round(v * 10) / 10) + " µs"; }

std::string Share(double v) { return fmt::format("{:.1f} %", v * 100); }

void Flame(std::string& out, const ProfileFlame& f) {
  out += fmt::format("**{} ({})**: [{}]({}), {} samples ([folded]({}))\n\n", MarkdownCell(f.service),
                     f.level == "cpu" ? "C level, perf" : "Lua level, jit.profile", MarkdownCell(f.svg_path),
                     f.svg_path, f.samples, f.folded_path);
  if (f.top.empty()) return;
  out += "| frame | self | total |\n|---|---:|---:|\n";
  for (size_t i = 0; i < std::min(f.top.size(), kProfileMarkdownFrames); ++i) {
    const ProfileFrameShare& t = f.top[i];
    out += fmt::format("| {} | {} | {} |\n", MarkdownCell(t.frame), Share(t.self_share), Share(t.total_share));
  }
  out += "\n";
}

void Scenario(std::string& out, const ScenarioResult& r) {
  const ProfileResult& p = *r.profile;
  out += fmt::format("#### {}\n\n", MarkdownCell(r.id));
  out += fmt::format("FVBENCH_PROFILE={}: {} RPS, {} s without and {} s with the profiler, {} Hz.\n\n",
                     MarkdownCell(p.profilers), FormatNumber(p.rate_rps), FormatNumber(p.duration_s),
                     FormatNumber(p.duration_s), p.hz);
  out += fmt::format("| the profiler's cost | without | with |\n|---|---:|---:|\n| p99 | {} | {} |\n"
                     "| {} CPU per request | {} | {} |\n\n",
                     Us(p.without.p99_us), Us(p.with.p99_us), MarkdownCell(p.cpu_service),
                     Us(p.without.cpu_us_per_request), Us(p.with.cpu_us_per_request));
  for (const ProfileFlame& f : p.flames) Flame(out, f);
  for (const std::string& e : p.errors) out += fmt::format("- profile problem: {}\n", MarkdownCell(e));
  if (!p.errors.empty()) out += "\n";
}

}  // namespace

void AppendProfileMarkdown(std::string& out, const std::vector<ScenarioResult>& results) {
  const bool any = std::any_of(results.begin(), results.end(), [](const ScenarioResult& r) { return r.profile.has_value(); });
  if (!any) return;
  out += "### Where the SUT's time goes (FVBENCH_PROFILE)\n\n"
         "Profiles are taken in phases of their own after each scenario's measured phases; they are not part of "
         "the verdict. Self: samples in the frame itself; total: samples with the frame anywhere on the stack.\n\n";
  for (const ScenarioResult& r : results) {
    if (r.profile) Scenario(out, r);
  }
}

}  // namespace fvbench
