// The database is opened with SQLITE_OPEN_READONLY and a busy timeout, so a tracking server that
// is writing it keeps going and this read waits a moment for its lock rather than failing.
#include "imports/mlflow_store_reader.h"

#include <sqlite3.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <memory>

#include "imports/import_error.h"
#include "imports/run_builder.h"

namespace traindeck {

namespace {

struct SqliteClose {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
struct SqliteFinalize {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Database = std::unique_ptr<sqlite3, SqliteClose>;
using Statement = std::unique_ptr<sqlite3_stmt, SqliteFinalize>;

Database openStore(const std::filesystem::path& file) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  Database db(raw);
  if (rc != SQLITE_OK)
    throw ImportError(file.string() + ": cannot open as SQLite: " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
  sqlite3_busy_timeout(raw, 2000);
  return db;
}

Statement prepare(sqlite3* db, const std::filesystem::path& file, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK)
    throw ImportError(file.string() + ": not an MLflow store (" + sqlite3_errmsg(db) + ")");
  return Statement(raw);
}

std::string textColumn(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}

void stepFailed(sqlite3* db, const std::filesystem::path& file) {
  throw ImportError(file.string() + ": reading failed: " + sqlite3_errmsg(db));
}

}  // namespace

bool looksLikeSqliteFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[16] = {};
  return in.read(magic, sizeof magic) &&
         std::string_view(magic, sizeof magic) == std::string_view("SQLite format 3\0", 16);
}

std::vector<MlflowStoreRun> listMlflowStoreRuns(const std::filesystem::path& database) {
  const Database db = openStore(database);
  const Statement list = prepare(db.get(), database,
                                 "SELECT r.run_uuid, r.name, e.name FROM runs r LEFT JOIN experiments e "
                                 "ON e.experiment_id = r.experiment_id "
                                 "WHERE r.lifecycle_stage IS NULL OR r.lifecycle_stage != 'deleted' "
                                 "ORDER BY r.start_time, r.run_uuid");
  std::vector<MlflowStoreRun> runs;
  int rc = 0;
  while ((rc = sqlite3_step(list.get())) == SQLITE_ROW) {
    MlflowStoreRun run{.runUuid = textColumn(list.get(), 0),
                       .name = textColumn(list.get(), 1),
                       .experiment = textColumn(list.get(), 2)};
    if (run.name.empty()) run.name = run.runUuid;
    runs.push_back(std::move(run));
  }
  if (rc != SQLITE_DONE) stepFailed(db.get(), database);
  return runs;
}

ImportedRun readMlflowStoreRun(const std::filesystem::path& database, const std::string& runUuid) {
  const Database db = openStore(database);
  RunBuilder builder(SourceKind::MlflowStore, runUuid, database.string());

  const Statement run = prepare(db.get(), database,
                                "SELECT r.name, e.name FROM runs r LEFT JOIN experiments e "
                                "ON e.experiment_id = r.experiment_id WHERE r.run_uuid = ?1");
  sqlite3_bind_text(run.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  const int found = sqlite3_step(run.get());
  if (found == SQLITE_DONE) throw ImportError(database.string() + ": no run " + runUuid);
  if (found != SQLITE_ROW) stepFailed(db.get(), database);
  if (std::string name = textColumn(run.get(), 0); !name.empty()) builder.setName(std::move(name));
  if (std::string experiment = textColumn(run.get(), 1); !experiment.empty())
    builder.setConfig("mlflow.experiment", std::move(experiment));

  // In step order as MLflow's own history is; values logged at one step in time order.
  const Statement metrics = prepare(db.get(), database,
                                    "SELECT key, value, timestamp, step, is_nan FROM metrics WHERE run_uuid = ?1 "
                                    "ORDER BY step, timestamp, key");
  sqlite3_bind_text(metrics.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  int rc = 0;
  while ((rc = sqlite3_step(metrics.get())) == SQLITE_ROW) {
    const std::string key = textColumn(metrics.get(), 0);
    const bool isNan = sqlite3_column_int(metrics.get(), 4) != 0;
    const double value = isNan ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(metrics.get(), 1);
    const double time = static_cast<double>(sqlite3_column_int64(metrics.get(), 2)) / 1000.0;
    builder.add(key, sqlite3_column_int64(metrics.get(), 3), time, value);
  }
  if (rc != SQLITE_DONE) stepFailed(db.get(), database);

  const Statement params =
      prepare(db.get(), database, "SELECT key, value FROM params WHERE run_uuid = ?1 ORDER BY key");
  sqlite3_bind_text(params.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  while ((rc = sqlite3_step(params.get())) == SQLITE_ROW)
    builder.setConfig(textColumn(params.get(), 0), textColumn(params.get(), 1));
  if (rc != SQLITE_DONE) stepFailed(db.get(), database);
  return builder.take();
}

}  // namespace traindeck
