#include "support/report/profile_json.h"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"

namespace fvbench::detail {

using nlohmann::json;

namespace {

void WritePhase(JsonWriter& w, const ProfilePhaseFigures& p) {
  w.StartObject();
  w.Field("measured", p.measured);
  w.Field("p99_us", p.p99_us);
  w.Field("cpu_us_per_request", p.cpu_us_per_request);
  w.Field("requests", p.requests);
  w.EndObject();
}

ProfilePhaseFigures PhaseFromJson(const json& v, const std::string& path) {
  RequireObject(v, path);
  ProfilePhaseFigures p;
  p.measured = GetBool(v, "measured", path);
  p.p99_us = GetNumberOrNaN(v, "p99_us", path);
  p.cpu_us_per_request = GetNumberOrNaN(v, "cpu_us_per_request", path);
  p.requests = GetUint(v, "requests", path);
  return p;
}

std::vector<ProfileDiff> DiffsFromJson(const json& diffs, const std::string& path) {
  std::vector<ProfileDiff> out;
  for (size_t i = 0; i < diffs.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", path, i);
    RequireObject(diffs[i], at);
    const json& d = diffs[i];
    ProfileDiff diff{GetString(d, "against", at),
                     GetString(d, "service", at),
                     GetString(d, "level", at),
                     GetUint(d, "requests_a", at),
                     GetUint(d, "requests_b", at),
                     GetNumberOrNaN(d, "a_us_per_request", at),
                     GetNumberOrNaN(d, "b_us_per_request", at),
                     GetString(d, "svg_path", at),
                     {},
                     d.contains("not_compared") ? GetString(d, "not_compared", at) : std::string()};
    const json& top = GetArray(d, "top", at);
    for (size_t k = 0; k < top.size(); ++k) {
      const std::string tat = fmt::format("{}[{}]", JoinPath(at, "top"), k);
      RequireObject(top[k], tat);
      diff.top.push_back({GetString(top[k], "frame", tat), GetNumberOrNaN(top[k], "a_self_us", tat),
                          GetNumberOrNaN(top[k], "b_self_us", tat), GetNumberOrNaN(top[k], "a_total_us", tat),
                          GetNumberOrNaN(top[k], "b_total_us", tat), GetNumberOrNaN(top[k], "share_of_a", tat),
                          GetBool(top[k], "new_in_b", tat)});
    }
    out.push_back(std::move(diff));
  }
  return out;
}

}  // namespace

void WriteProfileResult(JsonWriter& w, const ProfileResult& p) {
  w.StartObject();
  if (!p.side.empty()) w.Field("side", p.side);
  w.Field("profilers", p.profilers);
  w.Field("rate_rps", p.rate_rps);
  w.Field("duration_s", p.duration_s);
  w.Field("hz", p.hz);
  w.Field("cpu_service", p.cpu_service);
  if (!p.edge_dir.empty()) w.Field("edge_dir", p.edge_dir);
  w.Key("without");
  WritePhase(w, p.without);
  w.Key("with");
  WritePhase(w, p.with);
  w.Array("files", p.files, [&](const ProfileFile& f) {
    w.StartObject();
    w.Field("service", f.service);
    w.Field("level", f.level);
    w.Field("path", f.path);
    w.EndObject();
  });
  w.Array("flames", p.flames, [&](const ProfileFlame& f) {
    w.StartObject();
    w.Field("service", f.service);
    w.Field("level", f.level);
    w.Field("samples", f.samples);
    w.Field("expected_samples", f.expected_samples);
    w.Field("folded_path", f.folded_path);
    w.Field("svg_path", f.svg_path);
    w.Array("top", f.top, [&](const ProfileFrameShare& t) {
      w.StartObject();
      w.Field("frame", t.frame);
      w.Field("self_share", t.self_share);
      w.Field("total_share", t.total_share);
      w.EndObject();
    });
    w.EndObject();
  });
  if (!p.diffs.empty()) {
    w.Array("diffs", p.diffs, [&](const ProfileDiff& d) {
      w.StartObject();
      w.Field("against", d.against);
      w.Field("service", d.service);
      w.Field("level", d.level);
      w.Field("requests_a", d.requests_a);
      w.Field("requests_b", d.requests_b);
      w.Field("a_us_per_request", d.a_us_per_request);
      w.Field("b_us_per_request", d.b_us_per_request);
      w.Field("svg_path", d.svg_path);
      if (!d.not_compared.empty()) w.Field("not_compared", d.not_compared);
      w.Array("top", d.top, [&](const ProfileFrameGrowth& g) {
        w.StartObject();
        w.Field("frame", g.frame);
        w.Field("a_self_us", g.a_self_us);
        w.Field("b_self_us", g.b_self_us);
        w.Field("a_total_us", g.a_total_us);
        w.Field("b_total_us", g.b_total_us);
        w.Field("share_of_a", g.share_of_a);
        w.Field("new_in_b", g.new_in_b);
        w.EndObject();
      });
      w.EndObject();
    });
  }
  w.Array("errors", p.errors, [&](const std::string& e) { w.String(e); });
  w.EndObject();
}

ProfileResult ProfileResultFromJsonValue(const json& v, const std::string& path) {
  RequireObject(v, path);
  ProfileResult p;
  if (v.contains("side")) {
    p.side = GetString(v, "side", path);
    if (p.side != "A" && p.side != "B") throw JsonFieldError{JoinPath(path, "side") + ": neither \"A\" nor \"B\""};
  }
  p.profilers = GetString(v, "profilers", path);
  p.rate_rps = GetNumberOrNaN(v, "rate_rps", path);
  p.duration_s = GetNumberOrNaN(v, "duration_s", path);
  const uint64_t hz = GetUint(v, "hz", path);
  if (hz > static_cast<uint64_t>(std::numeric_limits<int>::max())) {
    throw JsonFieldError{JoinPath(path, "hz") + ": out of range"};
  }
  p.hz = static_cast<int>(hz);
  p.cpu_service = GetString(v, "cpu_service", path);
  if (v.contains("edge_dir")) p.edge_dir = GetString(v, "edge_dir", path);
  p.without = PhaseFromJson(GetObject(v, "without", path), JoinPath(path, "without"));
  p.with = PhaseFromJson(GetObject(v, "with", path), JoinPath(path, "with"));
  const json& files = GetArray(v, "files", path);
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string at = fmt::format("{}[{}]", JoinPath(path, "files"), i);
    RequireObject(files[i], at);
    p.files.push_back({GetString(files[i], "service", at), GetString(files[i], "level", at),
                       GetString(files[i], "path", at)});
  }
  if (v.contains("flames")) {
    const json& flames = GetArray(v, "flames", path);
    for (size_t i = 0; i < flames.size(); ++i) {
      const std::string at = fmt::format("{}[{}]", JoinPath(path, "flames"), i);
      RequireObject(flames[i], at);
      ProfileFlame f{GetString(flames[i], "service", at), GetString(flames[i], "level", at),
                     GetUint(flames[i], "samples", at), GetString(flames[i], "folded_path", at),
                     GetString(flames[i], "svg_path", at), {}};
      const json& top = GetArray(flames[i], "top", at);
      for (size_t k = 0; k < top.size(); ++k) {
        const std::string tat = fmt::format("{}[{}]", JoinPath(at, "top"), k);
        RequireObject(top[k], tat);
        f.top.push_back({GetString(top[k], "frame", tat), GetNumberOrNaN(top[k], "self_share", tat),
                         GetNumberOrNaN(top[k], "total_share", tat)});
      }
      if (flames[i].contains("expected_samples")) f.expected_samples = GetNumberOrNaN(flames[i], "expected_samples", at);
      p.flames.push_back(std::move(f));
    }
  }
  if (v.contains("diffs")) p.diffs = DiffsFromJson(GetArray(v, "diffs", path), JoinPath(path, "diffs"));
  const json& errors = GetArray(v, "errors", path);
  for (size_t i = 0; i < errors.size(); ++i) {
    if (!errors[i].is_string()) throw JsonFieldError{fmt::format("{}[{}]: not a string", JoinPath(path, "errors"), i)};
    p.errors.push_back(errors[i].get<std::string>());
  }
  return p;
}

}  // namespace fvbench::detail
