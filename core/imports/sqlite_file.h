// SQLite databases of other tools (MLflow's store, Trackio's projects, Optuna's studies), opened
// read-only with a busy timeout through libsqlite3, so that a writer at work keeps going. Errors
// throw ImportError naming the file.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <string>

namespace traindeck {

struct SqliteClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct SqliteFinalize {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using SqliteDb = std::unique_ptr<sqlite3, SqliteClose>;
using SqliteStatement = std::unique_ptr<sqlite3_stmt, SqliteFinalize>;

// Whether the file starts as an SQLite database does (cheap: no library call).
bool looksLikeSqliteFile(const std::filesystem::path& file);
// A file named as stores are (.db, .sqlite, .sqlite3) that starts as an SQLite database.
bool isSqliteStoreFile(const std::filesystem::path& file);

SqliteDb openSqliteReadOnly(const std::filesystem::path& file);
// `what` names the kind of store for the error ("not an MLflow store (no such table: runs)").
SqliteStatement prepareSqlite(sqlite3* db, const std::filesystem::path& file, const char* sql, const char* what);
// Whether `table` has every one of `columns` (false when there is no such table).
bool sqliteHasColumns(sqlite3* db, const char* table, std::initializer_list<const char*> columns);
std::string sqliteText(sqlite3_stmt* statement, int column);
// Steps `statement` to its next row: true for a row, false when done; throws on an error.
bool sqliteNextRow(sqlite3* db, sqlite3_stmt* statement, const std::filesystem::path& file);

}  // namespace traindeck
