#include "support/report/flame_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <vector>

#include "support/report/svg_writer.h"

namespace fvbench {
namespace {

constexpr double kPad = 10;
constexpr double kNoteLine = 16;

// One path from the root: B's samples (the graph's shape) and, in a
// differential graph, A's samples on the same path.
struct Node {
  uint64_t b = 0;
  uint64_t a = 0;
  std::map<std::string, Node, std::less<>> children;
};

// Adds the stacks of `f` to the tree under `root`; side_b selects the count.
// Frames past kMaxFlameDepth are left out (their samples stay in the frame
// below): the tree, drawn and freed recursively, stays shallow.
void AddStacks(Node& root, const FoldedStacks& f, bool side_b) {
  for (const auto& [stack, n] : f.counts) {
    if (n == 0) continue;
    Node* node = &root;
    (side_b ? node->b : node->a) += n;
    std::vector<std::string_view> frames = SplitFrames(stack);
    if (frames.size() > kMaxFlameDepth) frames.resize(kMaxFlameDepth);
    for (std::string_view frame : frames) {
      auto it = node->children.find(frame);
      if (it == node->children.end()) it = node->children.emplace(std::string(frame), Node{}).first;
      node = &it->second;
      (side_b ? node->b : node->a) += n;
    }
  }
}

uint64_t Fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

std::string Rgb(double r, double g, double b) {
  return fmt::format("rgb({},{},{})", static_cast<int>(std::lround(r)), static_cast<int>(std::lround(g)),
                     static_cast<int>(std::lround(b)));
}

// A frame's colour: its family (kernel, JIT, Lua, C) and a hash of its name within it.
std::string FrameColour(std::string_view name) {
  uint64_t h = Fnv1a(name);
  double v1 = static_cast<double>(h & 0xffff) / 65535.0;
  double v2 = static_cast<double>((h >> 16) & 0xffff) / 65535.0;
  double v3 = static_cast<double>((h >> 32) & 0xffff) / 65535.0;
  if (EndsWith(name, "_[k]")) return Rgb(235 + 20 * v1, 150 + 45 * v2, 20 * v3);         // orange
  if (name.rfind("[JIT]", 0) == 0) return Rgb(60 + 50 * v1, 175 + 35 * v2, 205 + 35 * v3);  // aqua
  if (name.find(".lua:") != std::string_view::npos || name.find('@') != std::string_view::npos) {
    return Rgb(70 + 50 * v1, 175 + 45 * v2, 60 + 50 * v3);  // green
  }
  return Rgb(205 + 50 * v1, 50 + 70 * v2, 40 + 40 * v3);  // red
}

// Differential colour: red grew, blue shrank, white unchanged (flamegraph.pl --negate off).
std::string DiffColour(double a, double b) {
  double most = std::max(a, b);
  double rel = most > 0 ? std::fabs(b - a) / most : 0;
  double v = 210 * std::clamp(rel, 0.0, 1.0);
  if (b > a) return Rgb(255, 255 - v, 255 - v);
  if (b < a) return Rgb(255 - v, 255 - v, 255);
  return Rgb(250, 250, 250);
}

std::string Percent(double fraction) {
  double p = fraction * 100;
  return p >= 0.1 || p == 0 ? fmt::format("{:.1f} %", p) : fmt::format("{:.3f} %", p);
}

std::string SignedPercent(double fraction) { return fmt::format("{:+.1f} %", fraction * 100); }

struct Layout {
  const FlameSvgOptions& o;
  double frames_top = 0;  // y of the top of the highest row
  int rows = 0;           // rows drawn
  double x_per_unit = 0;
  uint64_t root_b = 0;
  double ra = 1, rb = 1;  // requests, differential only
  bool diff = false;
  double omitted = 0;  // B samples in frames not drawn
};

// Rows needed to draw the frames at least min_width_share wide.
int DrawnDepth(const Node& n, uint64_t root, double min_share) {
  int deepest = 0;
  for (const auto& [name, c] : n.children) {
    if (static_cast<double>(c.b) < min_share * static_cast<double>(root) || c.b == 0) continue;
    deepest = std::max(deepest, 1 + DrawnDepth(c, root, min_share));
  }
  return deepest;
}

void DrawFrame(svg::Svg& s, Layout& l, std::string_view name, const Node& n, double x, int depth) {
  const double w = static_cast<double>(n.b) * l.x_per_unit;
  const double y = l.frames_top + (l.rows - 1 - depth) * l.o.frame_height;
  std::string title, fill;
  if (l.diff) {
    double a = static_cast<double>(n.a) / l.ra, b = static_cast<double>(n.b) / l.rb;
    std::string change = n.a == 0 ? "new in B" : SignedPercent((b - a) / a);
    title = fmt::format("{} (B {:.4g}, A {:.4g} samples/request, {})", name, b, a, change);
    fill = DiffColour(a, b);
  } else {
    title = fmt::format("{} ({} samples, {})", name, n.b,
                        Percent(static_cast<double>(n.b) / static_cast<double>(l.root_b)));
    fill = FrameColour(name);
  }
  s.Group(title);
  s.Rect(x, y, w, l.o.frame_height - 1, fill.c_str(), l.diff ? "#d8d8d8" : "none", l.diff ? 0.5 : 0);
  double fit = std::floor((w - 6) / (l.o.font_size * 0.6));
  if (fit >= 3) {
    s.Text(x + 3, y + l.o.frame_height - 4.5, svg::Shorten(name, static_cast<size_t>(fit) - 1), l.o.font_size);
  }
  s.EndGroup();
  const double min_units = l.o.min_width_share * static_cast<double>(l.root_b);
  double cx = x;
  for (const auto& [child, c] : n.children) {
    if (c.b == 0) continue;
    if (static_cast<double>(c.b) < min_units) {
      l.omitted += static_cast<double>(c.b);
    } else {
      DrawFrame(s, l, child, c, cx, depth + 1);
    }
    cx += static_cast<double>(c.b) * l.x_per_unit;
  }
}

// A's samples on paths that B does not have.
uint64_t OnlyInA(const Node& n) {
  uint64_t sum = 0;
  for (const auto& [name, c] : n.children) sum += c.b == 0 ? c.a : OnlyInA(c);
  return sum;
}

std::string Render(const Node& root, const FlameSvgOptions& o, bool diff, double ra, double rb,
                   const std::vector<std::string>& extra_notes) {
  svg::Svg s(o.width);
  s.Text(o.width / 2, 24, o.title, 17, "middle", svg::kInk, true);
  double top = 34;
  if (!o.subtitle.empty()) {
    s.Text(o.width / 2, 42, o.subtitle, 12, "middle", svg::kMuted);
    top = 52;
  }
  Layout l{o};
  l.diff = diff;
  l.ra = ra;
  l.rb = rb;
  l.root_b = root.b;
  std::vector<std::string> notes;
  if (root.b == 0) {
    notes.push_back("No samples.");
  } else {
    l.rows = 1 + DrawnDepth(root, root.b, o.min_width_share);
    l.frames_top = top;
    l.x_per_unit = (o.width - 2 * kPad) / static_cast<double>(root.b);
    DrawFrame(s, l, "all", root, kPad, 0);
    top += l.rows * o.frame_height;
    if (l.omitted > 0) {
      notes.push_back(fmt::format("{} samples ({}) in frames narrower than {} of the width are not drawn.",
                                  static_cast<uint64_t>(l.omitted), Percent(l.omitted / static_cast<double>(root.b)),
                                  Percent(o.min_width_share)));
    }
  }
  notes.insert(notes.end(), extra_notes.begin(), extra_notes.end());
  double y = top + 18;
  for (const std::string& note : notes) {
    s.Text(kPad, y, note, 12, "start", svg::kMuted);
    y += kNoteLine;
  }
  return s.Finish(o.title, y - kNoteLine + 10);
}

}  // namespace

std::string RenderFlameSvg(const FoldedStacks& f, const FlameSvgOptions& o) {
  Node root;
  AddStacks(root, f, true);
  return Render(root, o, false, 1, 1,
                {"Width: samples. Colour: kernel orange, JIT aqua, Lua green, C red. Callers below callees; "
                 "siblings by name."});
}

std::string RenderDiffFlameSvg(const FoldedStacks& a, uint64_t requests_a, const FoldedStacks& b,
                               uint64_t requests_b, const FlameSvgOptions& o) {
  if (requests_a == 0 || requests_b == 0) {
    return Render(Node{}, o, true, 1, 1,
                  {fmt::format("Side {} served no requests: no samples per request to compare.",
                               requests_a == 0 ? "A" : "B")});
  }
  Node root;
  AddStacks(root, a, false);
  AddStacks(root, b, true);
  const double ra = static_cast<double>(requests_a), rb = static_cast<double>(requests_b);
  std::vector<std::string> notes = {
      "Width: B's samples. Colour: change of samples per request from A to B on the same stack: red grew, "
      "blue shrank, white unchanged."};
  uint64_t only_a = OnlyInA(root);
  if (only_a > 0) {
    notes.push_back(fmt::format("Stacks only in A ({:.4g} samples/request, {} of A) are not drawn.",
                                static_cast<double>(only_a) / ra,
                                Percent(static_cast<double>(only_a) / static_cast<double>(a.total()))));
  }
  return Render(root, o, true, ra, rb, notes);
}

}  // namespace fvbench
