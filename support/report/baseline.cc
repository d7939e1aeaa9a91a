#include "support/report/baseline.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "support/core/bench_layout.h"
#include "support/core/metric_names.h"
#include "support/core/json_fields.h"
#include "support/judge/ratios.h"
#include "support/judge/thresholds.h"
#include "support/report/results_io.h"
#include "support/judge/verdict.h"

namespace fvbench {

namespace {

std::string AllowedIds() {
  std::vector<std::string> ids;
  for (const char* id : kLatencyScenarios) ids.emplace_back(id);
  for (const char* id : kThroughputScenarios) ids.emplace_back(id);
  for (const char* id : kLimitsScenarios) ids.emplace_back(id);
  return fmt::format("{}", fmt::join(ids, ", "));
}

bool KnownId(const std::string& id) {
  for (const char* k : kLatencyScenarios) {
    if (id == k) return true;
  }
  for (const char* k : kThroughputScenarios) {
    if (id == k) return true;
  }
  for (const char* k : kLimitsScenarios) {
    if (id == k) return true;
  }
  return false;
}

}  // namespace

Result<Reference> ParseBaseline(std::string_view text, const std::string& source_name) {
  auto doc = detail::ParseJsonText(text, source_name);
  if (!doc.ok()) return doc.error();
  try {
    detail::CheckSchemaVersion(*doc, 1, /*required=*/true);
    if (!doc->contains("scenarios")) {
      throw detail::JsonFieldError{
          "scenarios: missing (a baseline is a results.json written by fvbench: BENCH_DIR/report/results.json)"};
    }
    const auto& all = detail::GetArray(*doc, "scenarios", "");
    for (size_t i = 0; i < all.size(); ++i) {
      std::string path = fmt::format("scenarios[{}]", i);
      detail::RequireObject(all[i], path);
      std::string id = detail::GetString(all[i], "id", path);
      if (!KnownId(id)) {
        throw detail::JsonFieldError{
            fmt::format("{}.id: unknown scenario '{}' (allowed: {})", path, id, AllowedIds())};
      }
    }
  } catch (const detail::JsonFieldError& e) {
    return Error{fmt::format("{}: {}", source_name, e.message)};
  } catch (const nlohmann::json::exception& e) {
    return Error{fmt::format("{}: {}", source_name, e.what())};
  }
  // Every field of the scenarios and meta, typed (names the key path).
  auto run = RunResultsFromJson(text, source_name);
  if (!run.ok()) return run.error();
  // The summary blocks, as a reference (unknown keys, non-numbers).
  auto ref = ParseReference(text, source_name);
  if (!ref.ok()) return ref.error();
  ref->baseline = true;
  ref->environments = run->meta.environments;
  for (const ScenarioResult& r : run->scenarios) {
    if (r.measured && r.id.rfind("latency.", 0) == 0) ref->values.try_emplace({r.id, kMetricMax}, r.load.latency_us.max);
    if (!r.measured || r.limits.empty()) continue;
    // The limits figures as a threshold profile gates them (the worst phase).
    for (const char* metric : {kMetricOverAdmission, kMetricUnderAdmission, kMetricWindowExcess}) {
      const double v = MetricValue(r, metric);
      if (std::isfinite(v)) ref->values.try_emplace({r.id, metric}, v);
    }
  }
  return ref;
}

Result<Reference> LoadBaseline(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // e.g. FVBENCH_BASELINE=$BENCH_DIR: name the file the user probably meant.
    std::string results = (std::filesystem::path(path) / "report" / "results.json").lexically_normal().string();
    return Error{fmt::format("{}: is a directory, not a results.json file{}", path,
                             std::filesystem::is_regular_file(results, ec)
                                 ? fmt::format(" (did you mean {}?)", results)
                                 : std::string(" (a baseline is the file BENCH_DIR/report/results.json of a run)"))};
  }
  auto text = detail::ReadTextFile(path);
  if (!text.ok()) return text.error();
  return ParseBaseline(*text, path);
}

Result<BaselineSaved> SaveBaseline(const std::string& bench_dir, const std::string& dest, bool force) {
  if (bench_dir.empty()) return Error{"BENCH_DIR is empty: give the run's BENCH_DIR"};
  if (dest.empty()) return Error{"the destination is empty: give the file to save the baseline as"};
  BaselineSaved out;
  out.source = layout::ReportResultsPath(bench_dir);
  // Absolute, so the "use it: FVBENCH_BASELINE=..." hint is accepted as is
  // (config.h requires an absolute path; tests run in the build tree).
  {
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(dest, ec);
    out.dest = ec ? dest : abs.lexically_normal().string();
  }
  {
    std::error_code ec;
    if (std::filesystem::equivalent(out.source, dest, ec)) {
      return Error{fmt::format("{}: is the run's own results.json; give a file outside {}/report/ as the "
                               "destination (the next run overwrites this one)", out.dest, bench_dir)};
    }
  }
  auto text = detail::ReadTextFile(out.source);
  if (!text.ok()) {
    return Error{fmt::format("{} (is BENCH_DIR right, and did the run's fvbench.report step run?)",
                             text.error().message)};
  }
  if (auto b = ParseBaseline(*text, out.source); !b.ok()) return b.error();
  auto run = RunResultsFromJson(*text, out.source);
  if (!run.ok()) return run.error();
  out.scenarios = static_cast<int>(run->scenarios.size());
  int measured = 0;
  for (const ScenarioResult& r : run->scenarios) {
    if (r.measured) ++measured;
    const Judgement j = JudgeScenario(r);
    if (j.verdict == Verdict::kPass) continue;
    out.not_passed.push_back(
        fmt::format("{}: {} ({})", r.id, r.interrupted ? "interrupted" : VerdictName(j.verdict), j.summary));
  }
  // A scenario measured before this run's start is an earlier ctest run's
  // result the report step merged in (`-R latency`, then `-R throughput`
  // into the same BENCH_DIR): a baseline of mixed runs is refused unless
  // forced, like a failed one.
  for (const ScenarioResult& r : run->scenarios) {
    if (FromEarlierRun(r, run->meta.started_unix)) {
      out.not_passed.push_back(fmt::format("{}: from an earlier ctest run (measured {}, this run started {})", r.id,
                                           FormatUtc(r.started_unix), FormatUtc(run->meta.started_unix)));
    }
  }
  if (measured == 0) {
    return Error{fmt::format("{}: no scenario measured anything; nothing to compare with, not saved as {}",
                             out.source, dest)};
  }
  if (!out.not_passed.empty() && !force) {
    return Error{fmt::format("{}: refusing to save as a baseline: {} scenario(s) did not pass or are not from this run:\n  {}\n"
                             "(--force saves it anyway)",
                             out.source, out.not_passed.size(), fmt::join(out.not_passed, "\n  "))};
  }
  if (auto w = detail::WriteTextFile(dest, *text); !w.ok()) {
    return Error{fmt::format("not saved as a baseline: {}", w.error().message)};
  }
  return out;
}

}  // namespace fvbench
