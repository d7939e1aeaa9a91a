#include "support/judge/environment_drift.h"

#include <fmt/format.h>

namespace fvbench {
namespace {

const HostEnvironment* FindHost(const std::vector<HostEnvironment>& envs, const HostEnvironment& like) {
  for (const HostEnvironment& e : envs) {
    if (e.role == like.role && e.host == like.host) return &e;
  }
  return nullptr;
}

bool HasKey(const HostEnvironment& e, const std::string& key) {
  for (const EnvironmentValue& v : e.values) {
    if (v.key == key) return true;
  }
  return false;
}

// A value on one line: backslashes and newlines escaped, so no value reads as another line.
std::string OneLine(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Shown(const std::string& value) { return value.empty() ? std::string(kNotExposed) : value; }

// One difference: the roles of a host it was seen under, the host, what.
struct Change {
  std::string roles;
  std::string host;
  std::string what;
};

// A change already listed for the same host under another role (local mode
// records one machine as sut and as loadgen) gains that role instead of a
// second line.
void Add(std::vector<Change>& out, const std::string& role, const std::string& host, std::string what) {
  for (Change& c : out) {
    if (c.host == host && c.what == what) {
      c.roles += "+" + role;
      return;
    }
  }
  out.push_back({role, host, std::move(what)});
}

void HostChanges(const HostEnvironment& a, const HostEnvironment& b, std::vector<Change>& out) {
  auto line = [&](const std::string& key, const std::string& va, const std::string& vb) {
    if (va != vb) Add(out, b.role, b.host, fmt::format("{} {} -> {}", key, Shown(va), Shown(vb)));
  };
  for (const EnvironmentValue& v : b.values) line(v.key, a.Get(v.key), v.value);
  for (const EnvironmentValue& v : a.values) {
    if (!HasKey(b, v.key)) line(v.key, v.value, "");
  }
}

}  // namespace

std::vector<std::string> EnvironmentChanges(const std::vector<HostEnvironment>& before,
                                            const std::vector<HostEnvironment>& after) {
  std::vector<Change> changes;
  if (before.empty() || after.empty()) return {};
  for (const HostEnvironment& b : after) {
    if (const HostEnvironment* a = FindHost(before, b)) {
      HostChanges(*a, b, changes);
    } else {
      Add(changes, b.role, b.host, "in the later run only");
    }
  }
  for (const HostEnvironment& a : before) {
    if (!FindHost(after, a)) Add(changes, a.role, a.host, "in the earlier run only");
  }
  std::vector<std::string> out;
  for (const Change& c : changes) out.push_back(fmt::format("{} {}: {}", c.roles, c.host, c.what));
  return out;
}

std::string EnvironmentCanonicalText(const std::vector<HostEnvironment>& envs) {
  std::string out;
  for (const HostEnvironment& e : envs) {
    out += fmt::format("{} {}\n", OneLine(e.role), OneLine(e.host));
    for (const EnvironmentValue& v : e.values) out += fmt::format("  {}={}\n", OneLine(v.key), OneLine(v.value));
  }
  return out;
}

}  // namespace fvbench
