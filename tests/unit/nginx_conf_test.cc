#include "support/sut/nginx_conf.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace fvbench::nginx_conf_test {
namespace {

// Synthetic template with the structure of edge's docker/nginx.conf.template
// (written for this test; not a copy).
constexpr const char kTemplate[] = R"(worker_processes ${FAIRVISOR_WORKER_PROCESSES};
env FAIRVISOR_CONFIG_FILE;
env FAIRVISOR_MODE;

events {
  worker_connections 1024;
}

error_log /dev/stderr ${FAIRVISOR_LOG_LEVEL};
pid /tmp/nginx.pid;

http {
  resolver 127.0.0.11 ipv6=off valid=30s;
  resolver_timeout 2s;
  geo $is_tor_exit {
    default 0;
    include /etc/nginx/iplists/tor_exits.geo;
  }
  map $http_x_asn $fairvisor_asn_type {
    include /etc/fairvisor/asn_type.map;
  }
  lua_package_path "/opt/fairvisor/src/?.lua;;";
  lua_shared_dict fairvisor_counters ${FAIRVISOR_SHARED_DICT_SIZE};
  init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;
  server {
    listen 8080;
    set $fairvisor_mode "${FAIRVISOR_MODE}";
    set $fairvisor_backend "$FAIRVISOR_BACKEND_URL";
    location / {
      access_by_lua_file /opt/fairvisor/src/nginx/access.lua;
      if ($fairvisor_mode = reverse_proxy) {
        proxy_pass $fairvisor_backend;
      }
    }
  }
}
)";

FairvisorParams Params() {
  FairvisorParams p;
  p.prefix = "/b/run/fv";
  p.listen_addr = "127.0.0.1";
  p.port = 18480;
  p.worker_processes = "2";
  p.worker_connections = 2048;
  p.log_level = "error";
  p.mode = "reverse_proxy";
  p.backend_url = "http://127.0.0.1:18481";
  p.shared_dict_size = "64m";
  p.fv_dir = "/srv/edge";
  p.asn_map_path = "/srv/edge/asn_type.map";
  p.tor_geo_path = "/b/run/fv/conf/tor_exits.geo";
  return p;
}

bool Has(const std::string& s, const std::string& sub) { return s.find(sub) != std::string::npos; }

TEST(EnvSubst, OnlyListedNames) {
  std::map<std::string, std::string> vars = {{"A", "1"}, {"AB", "2"}};
  EXPECT_EQ(detail::EnvSubst("$A ${A} $AB ${AB} $ABC ${C} $a $ $", vars), "1 1 2 2 $ABC ${C} $a $ $");
  EXPECT_EQ(detail::EnvSubst("x${A", vars), "x${A");
}

TEST(RenderFairvisor, RewritesEveryDockerDirective) {
  auto r = RenderFairvisorConf(kTemplate, Params());
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::string& c = *r;
  EXPECT_TRUE(Has(c, "worker_processes 2;\n"));
  EXPECT_TRUE(Has(c, "  worker_connections 2048;\n"));
  EXPECT_TRUE(Has(c, "error_log /b/run/fv/logs/error.log error;\n"));
  EXPECT_TRUE(Has(c, "pid /b/run/fv/logs/nginx.pid;\n"));
  EXPECT_TRUE(Has(c, "    listen 127.0.0.1:18480;\n"));
  EXPECT_TRUE(Has(c, "    include /b/run/fv/conf/tor_exits.geo;\n"));
  EXPECT_TRUE(Has(c, "    include /srv/edge/asn_type.map;\n"));
  EXPECT_TRUE(Has(c, "lua_package_path \"/srv/edge/src/?.lua;;\";"));
  EXPECT_TRUE(Has(c, "init_worker_by_lua_file /srv/edge/src/nginx/init_worker.lua;"));
  EXPECT_TRUE(Has(c, "access_by_lua_file /srv/edge/src/nginx/access.lua;"));
  EXPECT_TRUE(Has(c, "lua_shared_dict fairvisor_counters 64m;"));
  EXPECT_TRUE(Has(c, "set $fairvisor_mode \"reverse_proxy\";"));
  EXPECT_TRUE(Has(c, "set $fairvisor_backend \"http://127.0.0.1:18481\";"));
  EXPECT_TRUE(Has(c, "http {\n  client_body_temp_path /b/run/fv/tmp/client_body;\n"
                     "  proxy_temp_path /b/run/fv/tmp/proxy;\n"
                     "  access_log /b/run/fv/logs/access.log;\n"));
  // nginx variables are not environment variables: left alone.
  EXPECT_TRUE(Has(c, "geo $is_tor_exit {"));
  EXPECT_TRUE(Has(c, "proxy_pass $fairvisor_backend;"));
  EXPECT_TRUE(Has(c, "# resolver dropped by fvbench"));
  EXPECT_TRUE(Has(c, "resolver_timeout 2s;"));
  EXPECT_FALSE(Has(c, "127.0.0.11"));
  EXPECT_FALSE(Has(c, "load_module"));
  EXPECT_FALSE(Has(c, "${"));
}

TEST(RenderFairvisor, DistroRuntimePrependsLuaModules) {
  FairvisorParams p = Params();
  p.load_lua_modules = true;
  p.resolver = "10.0.0.2";
  auto r = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->rfind("load_module /usr/lib/nginx/modules/ndk_http_module.so;\n"
                     "load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;\n"
                     "worker_processes 2;",
                     0),
            0u);
  EXPECT_TRUE(Has(*r, "  resolver 10.0.0.2;\n"));
}

// Each directive the renderer must rewrite, removed from the template, is an
// error that names it.
TEST(RenderFairvisor, MissingDirectiveIsNamed) {
  struct Case { std::string remove; std::string named; };
  for (const Case& c : std::vector<Case>{
           {"error_log /dev/stderr ${FAIRVISOR_LOG_LEVEL};", "error_log"},
           {"pid /tmp/nginx.pid;", "pid"},
           {"listen 8080;", "listen"},
           {"include /etc/nginx/iplists/tor_exits.geo;", "tor_exits.geo"},
           {"include /etc/fairvisor/asn_type.map;", "asn_type.map"},
           {"worker_connections 1024;", "worker_connections"},
       }) {
    std::string t = kTemplate;
    size_t at = t.find(c.remove);
    ASSERT_NE(at, std::string::npos) << c.remove;
    t.erase(at, c.remove.size());
    auto r = RenderFairvisorConf(t, Params());
    ASSERT_FALSE(r.ok()) << "removed: " << c.remove;
    EXPECT_TRUE(Has(r.error().message, c.named)) << r.error().message;
    EXPECT_TRUE(Has(r.error().message, "template changed")) << r.error().message;
  }
}

TEST(RenderFairvisor, NoLuaPathUnderTheDockerEdgeTreeIsAnError) {
  std::string t = kTemplate;
  for (size_t at; (at = t.find("/opt/fairvisor/")) != std::string::npos;) t.replace(at, 15, "/x/");
  auto r = RenderFairvisorConf(t, Params());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "/opt/fairvisor/")) << r.error().message;
}

// FV_DIR's default is the seed's /opt/fairvisor, which is also the edge tree
// of edge's Docker image: the rendered paths equal the template's, and that
// is right (refusing it refused every edge cloned into the default FV_DIR).
TEST(RenderFairvisor, FvDirEqualToTheDockerEdgeTreeRenders) {
  FairvisorParams p = Params();
  p.fv_dir = "/opt/fairvisor";
  p.asn_map_path = "/opt/fairvisor/asn_type.map";
  auto r = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(Has(*r, "    include /opt/fairvisor/asn_type.map;\n"));
  EXPECT_TRUE(Has(*r, "lua_package_path \"/opt/fairvisor/src/?.lua;;\";"));
  EXPECT_TRUE(Has(*r, "init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;"));
  EXPECT_TRUE(Has(*r, "access_by_lua_file /opt/fairvisor/src/nginx/access.lua;"));
  EXPECT_FALSE(Has(*r, "/etc/fairvisor"));
  EXPECT_FALSE(Has(*r, "/etc/nginx/iplists"));
}

// Any FV_DIR, including ones that contain the Docker path as a part.
TEST(RenderFairvisor, FvDirAnywhereIsPlacedByDirective) {
  for (const std::string dir : {"/opt/fairvisor", "/opt/fairvisor/edge", "/srv/opt/fairvisor", "/e"}) {
    FairvisorParams p = Params();
    p.fv_dir = dir;
    auto r = RenderFairvisorConf(kTemplate, p);
    ASSERT_TRUE(r.ok()) << dir << ": " << r.error().message;
    EXPECT_TRUE(Has(*r, "lua_package_path \"" + dir + "/src/?.lua;;\";")) << *r;
    EXPECT_TRUE(Has(*r, "access_by_lua_file " + dir + "/src/nginx/access.lua;")) << *r;
  }
}

TEST(RenderFairvisor, UnplacedFileDirectiveIsNamedWithLine) {
  for (const std::string extra : {"access_log /dev/stdout;", "lua_ssl_trusted_certificate /etc/ssl/ca.pem;",
                                  "client_body_temp_path /var/cache/x;"}) {
    std::string t = std::string(kTemplate) + extra + "\n";
    auto r = RenderFairvisorConf(t, Params());
    ASSERT_FALSE(r.ok()) << extra;
    size_t line = std::count(t.begin(), t.end(), '\n');
    EXPECT_TRUE(Has(r.error().message, "line " + std::to_string(line) + ":")) << r.error().message;
    EXPECT_TRUE(Has(r.error().message, extra)) << r.error().message;
  }
}

TEST(RenderFairvisor, UnknownVariableIsNamedWithLine) {
  std::string t = std::string(kTemplate) + "# ${IGNORED_IN_COMMENT}\nworker_rlimit_nofile ${FAIRVISOR_NOFILE};\n";
  auto r = RenderFairvisorConf(t, Params());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "${FAIRVISOR_NOFILE}")) << r.error().message;
  size_t line = std::count(t.begin(), t.end(), '\n');  // the last line of t
  EXPECT_TRUE(Has(r.error().message, "line " + std::to_string(line) + ":")) << r.error().message;
}

TEST(RenderFairvisor, LeftoverDockerPathIsAnError) {
  std::string t = std::string(kTemplate) + "ssl_certificate /etc/fairvisor/cert.pem;\n";
  auto r = RenderFairvisorConf(t, Params());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "ssl_certificate /etc/fairvisor/cert.pem;")) << r.error().message;
}

TEST(RenderFairvisor, SecondListenIsAmbiguous) {
  std::string t = kTemplate;
  t.replace(t.find("listen 8080;"), 12, "listen 8080;\n    listen 8443 ssl;");
  auto r = RenderFairvisorConf(t, Params());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "listen")) << r.error().message;
  EXPECT_TRUE(Has(r.error().message, "found 2")) << r.error().message;
}

TEST(RenderFairvisor, TemplateVarsAreTheFiveEnvsubstNames) {
  auto v = FairvisorTemplateVars(Params());
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v.at("FAIRVISOR_MODE"), "reverse_proxy");
  EXPECT_EQ(v.at("FAIRVISOR_BACKEND_URL"), "http://127.0.0.1:18481");
  EXPECT_EQ(v.at("FAIRVISOR_LOG_LEVEL"), "error");
  EXPECT_EQ(v.at("FAIRVISOR_WORKER_PROCESSES"), "2");
  EXPECT_EQ(v.at("FAIRVISOR_SHARED_DICT_SIZE"), "64m");
}

NginxParams Plain() {
  NginxParams p;
  p.prefix = "/b/run/baseline";
  p.listen_addr = "127.0.0.1";
  p.port = 18482;
  p.worker_processes = "auto";
  p.worker_connections = 4096;
  return p;
}

TEST(RenderBaseline, SeedShape) {
  std::string c = RenderBaselineConf(Plain());
  EXPECT_TRUE(Has(c, "listen 127.0.0.1:18482;"));
  EXPECT_TRUE(Has(c, "access_log off;"));
  EXPECT_TRUE(Has(c, "keepalive_requests 100000;"));
  EXPECT_TRUE(Has(c, "worker_connections 4096;"));
  EXPECT_TRUE(Has(c, "error_log /b/run/baseline/logs/error.log warn;"));
  EXPECT_TRUE(Has(c, "pid       /b/run/baseline/logs/nginx.pid;"));
  EXPECT_TRUE(Has(c, "location = /livez { default_type text/plain; return 200 \"ok\\n\"; }"));
  EXPECT_TRUE(Has(c, "location / { default_type text/plain; return 200 \"ok\\n\"; }"));
}

// NGINX_LISTEN_BACKLOG: on the measured listener of every config, never on
// the status listener; absent when unset (nginx's own 511).
TEST(ListenBacklog, OnEveryMeasuredListenerOnlyWhenSet) {
  NginxParams p = Plain();
  p.status_socket = "/b/run/x/logs/status.sock";
  for (const std::string& c : {RenderBaselineConf(p), RenderBackendConf(p)}) EXPECT_FALSE(Has(c, "backlog")) << c;
  p.listen_backlog = 2;
  for (const std::string& c : {RenderBaselineConf(p), RenderBackendConf(p)}) {
    EXPECT_TRUE(Has(c, "    listen 127.0.0.1:18482 backlog=2;\n")) << c;
    EXPECT_TRUE(Has(c, "    listen unix:/b/run/x/logs/status.sock;\n")) << c;
  }
  FairvisorParams f = Params();
  auto plain = RenderFairvisorConf(kTemplate, f);
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_FALSE(Has(*plain, "backlog")) << *plain;
  f.listen_backlog = 16;
  f.status_socket = "/b/run/fv/logs/status.sock";
  auto fv = RenderFairvisorConf(kTemplate, f);
  ASSERT_TRUE(fv.ok()) << fv.error().message;
  EXPECT_TRUE(Has(*fv, "    listen 127.0.0.1:18480 backlog=16;\n")) << *fv;
  EXPECT_TRUE(Has(*fv, "    listen unix:/b/run/fv/logs/status.sock;\n")) << *fv;
  // The template's own listen parameters are kept, the backlog after them.
  std::string t = kTemplate;
  t.replace(t.find("listen 8080;"), 12, "listen 8080 reuseport;");
  auto kept = RenderFairvisorConf(t, f);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_TRUE(Has(*kept, "    listen 127.0.0.1:18480 reuseport backlog=16;\n")) << *kept;
}

TEST(RenderBackend, ChatCompletionBodyQuoted) {
  NginxParams p = Plain();
  p.prefix = "/b/run/backend";
  std::string c = RenderBackendConf(p);
  EXPECT_TRUE(Has(c, "default_type application/json; return 200 \"{\\\"id\\\":\\\"chatcmpl-bench\\\","))
      << c;
  EXPECT_TRUE(Has(c, "\\\"total_tokens\\\":11}}\\n\"; }")) << c;
  EXPECT_TRUE(Has(c, "location = /livez"));
}

TEST(StatusListener, AbsentByDefault) {
  EXPECT_FALSE(Has(RenderBaselineConf(Plain()), "stub_status"));
  EXPECT_FALSE(Has(RenderBackendConf(Plain()), "stub_status"));
  auto fv = RenderFairvisorConf(kTemplate, Params());
  ASSERT_TRUE(fv.ok()) << fv.error().message;
  EXPECT_FALSE(Has(*fv, "stub_status"));
  EXPECT_EQ(RenderStatusServer(""), "");
}

TEST(StatusListener, OwnServerOnAUnixSocketInEveryConfig) {
  const std::string block =
      "  server {  # fvbench status listener (progress lines), off the measured path\n"
      "    listen unix:/b/run/x/logs/status.sock;\n"
      "    access_log off;\n"
      "    location = /fvbench_status { stub_status; }\n"
      "    location / { return 404; }\n"
      "  }\n";
  EXPECT_EQ(RenderStatusServer("/b/run/x/logs/status.sock"), block);
  NginxParams p = Plain();
  p.status_socket = "/b/run/x/logs/status.sock";
  for (const std::string& c : {RenderBaselineConf(p), RenderBackendConf(p)}) {
    // After the measured server, inside http, which it closes.
    size_t measured = c.find("listen 127.0.0.1:18482;");
    size_t status = c.find(block);
    ASSERT_NE(status, std::string::npos) << c;
    EXPECT_LT(measured, status);
    EXPECT_EQ(c.substr(status + block.size()), "}\n");
    EXPECT_EQ(std::count(c.begin(), c.end(), '{'), std::count(c.begin(), c.end(), '}')) << c;
  }
  FairvisorParams f = Params();
  f.status_socket = "/b/run/fv/logs/status$.sock";  // a `$` must survive the regex replacement
  auto fv = RenderFairvisorConf(kTemplate, f);
  ASSERT_TRUE(fv.ok()) << fv.error().message;
  EXPECT_TRUE(Has(*fv, "  access_log /b/run/fv/logs/access.log;\n  server {  # fvbench status listener")) << *fv;
  EXPECT_TRUE(Has(*fv, "    listen unix:/b/run/fv/logs/status$.sock;\n")) << *fv;
  EXPECT_TRUE(Has(*fv, "    listen 127.0.0.1:18480;\n"));  // the measured listener is unchanged
  EXPECT_EQ(std::count(fv->begin(), fv->end(), '{'), std::count(fv->begin(), fv->end(), '}'));
}

// The limits log takes the access log's place: the same config but for that
// one line, which becomes a log_format and an access_log in it (nginx's `$`
// variables kept through the regex replacement, before the status server).
TEST(RenderFairvisor, LimitsLogReplacesTheAccessLog) {
  FairvisorParams p = Params();
  p.status_socket = "/b/run/fv/logs/status.sock";
  auto off = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(off.ok()) << off.error().message;
  p.limits_log = true;
  auto on = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(on.ok()) << on.error().message;
  const std::string access = "  access_log /b/run/fv/logs/access.log;\n";
  const std::string limits =
      "  log_format fvbench_limits '$msec $status $http_x_bench_key';\n"
      "  access_log /b/run/fv/logs/limits.log fvbench_limits;\n";
  EXPECT_EQ(LimitsLogPath("/b/run/fv"), "/b/run/fv/logs/limits.log");
  EXPECT_FALSE(Has(*on, "access.log")) << *on;
  EXPECT_TRUE(Has(*on, "  proxy_temp_path /b/run/fv/tmp/proxy;\n" + limits + "  server {  # fvbench status")) << *on;
  std::string expected = *off;
  const size_t at = expected.find(access);
  ASSERT_NE(at, std::string::npos) << expected;
  expected.replace(at, access.size(), limits);
  EXPECT_EQ(*on, expected);
}

// Lua profiles on: the config without them plus exactly the four changes
// nginx_conf.h lists; off (the default) nothing of them is there.
void ReplaceOnce(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from << "\nnot in\n" << s;
  EXPECT_EQ(s.find(from, at + 1), std::string::npos) << from;
  s.replace(at, from.size(), to);
}

TEST(RenderFairvisor, LuaProfileIsTheOffConfigPlusFourChanges) {
  FairvisorParams p = Params();
  p.status_socket = "/b/run/fv/logs/status.sock";
  auto off = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(Has(*off, "fvbench_profile")) << *off;
  EXPECT_FALSE(Has(*off, "init_worker_by_lua_block")) << *off;
  p.lua_profile = true;
  auto on = RenderFairvisorConf(kTemplate, p);
  ASSERT_TRUE(on.ok()) << on.error().message;
  std::string expected = *off;
  ReplaceOnce(expected, "lua_package_path \"/srv/edge/src/?.lua;;\";",
              "lua_package_path \"/b/run/fv/lua/?.lua;/srv/edge/src/?.lua;;\";");
  ReplaceOnce(expected, "  init_worker_by_lua_file /srv/edge/src/nginx/init_worker.lua;\n",
              "  # fvbench: the Lua profiler's control, then edge's init_worker_by_lua_file\n"
              "  init_worker_by_lua_block {\n"
              "    require(\"fvbench_lua_profile\").init_worker(\"/b/run/fv/lua_profile\")\n"
              "    dofile(\"/srv/edge/src/nginx/init_worker.lua\")\n"
              "  }\n");
  ReplaceOnce(expected, "    location = /fvbench_status { stub_status; }\n    location / { return 404; }\n  }\n",
              "    location = /fvbench_status { stub_status; }\n"
              "    location = /fvbench_profile/start { content_by_lua_block { "
              "require(\"fvbench_lua_profile\").http_start() } }\n"
              "    location = /fvbench_profile/stop { content_by_lua_block { "
              "require(\"fvbench_lua_profile\").http_stop() } }\n"
              "    location = /fvbench_profile/state { content_by_lua_block { "
              "require(\"fvbench_lua_profile\").http_state() } }\n"
              "    location / { return 404; }\n  }\n"
              "  lua_shared_dict fvbench_profile 1m;\n");
  EXPECT_EQ(*on, expected);
  EXPECT_EQ(std::count(on->begin(), on->end(), '{'), std::count(on->begin(), on->end(), '}'));
  // Baseline and backend never get the locations.
  EXPECT_FALSE(Has(RenderStatusServer("/s.sock"), "fvbench_profile"));
}

TEST(RenderFairvisor, LuaProfileWithoutEdgesInitWorkerGetsItsOwnBlock) {
  FairvisorParams p = Params();
  p.status_socket = "/b/run/fv/logs/status.sock";
  p.lua_profile = true;
  std::string tmpl = kTemplate;
  ReplaceOnce(tmpl, "  init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;\n", "");
  auto on = RenderFairvisorConf(tmpl, p);
  ASSERT_TRUE(on.ok()) << on.error().message;
  EXPECT_TRUE(Has(*on, "  lua_shared_dict fvbench_profile 1m;\n"
                       "  # fvbench: the Lua profiler's control (a `#` inside the block would be Lua)\n"
                       "  init_worker_by_lua_block {\n"
                       "    require(\"fvbench_lua_profile\").init_worker(\"/b/run/fv/lua_profile\")\n"
                       "  }\n")) << *on;
  EXPECT_FALSE(Has(*on, "dofile")) << *on;
}

TEST(RenderFairvisor, LuaProfileErrorsNameWhatIsMissing) {
  FairvisorParams p = Params();
  p.lua_profile = true;  // no status socket
  auto r = RenderFairvisorConf(kTemplate, p);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "status_socket")) << r.error().message;

  p.status_socket = "/b/run/fv/logs/status.sock";
  std::string block = kTemplate;
  ReplaceOnce(block, "  init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;\n",
              "  init_worker_by_lua_block { ngx.log(ngx.ERR, 1) }\n");
  r = RenderFairvisorConf(block, p);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "init_worker_by_lua_block { ngx.log(ngx.ERR, 1) }' cannot be wrapped"))
      << r.error().message;

  std::string no_path = kTemplate;
  ReplaceOnce(no_path, "  lua_package_path \"/opt/fairvisor/src/?.lua;;\";\n", "");
  ReplaceOnce(no_path, "init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;",
              "init_worker_by_lua_file /opt/fairvisor/src/nginx/init_worker.lua;\n"
              "  content_by_lua_file /opt/fairvisor/src/nginx/x.lua;");
  r = RenderFairvisorConf(no_path, p);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Has(r.error().message, "expected exactly one lua_package_path directive to put /b/run/fv/lua first, "
                                     "found 0")) << r.error().message;
}

// 08_nginx_workers_vs_cpuset.env (fixtures/odd_inputs): one worker per CPU the nginx may use, never nginx's
// own `auto` (online CPUs) when the count is known.
TEST(NginxWorkerProcesses, OnePerCpuOfTheCpusetOrOfTheUsableCpus) {
  EXPECT_EQ(NginxWorkerProcesses("0", 2), "1");
  EXPECT_EQ(NginxWorkerProcesses("0-3,6", 16), "5");
  EXPECT_EQ(NginxWorkerProcesses("", 3), "3");  // unpinned: the host's usable CPUs
  EXPECT_EQ(NginxWorkerProcesses("", 0), "auto");  // unknown (dry run)
}

}  // namespace
}  // namespace fvbench::nginx_conf_test
