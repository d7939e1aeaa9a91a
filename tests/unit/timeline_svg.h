// SVG readers shared by the timeline plot tests (timeline_plot_test.cc,
// timeline_latency_panel_test.cc, steps_timeline_plot_test.cc).
#pragma once

#include <regex>
#include <string>
#include <utility>
#include <vector>

namespace fvbench::testing_samples {

// The x attribute and width of each rect with the stall fill (#f7c6cf).
inline std::vector<std::pair<double, double>> StallRects(const std::string& svg) {
  static const std::regex rect(R"re(<rect x="([-0-9.]+)" y="[-0-9.]+" width="([-0-9.]+)" height="[-0-9.]+" fill="#f7c6cf"/>)re");
  std::vector<std::pair<double, double>> out;
  for (std::sregex_iterator it(svg.begin(), svg.end(), rect), end; it != end; ++it) {
    out.emplace_back(std::stod((*it)[1].str()), std::stod((*it)[2].str()));
  }
  return out;
}

// How often `what` occurs in `s` (not overlapping).
inline size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// What is drawn after an SVG comment `from` up to the next comment or the
// end ("" when there is no such comment).
inline std::string Section(const std::string& svg, const std::string& from) {
  const size_t a = svg.find("<!-- " + from);
  if (a == std::string::npos) return "";
  const size_t b = svg.find("<!--", a + 4);
  return svg.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace fvbench::testing_samples
