#include "support/sut/nginx_files.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fvbench::nginx_files_test {
namespace {

TEST(DirectiveName, FirstWordOfTheLine) {
  EXPECT_EQ(DirectiveName("  include /x/y.conf;"), "include");
  EXPECT_EQ(DirectiveName("\tpid /p;"), "pid");
  EXPECT_EQ(DirectiveName("http {"), "http");
  EXPECT_EQ(DirectiveName("  # include /x;"), "");
  EXPECT_EQ(DirectiveName("   "), "");
  EXPECT_EQ(DirectiveName("  }"), "");
}

TEST(IsFileDirective, PathTakingDirectivesOnly) {
  for (const char* d : {"include", "pid", "error_log", "access_log", "load_module", "root", "alias",
                        "lua_package_path", "lua_package_cpath", "content_by_lua_file", "init_worker_by_lua_file",
                        "header_filter_by_lua_file", "proxy_temp_path", "client_body_temp_path",
                        "auth_basic_user_file", "ssl_certificate", "ssl_certificate_key", "ssl_dhparam",
                        "lua_ssl_trusted_certificate", "proxy_ssl_certificate", "ssl_crl", "ssl_password_file"}) {
    EXPECT_TRUE(IsFileDirective(d)) << d;
  }
  for (const char* d : {"listen", "set", "return", "proxy_pass", "resolver", "lua_shared_dict", "worker_processes",
                        "content_by_lua_block", "ssl_protocols", "ssl_ciphers", "location", "server_name", "env"}) {
    EXPECT_FALSE(IsFileDirective(d)) << d;
  }
}

TEST(ReferencedFiles, IncludesLuaFilesAndPackageDirectories) {
  const std::string conf =
      "load_module /usr/lib/nginx/modules/ngx_http_lua_module.so;\n"
      "http {\n"
      "  include /e/asn_type.map;\n"
      "  # include /commented/out;\n"
      "  include mime.types;\n"
      "  include /etc/nginx/conf.d/*.conf;\n"
      "  lua_package_path \"/e/src/?.lua;/e/lib/?/init.lua;;\";\n"
      "  init_worker_by_lua_file /e/src/nginx/init_worker.lua;\n"
      "  content_by_lua_file /e/src/$uri.lua;\n"
      "  error_log /r/logs/error.log warn;\n"
      "}\n";
  std::vector<FileReference> refs = ReferencedFiles(conf);
  ASSERT_EQ(refs.size(), 5u);
  EXPECT_EQ(refs[0].line, 1u);
  EXPECT_EQ(refs[0].directive, "load_module");
  EXPECT_EQ(refs[0].path, "/usr/lib/nginx/modules/ngx_http_lua_module.so");
  EXPECT_EQ(refs[1].path, "/e/asn_type.map");
  EXPECT_EQ(refs[1].line, 3u);
  EXPECT_EQ(refs[2].directive, "lua_package_path");
  EXPECT_EQ(refs[2].path, "/e/src");
  EXPECT_EQ(refs[3].path, "/e/lib");
  EXPECT_EQ(refs[4].directive, "init_worker_by_lua_file");
  EXPECT_EQ(refs[4].path, "/e/src/nginx/init_worker.lua");
  EXPECT_EQ(refs[4].line, 8u);
}

// nginx reads '#' as a comment only where a word would start; inside a word
// (a BENCH_DIR such as /tmp/t9#z) or quotes it is a character.
TEST(ReferencedFiles, AHashInsideAWordIsNoComment) {
  const std::string conf =
      "include /tmp/t9#z/conf/asn.map;\n"
      "lua_package_path \"/tmp/a#b/?.lua;;\";\n"
      "include /e/x.map; # include /commented/out;\n"
      "include /e/y.map;# include /also/out;\n";
  std::vector<FileReference> refs = ReferencedFiles(conf);
  ASSERT_EQ(refs.size(), 4u);
  EXPECT_EQ(refs[0].path, "/tmp/t9#z/conf/asn.map");
  EXPECT_EQ(refs[1].path, "/tmp/a#b");
  EXPECT_EQ(refs[2].path, "/e/x.map");
  EXPECT_EQ(refs[3].path, "/e/y.map");
}

}  // namespace
}  // namespace fvbench::nginx_files_test
