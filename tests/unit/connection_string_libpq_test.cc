// ParseConnectionString (support/core/connection_string.h) against libpq's
// own parser, PQconninfoParse, on the handed forms and on random strings
// built from the pieces of libpq URIs and key=value strings, encoded and
// raw: where libpq parses a string, the parts fvbench shows or hides are the
// ones libpq would use; where libpq refuses it, fvbench shows nothing of it
// (or knows it holds a parameter libpq does not know).
#include <libpq-fe.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "support/core/connection_string.h"

namespace fvbench::connection_string_libpq_test {
namespace {

struct Libpq {
  bool ok = false;
  std::map<std::string, std::string> values;  // keyword -> value, set ones only
};

Libpq LibpqParse(const std::string& s) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(s.c_str(), &err);
  Libpq out;
  if (err != nullptr) PQfreemem(err);
  if (opts == nullptr) return out;
  out.ok = true;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o)
    if (o->val != nullptr) out.values[o->keyword] = o->val;
  PQconninfoFree(opts);
  return out;
}

std::string Get(const Libpq& l, const char* k) {
  auto it = l.values.find(k);
  return it == l.values.end() ? "" : it->second;
}

// How many strings each side parsed (the random tests check that both kinds occur).
struct Counts {
  int libpq_refused = 0, compared = 0;
};

void Compare(const std::string& s, Counts* counts = nullptr) {
  SCOPED_TRACE(s);
  const Libpq l = LibpqParse(s);
  const ConnectionStringParts p = ParseConnectionString(s);
  if (!l.ok) {
    EXPECT_TRUE(!p.well_formed || p.unknown_keys) << "libpq refuses it; fvbench would show parts of it";
    if (counts != nullptr) ++counts->libpq_refused;
    return;
  }
  if (!p.well_formed) return;  // stricter than libpq: shows nothing
  if (counts != nullptr) ++counts->compared;
  EXPECT_EQ(p.host, Get(l, "host"));
  EXPECT_EQ(p.hostaddr, Get(l, "hostaddr"));
  EXPECT_EQ(p.port, Get(l, "port"));
  EXPECT_EQ(p.dbname, Get(l, "dbname"));
  EXPECT_EQ(p.user, Get(l, "user"));
  EXPECT_EQ(p.password, Get(l, "password"));
  // What is shown holds neither password.
  const std::string shown = RedactConnectionString(s);
  for (const char* k : {"password", "sslpassword"}) {
    const std::string v = Get(l, k);
    if (v.size() >= 3) {
      EXPECT_EQ(shown.find(v), std::string::npos) << k << " shown in " << shown;
    }
  }
}

TEST(ConnectionStringVersusLibpq, HandedAndHandMadeForms) {
  for (const char* s : {
           "postgresql://fvbench:S3cretPW-fvt3@/postgres?host=/tmp/x/pg",
           "postgresql://fvbench@/postgres?host=/tmp/x/pg&password=S3cretPW-fvt3",
           "postgresql://u:S3cret%40PW%2Ffvt3@db.example:5433/hist?sslmode=require",
           "postgresql://u@h/d?pass%77ord=S3cret&sslpassword=K3y&connect_timeout=5",
           "postgresql://u:pw@h1:5432,h2:5433/db?target_session_attrs=read-write",
           "postgres://u:pw@[::1]:5432/db",
           "postgresql://u:pw@h?dbname=hist&port=6543&hostaddr=10.0.0.1&user=x",
           "postgresql://",
           "postgresql://u:p@ss@host/db",
           "postgresql://u:S3cret%zz@host/db",
           "postgresql://u:pw@[::1/db",
           "postgresql://u@h/db?password",
           "postgresql://u@h/db?password=a=b",
           "postgresql://u@h/db?nosuchkey=1",
           "postgresql://u:a?b,c:d@h/db",
           "host=/tmp/pg port=5432 dbname=hist user=fvbench password='S3cret PW\\'s' sslmode=disable",
           "  password = S3cret\\ PW   dbname = 'my db' host=h",
           "host=x password='abc",
           "host=x password=a b",
           "host=x nosuchkey=1",
       }) {
    Compare(s);
  }
}

std::string Pick(std::mt19937& rng, const std::vector<std::string>& v) { return v[rng() % v.size()]; }

std::string RandomText(std::mt19937& rng, bool encode) {
  static const std::string alphabet =
      "abcXYZ019 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  std::string s;
  const int len = static_cast<int>(rng() % 9);
  for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
  if (!encode) return s;
  std::string out;
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

TEST(ConnectionStringVersusLibpq, RandomUris) {
  std::mt19937 rng(7);
  Counts counts;
  const std::vector<std::string> keys = {"host", "port", "dbname", "user", "password", "sslpassword", "sslmode",
                                         "hostaddr", "application_name", "pass%77ord", "nosuch"};
  for (int n = 0; n < 3000; ++n) {
    const bool enc = rng() % 3 != 0;
    std::string s = rng() % 2 ? "postgresql://" : "postgres://";
    if (rng() % 2) s += RandomText(rng, enc) + (rng() % 2 ? ":" + RandomText(rng, enc) : "") + "@";
    const int hosts = static_cast<int>(rng() % 3);
    for (int h = 0; h < hosts; ++h) {
      if (h > 0) s += ",";
      s += rng() % 4 == 0 ? "[::1]" : Pick(rng, {"h", "db.example", "", "10.0.0.1"});
      if (rng() % 2) s += ":" + Pick(rng, {"5432", "", "x1"});
    }
    if (rng() % 2) s += "/" + Pick(rng, {"postgres", "hist", "", "a%20b"});
    if (rng() % 2) {
      const int params = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < params; ++i)
        s += (i == 0 ? "?" : "&") + Pick(rng, keys) + "=" + RandomText(rng, enc);
    }
    Compare(s, &counts);
  }
  EXPECT_GT(counts.compared, 300);
  EXPECT_GT(counts.libpq_refused, 300);
}

TEST(ConnectionStringVersusLibpq, RandomKeyValueStrings) {
  std::mt19937 rng(11);
  Counts counts;
  const std::vector<std::string> keys = {"host", "port", "dbname", "user", "password", "sslpassword", "sslmode",
                                         "nosuch"};
  for (int n = 0; n < 3000; ++n) {
    std::string s;
    const int params = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < params; ++i) {
      s += Pick(rng, {"", " ", "  "}) + Pick(rng, keys) + Pick(rng, {"", " "}) + "=" + Pick(rng, {"", " "});
      std::string v = RandomText(rng, false);
      if (rng() % 2) {
        std::string q = "'";
        for (char c : v) {
          if ((c == '\'' || c == '\\') && rng() % 4 != 0) q += '\\';
          q += c;
        }
        v = q + (rng() % 5 == 0 ? "" : "'");
      }
      s += v + " ";
    }
    if (ParseConnectionString(s).kind != ConnectionStringParts::Kind::kPostgresKeyValue) continue;
    Compare(s, &counts);
  }
  EXPECT_GT(counts.compared, 300);
  EXPECT_GT(counts.libpq_refused, 300);
}

}  // namespace
}  // namespace fvbench::connection_string_libpq_test
