#include "support/host/known_hosts_markers.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cctype>
#include <sstream>

namespace fvbench {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// * and ? wildcards (OpenSSH match_pattern), on lower-cased text.
bool Wildcard(std::string_view text, std::string_view pattern) {
  if (pattern.empty()) return text.empty();
  if (pattern[0] == '*') {
    for (size_t i = 0; i <= text.size(); ++i) {
      if (Wildcard(text.substr(i), pattern.substr(1))) return true;
    }
    return false;
  }
  if (text.empty()) return false;
  if (pattern[0] != '?' && pattern[0] != text[0]) return false;
  return Wildcard(text.substr(1), pattern.substr(1));
}

std::string Base64Decode(std::string_view in) {
  std::string out(in.size() * 3 / 4 + 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return "";
  size_t pad = 0;
  for (size_t i = in.size(); i > 0 && in[i - 1] == '='; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// "|1|salt|hash": HMAC-SHA1 of `name` with the salt equals the hash.
bool HashedMatches(std::string_view entry, const std::string& name) {
  std::string_view rest = entry.substr(3);
  size_t bar = rest.find('|');
  if (bar == std::string_view::npos) return false;
  std::string salt = Base64Decode(rest.substr(0, bar));
  std::string want = Base64Decode(rest.substr(bar + 1));
  if (salt.empty() || want.size() != 20) return false;
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), salt.data(), static_cast<int>(salt.size()), reinterpret_cast<const unsigned char*>(name.data()),
       name.size(), mac, &len);
  return len == want.size() && std::string(reinterpret_cast<char*>(mac), len) == want;
}

// match_hostname: any positive pattern matches and no negated one does.
bool HostsMatch(const std::string& patterns, const std::string& name) {
  if (patterns.rfind("|1|", 0) == 0) return HashedMatches(patterns, name);
  bool matched = false;
  std::stringstream in(patterns);
  for (std::string p; std::getline(in, p, ',');) {
    bool negated = !p.empty() && p[0] == '!';
    if (negated) p.erase(0, 1);
    if (!Wildcard(Lower(name), Lower(p))) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

}  // namespace

std::vector<KnownHostsMarker> MarkersFor(std::string_view text, const std::string& file, const std::string& host,
                                         int port) {
  const std::string name = port == 22 ? host : "[" + host + "]:" + std::to_string(port);
  std::vector<KnownHostsMarker> out;
  std::istringstream in{std::string(text)};
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::istringstream words(line);
    KnownHostsMarker m;
    std::string hosts;
    if (!(words >> m.marker) || m.marker.empty() || m.marker[0] != '@') continue;
    if (!(words >> hosts >> m.key_type >> m.key_base64)) continue;
    if (!HostsMatch(hosts, name)) continue;
    m.file = file;
    m.line = line_no;
    out.push_back(std::move(m));
  }
  return out;
}

const KnownHostsMarker* RevokedKey(const std::vector<KnownHostsMarker>& markers, const std::string& key_type,
                                   const std::string& key_base64) {
  for (const KnownHostsMarker& m : markers) {
    if (m.marker == "@revoked" && m.key_type == key_type && m.key_base64 == key_base64) return &m;
  }
  return nullptr;
}

}  // namespace fvbench
