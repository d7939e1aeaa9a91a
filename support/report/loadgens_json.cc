#include "support/report/loadgens_json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"

namespace fvbench::detail {

void WriteLoadgens(JsonWriter& w, const LoadResult& r) {
  if (r.loadgens.empty()) return;
  w.Field("loadgen_start_skew_us", r.loadgen_start_skew_us);
  w.Key("loadgens");
  w.StartArray();
  for (const LoadgenInstance& i : r.loadgens) {
    w.StartObject();
    w.Field("name", i.name);
    w.Field("target_rps", i.target_rps);
    w.Field("achieved_rps", i.achieved_rps);
    w.Field("offset_us", i.offset_us);
    w.Field("segment", i.segment);
    w.Field("scheduled", i.scheduled);
    w.Field("succeeded", i.succeeded);
    w.Field("failed_sut", i.failed_sut);
    w.Field("failed_engine", i.failed_engine);
    w.Field("non_2xx", i.non_2xx);
    w.Field("kept_up", i.kept_up);
    w.Field("max_send_lag_us", i.max_send_lag_us);
    w.Field("dropped_iterations", i.dropped_iterations);
    w.Key("cpu_busy");
    if (i.cpu_busy >= 0) {
      w.Number(i.cpu_busy);
    } else {
      w.Null();
    }
    w.Field("start_epoch_us", i.start_epoch_us);
    w.Field("end_epoch_us", i.end_epoch_us);
    w.Key("launch_s");
    if (i.launch_s >= 0) {
      w.Number(i.launch_s);
    } else {
      w.Null();
    }
    w.Field("clock_offset_us", i.clock_offset_us);
    w.EndObject();
  }
  w.EndArray();
}

void ReadLoadgens(const nlohmann::json& v, const std::string& path, LoadResult& r) {
  if (!v.contains("loadgens")) return;
  r.loadgen_start_skew_us = OptNumber(v, "loadgen_start_skew_us", path, 0);
  const nlohmann::json& list = GetArray(v, "loadgens", path);
  for (size_t k = 0; k < list.size(); ++k) {
    const std::string p = fmt::format("{}[{}]", JoinPath(path, "loadgens"), k);
    const nlohmann::json& e = list[k];
    RequireObject(e, p);
    LoadgenInstance i;
    i.name = GetString(e, "name", p);
    i.target_rps = GetNumber(e, "target_rps", p);
    i.achieved_rps = GetNumber(e, "achieved_rps", p);
    i.offset_us = OptNumber(e, "offset_us", p, 0);
    i.segment = OptString(e, "segment", p);
    i.scheduled = GetUint(e, "scheduled", p);
    i.succeeded = GetUint(e, "succeeded", p);
    i.failed_sut = GetUint(e, "failed_sut", p);
    i.failed_engine = GetUint(e, "failed_engine", p);
    i.non_2xx = GetUint(e, "non_2xx", p);
    i.kept_up = GetBool(e, "kept_up", p);
    i.max_send_lag_us = OptNumber(e, "max_send_lag_us", p, 0);
    i.dropped_iterations = OptUint(e, "dropped_iterations", p, 0);
    i.cpu_busy = OptNumber(e, "cpu_busy", p, -1);
    i.start_epoch_us = OptNumber(e, "start_epoch_us", p, 0);
    i.end_epoch_us = OptNumber(e, "end_epoch_us", p, 0);
    i.launch_s = OptNumber(e, "launch_s", p, -1);
    i.clock_offset_us = OptNumber(e, "clock_offset_us", p, 0);
    r.loadgens.push_back(std::move(i));
  }
}

}  // namespace fvbench::detail
