// One plot the report step writes beside report.md: its file name and SVG
// text (svg_plot.h, limits_plot.h).
#pragma once

#include <string>
#include <vector>

namespace fvbench {

struct PlotFile {
  std::string name;  // file name inside the report directory, e.g. "latency.svg"
  std::string svg;
};

// One plot per result that has one, in `results` order: `name(r)` gives its
// file name ("" = none), `render(r)` its SVG.
template <class Result, class NameFn, class RenderFn>
std::vector<PlotFile> PlotsOf(const std::vector<Result>& results, NameFn name, RenderFn render) {
  std::vector<PlotFile> out;
  for (const Result& r : results) {
    std::string file = name(r);
    if (!file.empty()) out.push_back({std::move(file), render(r)});
  }
  return out;
}

}  // namespace fvbench
