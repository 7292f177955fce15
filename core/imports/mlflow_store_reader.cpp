// Runs are listed by their uuid; the run list and --read show their names, made unique by the
// search where two share one (run_discovery.cpp).
#include "imports/mlflow_store_reader.h"

#include <cmath>
#include <limits>

#include "imports/import_error.h"
#include "imports/run_builder.h"
#include "imports/sqlite_file.h"

namespace traindeck {

namespace {

constexpr const char* kNotMlflow = "not an MLflow store";

class MlflowStoreFormat final : public RunFormat {
 public:
  SourceKind kind() const override { return SourceKind::MlflowStore; }
  std::string_view name() const override { return "mlflow"; }
  std::string_view badge() const override { return "MLflow"; }
  std::string_view signs() const override { return "mlflow.db"; }
  bool findInFile(const std::filesystem::path& file, FoundRuns& found) const override {
    if (!isSqliteStoreFile(file)) return false;
    std::vector<MlflowStoreRun> runs;
    try {
      runs = listMlflowStoreRuns(file);
    } catch (const ImportError&) {
      return false;  // another tool's SQLite database
    }
    const std::size_t first = found.runs.size();
    for (MlflowStoreRun& run : runs) {
      found.add(kind(), file, run.runUuid, run.name);
      found.runs.back().displayName = std::move(run.name);
      found.runs.back().id = std::move(run.runUuid);
    }
    makeNamesUnique(found.runs, first);
    return true;
  }
  ImportedRun read(const RunSource& source) const override { return readMlflowStoreRun(source.path, source.key); }
};

}  // namespace

const RunFormat& mlflowStoreFormat() {
  static const MlflowStoreFormat format;
  return format;
}

std::vector<MlflowStoreRun> listMlflowStoreRuns(const std::filesystem::path& database) {
  const SqliteDb db = openSqliteReadOnly(database);
  const SqliteStatement list = prepareSqlite(db.get(), database,
                                             "SELECT r.run_uuid, r.name, e.name FROM runs r LEFT JOIN experiments e "
                                             "ON e.experiment_id = r.experiment_id "
                                             "WHERE (r.lifecycle_stage IS NULL OR r.lifecycle_stage != 'deleted') "
                                             "AND (e.lifecycle_stage IS NULL OR e.lifecycle_stage != 'deleted') "
                                             "ORDER BY r.start_time, r.run_uuid",
                                             kNotMlflow);
  std::vector<MlflowStoreRun> runs;
  while (sqliteNextRow(db.get(), list.get(), database)) {
    MlflowStoreRun run{.runUuid = sqliteText(list.get(), 0),
                       .name = sqliteText(list.get(), 1),
                       .experiment = sqliteText(list.get(), 2)};
    if (run.name.empty()) run.name = run.runUuid;
    runs.push_back(std::move(run));
  }
  return runs;
}

ImportedRun readMlflowStoreRun(const std::filesystem::path& database, const std::string& runUuid) {
  const SqliteDb db = openSqliteReadOnly(database);
  RunBuilder builder(SourceKind::MlflowStore, runUuid, database.string());

  const SqliteStatement run = prepareSqlite(db.get(), database,
                                            "SELECT r.name, e.name FROM runs r LEFT JOIN experiments e "
                                            "ON e.experiment_id = r.experiment_id WHERE r.run_uuid = ?1",
                                            kNotMlflow);
  sqlite3_bind_text(run.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  if (!sqliteNextRow(db.get(), run.get(), database))
    throw ImportError(database.string() + ": no run " + runUuid + " (deleted from the store?)");
  if (std::string name = sqliteText(run.get(), 0); !name.empty()) builder.setName(std::move(name));
  if (std::string experiment = sqliteText(run.get(), 1); !experiment.empty())
    builder.setConfig("mlflow.experiment", std::move(experiment));

  // In step order as MLflow's own history is; values logged at one step in time order.
  const SqliteStatement metrics =
      prepareSqlite(db.get(), database,
                    "SELECT key, value, timestamp, step, is_nan FROM metrics WHERE run_uuid = ?1 "
                    "ORDER BY step, timestamp, key",
                    kNotMlflow);
  sqlite3_bind_text(metrics.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  while (sqliteNextRow(db.get(), metrics.get(), database)) {
    const std::string key = sqliteText(metrics.get(), 0);
    const bool isNan = sqlite3_column_int(metrics.get(), 4) != 0;
    const double value = isNan ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(metrics.get(), 1);
    const double time = static_cast<double>(sqlite3_column_int64(metrics.get(), 2)) / 1000.0;
    builder.add(key, sqlite3_column_int64(metrics.get(), 3), time, value);
  }

  const SqliteStatement params =
      prepareSqlite(db.get(), database, "SELECT key, value FROM params WHERE run_uuid = ?1 ORDER BY key", kNotMlflow);
  sqlite3_bind_text(params.get(), 1, runUuid.c_str(), -1, SQLITE_TRANSIENT);
  while (sqliteNextRow(db.get(), params.get(), database))
    builder.setConfig(sqliteText(params.get(), 0), sqliteText(params.get(), 1));
  return builder.take();
}

}  // namespace traindeck
