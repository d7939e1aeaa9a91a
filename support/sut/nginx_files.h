// Which nginx directives name files, and which files a rendered nginx.conf
// refers to. Pure: no I/O. SutServices checks that each referenced file exists
// on the SUT host before `nginx -t`, because nginx itself checks only some of
// them at `-t` time: `include` and `load_module` are read while parsing, but
// the Lua files of `*_by_lua_file` are loaded when a worker starts or a
// request arrives, and `lua_package_path` directories only on `require`.
//
// Directive names: nginx core and module reference
// (https://nginx.org/en/docs/dirindex.html) and lua-nginx-module's README
// (`*_by_lua_file`, lua_package_path, lua_package_cpath).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fvbench {

// The directive of one line of nginx configuration: its first word without a
// trailing ';' ("" for a blank line, a comment, or a line of only braces).
std::string DirectiveName(std::string_view line);

// True for directives whose arguments are file or directory paths:
// include, pid, error_log, access_log, load_module, root, alias,
// lua_package_path, lua_package_cpath, every `*_by_lua_file`, every
// `*_temp_path`, every `*_user_file`, and the ssl_/proxy_ssl_/lua_ssl_
// certificate, key, dhparam, crl and password_file directives.
bool IsFileDirective(std::string_view name);

// A file a configuration line refers to.
struct FileReference {
  size_t line = 0;          // 1-based line number in the configuration text
  std::string directive;    // e.g. "include", "content_by_lua_file", "lua_package_path"
  std::string path;         // absolute path; for lua_package_path/cpath the directory of one entry
};

// The files and directories that must exist for the configuration to serve:
// the argument of `include`, `load_module` and `*_by_lua_file`, and the
// directory of each `lua_package_path` / `lua_package_cpath` entry (the part
// before its first '?'; the ";;" default entry is skipped). Paths that nginx
// creates itself (logs, pid, temp paths), relative paths and globs (nginx
// resolves those and `nginx -t` reads every include) and arguments holding
// nginx variables ($...) are not listed. Comments are skipped.
std::vector<FileReference> ReferencedFiles(std::string_view conf);

}  // namespace fvbench
