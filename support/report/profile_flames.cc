#include "support/report/profile_flames.h"

#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "support/core/json_fields.h"
#include "support/core/profile_params.h"
#include "support/judge/flame_profile.h"
#include "support/judge/perf_collapse.h"
#include "support/report/flame_svg.h"

namespace fvbench {

Result<FoldedStacks> FoldProfileText(const std::string& level, std::string_view text, const std::string& where) {
  if (level == "cpu") return CollapsePerfScript(text, where);
  if (level == "lua") return ParseFolded(text, where);
  return Error{fmt::format("{}: profile level '{}' is neither cpu nor lua", where, level)};
}

std::string FlameFileStem(const std::string& scenario_id, const std::string& side, const std::string& service,
                          const std::string& level) {
  return side.empty() ? fmt::format("flame_{}_{}_{}", scenario_id, service, level)
                      : fmt::format("flame_{}_{}_{}_{}", scenario_id, side, service, level);
}

namespace {

// A Lua stack's leaf is its VM state ([N] compiled, [I] interpreted, [C] C
// code, [G] GC, [J] the JIT compiler: sut/lua/fvbench_lua_profile.lua); the
// top frames by self samples name the Lua function under it.
bool IsVmState(std::string_view frame) {
  return frame.size() == 3 && frame.front() == '[' && frame.back() == ']' && frame[1] >= 'A' && frame[1] <= 'Z';
}

FoldedStacks WithoutVmStates(const FoldedStacks& f) {
  FoldedStacks out;
  for (const auto& [stack, n] : f.counts) {
    const size_t cut = stack.rfind(';');
    const std::string_view leaf = cut == std::string::npos ? std::string_view(stack) : std::string_view(stack).substr(cut + 1);
    std::string kept = IsVmState(leaf) ? stack.substr(0, cut == std::string::npos ? 0 : cut) : stack;
    if (kept.empty()) kept = std::string(leaf);
    out.counts[kept] += n;
  }
  return out;
}

}  // namespace

ProfileFlame SummariseFlame(const std::string& service, const std::string& level, const FoldedStacks& f,
                            const std::string& folded_path, const std::string& svg_path) {
  ProfileFlame out{service, level, f.total(), folded_path, svg_path, {}};
  const FoldedStacks ranked = level == "lua" ? WithoutVmStates(f) : f;
  for (const FrameShare& s : TopFrames(ranked, kProfileTopFrames, /*by_self=*/true)) {
    out.top.push_back({s.frame, s.self_share, s.total_share});
  }
  return out;
}

double SampleUs(const ProfileResult& p, const std::string& service, const std::string& level, uint64_t samples) {
  const ProfilePhaseFigures& w = p.with;
  if (service == p.cpu_service && w.measured && samples > 0 && w.requests > 0 && w.cpu_us_per_request > 0) {
    return w.cpu_us_per_request * static_cast<double>(w.requests) / static_cast<double>(samples);
  }
  return ProfileSampleUs(level, p.hz);
}

ProfileDiff DiffProfiles(const std::string& against, const std::string& service, const std::string& level,
                         const DiffSide& a, const DiffSide& b, const std::string& svg_path) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  ProfileDiff d{against, service, level, a.requests, b.requests, kNaN, kNaN, svg_path, {}, ""};
  auto per_request = [](uint64_t samples, const DiffSide& s) {
    return s.requests == 0 ? kNaN : static_cast<double>(samples) * s.sample_us / static_cast<double>(s.requests);
  };
  d.a_us_per_request = per_request(a.stacks.total(), a);
  d.b_us_per_request = per_request(b.stacks.total(), b);
  if (a.stacks.total() == 0 || b.stacks.total() == 0 || a.requests == 0 || b.requests == 0) {
    const bool a_lacks = a.stacks.total() == 0 || a.requests == 0;
    d.not_compared = fmt::format("{} has no {}", a_lacks ? a.name : b.name,
                                 (a_lacks ? a.requests : b.requests) == 0 ? "requests to divide by" : "samples");
    return d;
  }
  const bool lua = level == "lua";
  const FoldedStacks ra = lua ? WithoutVmStates(a.stacks) : a.stacks;
  const FoldedStacks rb = lua ? WithoutVmStates(b.stacks) : b.stacks;
  std::map<std::string, uint64_t> totals_a, totals_b;
  for (const FrameShare& f : FrameShares(ra)) totals_a[f.frame] = f.total;
  for (const FrameShare& f : FrameShares(rb)) totals_b[f.frame] = f.total;
  for (const FrameDelta& f : TopSelfGrowth(ra, a.requests, rb, b.requests, std::numeric_limits<size_t>::max())) {
    const double a_self = f.a_per_request * a.sample_us, b_self = f.b_per_request * b.sample_us;
    d.top.push_back({f.frame, a_self, b_self, per_request(totals_a[f.frame], a), per_request(totals_b[f.frame], b),
                     (b_self - a_self) / d.a_us_per_request, f.new_in_b});
  }
  std::stable_sort(d.top.begin(), d.top.end(), [](const ProfileFrameGrowth& x, const ProfileFrameGrowth& y) {
    return x.b_self_us - x.a_self_us > y.b_self_us - y.a_self_us;
  });
  if (d.top.size() > kProfileTopGrowth) d.top.resize(kProfileTopGrowth);
  return d;
}

namespace {

namespace fs = std::filesystem;

using Graphs = std::map<std::pair<std::string, std::string>, FoldedStacks>;  // (service, level) -> stacks

// A fetched file's path as results.json gives it: relative, inside the controller's directory.
bool InsideController(const std::string& path) {
  const fs::path p(path);
  if (p.empty() || p.is_absolute()) return false;
  for (const fs::path& part : p) {
    if (part == "..") return false;
  }
  return true;
}

Graphs FoldFiles(const ProfileResult& p, const std::string& controller_dir, std::vector<std::string>& problems) {
  Graphs graphs;
  for (const ProfileFile& file : p.files) {
    if (!InsideController(file.path)) {
      problems.push_back(fmt::format("profile file '{}' is not a relative path inside {}; not read", file.path,
                                     controller_dir));
      continue;
    }
    const std::string path = controller_dir + "/" + file.path;
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(path, ec))) {
      problems.push_back(fmt::format("{}: a symbolic link, not a profile the suite fetched; not read", path));
      continue;
    }
    auto text = detail::ReadTextFile(path);
    if (!text) {
      problems.push_back(text.error().message);
      continue;
    }
    auto folded = FoldProfileText(file.level, *text, path);
    if (!folded) {
      problems.push_back(folded.error().message);
      continue;
    }
    const bool relative = file.level == "lua" && !p.edge_dir.empty();
    MergeInto(graphs[{file.service, file.level}],
              relative ? WithoutFramePrefix(*folded, p.edge_dir.back() == '/' ? p.edge_dir : p.edge_dir + "/")
                       : *folded);
  }
  return graphs;
}

std::string LevelText(const std::string& level) {
  return level == "cpu" ? "perf (C level)" : "jit.profile (Lua level)";
}

std::string Subtitle(const ProfileResult& p, const std::string& service, const std::string& level, uint64_t samples) {
  return fmt::format("{}{} {}, {} s at {} RPS, {} Hz, {} samples", p.side.empty() ? "" : "side " + p.side + ": ",
                     service, LevelText(level), p.duration_s, p.rate_rps, p.hz, samples);
}

void WriteFile(const std::string& path, const std::string& text, std::vector<std::string>& problems) {
  if (auto w = detail::WriteTextFile(path, text); !w) problems.push_back(w.error().message);
}

double ExpectedSamples(const ProfileResult& p, const std::string& service, const std::string& level) {
  const double sample_us = ProfileSampleUs(level, p.hz);
  if (service != p.cpu_service || !(sample_us > 0) || !p.with.measured) return std::numeric_limits<double>::quiet_NaN();
  return p.with.cpu_us_per_request * static_cast<double>(p.with.requests) / sample_us;  // NaN when the CPU is not known
}

void DrawSide(const std::string& id, ProfileResult& p, const Graphs& graphs, const std::string& report_dir,
              std::vector<std::string>& problems) {
  p.flames.clear();
  for (const auto& [key, stacks] : graphs) {
    const auto& [service, level] = key;
    const std::string stem = FlameFileStem(id, p.side, service, level);
    FlameSvgOptions o;
    o.title = fmt::format("{}: {} ({}){}", id, service, level, p.side.empty() ? "" : ", side " + p.side);
    o.subtitle = Subtitle(p, service, level, stacks.total());
    WriteFile(report_dir + "/" + stem + ".folded", WriteFolded(stacks), problems);
    WriteFile(report_dir + "/" + stem + ".svg", RenderFlameSvg(stacks, o), problems);
    p.flames.push_back(SummariseFlame(service, level, stacks, stem + ".folded", stem + ".svg"));
    p.flames.back().expected_samples = ExpectedSamples(p, service, level);
  }
}

// What a differential graph compares: B's profile against A's.
struct Comparison {
  std::string id;       // B's scenario
  std::string against;  // "A", or A's scenario id
  std::string stem;     // the graph's file stem side: "diff", or "vs_<A's id>"
  std::string a_name, b_name;  // in the graph's title and subtitle
};

// B against A for every service and level both have, added to b.diffs.
void DrawDiffs(const Comparison& c, const ProfileResult& a, const Graphs& ga, ProfileResult& b, const Graphs& gb,
               const std::string& report_dir, std::vector<std::string>& problems) {
  for (const auto& [key, stacks_b] : gb) {
    const auto found = ga.find(key);
    if (found == ga.end()) continue;
    const auto& [service, level] = key;
    const std::string svg = FlameFileStem(c.id, c.stem, service, level) + ".svg";
    FlameSvgOptions o;
    o.title = fmt::format("{}: {} ({}), {} against {}", c.id, service, level, c.b_name, c.a_name);
    o.subtitle = fmt::format("{}; {}'s shape, red: more samples per request than {}, blue: fewer; {} {} requests at "
                             "{} RPS, {} {} requests at {} RPS",
                             LevelText(level), c.b_name, c.a_name, c.a_name, a.with.requests, a.rate_rps, c.b_name,
                             b.with.requests, b.rate_rps);
    WriteFile(report_dir + "/" + svg,
              RenderDiffFlameSvg(found->second, a.with.requests, stacks_b, b.with.requests, o), problems);
    const FoldedStacks& stacks_a = found->second;
    b.diffs.push_back(DiffProfiles(
        c.against, service, level,
        DiffSide{stacks_a, a.with.requests, SampleUs(a, service, level, stacks_a.total()), c.a_name},
        DiffSide{stacks_b, b.with.requests, SampleUs(b, service, level, stacks_b.total()), c.b_name}, svg));
  }
}

}  // namespace

std::vector<std::string> WriteProfileFlames(std::vector<ScenarioResult>& results, const std::string& controller_dir,
                                            const std::string& report_dir) {
  std::vector<std::string> problems;
  std::map<std::string, std::pair<ProfileResult*, Graphs>> single;  // scenario id -> its profile outside A/B mode
  for (ScenarioResult& r : results) {
    Graphs ga, gb;
    if (r.profile) {
      r.profile->diffs.clear();
      ga = FoldFiles(*r.profile, controller_dir, problems);
      DrawSide(r.id, *r.profile, ga, report_dir, problems);
    }
    if (r.profile_b) {
      r.profile_b->diffs.clear();
      gb = FoldFiles(*r.profile_b, controller_dir, problems);
      DrawSide(r.id, *r.profile_b, gb, report_dir, problems);
      if (r.profile) DrawDiffs({r.id, "A", "diff", "A", "B"}, *r.profile, ga, *r.profile_b, gb, report_dir, problems);
    } else if (r.profile && r.profile->side.empty()) {
      single[r.id] = {&*r.profile, std::move(ga)};
    }
  }
  for (const auto& [id, base] : kProfileComparisons) {
    const auto b = single.find(id);
    const auto a = single.find(base);
    if (a == single.end() || b == single.end()) continue;
    DrawDiffs({id, base, std::string("vs_") + base, base, id}, *a->second.first, a->second.second, *b->second.first,
              b->second.second, report_dir, problems);
  }
  return problems;
}

}  // namespace fvbench
