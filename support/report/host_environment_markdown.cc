#include "support/report/host_environment_markdown.h"

#include "support/report/markdown_text.h"

namespace fvbench {

void AppendHostEnvironmentMarkdown(std::string& out, const std::vector<HostEnvironment>& envs) {
  if (envs.empty()) return;
  out += "### Host environment\n\nRead from each host when it was provisioned; where each value comes from: "
         "docs/outputs.md \"Host environment\".\n\n|";
  std::string rule = "|---|";
  for (const HostEnvironment& e : envs) {
    out += " | ";
    detail::AppendMarkdownCell(out, e.role + " " + e.host);
    rule += "---|";
  }
  out += " |\n" + rule + "\n";
  // Every known key, in its order (a value no host exposes is a finding
  // too), then any others a newer reader wrote.
  std::vector<std::string> keys;
  for (const EnvironmentKey& k : kEnvironmentKeys) keys.emplace_back(k.key);
  for (const HostEnvironment& e : envs) {
    for (const EnvironmentValue& v : e.values) {
      bool known = false;
      for (const std::string& k : keys) known = known || k == v.key;
      if (!known) keys.push_back(v.key);
    }
  }
  for (const std::string& k : keys) {
    out += "| ";
    detail::AppendMarkdownCell(out, k);
    for (const HostEnvironment& e : envs) {
      const std::string v = e.Get(k);
      out += " | ";
      detail::AppendMarkdownCell(out, v.empty() ? std::string(kNotExposed) : v);
    }
    out += " |\n";
  }
  out += "\n";
}

}  // namespace fvbench
