#include "support/core/connection_string.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

namespace fvbench {
namespace {

using Kind = ConnectionStringParts::Kind;

// libpq 15's connection keywords (fe-connect.c PQconninfoOptions), plus
// those of later releases a user may give.
bool KnownKeyword(std::string_view k) {
  static const char* const kKeys[] = {
      "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "channel_binding", "connect_timeout",
      "client_encoding", "options", "application_name", "fallback_application_name", "keepalives",
      "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication",
      "gssencmode", "sslmode", "sslcompression", "sslcert", "sslkey", "sslpassword", "sslrootcert", "sslcrl",
      "sslcrldir", "sslsni", "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname",
      "gsslib", "service", "target_session_attrs", "require_auth", "sslcertmode", "load_balance_hosts",
      "gssdelegation", "sslnegotiation", "min_protocol_version", "max_protocol_version", "sslkeylogfile",
      "scram_client_key", "scram_server_key"};
  return std::any_of(std::begin(kKeys), std::end(kKeys), [&](const char* x) { return k == x; });
}

// A keyword whose value is a secret (password, sslpassword, scram keys, an
// OAuth client secret); unknown keywords count too (a misspelt "passwrod").
bool SecretKeyword(std::string_view k) {
  std::string l(k);
  std::transform(l.begin(), l.end(), l.begin(), [](unsigned char c) { return std::tolower(c); });
  return l.find("password") != std::string::npos || l.find("secret") != std::string::npos ||
         l.rfind("scram_", 0) == 0 || !KnownKeyword(k);
}

bool ShownKeyword(std::string_view k) { return k == "host" || k == "hostaddr" || k == "port" || k == "dbname"; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// libpq's conninfo_uri_decode: %XX (two hex digits, not %00); '+' stays.
std::optional<std::string> UriDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;
    const int hi = HexValue(s[i + 1]), lo = HexValue(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

void AddSecret(ConnectionStringParts& p, std::string_view raw, bool decode) {
  if (!raw.empty()) p.secrets.emplace_back(raw);
  if (decode) {
    if (auto d = UriDecode(raw); d && !d->empty()) p.secrets.push_back(*d);
  }
}

// Stores a decoded keyword's value the way libpq does (the last one wins).
void Store(ConnectionStringParts& p, const std::string& key, const std::string& value) {
  if (key == "host") p.host = value;
  else if (key == "hostaddr") p.hostaddr = value;
  else if (key == "port") p.port = value;
  else if (key == "dbname") p.dbname = value;
  else if (key == "user") p.user = value;
  else if (key == "password") p.password = value;
  if (!KnownKeyword(key)) p.unknown_keys = true;
}

bool AllDigits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// Each comma-separated port empty or a number (a password split off at an
// unencoded '/' or '@' is not).
bool PortsAreNumbers(std::string_view ports) {
  size_t start = 0;
  while (true) {
    size_t comma = ports.find(',', start);
    if (!AllDigits(ports.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)))
      return false;
    if (comma == std::string_view::npos) return true;
    start = comma + 1;
  }
}

size_t UriPrefixLength(std::string_view s) {
  for (std::string_view prefix : {std::string_view("postgresql://"), std::string_view("postgres://")})
    if (s.substr(0, prefix.size()) == prefix) return prefix.size();
  return 0;
}

// libpq 15 conninfo_uri_parse_options / conninfo_uri_parse_params.
void ParseUri(std::string_view s, size_t prefix, ConnectionStringParts& p) {
  p.kind = Kind::kPostgresUri;
  const std::string_view rest = s.substr(prefix);
  size_t i = rest.find_first_of("@/");
  size_t start = 0;
  if (i != std::string_view::npos && rest[i] == '@') {
    const std::string_view userinfo = rest.substr(0, i);
    const size_t colon = userinfo.find(':');
    auto user = UriDecode(userinfo.substr(0, colon));
    if (!user) p.well_formed = false;
    else p.user = *user;
    if (colon != std::string_view::npos) {
      const std::string_view pw = userinfo.substr(colon + 1);
      AddSecret(p, pw, true);
      auto d = UriDecode(pw);
      if (!d) p.well_formed = false;
      else p.password = *d;
    }
    start = i + 1;
  }
  // Hosts: [v6] or up to ':', '/', '?', ','; a port after ':'.
  size_t q = start;
  std::string hosts, ports;
  char stop = '\0';
  while (true) {
    if (q < rest.size() && rest[q] == '[') {
      const size_t close = rest.find(']', q);
      if (close == std::string_view::npos || close == q + 1) {
        p.well_formed = false;
        return;
      }
      hosts += rest.substr(q + 1, close - q - 1);
      q = close + 1;
      if (q < rest.size() && std::string_view(":/?,").find(rest[q]) == std::string_view::npos) {
        p.well_formed = false;
        return;
      }
    } else {
      const size_t e = std::min(rest.find_first_of(":/?,", q), rest.size());
      hosts += rest.substr(q, e - q);
      q = e;
    }
    stop = q < rest.size() ? rest[q] : '\0';
    if (stop == ':') {
      const size_t e = std::min(rest.find_first_of("/?,", q + 1), rest.size());
      ports += rest.substr(q + 1, e - q - 1);
      q = e;
      stop = q < rest.size() ? rest[q] : '\0';
    }
    if (stop != ',') break;
    hosts += ',';
    ports += ',';
    ++q;
  }
  p.uri_hosts = std::string(rest.substr(start, q - start));
  if (auto h = UriDecode(hosts)) p.host = *h;
  else p.well_formed = false;
  if (auto d = UriDecode(ports)) p.port = *d;
  else p.well_formed = false;
  if (p.uri_hosts.find('@') != std::string::npos || !PortsAreNumbers(p.port)) p.well_formed = false;
  if (stop == '/') {
    const size_t e = std::min(rest.find('?', q + 1), rest.size());
    p.uri_dbname = std::string(rest.substr(q + 1, e - q - 1));
    if (auto d = UriDecode(p.uri_dbname)) p.dbname = *d;
    else p.well_formed = false;
    if (p.uri_dbname.find('@') != std::string::npos) p.well_formed = false;
    q = e;
    stop = q < rest.size() ? '?' : '\0';
  }
  if (stop != '?') return;
  // key=value&key=value: exactly one '=' each.
  std::string_view params = rest.substr(q + 1);
  bool after_secret = false;
  while (!params.empty()) {
    const size_t amp = std::min(params.find('&'), params.size());
    const std::string_view kv = params.substr(0, amp);
    params = amp < params.size() ? params.substr(amp + 1) : std::string_view();
    const size_t eq = kv.find('=');
    const std::string_view raw_key = kv.substr(0, eq);
    const std::string_view raw_value = eq == std::string_view::npos ? std::string_view() : kv.substr(eq + 1);
    auto key = UriDecode(raw_key);
    if (eq == std::string_view::npos || raw_value.find('=') != std::string_view::npos || !key) {
      p.well_formed = false;
      AddSecret(p, kv, true);
      continue;
    }
    // A parameter libpq does not know, right after a secret one, may be the
    // rest of a password cut at an unencoded '&': its name is a secret too.
    if (!KnownKeyword(*key) && after_secret) AddSecret(p, raw_key, true);
    after_secret = SecretKeyword(*key);
    if (after_secret) AddSecret(p, raw_value, true);
    auto value = UriDecode(raw_value);
    if (!value) {
      p.well_formed = false;
      continue;
    }
    Store(p, *key, *value);
    if (ShownKeyword(*key)) p.shown.emplace_back(std::string(raw_key), std::string(raw_value));
  }
}

// "host=a port=5432" form: a keyword of letters and '_' then '='.
bool LooksLikeKeyValue(std::string_view s) {
  static const std::regex kStart(R"(^\s*[A-Za-z_]+\s*=)");
  return std::regex_search(s.begin(), s.end(), kStart);
}

// libpq 15 conninfo_parse: blanks separate; a value is 'quoted' (a
// backslash escapes the next byte, ' included) or runs to the next blank
// (a backslash escapes the next byte there too).
void ParseKeyValue(std::string_view s, ConnectionStringParts& p) {
  p.kind = Kind::kPostgresKeyValue;
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  bool after_secret = false;
  size_t i = 0;
  while (i < s.size()) {
    if (blank(s[i])) {
      ++i;
      continue;
    }
    const size_t key_start = i;
    while (i < s.size() && s[i] != '=' && !blank(s[i])) ++i;
    const std::string key(s.substr(key_start, i - key_start));
    while (i < s.size() && blank(s[i])) ++i;
    if (i >= s.size() || s[i] != '=') {
      p.well_formed = false;
      AddSecret(p, s.substr(key_start), false);
      return;
    }
    ++i;
    while (i < s.size() && blank(s[i])) ++i;
    const size_t value_start = i;
    std::string value;
    if (i < s.size() && s[i] == '\'') {
      ++i;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\') {
          if (++i < s.size()) value += s[i++];
          continue;
        }
        if (s[i] == '\'') {
          ++i;
          closed = true;
          break;
        }
        value += s[i++];
      }
      if (!closed) {
        p.well_formed = false;
        AddSecret(p, s.substr(value_start), false);
        AddSecret(p, value, false);
        return;
      }
    } else {
      while (i < s.size() && !blank(s[i])) {
        if (s[i] == '\\') {
          if (++i < s.size()) value += s[i++];
          continue;
        }
        value += s[i++];
      }
    }
    // As in a URI: an unknown keyword right after a secret value may be the
    // rest of a password cut at an unquoted blank.
    if (!KnownKeyword(key) && after_secret) AddSecret(p, key, false);
    after_secret = SecretKeyword(key);
    if (after_secret) {
      AddSecret(p, s.substr(value_start, i - value_start), false);
      AddSecret(p, value, false);
    }
    Store(p, key, value);
    if (ShownKeyword(key)) p.shown.emplace_back(key, value);
  }
}

// A key=value value as libpq reads it back: plain when it has no blank,
// quote or backslash (and is not empty), else 'quoted'.
std::string KeyValueQuoted(const std::string& v) {
  const bool plain = !v.empty() && std::none_of(v.begin(), v.end(), [](unsigned char c) {
    return std::isspace(c) || c == '\'' || c == '\\';
  });
  if (plain) return v;
  std::string out = "'";
  for (char c : v) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// "password=<value>" anywhere (any case) -> "password=***".
std::string MaskPasswordAssignments(std::string text) {
  static const std::regex kAssign(R"(((password)\s*=\s*)('([^'\\]|\\.)*'?|[^\s&;,]*))", std::regex::icase);
  return std::regex_replace(text, kAssign, "$1***");
}

std::string OtherUrl(std::string_view s, size_t scheme_end) {
  std::string_view rest = s.substr(scheme_end + 3);
  if (size_t at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  rest = rest.substr(0, rest.find_first_of("?#"));
  return MaskPasswordAssignments(std::string(s.substr(0, scheme_end + 3)) + std::string(rest));
}

void Deduplicate(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t pos = 0; (pos = text.find(from, pos)) != std::string::npos; pos += to.size())
    text.replace(pos, from.size(), to);
}

}  // namespace

ConnectionStringParts ParseConnectionString(std::string_view location) {
  ConnectionStringParts p;
  if (size_t prefix = UriPrefixLength(location); prefix > 0) {
    ParseUri(location, prefix, p);
  } else if (location.find("://") != std::string_view::npos) {
    p.kind = Kind::kOtherUrl;
  } else if (LooksLikeKeyValue(location)) {
    ParseKeyValue(location, p);
  }
  Deduplicate(p.secrets);
  return p;
}

std::string RedactConnectionString(std::string_view location) {
  const ConnectionStringParts p = ParseConnectionString(location);
  switch (p.kind) {
    case Kind::kPostgresUri: {
      const std::string scheme(location.substr(0, UriPrefixLength(location)));
      if (!p.well_formed) return scheme + "(not shown: not a connection URI libpq reads)";
      std::string out = scheme + p.uri_hosts;
      if (!p.uri_dbname.empty()) out += "/" + p.uri_dbname;
      std::string query;
      for (const auto& [k, v] : p.shown) query += (query.empty() ? "?" : "&") + k + "=" + v;
      return out + query;
    }
    case Kind::kPostgresKeyValue: {
      if (!p.well_formed) return "(connection string not shown: not a key=value string libpq reads)";
      std::string out;
      for (const auto& [k, v] : p.shown) out += (out.empty() ? "" : " ") + k + "=" + KeyValueQuoted(v);
      return out.empty() ? "(connection string with no host or database)" : out;
    }
    case Kind::kOtherUrl:
      return OtherUrl(location, location.find("://"));
    case Kind::kOther:
      break;
  }
  return MaskPasswordAssignments(std::string(location));
}

std::string RedactConnectionSecrets(std::string text, std::string_view location) {
  const ConnectionStringParts p = ParseConnectionString(location);
  const std::string shown = RedactConnectionString(location);
  // The location itself becomes its shown form; the secrets are replaced
  // in the rest (a password that is also, say, the database's name stays
  // readable in the shown form, where it is the name).
  std::vector<std::string> pieces;
  if (location.empty()) {
    pieces.push_back(std::move(text));
  } else {
    for (size_t from = 0;;) {
      const size_t at = text.find(location, from);
      pieces.push_back(text.substr(from, at == std::string::npos ? std::string::npos : at - from));
      if (at == std::string::npos) break;
      from = at + location.size();
    }
  }
  text.clear();
  for (size_t i = 0; i < pieces.size(); ++i) {
    for (const std::string& s : p.secrets) ReplaceAll(pieces[i], s, "***");
    text += (i == 0 ? "" : shown) + pieces[i];
  }
  const bool libpq_kind = p.kind == Kind::kPostgresUri || p.kind == Kind::kPostgresKeyValue;
  if (libpq_kind && !p.well_formed) {
    const size_t first = text.find('"'), last = text.rfind('"');
    if (first != std::string::npos && last > first) text.replace(first, last - first + 1, "\"...\"");
  }
  return MaskPasswordAssignments(std::move(text));
}

}  // namespace fvbench
