// The benchmark JWT's built-in secret and the shortest secret accepted
// (config.h FVBENCH_JWT_SECRET; the token itself is made in engine/jwt.h).
#pragma once

#include <cstddef>

namespace fvbench {

// The seed's secret (run-all.sh gen_jwt): fixed, public, benchmark-only.
inline constexpr const char kBenchJwtSecret[] = "bench-hs256-key-NOT-for-production";

// RFC 7518 section 3.2: an HS256 key must be at least as long as the hash
// output, 256 bits. Shorter secrets are refused, and a secret this long
// never occurs by chance in the text redaction scans (jwt.h RedactSecrets).
inline constexpr std::size_t kMinJwtSecretBytes = 32;

}  // namespace fvbench
