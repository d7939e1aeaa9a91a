// The JSON of a SUT timeline (core/sut_timeline.h), shared by a scenario's
// result and its steps (results_io.h) and an A/B side's runs (ab_json.h):
//   {"services": [str...],
//    "points": [{"start_epoch_us", "end_epoch_us": µs since the Unix epoch,
//                "cpu_cores": [cores per service], "rss_mib": [MiB per service],
//                "sut_busy", "loadgen_busy": fraction 0..1}],
//    "exits": [{"service", "pid", "last_seen_epoch_us", "gone_epoch_us"}]}
// an absent figure null; "cpu_cores" and "rss_mib" hold one value per service;
// "exits" only when a process exited (its service one of "services", its pid
// > 0, gone at or after last seen).
// Reading throws detail::JsonFieldError (json_fields.h) naming the key path.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/sut_timeline.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h

// The object above.
void WriteSutTimelineValue(JsonWriter& w, const SutTimeline& t);
SutTimeline SutTimelineFromJsonValue(const nlohmann::json& v, const std::string& path);

// The field "sut_timeline" of an object: written only when t has points;
// absent or null (older files, DRY_RUN) reads empty.
void WriteSutTimeline(JsonWriter& w, const SutTimeline& t);
SutTimeline ReadSutTimeline(const nlohmann::json& obj, const std::string& path);

}  // namespace fvbench::detail
