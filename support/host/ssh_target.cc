#include "support/host/ssh_target.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "support/core/text.h"
#include "support/host/ssh_time.h"

namespace fvbench {
namespace {

using detail::AsciiLower;

// What the suite does with a keyword.
enum class Use {
  kHonoured,  // applied to SshTarget
  kIgnored,   // harmless: ignored, listed in SshTarget::ignored
  kRefused,   // changes where/how ssh connects: refused unless its value is harmless
};

struct Keyword {
  const char* name;  // canonical spelling (ssh_config(5))
  Use use;
  // For kRefused: the values (lower case) that switch the feature off, which
  // the suite can honour by doing nothing.
  std::vector<std::string> harmless = {};
};

// OpenSSH 9.x ssh_config(5) keywords (+ Debian's GSSAPI patch and deprecated
// aliases ssh still accepts), in three groups by what the suite does with them.

// Applied to SshTarget.
const std::vector<Keyword>& HonouredKeywords() {
  static const std::vector<Keyword> k = {
      {"Host", Use::kHonoured},
      {"Match", Use::kHonoured},
      {"HostName", Use::kHonoured},
      {"User", Use::kHonoured},
      {"Port", Use::kHonoured},
      {"IdentityFile", Use::kHonoured},
      {"IdentitiesOnly", Use::kHonoured},
      {"StrictHostKeyChecking", Use::kHonoured},
      {"UserKnownHostsFile", Use::kHonoured},
      {"GlobalKnownHostsFile", Use::kHonoured},
      {"HostKeyAlias", Use::kHonoured},
      {"CheckHostIP", Use::kHonoured},
      {"HashKnownHosts", Use::kHonoured},
      {"ConnectTimeout", Use::kHonoured},
      {"BatchMode", Use::kHonoured},
      {"Include", Use::kHonoured},
      {"IgnoreUnknown", Use::kHonoured},
  };
  return k;
}

// Change where or how ssh connects: refused unless the value is harmless.
const std::vector<Keyword>& RefusedKeywords() {
  static const std::vector<Keyword> k = {
      {"ProxyJump", Use::kRefused, {"none"}},
      {"ProxyCommand", Use::kRefused, {"none"}},
      {"RemoteCommand", Use::kRefused, {"none"}},
      {"BindAddress", Use::kRefused},
      {"BindInterface", Use::kRefused},
      {"CertificateFile", Use::kRefused, {"none"}},
      {"IdentityAgent", Use::kRefused, {"none", "ssh_auth_sock", "$ssh_auth_sock"}},
      {"KnownHostsCommand", Use::kRefused, {"none"}},
      {"CanonicalizeHostname", Use::kRefused, {"no"}},
      {"AddressFamily", Use::kRefused, {"any"}},
      {"PubkeyAuthentication", Use::kRefused, {"yes", "unbound", "host-bound"}},
      {"Tunnel", Use::kRefused, {"no"}},
      {"RevokedHostKeys", Use::kRefused, {"none"}},
  };
  return k;
}

// Harmless for the suite's connections: ignored, listed in SshTarget::ignored.
constexpr const char* kIgnoredKeywords[] = {
      "AddKeysToAgent", "CanonicalDomains", "CanonicalizeFallbackLocal", "CanonicalizeMaxDots",
      "CanonicalizePermittedCNAMEs", "CASignatureAlgorithms", "ChallengeResponseAuthentication",
      "ChannelTimeout", "Ciphers", "ClearAllForwardings", "Compression", "ConnectionAttempts",
      "ControlMaster", "ControlPath", "ControlPersist", "DynamicForward", "EnableEscapeCommandline",
      "EnableSSHKeysign", "EscapeChar", "ExitOnForwardFailure", "FingerprintHash", "ForkAfterAuthentication",
      "ForwardAgent", "ForwardX11", "ForwardX11Timeout", "ForwardX11Trusted", "GatewayPorts",
      "GSSAPIAuthentication", "GSSAPIClientIdentity", "GSSAPIDelegateCredentials", "GSSAPIKeyExchange",
      "GSSAPIKexAlgorithms", "GSSAPIRenewalForcesRekey", "GSSAPIServerIdentity", "GSSAPITrustDns",
      "HostbasedAcceptedAlgorithms", "HostbasedAuthentication", "HostbasedKeyTypes",
      "HostKeyAlgorithms", "IPQoS", "KbdInteractiveAuthentication", "KbdInteractiveDevices", "KexAlgorithms",
      "LocalCommand", "LocalForward", "LogLevel", "LogVerbose", "MACs", "NoHostAuthenticationForLocalhost",
      "NumberOfPasswordPrompts", "ObscureKeystrokeTiming", "PasswordAuthentication", "PermitLocalCommand",
      "PermitRemoteOpen", "PKCS11Provider", "PreferredAuthentications", "Protocol", "ProxyUseFdpass",
      "PubkeyAcceptedAlgorithms", "PubkeyAcceptedKeyTypes", "RekeyLimit", "RemoteForward", "RequestTTY",
      "RequiredRSASize", "SecurityKeyProvider", "SendEnv", "ServerAliveCountMax", "ServerAliveInterval",
      "SessionType", "SetEnv", "StdinNull", "StreamLocalBindMask", "StreamLocalBindUnlink", "SyslogFacility",
      "Tag", "TCPKeepAlive", "TunnelDevice", "UpdateHostKeys", "UseKeychain", "VerifyHostKeyDNS",
      "VisualHostKey", "XAuthLocation",
};

const std::vector<Keyword>& Keywords() {
  static const std::vector<Keyword> k = [] {
    std::vector<Keyword> all = HonouredKeywords();
    all.insert(all.end(), RefusedKeywords().begin(), RefusedKeywords().end());
    for (const char* name : kIgnoredKeywords) all.push_back({name, Use::kIgnored});
    return all;
  }();
  return k;
}

const Keyword* FindKeyword(const std::string& lower_key) {
  static const std::map<std::string, const Keyword*> index = [] {
    std::map<std::string, const Keyword*> m;
    for (const auto& k : Keywords()) m[AsciiLower(k.name)] = &k;
    return m;
  }();
  auto it = index.find(lower_key);
  return it == index.end() ? nullptr : it->second;
}

std::string Canonical(const std::string& lower_key) {
  const Keyword* k = FindKeyword(lower_key);
  return k != nullptr ? k->name : lower_key;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::vector<std::string> SplitWhitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::optional<int> ParsePort(const std::string& s) {
  if (s.empty() || s.size() > 5) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > 65535) return std::nullopt;
  return v;
}

// Splits the arguments of a config line: whitespace-separated words, double
// quotes group, an unquoted word starting with '#' starts a comment.
Result<std::vector<std::string>> SplitArgs(std::string_view s, const std::string& origin) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    if (i >= s.size()) break;
    if (s[i] == '#') break;
    std::string word;
    bool quoted = false;
    while (i < s.size() && (quoted || !IsSpace(s[i]))) {
      if (s[i] == '"') {
        quoted = !quoted;
      } else {
        word.push_back(s[i]);
      }
      ++i;
    }
    if (quoted) return Error{origin + ": unterminated quote"};
    out.push_back(std::move(word));
  }
  return out;
}

std::string ExpandTilde(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0) return home + path.substr(1);
  return path;
}

struct Tokens {
  std::string home, local_user, host, remote_user, original_host, key_alias;
  int port = 22;
};

// ssh's percent_expand for the tokens the suite knows; ~ first.
Result<std::string> ExpandTokens(const std::string& value, const Tokens& t,
                                 const std::string& origin, const std::string& key) {
  std::string in = ExpandTilde(value, t.home);
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out.push_back(in[i]);
      continue;
    }
    if (i + 1 >= in.size()) return Error{origin + ": " + key + " " + value + ": '%' at the end"};
    char c = in[++i];
    switch (c) {
      case '%': out.push_back('%'); break;
      case 'd': out += t.home; break;
      case 'u': out += t.local_user; break;
      case 'h': out += t.host; break;
      case 'n': out += t.original_host; break;
      case 'r': out += t.remote_user; break;
      case 'p': out += std::to_string(t.port); break;
      case 'k': out += t.key_alias.empty() ? t.original_host : t.key_alias; break;
      default:
        return Error{origin + ": " + key + " " + value + ": token %" + std::string(1, c) +
                     " is not supported (known: %% %d %u %h %k %n %r %p)"};
    }
  }
  return out;
}

Result<bool> ParseYesNo(const SshSetting& s) {
  std::string v = AsciiLower(s.value);
  if (v == "yes" || v == "true") return true;
  if (v == "no" || v == "false") return false;
  return Error{s.origin + ": " + Canonical(s.key) + " " + s.value + ": expected yes or no"};
}

}  // namespace

bool SshPatternMatch(std::string_view pat, std::string_view s) {
  size_t p = 0, i = 0, star_p = std::string_view::npos, star_i = 0;
  auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  };
  while (i < s.size()) {
    if (p < pat.size() && (pat[p] == '?' || (pat[p] != '*' && eq(pat[p], s[i])))) {
      ++p;
      ++i;
    } else if (p < pat.size() && pat[p] == '*') {
      star_p = p++;
      star_i = i;
    } else if (star_p != std::string_view::npos) {
      p = star_p + 1;
      i = ++star_i;
    } else {
      return false;
    }
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

const char* HostKeyCheckingName(HostKeyChecking c) {
  switch (c) {
    case HostKeyChecking::kYes: return "yes";
    case HostKeyChecking::kAcceptNew: return "accept-new";
    case HostKeyChecking::kNo: return "no";
  }
  return "?";
}

Result<SshDestination> ParseDestination(const std::string& destination) {
  auto bad = [&](const std::string& why) -> Error {
    return Error{"ssh destination '" + destination + "': " + why +
                 " (expected [user@]host[:port])"};
  };
  if (destination.empty()) return bad("empty");
  for (char c : destination)
    if (IsSpace(c) || c == '\0') return bad("contains whitespace");
  SshDestination d;
  std::string rest = destination;
  if (auto at = rest.rfind('@'); at != std::string::npos) {
    d.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (d.user.empty()) return bad("empty user before '@'");
  }
  std::string port;
  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) return bad("'[' without ']'");
    d.host = rest.substr(1, close - 1);
    std::string after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after[0] != ':') return bad("unexpected '" + after + "' after ']'");
      port = after.substr(1);
      if (port.empty()) return bad("empty port after ':'");
    }
  } else if (std::count(rest.begin(), rest.end(), ':') == 1) {
    auto colon = rest.find(':');
    d.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
    if (port.empty()) return bad("empty port after ':'");
  } else {
    d.host = rest;  // a name, an IPv4 address or a bare IPv6 address
  }
  if (d.host.empty()) return bad("empty host");
  if (d.host[0] == '-') return bad("host starts with '-'");
  if (!port.empty()) {
    auto p = ParsePort(port);
    if (!p) return bad("port '" + port + "' is not a number in 1..65535");
    d.port = *p;
  }
  return d;
}

Result<std::vector<SshSetting>> ParseSshOpts(const std::string& ssh_opts) {
  const std::string origin = "SSH_OPTS";
  std::vector<std::string> words = SplitWhitespace(ssh_opts);
  std::vector<SshSetting> out;
  auto add = [&](const std::string& key, const std::string& value) {
    out.push_back({AsciiLower(key), value, origin});
  };
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    auto need_next = [&](const std::string& flag) -> Result<std::string> {
      if (i + 1 >= words.size())
        return Error{origin + ": " + flag + " needs an argument (in '" + ssh_opts + "')"};
      return words[++i];
    };
    if (w.size() < 2 || w[0] != '-') {
      std::string after;
      if (i > 0) {
        after = " after '" + words[i - 1] + "'; SSH_OPTS is split on whitespace and reads no quotes, so a value "
                "holds no space";
      }
      return Error{origin + ": '" + w + "' is not understood (the suite reads -o Key=Value, "
                   "-o Key Value, -i file, -p port, -l user" + after + ")"};
    }
    char flag = w[1];
    std::string glued = w.substr(2);
    if (flag == 'o') {
      std::string kv = glued;
      if (kv.empty()) {
        auto n = need_next("-o");
        if (!n.ok()) return n.error();
        kv = *n;
      }
      auto eq = kv.find('=');
      std::string key, value;
      if (eq != std::string::npos) {
        key = kv.substr(0, eq);
        value = kv.substr(eq + 1);
      } else {
        key = kv;
        auto n = need_next("-o " + kv);
        if (!n.ok()) return n.error();
        value = *n;
      }
      if (key.empty() || value.empty())
        return Error{origin + ": -o '" + kv + "': expected Key=Value"};
      add(key, value);
    } else if (flag == 'i' || flag == 'p' || flag == 'l') {
      std::string value = glued;
      if (value.empty()) {
        auto n = need_next(std::string("-") + flag);
        if (!n.ok()) return n.error();
        value = *n;
      }
      add(flag == 'i' ? "identityfile" : flag == 'p' ? "port" : "user", value);
    } else {
      return Error{origin + ": option '" + w + "' is not understood (the suite reads -o "
                   "Key=Value, -o Key Value, -i file, -p port, -l user)"};
    }
  }
  return out;
}

namespace {

struct ConfigParser {
  const std::string& home;
  const SshIncludeReader& include;
  SshConfig config;

  Result<void> Parse(const std::string& text, const std::string& file, int depth) {
    if (depth > 16) return Error{file + ": Include nested too deeply (> 16)"};
    int line_no = 0;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      if (nl == std::string::npos) nl = text.size();
      std::string_view line(text.data() + pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      if (nl == text.size() && line.empty()) break;
      const std::string origin = file + ":" + std::to_string(line_no);
      size_t i = 0;
      while (i < line.size() && IsSpace(line[i])) ++i;
      if (i >= line.size() || line[i] == '#') continue;
      size_t k = i;
      while (k < line.size() && !IsSpace(line[k]) && line[k] != '=') ++k;
      std::string key = AsciiLower(line.substr(i, k - i));
      while (k < line.size() && IsSpace(line[k])) ++k;
      if (k < line.size() && line[k] == '=') ++k;
      auto args = SplitArgs(line.substr(k), origin);
      if (!args.ok()) return args.error();
      if (args->empty()) return Error{origin + ": " + Canonical(key) + " without a value"};

      if (key == "host" || key == "match") {
        SshConfigBlock b;
        b.kind = key == "host" ? SshConfigBlock::Kind::kHost : SshConfigBlock::Kind::kMatch;
        b.patterns = *args;
        b.origin = origin;
        config.blocks.push_back(std::move(b));
        continue;
      }
      if (config.blocks.empty()) {
        SshConfigBlock b;
        b.patterns = {"*"};
        b.origin = file + ":0";
        config.blocks.push_back(std::move(b));
      }
      if (key == "include") {
        if (!include) return Error{origin + ": Include is not supported here"};
        SshConfigBlock outer = config.blocks.back();
        outer.settings.clear();
        for (const auto& pattern : *args) {
          std::string p = ExpandTilde(pattern, home);
          if (p.empty() || p[0] != '/') p = home + "/.ssh/" + p;
          auto files = include(p);
          if (!files.ok()) return Error{origin + ": Include " + pattern + ": " + files.error().message};
          for (const auto& [path, body] : *files) {
            if (auto r = Parse(body, path, depth + 1); !r.ok()) return r;
          }
        }
        // Lines after the Include belong to the block that held it.
        outer.origin = origin;
        config.blocks.push_back(std::move(outer));
        continue;
      }
      // Single-valued keywords keep their first word; the others (SendEnv,
      // LocalForward, IgnoreUnknown, UserKnownHostsFile...) keep the words.
      std::string value = (*args)[0];
      for (size_t a = 1; a < args->size(); ++a) value += " " + (*args)[a];
      static const std::set<std::string> single = {
          "hostname", "user", "port", "identityfile", "identitiesonly",
          "stricthostkeychecking", "connecttimeout", "batchmode", "proxyjump", "hostkeyalias",
          "checkhostip", "hashknownhosts"};
      if (single.count(key) != 0 && args->size() != 1)
        return Error{origin + ": " + Canonical(key) + " takes one value, got '" + value + "'"};
      config.blocks.back().settings.push_back({key, value, origin});
    }
    return Ok();
  }
};

}  // namespace

Result<SshConfig> ParseSshConfig(const std::string& text, const std::string& file,
                                 const std::string& home, const SshIncludeReader& include) {
  ConfigParser p{home, include, {}};
  if (auto r = p.Parse(text, file, 0); !r.ok()) return r.error();
  return std::move(p.config);
}

bool SshHostMatches(const std::vector<std::string>& patterns, const std::string& host) {
  bool matched = false;
  for (const auto& raw : patterns) {
    // A Host word may itself be a comma-separated list (as in Match host).
    size_t start = 0;
    while (start <= raw.size()) {
      size_t comma = raw.find(',', start);
      if (comma == std::string::npos) comma = raw.size();
      std::string_view p(raw.data() + start, comma - start);
      start = comma + 1;
      if (p.empty()) continue;
      bool negated = p[0] == '!';
      if (negated) p.remove_prefix(1);
      if (SshPatternMatch(p, host)) {
        if (negated) return false;
        matched = true;
      }
    }
  }
  return matched;
}

namespace {

// ResolveSshTarget in its steps: collect the settings that apply (ssh_opts,
// the destination's user@ and :port, then the matching Host blocks; the first
// value of a keyword wins, IdentityFile accumulates), refuse what the client
// cannot honour, then turn each winning value into the target's field.
class TargetResolver {
 public:
  TargetResolver(const std::string& destination, const SshDestination& dest, const std::string& home,
                 const std::string& local_user)
      : dest_(dest), home_(home), local_user_(local_user), prefix_("ssh target '" + destination + "': ") {
    t_.given = destination;
  }

  Result<SshTarget> Resolve(const std::vector<SshSetting>& ssh_opts, const SshConfig& config) {
    if (auto r = Collect(ssh_opts, config); !r.ok()) return r.error();
    if (auto r = RefuseUnsupported(); !r.ok()) return r.error();
    if (auto r = HostUserPort(); !r.ok()) return r.error();
    if (auto r = Options(); !r.ok()) return r.error();
    if (auto r = ConnectTimeout(); !r.ok()) return r.error();
    if (auto r = KnownHostsFiles(); !r.ok()) return r.error();
    if (auto r = IdentityFiles(); !r.ok()) return r.error();
    return std::move(t_);
  }

 private:
  Result<void> Apply(const SshSetting& s) {
    const Keyword* kw = FindKeyword(s.key);
    if (kw == nullptr) {
      if (SshHostMatches(ignore_unknown_, s.key)) {
        t_.ignored.push_back(s.origin + ": " + s.key);
        return Ok();
      }
      return Error{prefix_ + s.origin + ": unknown ssh option '" + s.key + "'"};
    }
    if (kw->use == Use::kIgnored) {
      t_.ignored.push_back(s.origin + ": " + kw->name);
      return Ok();
    }
    if (s.key == "identityfile") {
      identity_files_.push_back(s);
      return Ok();
    }
    if (s.key == "ignoreunknown") {
      for (auto& w : SplitWhitespace(s.value)) ignore_unknown_.push_back(AsciiLower(w));
    }
    first_.emplace(s.key, s);
    return Ok();
  }

  // A Match block: only ignored keywords may stand in it.
  Result<void> CheckMatchBlock(const SshConfigBlock& block) {
    for (const auto& s : block.settings) {
      const Keyword* kw = FindKeyword(s.key);
      if (kw != nullptr && kw->use == Use::kIgnored) {
        t_.ignored.push_back(s.origin + ": " + kw->name + " (in a Match block)");
        continue;
      }
      return Error{prefix_ + s.origin + ": " + Canonical(s.key) + " inside 'Match " +
                   (block.patterns.empty() ? "" : block.patterns[0]) + "' (" + block.origin +
                   "): Match blocks are not supported; use a Host block"};
    }
    return Ok();
  }

  Result<void> Collect(const std::vector<SshSetting>& ssh_opts, const SshConfig& config) {
    for (const auto& s : ssh_opts) {
      if (auto r = Apply(s); !r.ok()) return r;
    }
    if (!dest_.user.empty()) first_.emplace("user", SshSetting{"user", dest_.user, "destination"});
    if (dest_.port != 0) first_.emplace("port", SshSetting{"port", std::to_string(dest_.port), "destination"});
    for (const auto& block : config.blocks) {
      if (block.kind == SshConfigBlock::Kind::kMatch) {
        if (auto r = CheckMatchBlock(block); !r.ok()) return r;
        continue;
      }
      if (!SshHostMatches(block.patterns, dest_.host)) continue;
      for (const auto& s : block.settings) {
        if (auto r = Apply(s); !r.ok()) return r;
      }
    }
    return Ok();
  }

  // Refused directives, judged on the value that wins.
  Result<void> RefuseUnsupported() const {
    for (const auto& [key, s] : first_) {
      const Keyword* kw = FindKeyword(key);
      if (kw == nullptr || kw->use != Use::kRefused) continue;
      std::string v = AsciiLower(s.value);
      if (std::find(kw->harmless.begin(), kw->harmless.end(), v) != kw->harmless.end()) continue;
      return Error{prefix_ + s.origin + ": " + kw->name + " " + s.value +
                   ": not supported by the suite's SSH client (it would change where or how "
                   "ssh connects); remove it for this host or make the host reachable directly"};
    }
    return Ok();
  }

  const SshSetting* Get(const char* key) const {
    auto it = first_.find(key);
    return it == first_.end() ? nullptr : &it->second;
  }

  // HostName (only %h expands in it), User, Port; the tokens of later values.
  Result<void> HostUserPort() {
    tok_.home = home_;
    tok_.local_user = local_user_;
    tok_.original_host = dest_.host;
    if (const SshSetting* s = Get("hostname")) {
      Tokens only_h = tok_;
      only_h.host = dest_.host;
      auto h = ExpandTokens(s->value, only_h, s->origin, "HostName");
      if (!h.ok()) return Error{prefix_ + h.error().message};
      t_.host = *h;
    } else {
      t_.host = dest_.host;
    }
    if (t_.host.empty()) return Error{prefix_ + "empty HostName"};
    tok_.host = t_.host;
    if (const SshSetting* s = Get("user")) t_.user = s->value;
    tok_.remote_user = t_.user.empty() ? local_user_ : t_.user;
    if (const SshSetting* s = Get("port")) {
      auto p = ParsePort(s->value);
      if (!p) return Error{prefix_ + s->origin + ": Port " + s->value + ": not a number in 1..65535"};
      t_.port = *p;
    }
    tok_.port = t_.port;
    return Ok();
  }

  // StrictHostKeyChecking, IdentitiesOnly, IdentityAgent none, BatchMode.
  Result<void> Options() {
    if (const SshSetting* s = Get("stricthostkeychecking")) {
      std::string v = AsciiLower(s->value);
      if (v == "yes" || v == "ask" || v == "true") {
        t_.host_key_checking = HostKeyChecking::kYes;
      } else if (v == "accept-new") {
        t_.host_key_checking = HostKeyChecking::kAcceptNew;
      } else if (v == "no" || v == "off" || v == "false") {
        t_.host_key_checking = HostKeyChecking::kNo;
      } else {
        return Error{prefix_ + s->origin + ": StrictHostKeyChecking " + s->value +
                     ": expected yes, accept-new, no or ask"};
      }
    }
    if (const SshSetting* s = Get("identitiesonly")) {
      auto b = ParseYesNo(*s);
      if (!b.ok()) return Error{prefix_ + b.error().message};
      t_.identities_only = *b;
    }
    if (const SshSetting* s = Get("identityagent")) {
      if (AsciiLower(s->value) == "none") t_.identities_only = true;
    }
    if (const SshSetting* s = Get("batchmode")) {
      auto b = ParseYesNo(*s);
      if (!b.ok()) return Error{prefix_ + b.error().message};
    }
    return Ok();
  }

  Result<void> ConnectTimeout() {
    const SshSetting* s = Get("connecttimeout");
    if (s == nullptr) return Ok();
    // ssh_config(5) TIME FORMATS; 0 (or none) = no timeout of ssh's own.
    auto secs = AsciiLower(s->value) == "none" ? std::optional<long>(0) : ParseSshTime(s->value);
    if (!secs) {
      return Error{prefix_ + s->origin + ": ConnectTimeout " + s->value +
                   ": expected a time as ssh_config(5) writes it (30, 1m, 1m30s, 2h; 0 = none)"};
    }
    t_.connect_timeout_s = static_cast<int>(*secs);
    if (*secs == 0) {
      t_.ignored.push_back(s->origin + ": ConnectTimeout " + s->value +
                           " (no timeout): fvbench keeps its own connect bound, every step is bounded in time");
    }
    return Ok();
  }

  // The files of UserKnownHostsFile / GlobalKnownHostsFile as ssh reads them:
  // every word ("none" alone: no file), ~ expanded; `tokens`: % tokens too
  // (UserKnownHostsFile only). Unset: `defaults`.
  Result<void> FilesOf(const char* key, const char* name, bool tokens, const std::vector<std::string>& defaults,
                       std::vector<std::string>* out) {
    const SshSetting* s = Get(key);
    if (s == nullptr) {
      *out = defaults;
      return Ok();
    }
    std::vector<std::string> files = SplitWhitespace(s->value);
    out->clear();
    for (const std::string& file : files) {
      if (AsciiLower(file) == "none") {
        if (files.size() > 1)
          return Error{prefix_ + s->origin + ": " + name + " " + s->value + ": \"none\" must appear alone"};
        return Ok();
      }
      if (file.find("${") != std::string::npos)
        return Error{prefix_ + s->origin + ": " + name + " " + file +
                     ": environment variables (${...}) are not supported here; write the path out"};
      if (!tokens) {
        out->push_back(ExpandTilde(file, home_));
        continue;
      }
      auto f = ExpandTokens(file, tok_, s->origin, name);
      if (!f.ok()) return Error{prefix_ + f.error().message};
      out->push_back(*f);
    }
    return Ok();
  }

  // HostKeyAlias, CheckHostIP, HashKnownHosts and the known_hosts files.
  Result<void> KnownHostsFiles() {
    if (const SshSetting* s = Get("hostkeyalias")) t_.host_key_alias = AsciiLower(s->value);
    tok_.key_alias = t_.host_key_alias;
    for (auto [key, field] : {std::pair{"checkhostip", &t_.check_host_ip}, {"hashknownhosts", &t_.hash_known_hosts}}) {
      if (const SshSetting* s = Get(key)) {
        auto b = ParseYesNo(*s);
        if (!b.ok()) return Error{prefix_ + b.error().message};
        *field = *b;
      }
    }
    if (auto r = FilesOf("userknownhostsfile", "UserKnownHostsFile", true,
                         {home_ + "/.ssh/known_hosts", home_ + "/.ssh/known_hosts2"}, &t_.user_known_hosts_files);
        !r.ok())
      return r;
    return FilesOf("globalknownhostsfile", "GlobalKnownHostsFile", false,
                   {"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}, &t_.global_known_hosts_files);
  }

  // Every IdentityFile given, once each; without any, ssh's defaults.
  Result<void> IdentityFiles() {
    for (const auto& s : identity_files_) {
      if (AsciiLower(s.value) == "none") continue;
      auto f = ExpandTokens(s.value, tok_, s.origin, "IdentityFile");
      if (!f.ok()) return Error{prefix_ + f.error().message};
      if (std::find(t_.identity_files.begin(), t_.identity_files.end(), *f) == t_.identity_files.end()) {
        t_.identity_files.push_back(*f);
      }
    }
    if (identity_files_.empty()) {
      for (const char* n : {"id_ed25519", "id_ecdsa", "id_rsa"}) t_.identity_files.push_back(home_ + "/.ssh/" + n);
    }
    return Ok();
  }

  const SshDestination& dest_;
  const std::string& home_;
  const std::string& local_user_;
  const std::string prefix_;
  std::map<std::string, SshSetting> first_;  // first value per keyword
  std::vector<SshSetting> identity_files_;   // accumulate
  std::vector<std::string> ignore_unknown_;  // IgnoreUnknown patterns seen so far
  Tokens tok_;
  SshTarget t_;
};

}  // namespace

Result<SshTarget> ResolveSshTarget(const std::string& destination,
                                   const std::vector<SshSetting>& ssh_opts,
                                   const SshConfig& config, const std::string& home,
                                   const std::string& local_user) {
  auto dest = ParseDestination(destination);
  if (!dest.ok()) return dest.error();
  return TargetResolver(destination, *dest, home, local_user).Resolve(ssh_opts, config);
}

std::string DescribeSshTarget(const SshTarget& t) {
  std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
  return (t.user.empty() ? std::string() : t.user + "@") + host + ":" + std::to_string(t.port);
}

}  // namespace fvbench
