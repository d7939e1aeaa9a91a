#include "support/engine/jwt.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>

namespace fvbench {

std::string Base64UrlEncode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&](size_t k) { return static_cast<unsigned char>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8) | at(i + 2);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    unsigned v = at(i) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    unsigned v = (at(i) << 16) | (at(i + 1) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

std::string MakeHs256Jwt(const std::string& secret, const std::string& claims_json) {
  std::string signing_input =
      Base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})") + "." + Base64UrlEncode(claims_json);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(signing_input.data()), signing_input.size(), mac,
       &mac_len);
  return signing_input + "." +
         Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(mac), mac_len));
}

namespace {
std::string& InstalledSecret() {
  static std::string secret = kBenchJwtSecret;
  return secret;
}
}  // namespace

std::string BenchJwtSecret() { return InstalledSecret(); }

void SetBenchJwtSecret(std::string secret) { InstalledSecret() = std::move(secret); }

std::string BenchJwt() { return MakeHs256Jwt(BenchJwtSecret(), kBenchJwtClaims); }

std::vector<std::string> BenchSecrets() {
  std::vector<std::string> out;
  for (const std::string& secret : {BenchJwtSecret(), std::string(kBenchJwtSecret)}) {
    const std::string token = MakeHs256Jwt(secret, kBenchJwtClaims);
    out.push_back(token);
    out.push_back(token.substr(token.rfind('.') + 1));  // the signature segment
    out.push_back(secret);
    out.push_back(Base64UrlEncode(secret));
  }
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace {

bool IsB64Url(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

void ReplaceAll(std::string& text, const std::string& what, const std::string& with) {
  if (what.empty()) return;
  for (size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + with.size())) {
    text.replace(pos, what.size(), with);
  }
}

// Length of a compact JWS starting at `pos` ("eyJ..." "." "eyJ..." "." sig), 0 if none.
size_t JwsLength(const std::string& t, size_t pos) {
  size_t i = pos;
  for (int part = 0; part < 3; ++part) {
    if (part < 2 && t.compare(i, 3, "eyJ") != 0) return 0;
    size_t start = i;
    while (i < t.size() && IsB64Url(t[i])) ++i;
    if (i == start) return 0;
    if (part < 2) {
      if (i >= t.size() || t[i] != '.') return 0;
      ++i;
    }
  }
  return i - pos;
}

// The compact JWS `jws` is signed (HS256) with one of the secrets.
bool SignedWithBenchSecret(std::string_view jws) {
  const size_t dot = jws.rfind('.');
  const std::string input(jws.substr(0, dot));
  const std::string_view sig = jws.substr(dot + 1);
  for (const std::string& secret : {BenchJwtSecret(), std::string(kBenchJwtSecret)}) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int mac_len = 0;
    HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
         reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &mac_len);
    if (Base64UrlEncode(std::string_view(reinterpret_cast<const char*>(mac), mac_len)) == sig) return true;
  }
  return false;
}

}  // namespace

std::string RedactSecrets(std::string text) {
  for (const std::string& s : BenchSecrets()) ReplaceAll(text, s, "<redacted>");
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = text[i] == 'e' ? JwsLength(text, i) : 0;
    if (n > 0 && SignedWithBenchSecret(std::string_view(text).substr(i, n))) {
      out += "<redacted-jwt>";
      i += n;
    } else {
      out.append(text, i, n > 0 ? n : 1);
      i += n > 0 ? n : 1;
    }
  }
  return out;
}

}  // namespace fvbench
