// One plot the report step writes beside report.md: its file name and SVG
// text (svg_plot.h, limits_plot.h).
#pragma once

#include <string>

namespace fvbench {

struct PlotFile {
  std::string name;  // file name inside the report directory, e.g. "latency.svg"
  std::string svg;
};

}  // namespace fvbench
