// RedactConnectionString / RedactConnectionSecrets (support/core/
// connection_string.h): the handed forms (a password in the user part of a
// postgresql:// URL, printed by the report step; one in ?password=,
// redacted nowhere), percent-encoded and quoted forms, libpq's key=value
// strings, other URLs, file paths, libpq-style messages, and random
// passwords, encoded as a user should and raw as users do.
#include "support/core/connection_string.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace fvbench::connection_string_test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Kind = ConnectionStringParts::Kind;

TEST(RedactConnectionString, TheHandedFormsShowHostAndDatabaseOnly) {
  EXPECT_EQ(RedactConnectionString("postgresql://fvbench:S3cretPW-fvt3@/postgres?host=/tmp/x/pg"),
            "postgresql:///postgres?host=/tmp/x/pg");
  EXPECT_EQ(RedactConnectionString("postgresql://fvbench@/postgres?host=/tmp/x/pg&password=S3cretPW-fvt3"),
            "postgresql:///postgres?host=/tmp/x/pg");
  EXPECT_EQ(RedactConnectionString("postgresql://fvbench@/postgres?password=WrongPW-fvt3&host=/tmp/x/pg"),
            "postgresql:///postgres?host=/tmp/x/pg");
}

TEST(RedactConnectionString, UriForms) {
  // Percent-encoded password and parameter names, ports, several hosts, IPv6.
  EXPECT_EQ(RedactConnectionString("postgresql://u:S3cret%40PW%2Ffvt3@db.example:5433/hist?sslmode=require"),
            "postgresql://db.example:5433/hist");
  EXPECT_EQ(RedactConnectionString("postgresql://u@h/d?pass%77ord=S3cret&sslpassword=K3y&connect_timeout=5"),
            "postgresql://h/d");
  EXPECT_EQ(RedactConnectionString("postgresql://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write"),
            "postgresql://h1:5432,h2:5433/db");
  EXPECT_EQ(RedactConnectionString("postgres://u:pw@[::1]:5432/db"), "postgres://[::1]:5432/db");
  EXPECT_EQ(RedactConnectionString("postgresql://u:pw@h?dbname=hist&port=6543&hostaddr=10.0.0.1&user=x"),
            "postgresql://h?dbname=hist&port=6543&hostaddr=10.0.0.1");
  EXPECT_EQ(RedactConnectionString("postgresql://"), "postgresql://");
  EXPECT_EQ(RedactConnectionString("postgresql://h/db"), "postgresql://h/db");
  // The same string again: a redacted form is its own redaction.
  for (const char* s : {"postgresql:///postgres?host=/tmp/x/pg", "postgresql://h1:5432,h2:5433/db"})
    EXPECT_EQ(RedactConnectionString(RedactConnectionString(s)), RedactConnectionString(s));
}

// An unencoded '@' or '/' in a password makes libpq read parts of it as the
// host, port or database: nothing of such a string is shown.
TEST(RedactConnectionString, UrisLibpqWouldMisreadShowNothing) {
  for (const char* s : {"postgresql://u:p@ss@host/db", "postgresql://u:pa/ss@host/db",
                        "postgresql://u:S3cret%zz@host/db", "postgresql://u:pw@[::1/db", "postgresql://u:pw@[]/db",
                        "postgresql://u:pw@h/db?password", "postgresql://u@h/db?password=a=b",
                        "postgresql://u:S3cret%00@h/db"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ(RedactConnectionString(s), "postgresql://(not shown: not a connection URI libpq reads)");
    EXPECT_FALSE(ParseConnectionString(s).well_formed);
  }
}

TEST(RedactConnectionString, KeyValueStrings) {
  EXPECT_EQ(RedactConnectionString("host=/tmp/pg port=5432 dbname=hist user=fvbench password='S3cret PW\\'s' "
                                   "sslmode=disable"),
            "host=/tmp/pg port=5432 dbname=hist");
  EXPECT_EQ(RedactConnectionString("  password = S3cret\\ PW   dbname = 'my db' host=h"), "dbname='my db' host=h");
  EXPECT_EQ(RedactConnectionString("dbname='it\\'s' password=x"), "dbname='it\\'s'");
  EXPECT_EQ(RedactConnectionString("password=x user=y"), "(connection string with no host or database)");
  for (const char* s : {"host=x password='abc", "host=x password=a b", "host=x password"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ(RedactConnectionString(s), "(connection string not shown: not a key=value string libpq reads)");
  }
  const ConnectionStringParts p = ParseConnectionString("password='S3cret PW\\'s' dbname=hist");
  EXPECT_EQ(p.kind, Kind::kPostgresKeyValue);
  EXPECT_EQ(p.password, "S3cret PW's");
  EXPECT_THAT(p.secrets, ::testing::Contains("S3cret PW's"));
  EXPECT_THAT(p.secrets, ::testing::Contains("'S3cret PW\\'s'"));
}

TEST(RedactConnectionString, OtherUrlsAndPaths) {
  EXPECT_EQ(RedactConnectionString("https://user:t0ken@github.com/fairvisor/edge?x=1#y"),
            "https://github.com/fairvisor/edge");
  EXPECT_EQ(RedactConnectionString("POSTGRESQL://u:pw@h/db?password=x"), "POSTGRESQL://h/db");
  EXPECT_EQ(RedactConnectionString("mysql://u:p@ss@h/db"), "mysql://h/db");
  for (const char* path : {"/var/lib/fvbench/history.sqlite", "build/ci-history.sqlite", "history with spaces.sqlite",
                           "", "./h@1.sqlite"}) {
    EXPECT_EQ(RedactConnectionString(path), path);
  }
  // The value runs to the next blank, '&', ';' or ',': a password may hold '/'.
  EXPECT_EQ(RedactConnectionString("/tmp/PGPASSWORD=S3cret/h.sqlite"), "/tmp/PGPASSWORD=***");
  EXPECT_EQ(RedactConnectionString("x sslpassword='a b' y"), "x sslpassword=*** y");
}

// Messages a library gives about a location: the location shown redacted,
// its secrets replaced wherever they occur, and for a string libpq refuses
// whatever libpq quoted.
TEST(RedactConnectionSecrets, LibpqMessages) {
  const std::string uri = "postgresql://fvbench:S3cretPW-fvt3@/postgres?host=/tmp/pg";
  EXPECT_EQ(RedactConnectionSecrets(uri + ": cannot connect: FATAL:  password authentication failed for user "
                                          "\"fvbench\"",
                                    uri),
            "postgresql:///postgres?host=/tmp/pg: cannot connect: FATAL:  password authentication failed for user "
            "\"fvbench\"");
  // Percent-encoded and decoded forms, anywhere in the text.
  const std::string enc = "postgresql://u:S3cret%40PW@h/db";
  EXPECT_EQ(RedactConnectionSecrets("a S3cret%40PW b S3cret@PW c", enc), "a *** b *** c");
  // libpq echoes what it cannot parse between double quotes.
  const std::string bad = "postgresql://u:S3cret%zz@h/db";
  std::string m = RedactConnectionSecrets("invalid percent-encoded token: \"S3cret%zz\"", bad);
  EXPECT_THAT(m, Not(HasSubstr("S3cret"))) << m;
  const std::string v6 = "postgresql://u:S3cretPW@[::1]x/db";
  m = RedactConnectionSecrets("unexpected character \"x\" at position 27 in URI (expected \":\" or \"/\"): \"" + v6 +
                                  "\"",
                              v6);
  EXPECT_THAT(m, Not(HasSubstr("S3cretPW"))) << m;
  EXPECT_THAT(m, HasSubstr("unexpected character \"...\""));
  // A value split off a password at an unencoded '&', echoed as a keyword.
  const std::string amp = "postgresql://u@h/db?password=S3cr&etPW=x";
  m = RedactConnectionSecrets("invalid URI query parameter: \"etPW\"", amp);
  EXPECT_EQ(m, "invalid URI query parameter: \"***\"");
  // An unknown parameter elsewhere is named (libpq's message stays useful).
  EXPECT_EQ(RedactConnectionSecrets("invalid URI query parameter: \"nosuchoption\"",
                                    "postgresql://u@h/db?nosuchoption=1&password=x"),
            "invalid URI query parameter: \"nosuchoption\"");
  EXPECT_EQ(RedactConnectionSecrets("invalid connection option \"PW\"", "host=h password=S3cret PW=1"),
            "invalid connection option \"***\"");
  const std::string kv = "host=/tmp/pg password='S3cret PW";
  m = RedactConnectionSecrets(kv + ": unterminated quoted string in connection info string", kv);
  EXPECT_THAT(m, Not(HasSubstr("S3cret"))) << m;
  // A password that is also the database's name: the shown form keeps the
  // name, the rest of the message loses the password.
  const std::string same = "postgresql://postgres:postgres@/postgres?host=/tmp/pg";
  EXPECT_EQ(RedactConnectionSecrets(same + ": role \"postgres\"", same),
            "postgresql:///postgres?host=/tmp/pg: role \"***\"");
  // password= assignments in a message (an environment dump).
  EXPECT_EQ(RedactConnectionSecrets("PGPASSWORD=S3cret psql", "/x.sqlite"), "PGPASSWORD=*** psql");
}

// libpq's own URI encoding of a password: every byte but unreserved ones as %XX.
std::string Encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string KeyValueQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// Random printable passwords in every form: the password (and its encoded
// form) never appears in what is shown, nor in a message quoting it; given
// raw (unencoded, as users do), no 4-byte piece of it between '@' and '/'
// appears either.
TEST(RedactConnectionString, RandomPasswordsInEveryForm) {
  std::mt19937 rng(20240626);
  const std::string alphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  for (int n = 0; n < 400; ++n) {
    std::string pw = "Zq";  // never a substring of the fixed parts below
    const int len = 6 + static_cast<int>(rng() % 14);
    for (int i = 0; i < len; ++i) pw += alphabet[rng() % alphabet.size()];
    const std::string enc = Encode(pw);
    const std::vector<std::string> forms = {
        "postgresql://fvbench:" + enc + "@/postgres?host=/tmp/pg",
        "postgresql://fvbench@db.example:5432/hist?password=" + enc + "&sslmode=disable",
        "postgres://fvbench@h/d?sslpassword=" + enc,
        "host=/tmp/pg dbname=hist password=" + KeyValueQuote(pw),
    };
    for (const std::string& f : forms) {
      SCOPED_TRACE(f);
      const std::string shown = RedactConnectionString(f);
      EXPECT_THAT(shown, Not(HasSubstr(pw)));
      EXPECT_THAT(shown, Not(HasSubstr(enc)));
      // A message quoting the password as the string holds it (and, for a
      // URI, decoded).
      const bool uri = f.rfind("postgres", 0) == 0;
      const std::string msg = RedactConnectionSecrets(f + " said: \"" + pw + "\" (" + (uri ? enc : pw) + ")", f);
      EXPECT_THAT(msg, Not(HasSubstr(pw)));
      EXPECT_THAT(msg, Not(HasSubstr(enc)));
    }
    for (const std::string& raw : {"postgresql://fvbench:" + pw + "@db.example/hist",
                                   "postgresql://fvbench@db.example/hist?password=" + pw,
                                   "host=/tmp/pg dbname=hist password=" + pw}) {
      SCOPED_TRACE(raw);
      const std::string shown = RedactConnectionString(raw);
      if (shown.find("not shown: ") != std::string::npos) continue;  // a fixed text
      size_t start = 0;
      while (start < pw.size()) {
        size_t end = pw.find_first_of("@/", start);
        if (end == std::string::npos) end = pw.size();
        for (size_t i = start; i + 4 <= end; ++i) EXPECT_THAT(shown, Not(HasSubstr(pw.substr(i, 4))));
        start = end + 1;
      }
    }
  }
}

}  // namespace
}  // namespace fvbench::connection_string_test
