#include "support/judge/loadgen_start.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "support/core/units_format.h"

namespace fvbench {

using detail::FormatNumber;

double NextLoadgenLeadS(double slowest_launch_s) {
  if (!(slowest_launch_s >= 0)) return kLoadgenStartLeadS;
  return std::clamp(kLoadgenLeadFactor * slowest_launch_s + kLoadgenLeadMarginS, kLoadgenMinLeadS,
                    kLoadgenMaxLeadS);
}

double SlowestLaunchS(const std::vector<ProcessStart>& starts) {
  double slowest = -1;
  for (const ProcessStart& s : starts) {
    if (!(s.launch_s >= 0)) return -1;
    slowest = std::max(slowest, s.launch_s);
  }
  return slowest;
}

std::string LateStarts(const std::vector<ProcessStart>& starts, double lead_s) {
  std::string out;
  for (const ProcessStart& s : starts) {
    if (!(s.late_us > 0)) continue;
    std::string launch = s.launch_s >= 0 ? fmt::format("its launch took {} s", FormatNumber(s.launch_s))
                                         : std::string("its launch time not known");
    std::string missed =
        s.missed_slots > 0 ? fmt::format("; {} slots due before it was up skipped, none sent late", s.missed_slots)
                           : "";
    out += fmt::format("{}loadgen {} (host {}) was not ready at the common start: ready {} s after it (lead {} s; "
                       "{}{})",
                       out.empty() ? "" : "; ", s.name, s.host, FormatNumber(s.late_us / 1e6), FormatNumber(lead_s),
                       launch, missed);
  }
  return out;
}

std::string LoadgenLeadToJson(const LoadgenLeadRecord& r) {
  nlohmann::json doc = {{"schema", "fvbench.loadgen-lead/1"},
                        {"hosts", r.hosts},
                        {"launch_s", r.launch_s},
                        {"lead_s", NextLoadgenLeadS(r.launch_s)},
                        {"measured_in", r.measured_in},
                        {"updated_unix", r.updated_unix}};
  return doc.dump(2) + "\n";
}

Result<LoadgenLeadRecord> LoadgenLeadFromJson(const std::string& text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    return Error{fmt::format("{}: not valid JSON: {}", source, e.what())};
  }
  auto bad = [&](const char* what) { return Error{fmt::format("{}: {}", source, what)}; };
  if (!doc.is_object() || doc.value("schema", "") != "fvbench.loadgen-lead/1") {
    return bad("not a fvbench.loadgen-lead/1 document");
  }
  LoadgenLeadRecord r;
  const auto hosts = doc.find("hosts");
  if (hosts == doc.end() || !hosts->is_array()) return bad("field `hosts` is not a list");
  for (const auto& h : *hosts) {
    if (!h.is_string()) return bad("field `hosts` holds a non-string");
    r.hosts.push_back(h.get<std::string>());
  }
  const auto launch = doc.find("launch_s");
  if (launch == doc.end() || !launch->is_number() || !std::isfinite(launch->get<double>()) ||
      launch->get<double>() < 0) {
    return bad("field `launch_s` is not a number >= 0");
  }
  r.launch_s = launch->get<double>();
  if (auto m = doc.find("measured_in"); m != doc.end() && m->is_string()) r.measured_in = m->get<std::string>();
  if (auto u = doc.find("updated_unix"); u != doc.end() && u->is_number()) r.updated_unix = u->get<double>();
  return r;
}

}  // namespace fvbench
