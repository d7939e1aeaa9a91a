// fairvisor edge's checkout on the SUT host (ProvisionSut's last step):
// used in place or cloned, checked to be an edge tree, its commit and
// dirtiness recorded in ProvisionInfo.
//
//   FAIRVISOR_EDGE_SRC a path, no ref -> used in place (edge_in_place)
//   a URL, or a path and a ref       -> cloned into Config::fv_dir:
//       git clone --quiet --no-checkout -- <src> <fv_dir>
//       git sparse-checkout set src docker data
//       git checkout --quiet --detach <commit of ref> --   (a ref)
//       git checkout --quiet <the clone's branch> --        (no ref)
//     An existing clone of the same origin at the wanted commit (or any
//     commit when no ref is asked) is left alone; one of the same origin
//     elsewhere is fetched (`git fetch --quiet --tags origin`) and checked out.
//
// Every git command is GitArgv's:
//   git -c core.fsmonitor=false -c core.hooksPath=/dev/null
//       -c protocol.ext.allow=never --no-optional-locks [-C <dir>] <args>
// with GitEnv: GIT_TERMINAL_PROMPT=0, and GIT_CEILING_DIRECTORIES=<dir's
// parent> so that a directory that is no repository is never taken for a
// repository above it. So no program that a repository's configuration
// names runs (its fsmonitor, its hooks), no ext:: transport is used, a read
// writes nothing (no index refresh), and nothing waits for a password. User
// values are positionals after `--` (clone, checkout) or `--end-of-options`
// (rev-parse); LoadConfig has refused option-shaped ones already
// (core/command_values.h).
//
// git's safe.directory is never overridden. A checkout (or an FV_DIR clone)
// owned by another user than the one provisioning runs as there is refused
// by git ("dubious ownership"); that becomes an Error naming the variable,
// the directory, its owner and uid, the user provisioning runs as, and git's
// own opt-in (`git config --global --add safe.directory <dir>`, run on that
// host as that user), which fvbench never makes itself. After that opt-in
// the checkout is used, still with its fsmonitor and hooks off.
//
// Commit and dirtiness of a checkout used in place: `git rev-parse --verify
// HEAD` and `git status --porcelain --untracked-files=no` (no output = clean);
// a tree that is no git checkout (or a host without git) has no commit.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "support/core/result.h"
#include "support/sut/step_runner.h"

namespace fvbench {

// What ProvisionEdgeCheckout found (ProvisionInfo's fields of the same names).
struct EdgeCheckoutInfo {
  std::string edge_dir;       // the checkout used: FAIRVISOR_EDGE_SRC in place, or FV_DIR
  bool edge_in_place = false;
  std::string edge_commit;    // "" when not a git checkout
  bool edge_dirty = false;    // tracked files modified
  std::string asn_map_path;   // <edge_dir>/asn_type.map or data/asn_type.map; "" if neither
  bool cloned = false;        // a new clone was made
};

// Prepares Config::edge_src (of r.config()) as above. `root`: provisioning
// runs as root on the host (else FV_DIR is made with sudo -n and handed to
// the SSH user); `have_git`: the host has git (a checkout used in place
// needs none).
Result<EdgeCheckoutInfo> ProvisionEdgeCheckout(StepRunner& r, bool root, bool have_git);

namespace detail {
// The git argv above; no -C when dir is empty.
std::vector<std::string> GitArgv(const std::string& dir, std::vector<std::string> args);
// The environment above (no ceiling when dir is empty).
std::map<std::string, std::string> GitEnv(const std::string& dir);
// git's refusal of a repository owned by someone else, from its stderr.
bool IsDubiousOwnership(const std::string& git_stderr);
}  // namespace detail

}  // namespace fvbench
