// The load generators of a multi-loadgen phase in results.json:
// a LoadResult's "loadgens": [{name, target_rps, achieved_rps, offset_us,
// segment, scheduled, succeeded, failed_sut, failed_engine, non_2xx,
// kept_up, max_send_lag_us, dropped_iterations, cpu_busy (null when not
// sampled), start_epoch_us, end_epoch_us}] and "loadgen_start_skew_us".
// Written only when the phase had instances, so single-engine results are
// unchanged.
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "support/core/load_result.h"

namespace fvbench::detail {

class JsonWriter;  // json_writer.h

void WriteLoadgens(JsonWriter& w, const LoadResult& r);
// Throws detail::JsonFieldError naming `path` on a malformed entry.
void ReadLoadgens(const nlohmann::json& v, const std::string& path, LoadResult& r);

}  // namespace fvbench::detail
