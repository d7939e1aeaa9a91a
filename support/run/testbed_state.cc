#include "support/run/testbed_state.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "support/core/json_fields.h"
#include "support/core/json_writer.h"

namespace fvbench {
namespace {

using nlohmann::json;

constexpr int kSchema = 3;  // 2: ProvisionInfo::boot_id; 3: the hosts' environments

json InfoToJson(const ProvisionInfo& i) {
  return json{{"host", i.host},
              {"os", i.os},
              {"runtime", i.runtime},
              {"runtime_choice", i.runtime_choice},
              {"nginx_bin", i.nginx_bin},
              {"runtime_version", i.runtime_version},
              {"lua_module_version", i.lua_module_version},
              {"load_lua_modules", i.load_lua_modules},
              {"module_dir", i.module_dir},
              {"edge_dir", i.edge_dir},
              {"edge_in_place", i.edge_in_place},
              {"edge_commit", i.edge_commit},
              {"edge_dirty", i.edge_dirty},
              {"asn_map_path", i.asn_map_path},
              {"engine", i.engine},
              {"engine_bin", i.engine_bin},
              {"engine_version", i.engine_version},
              {"cpus", i.cpus},
              {"cores", i.cores},
              {"have_taskset", i.have_taskset},
              {"boot_id", i.boot_id},
              {"nofile", i.nofile},
              {"installed", i.installed},
              {"seconds", i.seconds}};
}

ProvisionInfo InfoFromJson(const json& j) {
  ProvisionInfo i;
  i.host = j.at("host").get<std::string>();
  i.os = j.at("os").get<std::string>();
  i.runtime = j.at("runtime").get<std::string>();
  i.runtime_choice = j.at("runtime_choice").get<std::string>();
  i.nginx_bin = j.at("nginx_bin").get<std::string>();
  i.runtime_version = j.at("runtime_version").get<std::string>();
  i.lua_module_version = j.at("lua_module_version").get<std::string>();
  i.load_lua_modules = j.at("load_lua_modules").get<bool>();
  i.module_dir = j.at("module_dir").get<std::string>();
  i.edge_dir = j.at("edge_dir").get<std::string>();
  i.edge_in_place = j.at("edge_in_place").get<bool>();
  i.edge_commit = j.at("edge_commit").get<std::string>();
  i.edge_dirty = j.at("edge_dirty").get<bool>();
  i.asn_map_path = j.at("asn_map_path").get<std::string>();
  i.engine = j.at("engine").get<std::string>();
  i.engine_bin = j.at("engine_bin").get<std::string>();
  i.engine_version = j.at("engine_version").get<std::string>();
  i.cpus = j.at("cpus").get<std::vector<int>>();
  i.cores = j.at("cores").get<int>();
  i.have_taskset = j.at("have_taskset").get<bool>();
  i.boot_id = j.at("boot_id").get<std::string>();
  i.nofile = j.at("nofile").get<int>();
  i.installed = j.at("installed").get<std::vector<std::string>>();
  i.seconds = j.at("seconds").get<double>();
  return i;
}

}  // namespace

std::string ProvisionKey(const Config& c, const std::string& shipped_digest) {
  std::string loadgens;
  for (const std::string& l : c.loadgen_remotes) loadgens += (loadgens.empty() ? "" : ",") + l;
  return fmt::format(
      "mode={} sut={} loadgens={} ssh_opts={} engine={} k6={} {} {} runtime={} edge={} ref={} skipped={} fv_dir={} "
      "ab={} edge_b={} ref_b={} fv_dir_b={} bench_dir={} procs={} oresty_cpuset={} k6_cpuset={} source_dir={} "
      "shipped={}",
      c.remote() ? "remote" : "local", c.fairvisor_remote, loadgens, c.ssh_opts,
      EngineName(c.engine), c.k6_version, c.k6_source, c.k6_release_url, static_cast<int>(c.runtime), c.edge_src,
      c.edge_ref, c.edge_skipped, c.fv_dir, c.ab, c.edge_src_b, c.edge_ref_b, c.fv_dir_b, c.bench_dir,
      c.procs_per_host, c.oresty_cpuset, c.loadgen_cpuset, c.source_dir, shipped_digest) +
         (c.profile.cpu ? " perf=1" : "");  // FVBENCH_PROFILE=cpu|both provisions perf on the SUT
}

Result<std::string> LocalFilesDigest(const std::vector<std::string>& paths) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx);
    return Error{"SHA-256 unavailable"};
  }
  for (const std::string& p : paths) {
    auto text = detail::ReadTextFile(p);
    if (!text) {
      EVP_MD_CTX_free(ctx);
      return text.error();
    }
    const std::string head = p + "\n" + std::to_string(text->size()) + "\n";
    EVP_DigestUpdate(ctx, head.data(), head.size());
    EVP_DigestUpdate(ctx, text->data(), text->size());
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", md[i]);
  return hex;
}

std::string TestbedStateToJson(const TestbedState& s) {
  json hosts = json::array();
  for (const HostRecord& h : s.hosts) {
    hosts.push_back(json{{"role", h.role},
                         {"host", h.host},
                         {"info", InfoToJson(h.info)},
                         {"files", h.files},
                         {"fingerprint", h.fingerprint}});
  }
  detail::JsonWriter w;
  WriteEnvironments(w, s.environments);
  return json{{"schema_version", kSchema}, {"key", s.key}, {"hosts", hosts}, {"environment", json::parse(w.Take())}}
             .dump(2) +
         "\n";
}

Result<TestbedState> TestbedStateFromJson(std::string_view text, const std::string& source) {
  auto doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error{source + ": not valid JSON"};
  try {
    if (doc.at("schema_version").get<int>() != kSchema)
      return Error{fmt::format("{}: schema_version {} (this fvbench reads {})", source,
                               doc.at("schema_version").dump(), kSchema)};
    TestbedState s;
    s.key = doc.at("key").get<std::string>();
    for (const json& h : doc.at("hosts")) {
      HostRecord r;
      r.role = h.at("role").get<std::string>();
      r.host = h.at("host").get<std::string>();
      r.info = InfoFromJson(h.at("info"));
      r.files = h.at("files").get<std::vector<std::string>>();
      r.fingerprint = h.at("fingerprint").get<std::string>();
      s.hosts.push_back(std::move(r));
    }
    auto envs = EnvironmentsFromJsonValue(doc.at("environment"), source + ": environment");
    if (!envs) return envs.error();
    s.environments = std::move(*envs);
    return s;
  } catch (const json::exception& e) {
    return Error{source + ": " + e.what()};
  }
}

}  // namespace fvbench
