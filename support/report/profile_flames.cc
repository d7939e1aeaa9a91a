#include "support/report/profile_flames.h"

#include <map>
#include <utility>

#include <fmt/format.h>

#include "support/core/json_fields.h"
#include "support/judge/flame_profile.h"
#include "support/judge/perf_collapse.h"
#include "support/report/flame_svg.h"

namespace fvbench {

Result<FoldedStacks> FoldProfileText(const std::string& level, std::string_view text, const std::string& where) {
  if (level == "cpu") return CollapsePerfScript(text, where);
  if (level == "lua") return ParseFolded(text, where);
  return Error{fmt::format("{}: profile level '{}' is neither cpu nor lua", where, level)};
}

std::string FlameFileStem(const std::string& scenario_id, const std::string& service, const std::string& level) {
  return fmt::format("flame_{}_{}_{}", scenario_id, service, level);
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

namespace {

std::string Subtitle(const ProfileResult& p, const std::string& service, const std::string& level, uint64_t samples) {
  return fmt::format("{} {}, {} s at {} RPS, {} Hz, {} samples", service, level == "cpu" ? "perf (C level)" : "jit.profile (Lua level)",
                     p.duration_s, p.rate_rps, p.hz, samples);
}

}  // namespace

std::vector<std::string> WriteProfileFlames(std::vector<ScenarioResult>& results, const std::string& controller_dir,
                                            const std::string& report_dir) {
  std::vector<std::string> problems;
  for (ScenarioResult& r : results) {
    if (!r.profile) continue;
    ProfileResult& p = *r.profile;
    p.flames.clear();
    std::map<std::pair<std::string, std::string>, FoldedStacks> graphs;  // (service, level) -> stacks
    for (const ProfileFile& file : p.files) {
      const std::string path = controller_dir + "/" + file.path;
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
      MergeInto(graphs[{file.service, file.level}], *folded);
    }
    for (const auto& [key, stacks] : graphs) {
      const auto& [service, level] = key;
      const std::string stem = FlameFileStem(r.id, service, level);
      FlameSvgOptions o;
      o.title = fmt::format("{}: {} ({})", r.id, service, level);
      o.subtitle = Subtitle(p, service, level, stacks.total());
      for (const auto& [name, text] : {std::pair{stem + ".folded", WriteFolded(stacks)},
                                       std::pair{stem + ".svg", RenderFlameSvg(stacks, o)}}) {
        if (auto w = detail::WriteTextFile(report_dir + "/" + name, text); !w) problems.push_back(w.error().message);
      }
      p.flames.push_back(SummariseFlame(service, level, stacks, stem + ".folded", stem + ".svg"));
    }
  }
  return problems;
}

}  // namespace fvbench
