#include "support/judge/reference.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "support/core/metric_names.h"
#include "support/core/json_fields.h"
#include "support/core/plausible.h"
#include "support/core/units_format.h"

namespace fvbench {

using nlohmann::json;

namespace {

constexpr const char* kLatencyKeys[] = {"decision_service", "reverse_proxy", "raw_nginx"};
constexpr const char* kThroughputKeys[] = {"simple", "complex", "llm"};
// reference.json percentile key -> threshold metric name.
constexpr std::pair<const char*, const char*> kPercentiles[] = {
    {"p50", kMetricP50}, {"p90", kMetricP90}, {"p99", kMetricP99}, {"p999", kMetricP999}};

template <size_t N>
bool Known(const char* const (&keys)[N], const std::string& k) {
  for (const char* key : keys) {
    if (k == key) return true;
  }
  return false;
}

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw detail::JsonFieldError{fmt::format("{}: {}", path, what)};
}

// The percentiles a row has, in order: p50 <= p90 <= p99 <= p999.
void CheckOrder(const Reference& ref, const std::string& id, const std::string& path) {
  const char* prev_key = nullptr;
  double prev = 0;
  for (const auto& [file_key, metric] : kPercentiles) {
    auto v = ref.value(id, metric);
    if (!v) continue;
    if (prev_key != nullptr && *v < prev) {
      Fail(path + "." + file_key,
           fmt::format("{} µs is below {}'s {} µs (percentiles must not decrease: p50 <= p90 <= p99 <= p999)",
                       detail::FormatNumber(*v), prev_key, detail::FormatNumber(prev)));
    }
    prev_key = file_key;
    prev = *v;
  }
}

void ParseInto(const json& doc, Reference& ref) {
  detail::CheckSchemaVersion(doc, 1, /*required=*/false);
  for (const auto& [key, _] : doc.items()) {
    if (key != "schema_version" && key != "meta" && key != "latency_us" && key != "throughput_rps" &&
        key != "throughput_ceiling_reached" && key != "scenarios" && key != "same_run_ratios") {
      Fail(key, "unknown key (allowed: schema_version, meta, latency_us, throughput_rps, "
                "throughput_ceiling_reached, scenarios, same_run_ratios)");
    }
  }
  if (auto it = doc.find("meta"); it != doc.end()) {
    detail::RequireObject(*it, "meta");
    for (const auto& [k, v] : it->items()) ref.meta[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (auto it = doc.find("latency_us"); it != doc.end()) {
    detail::RequireObject(*it, "latency_us");
    for (const auto& [name, row] : it->items()) {
      std::string path = "latency_us." + name;
      if (!Known(kLatencyKeys, name)) {
        Fail(path, "unknown scenario (allowed: decision_service, reverse_proxy, raw_nginx)");
      }
      detail::RequireObject(row, path);
      for (const auto& [pk, pv] : row.items()) {
        const char* metric = nullptr;
        for (const auto& [file_key, m] : kPercentiles) {
          if (pk == file_key) metric = m;
        }
        if (metric == nullptr) Fail(path + "." + pk, "unknown percentile (allowed: p50, p90, p99, p999)");
        double v = detail::GetNumber(row, pk, path);
        if (std::string why = WhyNotPositive(v, kMaxLatencyUs); !why.empty()) {
          Fail(path + "." + pk, why + " (a latency in µs)");
        }
        ref.values[{"latency." + name, metric}] = v;
      }
      CheckOrder(ref, "latency." + name, path);
    }
  }
  if (auto it = doc.find("throughput_rps"); it != doc.end()) {
    detail::RequireObject(*it, "throughput_rps");
    for (const auto& [name, v] : it->items()) {
      if (!Known(kThroughputKeys, name)) {
        Fail("throughput_rps." + name, "unknown scenario (allowed: simple, complex, llm)");
      }
      double rps = detail::GetNumber(*it, name, "throughput_rps");
      if (std::string why = WhyNotPositive(rps, kMaxRateRps); !why.empty()) {
        Fail("throughput_rps." + name, why + " (a rate in requests per second)");
      }
      ref.values[{"throughput." + name, "rps"}] = rps;
    }
  }
  if (auto it = doc.find("throughput_ceiling_reached"); it != doc.end()) {
    detail::RequireObject(*it, "throughput_ceiling_reached");
    for (const auto& [name, v] : it->items()) {
      if (!Known(kThroughputKeys, name)) {
        Fail("throughput_ceiling_reached." + name, "unknown scenario (allowed: simple, complex, llm)");
      }
      ref.ceiling["throughput." + name] = detail::GetBool(*it, name, "throughput_ceiling_reached");
    }
  }
}

}  // namespace

std::optional<double> Reference::value(const std::string& scenario_id, const std::string& metric) const {
  auto it = values.find({scenario_id, metric});
  if (it == values.end()) return std::nullopt;
  return it->second;
}

bool Reference::lower_bound(const std::string& scenario_id) const {
  auto it = ceiling.find(scenario_id);
  return it != ceiling.end() && it->second;
}

std::optional<double> Reference::latency_rps() const {
  for (const char* key : {"latency_rps", "rps_latency"}) {
    auto it = meta.find(key);
    if (it == meta.end()) continue;
    char* end = nullptr;
    double v = std::strtod(it->second.c_str(), &end);
    if (end != it->second.c_str() && *end == '\0' && std::isfinite(v) && v > 0) return v;
  }
  return std::nullopt;
}

std::string LatencyLoadMismatch(const Reference& cmp, double run_latency_rps) {
  auto theirs = cmp.latency_rps();
  if (!theirs || !(run_latency_rps > 0) || std::fabs(*theirs - run_latency_rps) <= 0.01 * *theirs) return "";
  return fmt::format("latency deltas compare different loads: this run at {} RPS, the {} at {} RPS",
                     detail::FormatRps(run_latency_rps), cmp.baseline ? "baseline" : "reference",
                     detail::FormatRps(*theirs));
}

std::string Reference::describe() const {
  if (baseline) {
    auto started = meta.find("started_utc");
    auto commit = meta.find("edge_commit");
    std::string run = started == meta.end() || started->second.empty() ? "run of unknown date"
                                                                        : "run started " + started->second;
    std::string edge = commit == meta.end() || commit->second.empty() ? "edge commit unknown"
                                                                      : "edge " + commit->second.substr(0, 12);
    return fmt::format("{} ({}, {})", source_name, run, edge);
  }
  auto it = meta.find("source");
  return it == meta.end() ? source_name : it->second;
}

Result<Reference> ParseReference(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  Reference ref;
  ref.source_name = source_name;
  try {
    ParseInto(*doc, ref);
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  } catch (const json::exception& e) {
    return Error{fmt::format("{}: {}", source_name, e.what())};
  }
  return ref;
}

Result<Reference> LoadReference(const std::string& path) {
  auto text = detail::ReadTextFile(path);
  if (!text.ok()) return text.error();
  return ParseReference(*text, path);
}

}  // namespace fvbench
