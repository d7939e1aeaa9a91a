#include <libpq-fe.h>

#include <fmt/format.h>

#include "support/core/connection_string.h"
#include "support/core/text.h"
#include "support/history/sql_connection.h"

namespace fvbench {
namespace {

// libpq's message without its trailing newline; "" for none.
std::string Trimmed(const char* s) { return std::string(detail::TrimRight(s ? s : "", "\n ")); }

class PostgresConnection final : public SqlConnection {
 public:
  // `url` only to take its secrets out of libpq's messages.
  PostgresConnection(PGconn* c, std::string url) : c_(c), url_(std::move(url)), where_(RedactConnectionString(url_)) {}
  ~PostgresConnection() override { PQfinish(c_); }

  Result<std::vector<SqlRow>> Query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<const char*> values;
    for (const SqlValue& p : params) values.push_back(p ? p->c_str() : nullptr);
    PGresult* res = PQexecParams(c_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(), nullptr,
                                 nullptr, 0);
    std::unique_ptr<PGresult, void (*)(PGresult*)> guard(res, PQclear);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
      return Error{fmt::format("{}: PostgreSQL: {} (in: {})", where_,
                               RedactConnectionSecrets(Trimmed(PQerrorMessage(c_)), url_),
                               sql.substr(0, sql.find('\n')))};
    }
    std::vector<SqlRow> rows;
    for (int r = 0; r < PQntuples(res); ++r) {
      SqlRow row;
      for (int c = 0; c < PQnfields(res); ++c) {
        row.push_back(PQgetisnull(res, r, c) ? std::nullopt : SqlValue(PQgetvalue(res, r, c)));
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }
  Result<void> BeginWrite() override {
    auto r = Query("BEGIN", {});
    if (!r.ok()) return r.error();
    return Ok();
  }
  bool IsPostgres() const override { return true; }
  const std::string& Where() const override { return where_; }

 private:
  PGconn* c_;
  std::string url_;
  std::string where_;
};

}  // namespace

bool IsPostgresUrl(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

Result<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url, SqlAccess access) {
  // Printed: host and database only; libpq's messages, which may echo the
  // URL or parts of it, without its secrets (core/connection_string.h).
  const std::string where = RedactConnectionString(url);
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  if (!opts) {
    std::string msg = RedactConnectionSecrets(Trimmed(err ? err : "out of memory"), url);
    PQfreemem(err);
    return Error{fmt::format("{}: not a valid PostgreSQL URL: {}", where, msg)};
  }
  PQconninfoFree(opts);
  // Bounded: an unreachable server fails in seconds, not at the OS's TCP timeout.
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), "10", nullptr};
  PGconn* c = PQconnectdbParams(keys, values, 1);
  if (!c || PQstatus(c) != CONNECTION_OK) {
    std::string msg = c ? RedactConnectionSecrets(Trimmed(PQerrorMessage(c)), url) : "out of memory";
    PQfinish(c);
    return Error{fmt::format("{}: cannot connect to the PostgreSQL history: {}", where, msg)};
  }
  auto conn = std::make_unique<PostgresConnection>(c, url);
  if (auto r = conn->Query("SET client_min_messages = warning", {}); !r.ok()) return r.error();
  if (access == SqlAccess::kRead) {
    if (auto r = conn->Query("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", {}); !r.ok()) return r.error();
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

std::string LocationForMessages(const std::string& location) { return RedactConnectionString(location); }

Result<std::unique_ptr<SqlConnection>> OpenHistoryDatabase(const std::string& location, SqlAccess access) {
  if (location.empty()) {
    return Error{"FVBENCH_HISTORY: not set; give an SQLite file path or a postgresql:// URL (or --history)"};
  }
  if (IsPostgresUrl(location)) return OpenPostgres(location, access);
  if (location.find("://") != std::string::npos) {
    return Error{fmt::format("{}: not a history location: an SQLite file path or a postgresql:// URL",
                             RedactConnectionString(location))};
  }
  // libpq's key=value form would be taken for a file name (one that may
  // hold the password).
  if (ParseConnectionString(location).kind == ConnectionStringParts::Kind::kPostgresKeyValue) {
    return Error{fmt::format("FVBENCH_HISTORY '{}': a libpq key=value string; the history takes an SQLite file "
                             "path or a postgresql:// URL (e.g. postgresql://user@host/dbname)",
                             RedactConnectionString(location))};
  }
  return OpenSqlite(location, access);
}

}  // namespace fvbench
