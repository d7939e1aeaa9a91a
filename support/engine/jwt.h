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
#include <vector>

#include "support/core/jwt_secret.h"

namespace fvbench {

// The seed's claims (run-all.sh gen_jwt). The secret: Config::jwt_secret
// (FVBENCH_JWT_SECRET, at least 32 bytes; default the public, benchmark-only
// kBenchJwtSecret of core/jwt_secret.h), installed by SetBenchJwtSecret.
inline constexpr const char kBenchJwtClaims[] =
    R"({"sub":"bench-user","org_id":"bench-org","iat":1700000000,"exp":9999999999})";

// base64url (RFC 4648 section 5) without padding.
std::string Base64UrlEncode(std::string_view bytes);

// `claims_json` is used verbatim (byte-exact), so the token is reproducible.
std::string MakeHs256Jwt(const std::string& secret, const std::string& claims_json);

// The secret of this process's benchmark JWT: kBenchJwtSecret until
// SetBenchJwtSecret installs Config::jwt_secret (ConfigFromEnvironment and
// Testbed::Open do). Nothing here reads the environment.
std::string BenchJwtSecret();
void SetBenchJwtSecret(std::string secret);

// MakeHs256Jwt(BenchJwtSecret(), kBenchJwtClaims).
std::string BenchJwt();

// Secrets: nothing a run writes (logs, engine command files, results, reports,
// JUnit, the DRY_RUN plan, error messages) may contain the JWT secret or a
// token made from it. RedactSecrets replaces, and changes nothing else (raw
// engine output stays parseable JSON even with a secret of one digit):
//   - the bench JWT (with BenchJwtSecret() and with kBenchJwtSecret), each
//     token's signature segment, each secret and each secret's base64url form
//     -> "<redacted>" (secrets are >= 32 bytes, so none occurs by chance);
//   - any other compact JWS "eyJ<b64url>.eyJ<b64url>.<b64url>" whose HS256
//     signature verifies with either secret (a token made from it with other
//     claims) -> "<redacted-jwt>". Other tokens are left as they are.
// Idempotent.
std::string RedactSecrets(std::string text);

// The literal strings RedactSecrets removes first (full tokens, signature
// segments, secrets, base64url of the secrets), longest first, no duplicates.
// Exposed for tests and output checks (fixtures/check-no-secrets.sh).
std::vector<std::string> BenchSecrets();

}  // namespace fvbench
