// report.md's "Host environment" table: one row per key of kEnvironmentKeys
// (core/host_environment.h) that some host has, one column per host ("<role>
// <host>"), kNotExposed where a host does not expose the value. Nothing when
// the run meta has no environments (a dry run, a run from before they were
// recorded), so such reports are unchanged. Formats only.
#pragma once

#include <string>
#include <vector>

#include "support/core/host_environment.h"

namespace fvbench {

void AppendHostEnvironmentMarkdown(std::string& out, const std::vector<HostEnvironment>& envs);

}  // namespace fvbench
