#include <sqlite3.h>

#include <fmt/format.h>

#include "support/history/sql_connection.h"

namespace fvbench {
namespace {

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override { sqlite3_close_v2(db_); }

  Result<std::vector<SqlRow>> Query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) return Failed("prepare", sql);
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> guard(st, sqlite3_finalize);
    for (size_t i = 0; i < params.size(); ++i) {
      int rc = params[i] ? sqlite3_bind_text(st, static_cast<int>(i + 1), params[i]->c_str(),
                                             static_cast<int>(params[i]->size()), SQLITE_TRANSIENT)
                         : sqlite3_bind_null(st, static_cast<int>(i + 1));
      if (rc != SQLITE_OK) return Failed("bind", sql);
    }
    std::vector<SqlRow> rows;
    for (;;) {
      int rc = sqlite3_step(st);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return Failed("step", sql);
      SqlRow row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* t = sqlite3_column_text(st, c);
        row.push_back(t ? SqlValue(reinterpret_cast<const char*>(t)) : std::nullopt);
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }
  Result<void> BeginWrite() override {
    auto r = Query("BEGIN IMMEDIATE", {});
    if (!r.ok()) return r.error();
    return Ok();
  }
  bool IsPostgres() const override { return false; }
  const std::string& Where() const override { return path_; }

 private:
  Error Failed(const char* step, const std::string& sql) const {
    std::string first_line = sql.substr(0, sql.find('\n'));
    return Error{fmt::format("{}: SQLite {} failed: {} (in: {})", path_, step, sqlite3_errmsg(db_), first_line)};
  }
  sqlite3* db_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close_v2(db);
    return Error{fmt::format("{}: cannot open the SQLite history: {} (does its directory exist and is it writable?)",
                             path, msg)};
  }
  auto conn = std::make_unique<SqliteConnection>(db, path);
  sqlite3_busy_timeout(db, 10000);  // concurrent writers wait up to 10 s for the lock
  // A file that is not a database fails here, not on the first append.
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA foreign_keys=ON", "PRAGMA synchronous=NORMAL"}) {
    if (auto r = conn->Query(pragma, {}); !r.ok()) return r.error();
  }
  return std::unique_ptr<SqlConnection>(std::move(conn));
}

}  // namespace fvbench
