#include "support/report/sut_timeline_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"
#include "support/core/plausible.h"

namespace fvbench::detail {
namespace {

using nlohmann::json;

// A figure read back in [lo, hi] (plausible.h); throws naming the path.
double InRange(double v, double lo, double hi, const std::string& path) {
  if (std::string why = WhyOutOfRange(v, lo, hi); !why.empty()) throw JsonFieldError{path + ": " + why};
  return v;
}

std::optional<double> InRange(const std::optional<double>& v, double lo, double hi, const std::string& path) {
  if (v) InRange(*v, lo, hi, path);
  return v;
}

// Per service: one number or null each, as many as there are services.
std::vector<std::optional<double>> ReadPerService(const json& point, const char* key, const std::string& path,
                                                  size_t services, double hi) {
  const json& a = GetArray(point, key, path);
  const std::string p = JoinPath(path, key);
  if (a.size() != services) {
    throw JsonFieldError{fmt::format("{}: {} values, but {} services", p, a.size(), services)};
  }
  std::vector<std::optional<double>> out;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].is_null()) {
      out.emplace_back();
    } else if (a[i].is_number()) {
      out.emplace_back(InRange(a[i].get<double>(), 0, hi, fmt::format("{}[{}]", p, i)));
    } else {
      throw JsonFieldError{fmt::format("{}[{}]: expected a number or null, got {}", p, i, a[i].type_name())};
    }
  }
  return out;
}

// "exits": each of a listed service, a pid > 0, last seen before gone.
std::vector<SutProcessExit> ReadExits(const json& timeline, const std::string& path,
                                      const std::vector<std::string>& services) {
  std::vector<SutProcessExit> out;
  const json& a = GetArray(timeline, "exits", path);
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string ep = fmt::format("{}[{}]", JoinPath(path, "exits"), i);
    RequireObject(a[i], ep);
    SutProcessExit e;
    e.service = GetString(a[i], "service", ep);
    const uint64_t pid = GetUint(a[i], "pid", ep);
    e.last_seen_epoch_us = InRange(GetNumber(a[i], "last_seen_epoch_us", ep), 0, kMaxEpochUs,
                                   JoinPath(ep, "last_seen_epoch_us"));
    e.gone_epoch_us = InRange(GetNumber(a[i], "gone_epoch_us", ep), 0, kMaxEpochUs, JoinPath(ep, "gone_epoch_us"));
    if (std::find(services.begin(), services.end(), e.service) == services.end()) {
      throw JsonFieldError{fmt::format("{}.service: {} is not one of the timeline's services", ep, e.service)};
    }
    if (pid == 0 || pid > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
      throw JsonFieldError{fmt::format("{}.pid: {} is not a process id", ep, pid)};
    }
    if (!(e.gone_epoch_us >= e.last_seen_epoch_us)) {
      throw JsonFieldError{fmt::format("{}: gone_epoch_us {} is before last_seen_epoch_us {}", ep, e.gone_epoch_us,
                                       e.last_seen_epoch_us)};
    }
    e.pid = static_cast<int>(pid);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace

void WriteSutTimelineValue(JsonWriter& w, const SutTimeline& t) {
  w.StartObject();
  w.Array("services", t.services, [&](const std::string& s) { w.String(s); });
  w.Array("points", t.points, [&](const SutTimelinePoint& p) {
    w.StartObject();
    w.Field("start_epoch_us", p.start_epoch_us);
    w.Field("end_epoch_us", p.end_epoch_us);
    w.Array("cpu_cores", p.cpu_cores, [&](const std::optional<double>& v) { w.Number(v); });
    w.Array("rss_mib", p.rss_mib, [&](const std::optional<double>& v) { w.Number(v); });
    w.Field("sut_busy", p.sut_busy);
    w.Field("loadgen_busy", p.loadgen_busy);
    w.EndObject();
  });
  if (!t.exits.empty()) {
    w.Array("exits", t.exits, [&](const SutProcessExit& e) {
      w.StartObject();
      w.Field("service", e.service);
      w.Field("pid", e.pid);
      w.Field("last_seen_epoch_us", e.last_seen_epoch_us);
      w.Field("gone_epoch_us", e.gone_epoch_us);
      w.EndObject();
    });
  }
  w.EndObject();
}

SutTimeline SutTimelineFromJsonValue(const json& o, const std::string& tp) {
  RequireObject(o, tp);
  SutTimeline t;
  const json& services = GetArray(o, "services", tp);
  for (size_t i = 0; i < services.size(); ++i) {
    if (!services[i].is_string()) {
      throw JsonFieldError{
          fmt::format("{}[{}]: expected a string, got {}", JoinPath(tp, "services"), i, services[i].type_name())};
    }
    t.services.push_back(services[i].get<std::string>());
  }
  const json& points = GetArray(o, "points", tp);
  for (size_t i = 0; i < points.size(); ++i) {
    const std::string pp = fmt::format("{}[{}]", JoinPath(tp, "points"), i);
    RequireObject(points[i], pp);
    SutTimelinePoint p;
    p.start_epoch_us =
        InRange(GetNumber(points[i], "start_epoch_us", pp), 0, kMaxEpochUs, JoinPath(pp, "start_epoch_us"));
    p.end_epoch_us = InRange(GetNumber(points[i], "end_epoch_us", pp), 0, kMaxEpochUs, JoinPath(pp, "end_epoch_us"));
    if (!(p.end_epoch_us >= p.start_epoch_us)) {
      throw JsonFieldError{fmt::format("{}: end_epoch_us {} is before start_epoch_us {}", pp, p.end_epoch_us,
                                       p.start_epoch_us)};
    }
    p.cpu_cores = ReadPerService(points[i], "cpu_cores", pp, t.services.size(), kMaxHostCores);
    p.rss_mib = ReadPerService(points[i], "rss_mib", pp, t.services.size(), kMaxHostMib);
    p.sut_busy = InRange(OptNumberOrNull(points[i], "sut_busy", pp), 0, 1, JoinPath(pp, "sut_busy"));
    p.loadgen_busy = InRange(OptNumberOrNull(points[i], "loadgen_busy", pp), 0, 1, JoinPath(pp, "loadgen_busy"));
    t.points.push_back(std::move(p));
  }
  if (o.contains("exits")) t.exits = ReadExits(o, tp, t.services);
  return t;
}

void WriteSutTimeline(JsonWriter& w, const SutTimeline& t) {
  if (t.empty()) return;
  w.Key("sut_timeline");
  WriteSutTimelineValue(w, t);
}

SutTimeline ReadSutTimeline(const json& obj, const std::string& path) {
  if (!obj.contains("sut_timeline") || obj.at("sut_timeline").is_null()) return {};
  GetObject(obj, "sut_timeline", path);  // a non-object named as the field
  return SutTimelineFromJsonValue(obj.at("sut_timeline"), JoinPath(path, "sut_timeline"));
}

}  // namespace fvbench::detail
