// Flame graphs of folded stacks (core/folded_stacks.h) as self-contained SVG,
// readable without scripts: the layout and colours of Brendan Gregg's
// flamegraph.pl (FlameGraph, "flamegraph.pl --help"), drawn by
// report/svg_writer.h. Pure; deterministic (same stacks and options, same
// bytes); UTF-8, SVG 1.1, no scripts, no external references.
//
// RenderFlameSvg: one frame per distinct path from the root, a box whose
// width is proportional to its samples (the stacks through it), its callers
// below it: the bottom row is "all" (every sample), then the stacks' roots
// (for perf, the process name), up to the leaves. Children are ordered by
// name (byte order), as flamegraph.pl does: x is not time. Each frame is
//   <g><title>name (N samples, x.x %)</title><rect .../><text ...>name</text></g>
// the tooltip's share of all samples; the text is the name cut with "…" to
// the box (none in a box under ~3 characters). A frame narrower than
// min_width_share of the whole width is not drawn, nor anything above it; a
// footnote says how many samples were in such frames. Frames deeper than
// kMaxFlameDepth in a stack are not drawn (perf records at most 127). Colours are a hash of
// the name within a family: kernel frames (ending "_[k]") orange, JIT code
// ("[JIT]...") aqua, Lua frames (containing ".lua:" or "@") green, other
// (C) frames red.
//
// RenderDiffFlameSvg: the differential graph of flamegraph.pl / difffolded.pl:
// B's shape (widths: B's samples), each frame coloured by the change of its
// samples per request from A to B on the same path: red grew, blue shrank,
// white unchanged; the intensity is |b - a| / max(a, b) per request (a frame
// new in B is full red). The tooltip gives B's and A's samples per request
// and the relative change. Frames only in A are not drawn: a footnote gives
// their samples per request. requests_a or requests_b 0 draws no frames but
// a note saying there is nothing to normalise by.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "support/core/folded_stacks.h"

namespace fvbench {

inline constexpr size_t kMaxFlameDepth = 512;

struct FlameSvgOptions {
  std::string title = "Flame graph";
  std::string subtitle;              // e.g. "edge, 10 s at 2000 RPS, 19 871 samples"; none when empty
  double width = 1200;               // px
  double frame_height = 16;          // px per stack level
  double font_size = 11;             // frame names, px
  double min_width_share = 0.001;    // frames under this share of the width are omitted (0.1 %)
};

std::string RenderFlameSvg(const FoldedStacks& f, const FlameSvgOptions& o);
std::string RenderDiffFlameSvg(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                               uint64_t requests_b, const FlameSvgOptions& o);

}  // namespace fvbench
