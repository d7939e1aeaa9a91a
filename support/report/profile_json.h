// The JSON of a scenario's profile phases (ScenarioResult::profile,
// core/profile_result.h), inside a scenario's result and results.json
// (results_io.h): "profile": {...}, absent when FVBENCH_PROFILE is off.
//
//   {"profilers": "cpu" | "lua" | "both", "rate_rps", "duration_s", "hz": int,
//    "cpu_service": str,
//    "without": <phase>, "with": <phase>,
//    "files": [{"service", "level", "path"}],   path relative to controller-results/
//    "errors": [str]}
//   <phase> = {"measured": bool, "p99_us", "cpu_us_per_request", "requests": int}
// Units as in profile_result.h; a figure not known is null (NaN).
// Reading throws detail::JsonFieldError naming the key path (json_fields.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/profile_result.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h
void WriteProfileResult(JsonWriter& w, const ProfileResult& p);
ProfileResult ProfileResultFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench::detail
