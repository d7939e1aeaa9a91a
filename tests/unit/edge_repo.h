// Real git repositories shaped like a fairvisor edge checkout, for the tests
// of provisioning's edge checkout (edge_checkout_test.cc, locally;
// edge_checkout_remote_test.cc, on the namespace SUT host, which shares this
// machine's filesystem). Armed repositories carry programs that leave a
// marker file when git runs them: core.fsmonitor and hooks.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/host/local_host.h"
#include "support/host/shell_quote.h"

namespace fvbench::testing_edge {

// Runs `script` with sh here; its stdout, or "" and a failure when it fails.
inline std::string Sh(const std::string& script) {
  LocalHost local;
  Command c;
  c.argv = {"sh", "-c", script};
  auto r = local.Run(c);
  if (!r.ok() || !r->success()) {
    ADD_FAILURE() << "`" << script << "`: " << (r.ok() ? r->err : r.error().message);
    return "";
  }
  return r->out;
}

// A new empty directory under /tmp (mode 0700 until a test changes it).
inline std::string TempDir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
  char* d = ::mkdtemp(tmpl.data());
  if (d == nullptr) ADD_FAILURE() << "mkdtemp " << tmpl;
  return d != nullptr ? d : "/nonexistent";
}

inline std::string Git(const std::string& dir) {
  return "git -c user.name=fvbench-test -c user.email=test@fvbench.invalid -C " + ShellQuote(dir) + " ";
}

// An edge-shaped repository at `dir` (created): docker/nginx.conf.template,
// src/nginx/init_worker.lua, one commit on branch main, tagged v1.
inline void MakeEdgeRepo(const std::string& dir) {
  const std::string q = ShellQuote(dir);
  Sh("set -e; mkdir -p " + q + "/docker " + q + "/src/nginx; echo 'events {}' > " + q +
     "/docker/nginx.conf.template; echo '-- edge' > " + q + "/src/nginx/init_worker.lua; git init -q -b main " + q +
     "; " + Git(dir) + "add -A; " + Git(dir) + "commit -q -m one; " + Git(dir) + "tag v1");
}

// A second commit, tagged `tag`.
inline void AddCommit(const std::string& dir, const std::string& tag) {
  const std::string q = ShellQuote(dir);
  Sh("set -e; echo '-- " + tag + "' >> " + q + "/src/nginx/init_worker.lua; " + Git(dir) + "commit -q -am " + tag +
     "; " + Git(dir) + "tag " + tag);
}

inline std::string HeadOf(const std::string& dir, const std::string& rev = "HEAD") {
  std::string out = Sh(Git(dir) + "rev-parse " + ShellQuote(rev));
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

// Arms the repository whose git directory is `git_dir`: its config names an
// fsmonitor and its hooks run on checkout, index writes and ref updates;
// each leaves `<marker>-<name>` when run.
inline void ArmRepo(const std::string& git_dir, const std::string& marker) {
  const std::string hooks = git_dir + "/hooks";
  std::string s = "set -e; mkdir -p " + ShellQuote(hooks) + "; git config --file " + ShellQuote(git_dir + "/config") +
                  " core.fsmonitor " + ShellQuote("touch " + marker + "-fsmonitor; false") + "; ";
  for (const char* hook : {"post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"}) {
    const std::string f = hooks + "/" + hook;
    s += "printf '#!/bin/sh\\ntouch %s\\n' " + ShellQuote(marker + "-" + hook) + " > " + ShellQuote(f) +
         "; chmod 755 " + ShellQuote(f) + "; ";
  }
  Sh(s);
}

// The marker files `marker`-* that exist.
inline std::vector<std::string> Markers(const std::string& marker) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  const fs::path m(marker);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(m.parent_path(), ec)) {
    if (e.path().filename().string().rfind(m.filename().string(), 0) == 0) found.push_back(e.path().string());
  }
  return found;
}

}  // namespace fvbench::testing_edge
