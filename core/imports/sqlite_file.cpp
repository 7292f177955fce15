// The database is opened with SQLITE_OPEN_READONLY and a busy timeout, so a tracking server that
// is writing it keeps going and this read waits a moment for its lock rather than failing.
#include "imports/sqlite_file.h"

#include <fstream>
#include <set>
#include <string_view>

#include "imports/import_error.h"

namespace traindeck {

bool looksLikeSqliteFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[16] = {};
  return in.read(magic, sizeof magic) &&
         std::string_view(magic, sizeof magic) == std::string_view("SQLite format 3\0", 16);
}

bool isSqliteStoreFile(const std::filesystem::path& file) {
  const std::string ext = file.extension().string();
  return (ext == ".db" || ext == ".sqlite" || ext == ".sqlite3") && looksLikeSqliteFile(file);
}

SqliteDb openSqliteReadOnly(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  SqliteDb db(raw);
  if (rc != SQLITE_OK)
    throw ImportError(file.string() + ": cannot open as SQLite: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(raw, 2000);
  return db;
}

SqliteStatement prepareSqlite(sqlite3* db, const std::filesystem::path& file, const char* sql, const char* what) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK)
    throw ImportError(file.string() + ": " + what + " (" + sqlite3_errmsg(db) + ")");
  return SqliteStatement(raw);
}

bool sqliteHasColumns(sqlite3* db, const char* table, std::initializer_list<const char*> columns) {
  sqlite3_stmt* raw = nullptr;
  const std::string sql = std::string("PRAGMA table_info(") + table + ")";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) return false;
  const SqliteStatement info(raw);
  std::set<std::string> have;
  while (sqlite3_step(info.get()) == SQLITE_ROW) have.insert(sqliteText(info.get(), 1));
  for (const char* column : columns)
    if (!have.contains(column)) return false;
  return true;
}

std::string sqliteText(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}

bool sqliteNextRow(sqlite3* db, sqlite3_stmt* statement, const std::filesystem::path& file) {
  const int rc = sqlite3_step(statement);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw ImportError(file.string() + ": reading failed: " + sqlite3_errmsg(db));
}

}  // namespace traindeck
