// Connection strings as they may be printed: never with a password in any
// form. Pure, no I/O.
//
// RedactConnectionString(location) is what every message, log line, report
// and file shows of FVBENCH_HISTORY or any other connection string:
//   - a libpq URI ("postgresql://", "postgres://"), read as libpq 15 reads
//     it: "postgresql://<host list>[/<dbname>]" plus, of the query, only
//     host=, hostaddr=, port= and dbname= (as given). The user, the password
//     and every other parameter are dropped:
//       postgresql://fvbench:S3cret@/postgres?host=/tmp/pg&password=x
//         -> postgresql:///postgres?host=/tmp/pg
//   - a libpq key=value string ("host=/tmp/pg password='a b' dbname=x"):
//     host=, hostaddr=, port= and dbname= only, values quoted as libpq
//     reads them: "host=/tmp/pg dbname=x";
//   - any other "<scheme>://" URL: without its user part (everything up to
//     the last '@') and without its query and fragment;
//   - anything else (an SQLite file path): as given, except that the value
//     after any "password=" (any case: PGPASSWORD=, sslpassword=) is "***".
// A libpq string that libpq would not parse as given (an unterminated
// quote, a bad %-escape, a '@' left in the host or database part, as an
// unencoded '@' or '/' in a password leaves it, a port that is not a
// number) shows no part of itself: "postgresql://(not shown: ...)".
//
// RedactConnectionSecrets(text, location): a message about `location` (a
// library's error, which may echo the string or parts of it) with the
// location replaced by its redacted form and every secret of it by "***":
// the values of password, sslpassword and the like (as given and
// %-decoded), of parameters libpq 15 does not know, and the name of an
// unknown parameter right after a secret one (the rest of a password cut at
// an unencoded '&' or blank). For a string libpq would refuse, also
// everything between the first and the last double quote (where libpq
// quotes what it could not parse) becomes "...".
//
// PGPASSWORD is never read here: it reaches libpq through the environment
// and nothing prints it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fvbench {

std::string RedactConnectionString(std::string_view location);
std::string RedactConnectionSecrets(std::string text, std::string_view location);

// The parse behind both, exposed for tests (compared with libpq's own
// PQconninfoParse in the history tests).
struct ConnectionStringParts {
  enum class Kind { kPostgresUri, kPostgresKeyValue, kOtherUrl, kOther };
  Kind kind = Kind::kOther;
  bool well_formed = true;     // libpq would parse it (libpq kinds only)
  bool unknown_keys = false;   // holds a parameter libpq 15 does not know
  // %-decoded (URI) or unquoted (key=value) values, as libpq stores them;
  // empty when absent.
  std::string host, hostaddr, port, dbname, user, password;
  // Shown: the URI's host list as given, and the shown parameters in order.
  std::string uri_hosts;
  std::string uri_dbname;
  std::vector<std::pair<std::string, std::string>> shown;
  // Every value that must not be printed, as given and decoded, longest first.
  std::vector<std::string> secrets;
};
ConnectionStringParts ParseConnectionString(std::string_view location);

}  // namespace fvbench
