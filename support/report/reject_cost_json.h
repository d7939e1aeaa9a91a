// The JSON of limits.reject_cost's figures (ScenarioResult::reject_cost,
// core/reject_cost_figures.h), inside a scenario's result and results.json
// (results_io.h): "reject_cost": {...}, absent for other scenarios.
//
//   {"rate_per_s", "burst", "rate_rps", "p50_ratio", "p99_ratio", "cpu_ratio",
//    "admitted": <phase>, "rejected": <phase>}
//   <phase> = {"name": str, "phase": str, "keys": int, "offered_per_key_rps",
//              "by_status": bool, "ok", "rejected", "other" (counts),
//              "reject_share", "fv_cpu_cores", "cpu_us_per_request",
//              "load": <LoadResult>}
// Units as in reject_cost_figures.h; a figure not known is null (NaN).
// Reading throws detail::JsonFieldError naming the key path (json_fields.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/reject_cost_figures.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h
void WriteRejectCostRun(JsonWriter& w, const RejectCostRun& run);
RejectCostRun RejectCostRunFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench::detail
