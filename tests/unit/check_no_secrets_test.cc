// fixtures/check-no-secrets.sh (run by .ci/run over every output of the
// self-test run) must fail when a secret is planted, and pass on clean files.
// The script computes the token with Perl's Digest::SHA
// (fixtures/secrets/needles.sh); the tokens planted here come from
// support/engine/jwt.h, so the two computations check each other. It also
// looks for the PostgreSQL password of FVBENCH_HISTORY and PGPASSWORD.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "support/engine/jwt.h"
#include "fvbench/source_dir.h"

namespace fvbench::check_no_secrets_test {
namespace {

namespace fs = std::filesystem;

std::string Script() {
  const char* dir = std::getenv("FVBENCH_FIXTURES");
  return std::string(dir != nullptr ? dir : FVBENCH_SOURCE_DIR "/fixtures") + "/check-no-secrets.sh";
}

class CheckNoSecrets : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fvbench-secrets-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ + "/bench/controller-results/raw");
    Write("bench/controller-results/latency.raw_nginx.json", R"({"schema_version": 1})");
    Write("bench/controller-results/raw/x.cmd.txt", "FVBENCH_JWT='<redacted>' wrk -t1 http://127.0.0.1/\n");
    Write("junit-unit.xml", "<testsuite name=\"x\"/>\n");
    for (const char* name : {"FVBENCH_JWT_SECRET", "FVBENCH_HISTORY", "PGPASSWORD"}) {
      if (const char* v = std::getenv(name)) saved_[name] = v;
      unsetenv(name);
    }
  }
  void TearDown() override {
    fs::remove_all(dir_);
    for (const char* name : {"FVBENCH_JWT_SECRET", "FVBENCH_HISTORY", "PGPASSWORD"}) unsetenv(name);
    for (const auto& [k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
  }
  void Write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ + "/" + rel, std::ios::binary) << text;
  }
  // Exit code of the script over `args`; its output goes to `log_`.
  int Run(const std::string& args) {
    log_ = dir_ + "/../" + fs::path(dir_).filename().string() + ".log";
    int st = std::system(("bash '" + Script() + "' " + args + " > '" + log_ + "' 2>&1").c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  std::string Log() {
    std::ifstream in(log_);
    std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    fs::remove(log_);
    return s;
  }
  std::string All() { return "'" + dir_ + "/bench' '" + dir_ + "/junit-unit.xml'"; }

  std::string dir_, log_;
  std::map<std::string, std::string> saved_;
};

TEST_F(CheckNoSecrets, CleanOutputsPass) {
  EXPECT_EQ(Run(All()), 0) << Log();
}

TEST_F(CheckNoSecrets, FailsOnTheFullToken) {
  Write("bench/controller-results/raw/x.stdout.txt", "Authorization: Bearer " + BenchJwt() + "\n");
  EXPECT_EQ(Run(All()), 1);
  std::string log = Log();
  EXPECT_NE(log.find("x.stdout.txt contains the full JWT (built-in secret)"), std::string::npos) << log;
  EXPECT_EQ(log.find(BenchJwt()), std::string::npos) << "the check must not print the secret";
}

TEST_F(CheckNoSecrets, FailsOnTheSignatureSegmentAlone) {
  const std::string tok = BenchJwt();
  Write("junit-unit.xml", "<failure>sig " + tok.substr(tok.rfind('.') + 1) + "</failure>");
  EXPECT_EQ(Run(All()), 1);
  std::string log = Log();
  EXPECT_NE(log.find("junit-unit.xml contains the JWT signature segment"), std::string::npos) << log;
}

TEST_F(CheckNoSecrets, FailsOnTheSecretAndItsBase64Url) {
  Write("bench/a.log", std::string("key=") + kBenchJwtSecret);
  Write("bench/b.log", "k=" + Base64UrlEncode(kBenchJwtSecret));
  EXPECT_EQ(Run(All()), 1);
  std::string log = Log();
  EXPECT_NE(log.find("a.log contains the JWT secret (built-in)"), std::string::npos) << log;
  EXPECT_NE(log.find("b.log contains the base64url of the JWT secret (built-in)"), std::string::npos) << log;
}

TEST_F(CheckNoSecrets, FailsOnTheOverriddenSecretsToken) {
  setenv("FVBENCH_JWT_SECRET", "site-secret-for-this-test", 1);  // what the script reads
  SetBenchJwtSecret("site-secret-for-this-test");                 // what Config installs
  const std::string tok = BenchJwt();  // signed with the override
  SetBenchJwtSecret(kBenchJwtSecret);
  ASSERT_NE(tok, MakeHs256Jwt(kBenchJwtSecret, kBenchJwtClaims));
  Write("bench/c.log", "sig only: " + tok.substr(tok.rfind('.') + 1));
  Write("bench/d.log", "site-secret-for-this-test");
  EXPECT_EQ(Run(All()), 1);
  std::string log = Log();
  EXPECT_NE(log.find("c.log contains the JWT signature segment (FVBENCH_JWT_SECRET secret)"), std::string::npos)
      << log;
  EXPECT_NE(log.find("d.log contains the JWT secret (FVBENCH_JWT_SECRET)"), std::string::npos) << log;
}

TEST_F(CheckNoSecrets, FailsOnAnyOtherJwt) {
  Write("bench/e.log", MakeHs256Jwt("another-key", R"({"sub":"someone"})"));
  EXPECT_EQ(Run(All()), 1);
  std::string log = Log();
  EXPECT_NE(log.find("e.log contains a JWT"), std::string::npos) << log;
}

TEST_F(CheckNoSecrets, RedactedOutputPasses) {
  Write("bench/f.log", RedactSecrets("curl -H 'Authorization: Bearer " + BenchJwt() + "' key=" + kBenchJwtSecret));
  EXPECT_EQ(Run(All()), 0) << Log();
}

// The PostgreSQL password of FVBENCH_HISTORY, in each form libpq takes it,
// as given and %-decoded, and PGPASSWORD; the log names kinds, never values.
TEST_F(CheckNoSecrets, FailsOnThePostgresPassword) {
  struct Case {
    std::string history, planted, kind;
  };
  for (const Case& c : {
           Case{"postgresql://fvbench:S3cretPW-fvt3@/postgres?host=/tmp/pg", "S3cretPW-fvt3",
                "PostgreSQL password (FVBENCH_HISTORY user part)"},
           Case{"postgresql://fvbench@/postgres?host=/tmp/pg&password=S3cret%40PW-fvt3", "S3cret@PW-fvt3",
                "PostgreSQL password (FVBENCH_HISTORY ?password=, %-decoded)"},
           Case{"postgresql://fvbench@/postgres?host=/tmp/pg&password=S3cret%40PW-fvt3", "S3cret%40PW-fvt3",
                "PostgreSQL password (FVBENCH_HISTORY ?password=)"},
           Case{"host=/tmp/pg password='S3cret PW\\'s' dbname=hist", "S3cret PW's",
                "PostgreSQL password (FVBENCH_HISTORY password)"},
       }) {
    SCOPED_TRACE(c.history);
    setenv("FVBENCH_HISTORY", c.history.c_str(), 1);
    Write("bench/pg.log", "x " + c.planted + " y\n");
    EXPECT_EQ(Run(All()), 1);
    const std::string log = Log();
    EXPECT_NE(log.find("pg.log contains the " + c.kind), std::string::npos) << log;
    EXPECT_EQ(log.find(c.planted), std::string::npos) << "the check must not print the password";
  }
  // Shown with host and database only: clean.
  Write("bench/pg.log", "recorded as run 1 in postgresql:///postgres?host=/tmp/pg\n");
  EXPECT_EQ(Run(All()), 0) << Log();
  unsetenv("FVBENCH_HISTORY");
  setenv("PGPASSWORD", "EnvPW-fvt3-xyz", 1);
  Write("bench/pg.log", "PGPASSWORD=EnvPW-fvt3-xyz\n");
  EXPECT_EQ(Run(All()), 1);
  EXPECT_NE(Log().find("pg.log contains the PostgreSQL password (PGPASSWORD)"), std::string::npos);
}

TEST_F(CheckNoSecrets, NothingToCheckFails) {
  EXPECT_EQ(Run("'" + dir_ + "/no-such-dir'"), 1);
  std::string log = Log();
  EXPECT_NE(log.find("no file to check"), std::string::npos) << log;
}

}  // namespace
}  // namespace fvbench::check_no_secrets_test
