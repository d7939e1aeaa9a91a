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

// Per-frame CPU per request: two decimals (a frame's share is often under 1 µs).
std::string UsFine(double v) { return std::isnan(v) ? "not measured" : FormatNumber(std::round(v * 100) / 100) + " µs"; }

std::string Share(double v) { return fmt::format("{:.1f} %", v * 100); }

std::string LevelName(const std::string& level) { return level == "cpu" ? "C level, perf" : "Lua level, jit.profile"; }

// "42 samples", with what the service's CPU time would give beside it, and a
// warning when the profiler caught fewer than half of those.
std::string SamplesText(const ProfileFlame& f) {
  std::string out = fmt::format("{} samples", f.samples);
  if (f.samples > 0 && f.samples < kFewProfileSamples) out += " (few: its shares are rough)";
  if (std::isnan(f.expected_samples) || f.expected_samples < 1) return out;
  out += fmt::format(" of ≈{} its CPU time in the phase gives", FormatNumber(std::round(f.expected_samples)));
  if (static_cast<double>(f.samples) < 0.5 * f.expected_samples) {
    out += " (**fewer than half: this profile missed samples; read its shares with care**)";
  }
  return out;
}

void Flame(std::string& out, const ProfileFlame& f) {
  out += fmt::format("**{} ({})**: [{}]({}), {} ([folded]({}))\n\n", MarkdownCell(f.service), LevelName(f.level),
                     MarkdownCell(f.svg_path), f.svg_path, SamplesText(f), f.folded_path);
  if (f.top.empty()) return;
  out += "| frame | self | total |\n|---|---:|---:|\n";
  for (size_t i = 0; i < std::min(f.top.size(), kProfileMarkdownFrames); ++i) {
    const ProfileFrameShare& t = f.top[i];
    out += fmt::format("| {} | {} | {} |\n", MarkdownCell(t.frame), Share(t.self_share), Share(t.total_share));
  }
  out += "\n";
}

std::string Signed(double v) { return fmt::format("{:+.1f} %", v * 100); }

constexpr const char* kGrowthMethod =
    "a frame's CPU µs per request = its share of the samples × the measured CPU per request of the phase with the "
    "profiler (for another service: samples × the sampling period ÷ requests); self: the frame's own code, total: "
    "with its callees; ranked by the growth of self, as a share of the first one's whole cost per request";

// One differential graph: its link, both profiles' CPU per request and the
// frames whose own CPU per request grew most, `b` against `a`.
void Growth(std::string& out, const ProfileDiff& d, const std::string& a, const std::string& b) {
  out += fmt::format("\n**{} ({})**: [{}]({}); all frames: {} {}, {} {} per request\n\n", MarkdownCell(d.service),
                     LevelName(d.level), MarkdownCell(d.svg_path), d.svg_path, MarkdownCell(a), Us(d.a_us_per_request),
                     MarkdownCell(b), Us(d.b_us_per_request));
  if (!d.not_compared.empty()) {
    out += fmt::format("Not compared: {}.\n", MarkdownCell(d.not_compared));
    return;
  }
  if (d.top.empty()) return;
  out += fmt::format("| frame | self {0} | self {1} | total {0} | total {1} | self change, of {0}'s cost |\n"
                     "|---|---:|---:|---:|---:|---:|\n",
                     MarkdownCell(a), MarkdownCell(b));
  for (size_t i = 0; i < std::min(d.top.size(), kProfileMarkdownFrames); ++i) {
    const ProfileFrameGrowth& g = d.top[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {}{} |\n", MarkdownCell(g.frame), UsFine(g.a_self_us),
                       UsFine(g.b_self_us), UsFine(g.a_total_us), UsFine(g.b_total_us), Signed(g.share_of_a),
                       g.new_in_b ? fmt::format(" (new in {})", MarkdownCell(b)) : "");
  }
}

void Side(std::string& out, const std::string& id, const ProfileResult& p) {
  out += fmt::format("#### {}{}\n\n", MarkdownCell(id), p.side.empty() ? "" : ", side " + MarkdownCell(p.side));
  if (!p.without.measured && !p.with.measured) {
    out += fmt::format("FVBENCH_PROFILE={}: the profile phases did not run.\n\n", MarkdownCell(p.profilers));
  } else {
    out += fmt::format("FVBENCH_PROFILE={}: {} RPS, {} s without and {} s with the profiler, {} Hz.\n\n",
                       MarkdownCell(p.profilers), FormatNumber(p.rate_rps), FormatNumber(p.duration_s),
                       FormatNumber(p.duration_s), p.hz);
    out += fmt::format("| the profiler's cost | without | with |\n|---|---:|---:|\n| p99 | {} | {} |\n"
                       "| {} CPU per request | {} | {} |\n\n",
                       Us(p.without.p99_us), Us(p.with.p99_us), MarkdownCell(p.cpu_service),
                       Us(p.without.cpu_us_per_request), Us(p.with.cpu_us_per_request));
  }
  for (const ProfileFlame& f : p.flames) Flame(out, f);
  for (const std::string& e : p.errors) out += fmt::format("- profile problem: {}\n", MarkdownCell(e));
  if (!p.errors.empty()) out += "\n";
  for (const ProfileDiff& d : p.diffs) {
    if (d.against == "A") {
      out += fmt::format("Differential graph, B against A, {} ({}): [{}]({}) (frames that grew: in the A/B "
                         "comparison)\n\n",
                         MarkdownCell(d.service), LevelName(d.level), MarkdownCell(d.svg_path), d.svg_path);
    }
  }
  const bool against_scenario =
      std::any_of(p.diffs.begin(), p.diffs.end(), [](const ProfileDiff& d) { return d.against != "A"; });
  if (!against_scenario) return;
  out += fmt::format("Against {} (profiled in this run, each scenario at its own profile rate; {}):\n",
                     MarkdownCell(p.diffs.front().against), kGrowthMethod);
  for (const ProfileDiff& d : p.diffs) {
    if (d.against != "A") Growth(out, d, d.against, id);
  }
  out += "\n";
}

void Scenario(std::string& out, const ScenarioResult& r) {
  if (r.profile) Side(out, r.id, *r.profile);
  if (r.profile_b) Side(out, r.id, *r.profile_b);
}

}  // namespace

void AppendProfileGrowthMarkdown(std::string& out, const ProfileResult& b) {
  const bool any = std::any_of(b.diffs.begin(), b.diffs.end(), [](const ProfileDiff& d) { return d.against == "A"; });
  if (!any) return;
  out += fmt::format("\nWhere B's CPU per request changed (FVBENCH_PROFILE: both sides profiled at {} RPS; {}):\n",
                     FormatNumber(b.rate_rps), kGrowthMethod);
  for (const ProfileDiff& d : b.diffs) {
    if (d.against == "A") Growth(out, d, "A", "B");
  }
}

void AppendProfileMarkdown(std::string& out, const std::vector<ScenarioResult>& results) {
  const bool any = std::any_of(results.begin(), results.end(),
                               [](const ScenarioResult& r) { return r.profile.has_value() || r.profile_b.has_value(); });
  if (!any) return;
  out += "### Where the SUT's time goes (FVBENCH_PROFILE)\n\n"
         "Profiles are taken in phases of their own after each scenario's measured phases; they are not part of "
         "the verdict. Self: samples in the frame itself; total: samples with the frame anywhere on the stack.\n\n";
  for (const ScenarioResult& r : results) {
    Scenario(out, r);
  }
}

}  // namespace fvbench
