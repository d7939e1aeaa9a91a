#include "support/host/known_hosts.h"

#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "support/core/text.h"

namespace fvbench {
namespace {

using detail::AsciiLower;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Standard base64 with padding; nullopt when `in` is not canonical base64.
std::optional<std::string> Base64Decode(std::string_view in) {
  if (in.empty() || in.size() % 4 != 0) return std::nullopt;
  std::string out(in.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  for (size_t i = in.size(); i > 0 && in[i - 1] == '=' && pad < 2; --i) ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string Base64Encode(std::string_view in) {
  std::string out(4 * ((in.size() + 2) / 3) + 1, '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

std::string HmacSha1(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  return std::string(reinterpret_cast<char*>(mac), len);
}

// match_maybe_hashed: 1 match, 0 no match, -1 a hashed field that is malformed.
int HostsMatch(std::string_view hosts, const std::string& name) {
  if (!hosts.empty() && hosts[0] == '|') {
    if (hosts.substr(0, 3) != "|1|") return -1;
    std::string_view rest = hosts.substr(3);
    size_t bar = rest.find('|');
    if (bar == std::string_view::npos || bar == 0) return -1;
    auto salt = Base64Decode(rest.substr(0, bar));
    if (!salt || salt->size() != 20) return -1;
    std::string want = "|1|" + Base64Encode(*salt) + "|" + Base64Encode(HmacSha1(*salt, name));
    return hosts == want ? 1 : 0;
  }
  bool matched = false;
  size_t start = 0;
  while (start <= hosts.size()) {
    size_t comma = hosts.find(',', start);
    if (comma == std::string_view::npos) comma = hosts.size();
    std::string_view p = hosts.substr(start, comma - start);
    start = comma + 1;
    bool negated = !p.empty() && p[0] == '!';
    if (negated) p.remove_prefix(1);
    if (!SshPatternMatch(p, name)) continue;
    if (negated) return 0;
    matched = true;
  }
  return matched ? 1 : 0;
}

// SSH wire-format strings of a key blob.
struct BlobReader {
  std::string_view b;
  bool String(std::string_view* out) {
    if (b.size() < 4) return false;
    uint32_t n = (static_cast<uint32_t>(static_cast<unsigned char>(b[0])) << 24) |
                 (static_cast<uint32_t>(static_cast<unsigned char>(b[1])) << 16) |
                 (static_cast<uint32_t>(static_cast<unsigned char>(b[2])) << 8) |
                 static_cast<uint32_t>(static_cast<unsigned char>(b[3]));
    if (b.size() - 4 < n) return false;
    if (out != nullptr) *out = b.substr(4, n);
    b.remove_prefix(4 + n);
    return true;
  }
};

// The fields after the type name of each plain key type (sshkey_from_blob);
// 0 for a type whose layout is not checked (certificates).
int PlainKeyFields(std::string_view type) {
  if (type == "ssh-ed25519") return 1;                       // public key
  if (type == "ssh-rsa" || type == "ssh-dss") return type == "ssh-rsa" ? 2 : 4;  // e, n / p, q, g, y
  if (type.substr(0, 11) == "ecdsa-sha2-") return 2;          // curve, point
  if (type == "sk-ssh-ed25519@openssh.com") return 2;         // public key, application
  if (type == "sk-ecdsa-sha2-nistp256@openssh.com") return 3;  // curve, point, application
  return 0;
}

// A blob OpenSSH would parse: its type name, then exactly that type's fields.
bool WellFormedBlob(std::string_view blob, std::string* type) {
  BlobReader r{blob};
  std::string_view t;
  if (!r.String(&t) || t.empty()) return false;
  int fields = PlainKeyFields(t);
  if (fields == 0) return t.find("-cert-v01@openssh.com") != std::string_view::npos;
  for (int i = 0; i < fields; ++i)
    if (!r.String(nullptr)) return false;
  if (!r.b.empty()) return false;
  *type = std::string(t);
  return true;
}

// The key type word of a line names the blob's type (rsa-sha2-* name ssh-rsa).
bool TypeWordFits(std::string_view word, const std::string& blob_type) {
  if (word == blob_type) return true;
  return blob_type == "ssh-rsa" && (word == "rsa-sha2-256" || word == "rsa-sha2-512");
}

// One line as hostkeys_foreach_file reads it; false for lines it skips.
struct ParsedLine {
  KnownHostsMarker marker = KnownHostsMarker::kNone;
  std::string_view hosts;
  std::string key_type, key_blob;
};
bool ParseLine(std::string_view line, const std::string& name, ParsedLine* out) {
  size_t i = 0;
  while (i < line.size() && IsBlank(line[i])) ++i;
  if (i >= line.size() || line[i] == '#' || line[i] == '\r') return false;
  if (line[i] == '@') {  // check_markers: one marker, ended by a blank
    size_t end = i;
    while (end < line.size() && !IsBlank(line[end])) ++end;
    std::string_view m = line.substr(i, end - i);
    if (m == "@cert-authority") out->marker = KnownHostsMarker::kCertAuthority;
    else if (m == "@revoked") out->marker = KnownHostsMarker::kRevoked;
    else return false;
    i = end;
    while (i < line.size() && IsBlank(line[i])) ++i;
    if (i < line.size() && line[i] == '@') return false;  // a second marker
  }
  size_t hosts_end = i;
  while (hosts_end < line.size() && !IsBlank(line[hosts_end])) ++hosts_end;
  out->hosts = line.substr(i, hosts_end - i);
  if (HostsMatch(out->hosts, name) != 1) return false;
  i = hosts_end;
  while (i < line.size() && IsBlank(line[i])) ++i;
  size_t type_end = i;
  while (type_end < line.size() && !IsBlank(line[type_end])) ++type_end;
  std::string_view word = line.substr(i, type_end - i);
  i = type_end;
  while (i < line.size() && IsBlank(line[i])) ++i;
  size_t key_end = i;
  while (key_end < line.size() && !IsBlank(line[key_end]) && line[key_end] != '\r') ++key_end;
  if (word.empty() || key_end == i) return false;
  auto blob = Base64Decode(line.substr(i, key_end - i));
  if (!blob) return false;
  std::string type;
  if (!WellFormedBlob(*blob, &type)) {
    if (type.empty() && KeyBlobType(*blob).find("-cert-v01@openssh.com") != std::string::npos) {
      type = KeyBlobType(*blob);  // a certificate line: never equal to a plain key
    } else {
      return false;
    }
  }
  if (!TypeWordFits(word, type)) return false;
  out->key_type = type;
  out->key_blob = std::move(*blob);
  return true;
}

enum class Status { kNew, kOk, kChanged, kRevoked };

// check_hostkeys_by_key_or_type for a plain key.
struct KeyStatus {
  Status status = Status::kNew;
  const KnownHostsEntry* found = nullptr;    // the trusting (kOk) or differing (kChanged) line
  const KnownHostsEntry* revoked = nullptr;  // the @revoked line (kRevoked)
};
KeyStatus CheckKeyIn(const std::vector<KnownHostsEntry>& entries, const std::string& blob) {
  KeyStatus s;
  for (const KnownHostsEntry& e : entries) {
    if (e.marker != KnownHostsMarker::kNone) continue;
    if (e.key_blob == blob) {
      s.status = Status::kOk;
      s.found = &e;
      break;
    }
    s.status = Status::kChanged;
    s.found = &e;
  }
  for (const KnownHostsEntry& e : entries) {
    if (e.marker == KnownHostsMarker::kRevoked && e.key_blob == blob) {
      s.status = Status::kRevoked;
      s.found = nullptr;
      s.revoked = &e;
      break;
    }
  }
  return s;
}

const char* CheckingName(HostKeyChecking c) { return HostKeyCheckingName(c); }

// ssh's check_host_key for a plain key, step by step; the outer call may
// look the key up again without the port (clobber_port).
class Decider {
 public:
  Decider(const HostKeyQuery& q, const std::string& blob, const std::string& where)
      : q_(q), blob_(blob), where_(where), check_ip_(q.check_host_ip) {}

  HostKeyDecision Decide() {
    HostKeyDecision d;
    Outcome o = Check(q_.port, Readonly::kReadWrite, false);
    d.accepted = o.ok;
    d.trusted_by = o.trusted_by;
    if (o.ok) {
      d.record = record_;
      return d;
    }
    d.refusal = o.why;
    if (q_.checking != HostKeyChecking::kNo && !ca_.empty()) d.refusal = CertAuthorityRefusal();
    if (!q_.unreadable.empty()) {
      d.refusal += " (unreadable:";
      for (const auto& u : q_.unreadable) d.refusal += " " + u + ";";
      d.refusal.back() = ')';
    }
    return d;
  }

 private:
  enum class Readonly { kReadWrite, kReadOnly, kQuiet };
  struct Outcome {
    bool ok = false;
    std::string why;         // the refusal
    std::string note;        // the refusal in a few words, for a port-less look-up's result
    std::string trusted_by;  // file:line
    bool revoked = false;    // refused for a @revoked line
  };

  // The lines for `name` in every user file, then every global file.
  std::vector<KnownHostsEntry> Load(const std::string& name, bool is_host_name) {
    std::vector<KnownHostsEntry> all;
    for (const auto* files : {&q_.user_files, &q_.global_files})
      for (const KnownHostsText& f : *files)
        for (KnownHostsEntry& e : KnownHostsEntriesFor(f, name)) all.push_back(std::move(e));
    if (is_host_name)
      for (const KnownHostsEntry& e : all)
        if (e.marker == KnownHostsMarker::kCertAuthority) ca_.push_back({name, e});
    return all;
  }

  std::string Offered() const { return KeyBlobType(blob_) + " key " + KeyFingerprint(blob_); }
  std::string FirstUserFile() const {
    return q_.user_files.empty() ? std::string("(no UserKnownHostsFile)") : q_.user_files[0].path;
  }
  std::string Files() const {
    std::string s;
    for (const auto* files : {&q_.user_files, &q_.global_files})
      for (const KnownHostsText& f : *files) s += (s.empty() ? "" : ", ") + f.path;
    return s.empty() ? "no known_hosts file" : s;
  }
  std::string Mode() const { return std::string("StrictHostKeyChecking ") + CheckingName(q_.checking); }

  Outcome Check(int port, Readonly readonly, bool clobber_port) {
    // OpenSSH never records a name holding these characters.
    if (q_.hostname.find_first_of("@?*#[]|'\"\\") != std::string::npos) readonly = Readonly::kReadOnly;
    const int p = clobber_port ? 0 : port;
    const std::string host = q_.host_key_alias.empty() ? KnownHostsName(q_.hostname, p) : q_.host_key_alias;
    const std::string ip = KnownHostsName(q_.address, p);
    if (check_ip_ && (q_.address.empty() || q_.address_is_loopback || q_.hostname == ip)) check_ip_ = false;

    std::vector<KnownHostsEntry> host_entries = Load(host, true);
    KeyStatus hs = CheckKeyIn(host_entries, blob_);
    if (readonly == Readonly::kReadWrite && q_.user_files.empty()) readonly = Readonly::kReadOnly;
    std::vector<KnownHostsEntry> ip_entries;
    KeyStatus is = hs;
    if (check_ip_) {
      ip_entries = Load(ip, false);
      is = CheckKeyIn(ip_entries, blob_);
    }
    Outcome out;
    switch (hs.status) {
      case Status::kOk:
        out.trusted_by = hs.found->where();
        if (check_ip_ && is.status == Status::kNew && readonly == Readonly::kReadWrite) record_.push_back(AsciiLower(ip));
        break;
      case Status::kNew: {
        std::string portless;  // what the look-up without the port found
        if (q_.host_key_alias.empty() && port != 0 && port != 22 && !clobber_port) {
          Outcome bare = Check(port, Readonly::kQuiet, true);
          if (bare.ok) return bare;
          // ssh would go on and record a key @revoked for the bare name as
          // new for the port; fvbench refuses it.
          if (bare.revoked) {
            bare.why += "; fvbench refuses it for '" + host + "' too (OpenSSH would take it as new there)";
            return bare;
          }
          portless = bare.note;
        }
        if (readonly != Readonly::kReadWrite || q_.checking == HostKeyChecking::kYes)
          return Refuse(NotKnown(host, port, clobber_port, portless), "not known as '" + host + "'");
        if (check_ip_ && is.status == Status::kNew) {
          if (q_.hash_known_hosts) {
            record_.push_back(AsciiLower(host));
            record_.push_back(AsciiLower(ip));
          } else {
            record_.push_back(AsciiLower(host) + "," + AsciiLower(ip));
          }
        } else {
          record_.push_back(AsciiLower(host));
        }
        break;
      }
      case Status::kRevoked:
        if (q_.checking != HostKeyChecking::kNo)
          return Revoked("host key of " + where_ + " (" + Offered() + ") is marked @revoked in " +
                        hs.revoked->where() + " for '" + host + "': refused, as OpenSSH refuses it (" + Mode() + ")",
                        "marked @revoked in " + hs.revoked->where());
        break;
      case Status::kChanged:
        if (readonly == Readonly::kQuiet || q_.checking != HostKeyChecking::kNo)
          return Refuse(Changed(host, *hs.found), hs.found->where() + " holds a different key");
        break;
    }
    if (check_ip_ && hs.status != Status::kChanged && is.status == Status::kChanged &&
        q_.checking != HostKeyChecking::kNo) {
      return Refuse("host key of " + where_ + " (" + Offered() + ") differs from the key " + is.found->where() +
                        " records for its address '" + ip + "' (CheckHostIP yes): refused (" + Mode() +
                        "). If the address moved to another host, remove the old entry: ssh-keygen -f " +
                        is.found->path + " -R '" + ip + "'",
                    "the address '" + ip + "' has a different key at " + is.found->where());
    }
    out.ok = true;
    return out;
  }

  static Outcome Refuse(std::string why, std::string note) {
    return Outcome{false, std::move(why), std::move(note), "", false};
  }
  static Outcome Revoked(std::string why, std::string note) {
    return Outcome{false, std::move(why), std::move(note), "", true};
  }

  std::string NotKnown(const std::string& host, int port, bool clobber_port, const std::string& portless) const {
    std::string names = "'" + host + "'";
    if (q_.host_key_alias.empty() && port != 0 && port != 22 && !clobber_port)
      names += " or '" + q_.hostname + "'";
    std::string s = "host key of " + where_ + " is not known (server offers " + Offered() + "; no line for " + names +
                    " in " + Files() + ")";
    if (!portless.empty() && portless.rfind("not known", 0) != 0)
      s += "; as '" + q_.hostname + "': " + portless;
    if (q_.checking == HostKeyChecking::kYes)
      return s + ": refused (" + Mode() + "). Verify the fingerprint and add the key to " + FirstUserFile() +
             ", or use -o StrictHostKeyChecking=accept-new";
    if (q_.user_files.empty()) return s + ": refused, there is no UserKnownHostsFile to record it in (none)";
    return s + ": refused, OpenSSH records no host name holding any of @?*#[]|'\"\\ ('" + q_.hostname + "')";
  }

  std::string Changed(const std::string& host, const KnownHostsEntry& old) const {
    return "host key of " + where_ + " has CHANGED (server offers " + Offered() + "; " + old.where() +
           " records a different key for '" + host + "'): refused (" + Mode() +
           "). If the change is expected, remove the old entry: ssh-keygen -f " + old.path + " -R '" + host + "'";
  }

  std::string CertAuthorityRefusal() const {
    const auto& [name, ca] = ca_.front();
    return ca.where() + " trusts host certificates for '" + name + "' (@cert-authority), which fvbench's SSH layer " +
           "(libssh) cannot check, and no line trusts the host's own key: refused (" + Mode() +
           "; OpenSSH would accept the host only with a certificate signed by that key). Add the host's own key to " +
           FirstUserFile() + " (server offers " + Offered() + ")";
  }

  const HostKeyQuery& q_;
  const std::string& blob_;
  const std::string& where_;
  bool check_ip_;  // as ssh's options.check_host_ip: switched off for good once it does not apply
  std::vector<std::string> record_;
  std::vector<std::pair<std::string, KnownHostsEntry>> ca_;  // (name looked up, @cert-authority line)
};

// OpenSSH 9.2's default HostKeyAlgorithms without the certificate types.
constexpr const char* kDefaultHostKeyAlgorithms[] = {
    "ssh-ed25519",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
    "rsa-sha2-512",
    "rsa-sha2-256",
};

std::string KeyTypeOfAlgorithm(const std::string& alg) {
  return alg.rfind("rsa-sha2-", 0) == 0 ? "ssh-rsa" : alg;
}

}  // namespace

std::string KnownHostsHostname(const std::string& host) {
  unsigned char buf[sizeof(struct in6_addr)];
  if (::inet_pton(AF_INET, host.c_str(), buf) == 1 || ::inet_pton(AF_INET6, host.c_str(), buf) == 1) return host;
  return AsciiLower(host);
}

std::string KnownHostsName(const std::string& host, int port) {
  if (port == 0 || port == 22) return host;
  return "[" + host + "]:" + std::to_string(port);
}

std::vector<KnownHostsEntry> KnownHostsEntriesFor(const KnownHostsText& file, const std::string& name) {
  const std::string lname = AsciiLower(name);
  std::vector<KnownHostsEntry> out;
  size_t pos = 0, line_no = 0;
  const std::string& t = file.text;
  while (pos < t.size()) {
    size_t nl = t.find('\n', pos);
    if (nl == std::string::npos) nl = t.size();
    std::string_view line(t.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    ParsedLine p;
    if (!ParseLine(line, lname, &p)) continue;
    KnownHostsEntry e;
    e.path = file.path;
    e.line = line_no;
    e.marker = p.marker;
    e.key_type = std::move(p.key_type);
    e.key_blob = std::move(p.key_blob);
    out.push_back(std::move(e));
  }
  return out;
}

std::optional<std::string> KeyBlobFromBase64(std::string_view base64) { return Base64Decode(base64); }

std::string KeyBlobType(std::string_view blob) {
  BlobReader r{blob};
  std::string_view t;
  return r.String(&t) ? std::string(t) : std::string();
}

std::string KeyFingerprint(std::string_view blob) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(blob.data()), blob.size(), md);
  std::string b64 = Base64Encode(std::string_view(reinterpret_cast<const char*>(md), sizeof md));
  while (!b64.empty() && b64.back() == '=') b64.pop_back();
  return "SHA256:" + b64;
}

HostKeyDecision DecideHostKey(const HostKeyQuery& q, const std::string& key_blob, const std::string& where) {
  return Decider(q, key_blob, where).Decide();
}

std::string HostKeyAlgorithmsFor(const HostKeyQuery& q) {
  const std::string name = q.host_key_alias.empty() ? KnownHostsName(q.hostname, q.port) : q.host_key_alias;
  std::vector<std::string> known;
  for (const auto* files : {&q.user_files, &q.global_files})
    for (const KnownHostsText& f : *files)
      for (const KnownHostsEntry& e : KnownHostsEntriesFor(f, name))
        if (e.marker == KnownHostsMarker::kNone) known.push_back(e.key_type);
  auto is_known = [&](const std::string& alg) {
    return std::find(known.begin(), known.end(), KeyTypeOfAlgorithm(alg)) != known.end();
  };
  std::string first, last;
  bool verbatim = is_known(kDefaultHostKeyAlgorithms[0]);
  for (const char* alg : kDefaultHostKeyAlgorithms) {
    std::string& to = verbatim || is_known(alg) ? first : last;
    to += (to.empty() ? "" : ",") + std::string(alg);
  }
  return first + (first.empty() || last.empty() ? "" : ",") + last;
}

std::string KnownHostsLine(const std::string& name, const std::string& key_blob,
                           const std::optional<std::string>& salt) {
  std::string host = AsciiLower(name);
  if (salt) host = "|1|" + Base64Encode(*salt) + "|" + Base64Encode(HmacSha1(*salt, host));
  return host + " " + KeyBlobType(key_blob) + " " + Base64Encode(key_blob) + "\n";
}

}  // namespace fvbench
