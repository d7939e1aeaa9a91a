// The two databases the results history runs on, behind one small interface:
// SQL text with positional parameters $1, $2, ... (both SQLite and PostgreSQL
// read that spelling), values passed and returned as text (NULL = nullopt).
//
//   OpenHistoryDatabase("/path/history.sqlite", access)   an existing SQLite file
//   OpenHistoryDatabase("postgresql://user@/db?host=/run/sock", access)
//                                  libpq connection URI ("postgres://" too)
// kWrite opens for writing: SQLite read-write (never creating the file:
// history_file.h does that), PostgreSQL as usual. kRead writes nothing:
// SQLite read-only, creating no file beside it either (sqlite_connection.cc
// says how with SQLite's write-ahead log); PostgreSQL with every transaction
// READ ONLY.
// Errors name the location and what the library said: a file that is not a
// database, a bad URL, a server that does not answer. A URL is printed as
// RedactConnectionString shows it (host and database only;
// core/connection_string.h) and libpq's messages without its secrets. A
// libpq key=value string is refused (it is neither form).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/core/result.h"

namespace fvbench {

using SqlValue = std::optional<std::string>;
using SqlRow = std::vector<SqlValue>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // One statement; rows of its result (empty for statements without one).
  virtual Result<std::vector<SqlRow>> Query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  // Starts a transaction that writes: SQLite BEGIN IMMEDIATE (waits for other
  // writers up to the busy timeout), PostgreSQL BEGIN.
  virtual Result<void> BeginWrite() = 0;
  virtual bool IsPostgres() const = 0;
  // For messages: the file path, or RedactConnectionString(url).
  virtual const std::string& Where() const = 0;
};

enum class SqlAccess { kRead, kWrite };

bool IsPostgresUrl(const std::string& location);
Result<std::unique_ptr<SqlConnection>> OpenSqlite(const std::string& path, SqlAccess access);
Result<std::unique_ptr<SqlConnection>> OpenPostgres(const std::string& url, SqlAccess access);
// Either of the above by the form of `location`; "" is an error naming FVBENCH_HISTORY.
Result<std::unique_ptr<SqlConnection>> OpenHistoryDatabase(const std::string& location, SqlAccess access);
// `location` as messages show it: RedactConnectionString (core/connection_string.h).
std::string LocationForMessages(const std::string& location);

}  // namespace fvbench
