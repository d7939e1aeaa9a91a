#include "support/report/loadgens_markdown.h"

#include <fmt/format.h>

#include "support/core/units_format.h"
#include "support/report/markdown_text.h"

namespace fvbench {

void AppendLoadgensMarkdown(std::string& out, const std::vector<ScenarioResult>& results) {
  bool any = false;
  for (const auto& r : results) any = any || !r.load.loadgens.empty();
  if (!any) return;
  out += "### Load generators\n\n"
         "| Scenario | Instance | Target (RPS) | Achieved (RPS) | Failed (SUT / engine) | non-2xx | Kept up | CPU busy |\n"
         "|---|---|---:|---:|---:|---:|---|---:|\n";
  for (const auto& r : results) {
    for (const LoadgenInstance& i : r.load.loadgens) {
      const std::string cells[] = {
          r.id, i.name, detail::FormatRps(i.target_rps), detail::FormatRps(i.achieved_rps),
          fmt::format("{} / {}", i.failed_sut, i.failed_engine), std::to_string(i.non_2xx),
          i.kept_up ? "yes" : fmt::format("NO (max send lag {})", detail::FormatUs(i.max_send_lag_us)),
          i.cpu_busy >= 0 ? detail::FormatPercent(i.cpu_busy) : "not sampled"};
      out += '|';
      for (const std::string& c : cells) {
        out += ' ';
        detail::AppendMarkdownCell(out, c);
        out += " |";
      }
      out += '\n';
    }
  }
  out += "\n";
  for (const auto& r : results) {
    if (r.load.loadgens.empty()) continue;
    out += fmt::format("{}: {} instances, start skew {}\n", detail::MarkdownCell(r.id), r.load.loadgens.size(),
                       detail::FormatUs(r.load.loadgen_start_skew_us));
  }
  out += "\n";
}

}  // namespace fvbench
