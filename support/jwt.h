// HS256 JSON Web Tokens for the benchmark's Authorization header.
//
// Shape (RFC 7519 / RFC 7515 compact serialisation):
//   base64url(header) "." base64url(claims) "." base64url(HMAC-SHA256(secret, first two parts))
// with header {"alg":"HS256","typ":"JWT"} and base64url without '=' padding
// (RFC 7515 section 2). HMAC via OpenSSL.
//
// fairvisor edge decodes the claims of a Bearer token for jwt:* limit keys
// (decision_api.decode_jwt_payload) and does not verify the signature; the
// token is still signed properly so a verifying build would accept it.
#pragma once

#include <string>
#include <string_view>

namespace fvbench {

// The seed's secret and claims (run-all.sh gen_jwt).
inline constexpr const char kBenchJwtSecret[] = "bench-hs256-key-NOT-for-production";
inline constexpr const char kBenchJwtClaims[] =
    R"({"sub":"bench-user","org_id":"bench-org","iat":1700000000,"exp":9999999999})";

// base64url (RFC 4648 section 5) without padding.
std::string Base64UrlEncode(std::string_view bytes);

// `claims_json` is used verbatim (byte-exact), so the token is reproducible.
std::string MakeHs256Jwt(const std::string& secret, const std::string& claims_json);

// MakeHs256Jwt(kBenchJwtSecret, kBenchJwtClaims).
std::string BenchJwt();

}  // namespace fvbench
