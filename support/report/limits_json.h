// The JSON of a limits scenario's runs (ScenarioResult::limits,
// scenario_result.h), inside a scenario's result and results.json
// (results_io.h): "limits": [<LimitRun>...], absent for other scenarios.
//
//   {"workers": int, "phase": str, "load": <LoadResult>,
//    "accuracy": {"rate_per_s", "burst", "keys_planned", "keys_seen", "window_s", "offered_rps",
//                 "allowed_per_key", "floor_per_key", "admitted_min", "admitted_median",
//                 "admitted_max", "over_admission", "over_admission_key",
//                 "over_admission_key_admitted", "keys_over",
//                 "under_admission", "keys_under", "bin_s", "window_bins",
//                 "worst_window_admitted", "window_allowed",
//                 "worst_window_key", "admitted", "rejected", "other", "before_window", "reject_share",
//                 "expected_reject_share",
//                 "admitted_per_key": [count...], "admitted_per_second": [count...]}}
// Units as in limit_figures.h. The two lists are the plots' (at most 100000
// entries each: LIMITS_KEYS' largest; more is refused on read); absent or
// null on read: empty (results written before they were kept). Reading throws detail::JsonFieldError naming
// the key path (json_fields.h).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/scenario_result.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h
void WriteLimitRun(JsonWriter& w, const LimitRun& run);
LimitRun LimitRunFromJsonValue(const nlohmann::json& v, const std::string& path);

}  // namespace fvbench::detail
