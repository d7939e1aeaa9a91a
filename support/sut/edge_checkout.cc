#include "support/sut/edge_checkout.h"

#include <fmt/format.h>

#include <filesystem>

#include "support/core/command_values.h"
#include "support/core/text.h"
#include "support/host/shell_quote.h"

namespace fvbench {
namespace {

using std::chrono::minutes;

using detail::TrimSpace;

// Who owns `dir` (and its .git) and who provisioning runs as, on the host.
const char kOwnerScript[] =
    "stat -c 'dir_owner=%u %U' -- \"$1\" 2>/dev/null; "
    "if [ -e \"$1/.git\" ]; then stat -c 'git_owner=%u %U' -- \"$1/.git\" 2>/dev/null; fi; "
    "printf 'me=%s %s\\n' \"$(id -u)\" \"$(id -un)\"";

struct Owner {
  std::string uid;
  std::string name;
};

Owner OwnerOf(const std::map<std::string, std::string>& kv, const std::string& key) {
  auto it = kv.find(key);
  if (it == kv.end()) return {};
  const std::string& v = it->second;
  const size_t sp = v.find(' ');
  return {v.substr(0, sp), sp == std::string::npos ? "" : v.substr(sp + 1)};
}

// The Error for a checkout git refused as owned by someone else.
Error ForeignCheckout(StepRunner& r, const std::string& var, const std::string& dir) {
  auto e = r.Exec("edge checkout owner", {"sh", "-c", kOwnerScript, "sh", dir});
  const auto kv = e && e->success() ? detail::ParseKeyValues(e->out) : std::map<std::string, std::string>{};
  const Owner me = OwnerOf(kv, "me");
  Owner owner = OwnerOf(kv, "dir_owner");
  if (const Owner g = OwnerOf(kv, "git_owner"); !g.uid.empty() && g.uid != me.uid) owner = g;
  const std::string who = owner.uid.empty() ? "another user" : fmt::format("{} (uid {})", owner.name, owner.uid);
  const std::string runner = me.uid.empty() ? "the user provisioning runs as"
                                            : fmt::format("{} (uid {}), who provisioning runs as there", me.name, me.uid);
  return Error{fmt::format(
      "provision edge checkout on host {}: {}={} is owned by {}, not by {}; git refuses a repository owned by "
      "someone else (its safe.directory check) and fvbench does not override that. Use a checkout owned by {} "
      "(for example a copy of this one), or, if you trust that user's repository, opt in with git's own setting, "
      "run on that host as {}: git config --global --add safe.directory {}",
      r.host().name(), var, dir, who, runner, me.name.empty() ? "that user" : me.name,
      me.name.empty() ? "that user" : me.name, ShellQuote(dir))};
}

// git in `dir`; a refusal for dubious ownership is ForeignCheckout's Error
// (naming `var`), any other result is the caller's to judge.
Result<ExecResult> Git(StepRunner& r, const std::string& step, const std::string& var, const std::string& dir,
                       std::vector<std::string> args, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  auto e = r.Exec(step, detail::GitArgv(dir, std::move(args)), timeout, detail::GitEnv(dir));
  if (e && !e->success() && detail::IsDubiousOwnership(e->err)) return ForeignCheckout(r, var, dir);
  return e;
}

// Like Git, but any failure is an Error naming the step and git's stderr.
Result<ExecResult> GitMust(StepRunner& r, const std::string& step, const std::string& var, const std::string& dir,
                           std::vector<std::string> args,
                           std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
  std::vector<std::string> argv = detail::GitArgv(dir, args);
  auto e = Git(r, step, var, dir, std::move(args), timeout);
  if (!e || e->success() || r.config().dry_run) return e;
  return Error{fmt::format("provision {} on host {}: `{}` {} : {}", step, r.host().name(), ShellJoin(argv),
                           e->timed_out ? "timed out" : fmt::format("exited {}", e->exit_code),
                           TailOf(e->err.empty() ? e->out : e->err))};
}

// The commit `ref` names in the clone ("" when unknown).
Result<std::string> ResolveRef(StepRunner& r, const std::string& dir, const std::string& ref) {
  for (const std::string& cand : {"origin/" + ref, ref}) {
    auto e = Git(r, "edge ref", "FV_DIR", dir, {"rev-parse", "--verify", "--quiet", "--end-of-options",
                                                cand + "^{commit}"});
    if (!e) return e.error();
    if (e->success() && !TrimSpace(e->out).empty()) return std::string(TrimSpace(e->out));
  }
  return std::string();
}

// What is at FV_DIR: "git" (a clone), "occupied" (something else), "empty".
Result<std::string> FvDirState(StepRunner& r, const std::string& dir) {
  auto state = r.Exec("edge checkout",
                      {"sh", "-c",
                       "if [ -d \"$1/.git\" ]; then echo git; elif [ -e \"$1\" ] && [ -n \"$(ls -A -- \"$1\" "
                       "2>/dev/null)\" ]; then echo occupied; else echo empty; fi",
                       "sh", dir});
  if (!state) return state.error();
  return std::string(TrimSpace(state->out));
}

// An existing clone at FV_DIR: of the same origin, else an Error. Returns
// true when it is already at the wanted commit (or no ref is asked).
Result<bool> ExistingCloneIsCurrent(StepRunner& r, const std::string& dir) {
  const Config& cfg = r.config();
  auto url = Git(r, "edge checkout", "FV_DIR", dir, {"remote", "get-url", "origin"});
  if (!url) return url.error();
  if (url->success() && TrimSpace(url->out) != cfg.edge_src) {
    return Error{fmt::format("provision edge checkout on host {}: FV_DIR={} is a clone of '{}', not of "
                             "FAIRVISOR_EDGE_SRC='{}'; set FV_DIR elsewhere",
                             r.host().name(), dir, TrimSpace(url->out), cfg.edge_src)};
  }
  if (cfg.edge_ref.empty()) return true;  // existing clone, no ref asked: left alone
  auto head = Git(r, "edge checkout", "FV_DIR", dir, {"rev-parse", "--verify", "HEAD"});
  if (!head) return head.error();
  auto want = ResolveRef(r, dir, cfg.edge_ref);
  if (!want) return want.error();
  return head->success() && !want->empty() && TrimSpace(head->out) == *want;
}

// A new clone of FAIRVISOR_EDGE_SRC at FV_DIR (made for the SSH user first
// when it is not root: FV_DIR defaults to /opt/fairvisor).
Result<void> NewClone(StepRunner& r, bool root, EdgeCheckoutInfo& info) {
  const Config& cfg = r.config();
  const std::string& dir = cfg.fv_dir;
  if (!root) {
    auto own = r.Must("edge clone (FV_DIR for the SSH user)",
                      {"sh", "-c",
                       "[ -w \"$1\" ] || [ -w \"$(dirname -- \"$1\")\" ] || "
                       "{ sudo -n mkdir -p -- \"$1\" && sudo -n chown -- \"$(id -u):$(id -g)\" \"$1\"; }",
                       "sh", dir});
    if (!own) return own.error();
  }
  // A local source owned by someone else is refused by git like a checkout used in place.
  std::vector<std::string> clone = {"clone", "--quiet", "--no-checkout", "--", cfg.edge_src, dir};
  auto c = r.Exec("edge clone", detail::GitArgv("", clone), minutes(10), detail::GitEnv(""));
  if (!c) return c.error();
  if (!c->success() && detail::IsDubiousOwnership(c->err) && !IsGitUrl(cfg.edge_src)) {
    return ForeignCheckout(r, "FAIRVISOR_EDGE_SRC", cfg.edge_src);
  }
  if (!c->success() && !cfg.dry_run) {
    return Error{fmt::format("provision edge clone on host {}: `{}` {} : {}", r.host().name(),
                             ShellJoin(detail::GitArgv("", clone)),
                             c->timed_out ? "timed out" : fmt::format("exited {}", c->exit_code),
                             TailOf(c->err.empty() ? c->out : c->err))};
  }
  auto s = GitMust(r, "edge sparse-checkout", "FV_DIR", dir, {"sparse-checkout", "set", "src", "docker", "data"});
  if (!s) return s.error();
  info.cloned = true;
  return Ok();
}

// FAIRVISOR_EDGE_SRC cloned (or fetched) into FV_DIR and checked out at
// FAIRVISOR_EDGE_REF (the clone's branch when none).
Result<void> CloneEdge(StepRunner& r, bool root, EdgeCheckoutInfo& info) {
  const Config& cfg = r.config();
  const std::string& dir = cfg.fv_dir;
  const std::string& ref = cfg.edge_ref;
  auto st = FvDirState(r, dir);
  if (!st) return st.error();
  if (*st == "occupied") {
    return Error{fmt::format("provision edge checkout on host {}: FV_DIR={} exists, is not empty and is not a git "
                             "clone; refusing to clone over it",
                             r.host().name(), dir)};
  }
  if (*st == "git") {
    auto current = ExistingCloneIsCurrent(r, dir);
    if (!current) return current.error();
    if (*current) return Ok();
    auto f = GitMust(r, "edge fetch", "FV_DIR", dir, {"fetch", "--quiet", "--tags", "origin"}, minutes(5));
    if (!f) return f.error();
  } else if (auto c = NewClone(r, root, info); !c) {
    return c.error();
  }
  std::vector<std::string> co = {"checkout", "--quiet"};
  if (ref.empty()) {
    auto b = GitMust(r, "edge checkout", "FV_DIR", dir, {"symbolic-ref", "--short", "HEAD"});
    if (!b) return b.error();
    // The clone's default branch comes from the remote: checked like a ref.
    const std::string branch(TrimSpace(b->out));
    if (auto ok = CheckGitRef("the clone's default branch", branch); !ok) {
      return Error{fmt::format("provision edge checkout on host {}: {}", r.host().name(), ok.error().message)};
    }
    // DRY_RUN resolves nothing: the plan names what a real run checks out.
    co.push_back(!branch.empty() ? branch : std::string("<the clone's default branch>"));
  } else {
    auto target = ResolveRef(r, dir, ref);
    if (!target) return target.error();
    if (target->empty() && !cfg.dry_run) {
      return Error{fmt::format("provision edge checkout on host {}: FAIRVISOR_EDGE_REF='{}' is not a branch, tag or "
                               "commit of {}",
                               r.host().name(), ref, cfg.edge_src)};
    }
    co.insert(co.end(), {"--detach", !target->empty() ? *target : ref});
  }
  co.push_back("--");
  auto c = GitMust(r, "edge checkout", "FV_DIR", dir, co, minutes(5));
  if (!c) return c.error();
  return Ok();
}

// Commit and dirtiness of the checkout at info.edge_dir ("" / false when it
// is no git checkout).
Result<void> RecordCommit(StepRunner& r, const std::string& var, EdgeCheckoutInfo& info) {
  const std::string& dir = info.edge_dir;
  auto head = Git(r, "edge commit", var, dir, {"rev-parse", "--verify", "HEAD"});
  if (!head) return head.error();
  if (!head->success()) return Ok();
  info.edge_commit = std::string(TrimSpace(head->out));
  auto st = Git(r, "edge commit", var, dir, {"status", "--porcelain", "--untracked-files=no"});
  if (!st) return st.error();
  info.edge_dirty = st->success() && !TrimSpace(st->out).empty();
  return Ok();
}

}  // namespace

namespace detail {

std::vector<std::string> GitArgv(const std::string& dir, std::vector<std::string> args) {
  std::vector<std::string> a = {"git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
                                "-c", "protocol.ext.allow=never", "--no-optional-locks"};
  if (!dir.empty()) a.insert(a.end(), {"-C", dir});
  a.insert(a.end(), std::make_move_iterator(args.begin()), std::make_move_iterator(args.end()));
  return a;
}

std::map<std::string, std::string> GitEnv(const std::string& dir) {
  std::map<std::string, std::string> env = {{"GIT_TERMINAL_PROMPT", "0"}, {"LC_ALL", "C"}};
  if (!dir.empty()) env["GIT_CEILING_DIRECTORIES"] = std::filesystem::path(dir).parent_path().string();
  return env;
}

bool IsDubiousOwnership(const std::string& git_stderr) {
  // git >= 2.36; 2.35.2 .. 2.35.x (and some distributions' backports) said "unsafe repository".
  return git_stderr.find("dubious ownership") != std::string::npos ||
         git_stderr.find("unsafe repository") != std::string::npos;
}

}  // namespace detail

Result<EdgeCheckoutInfo> ProvisionEdgeCheckout(StepRunner& r, bool root, bool have_git) {
  const Config& cfg = r.config();
  EdgeCheckoutInfo info;
  if (!IsGitUrl(cfg.edge_src) && cfg.edge_ref.empty()) {
    info.edge_dir = cfg.edge_src;
    info.edge_in_place = true;
  } else {
    info.edge_dir = cfg.fv_dir;
    if (auto c = CloneEdge(r, root, info); !c) return c.error();
  }
  auto edge = r.Exec("edge checkout",
                     {"sh", "-c",
                      "cd -- \"$1\" 2>/dev/null || { echo missing=yes; exit 0; }; "
                      "[ -f docker/nginx.conf.template ] && echo template=yes; "
                      "[ -f src/nginx/init_worker.lua ] && echo init_worker=yes; "
                      "if [ -f asn_type.map ]; then echo \"asn=$1/asn_type.map\"; "
                      "elif [ -f data/asn_type.map ]; then echo \"asn=$1/data/asn_type.map\"; fi; true",
                      "sh", info.edge_dir});
  if (!edge) return edge.error();
  auto kv = detail::ParseKeyValues(edge->out);
  if (kv["missing"] == "yes" && info.edge_in_place && !cfg.dry_run) {
    return Error{fmt::format("provision edge checkout on host {}: FAIRVISOR_EDGE_SRC={} does not exist on that host. "
                             "A path names a checkout on the SUT host (in remote mode the suite never copies a "
                             "checkout from the controller): put the checkout there, or give a git URL the SUT "
                             "host can clone",
                             r.host().name(), info.edge_dir)};
  }
  if ((kv["template"] != "yes" || kv["init_worker"] != "yes") && !cfg.dry_run) {
    return Error{fmt::format("provision edge checkout on host {}: {} is not a fairvisor edge checkout "
                             "(docker/nginx.conf.template {}, src/nginx/init_worker.lua {})",
                             r.host().name(), info.edge_dir, kv["template"] == "yes" ? "present" : "missing",
                             kv["init_worker"] == "yes" ? "present" : "missing")};
  }
  info.asn_map_path = kv["asn"];
  if (!have_git && info.edge_in_place) return info;  // no git on the host: no commit to record
  if (auto c = RecordCommit(r, info.edge_in_place ? "FAIRVISOR_EDGE_SRC" : "FV_DIR", info); !c) return c.error();
  return info;
}

}  // namespace fvbench
