#include "support/sut/os_release.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "support/core/text.h"

namespace fvbench {
namespace {

// os-release(5): a value may be enclosed in double or single quotes; inside
// double quotes a backslash escapes the next character.
std::string Unquote(const std::string& v) {
  if (v.size() < 2 || (v.front() != '"' && v.front() != '\'') || v.back() != v.front()) return v;
  std::string out;
  const bool dq = v.front() == '"';
  for (size_t i = 1; i + 1 < v.size(); ++i) {
    if (dq && v[i] == '\\' && i + 2 < v.size()) ++i;
    out += v[i];
  }
  return out;
}

bool HasWord(const std::string& words, const std::string& w) {
  std::istringstream in(words);
  std::string x;
  while (in >> x) {
    if (x == w) return true;
  }
  return false;
}

std::string Major(const std::string& version) { return version.substr(0, version.find('.')); }

}  // namespace

OsRelease ParseOsRelease(const std::string& text) {
  OsRelease os;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    line = std::string(detail::TrimSpace(line));
    size_t eq = line.find('=');
    if (line.empty() || line[0] == '#' || eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    std::string value = Unquote(std::string(detail::TrimSpace(line.substr(eq + 1))));
    if (key == "ID") os.id = value;
    else if (key == "ID_LIKE") os.id_like = value;
    else if (key == "VERSION_ID") os.version_id = value;
    else if (key == "VERSION_CODENAME") os.codename = value;
  }
  return os;
}

std::string HostOs::Describe() const {
  std::string s = id + " " + version;
  if (!codename.empty()) s += " (" + codename + ")";
  if (distro != id) s += " (" + distro + " " + version.substr(0, version.find('.')) + ")";
  return s;
}

Result<HostOs> ClassifyOs(const OsRelease& os, const std::string& where) {
  // The codename names the vendors' apt suites: a plain lower-case name.
  const bool plain_codename = std::all_of(os.codename.begin(), os.codename.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
  if (!plain_codename || (!os.codename.empty() && os.codename[0] == '-')) {
    return Error{fmt::format("{}: VERSION_CODENAME='{}' is not a plain lower-case name (letters, digits, '-')", where,
                             os.codename)};
  }
  HostOs h;
  h.id = os.id;
  h.version = os.version_id;
  h.codename = os.codename;
  if (os.id == "ubuntu" && (os.version_id == "22.04" || os.version_id == "24.04")) {
    h.family = PackageFamily::kApt;
    h.distro = "ubuntu";
    if (h.codename.empty()) h.codename = os.version_id == "22.04" ? "jammy" : "noble";
    return h;
  }
  if (os.id == "debian" && os.version_id == "12") {
    h.family = PackageFamily::kApt;
    h.distro = "debian";
    if (h.codename.empty()) h.codename = "bookworm";
    return h;
  }
  if (os.id == "amzn" && os.version_id == "2023") {
    h.family = PackageFamily::kDnf;
    h.distro = "amzn";
    h.codename.clear();
    return h;
  }
  if ((os.id == "rhel" || HasWord(os.id_like, "rhel")) && Major(os.version_id) == "9") {
    h.family = PackageFamily::kDnf;
    h.distro = "rhel";
    h.codename.clear();
    return h;
  }
  return Error{fmt::format(
      "{}: unsupported OS ID='{}' VERSION_ID='{}' ID_LIKE='{}'; fvbench provisions ubuntu 22.04/24.04, "
      "debian 12, amzn 2023 (Amazon Linux 2023) and RHEL-compatible 9 hosts",
      where, os.id, os.version_id, os.id_like)};
}

}  // namespace fvbench
