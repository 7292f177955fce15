// Optuna keeps a parameter as a float (a categorical one as the index of its choice) beside its
// distribution's JSON, and an infinite or NaN value as NULL with a type column saying which.
#include "imports/optuna_reader.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "imports/import_error.h"
#include "imports/import_files.h"
#include "imports/iso_time.h"
#include "imports/run_builder.h"
#include "imports/sqlite_file.h"
#include "runlog/json_copy.h"
#include "runlog/json_value.h"

namespace traindeck {

namespace {

constexpr const char* kNotOptuna = "not an Optuna storage";

bool isOptunaDatabase(sqlite3* db) {
  return sqliteHasColumns(db, "studies", {"study_id", "study_name"}) &&
         sqliteHasColumns(db, "trials", {"trial_id", "number", "study_id", "state"}) &&
         sqliteHasColumns(db, "trial_params", {"trial_id", "param_name", "param_value", "distribution_json"});
}

// A stored value and its type column (FINITE, INF_POS, INF_NEG, NAN) as a double.
double storedValue(sqlite3_stmt* statement, int valueColumn, int typeColumn) {
  const std::string type = sqliteText(statement, typeColumn);
  if (type == "INF_POS") return std::numeric_limits<double>::infinity();
  if (type == "INF_NEG") return -std::numeric_limits<double>::infinity();
  if (type == "NAN" || sqlite3_column_type(statement, valueColumn) == SQLITE_NULL)
    return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(statement, valueColumn);
}

std::string shortestText(double value) {
  char digits[32];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  return std::string(digits, end);
}

// The parameter as the trial saw it: a categorical choice, an integer, or the float.
std::string paramText(double internal, const std::string& distributionJson) {
  const JsonParseResult parsed = parseJson(distributionJson);
  const std::string kind = parsed.value.stringOr("name", "");
  if (kind == "CategoricalDistribution") {
    const JsonValue* attributes = parsed.value.find("attributes");
    const JsonValue* choices = attributes ? attributes->find("choices") : nullptr;
    // The index as a float from the file: cast only when it is a whole number a choice can have.
    const bool index = std::isfinite(internal) && internal >= 0 && internal < 1e15 && internal == std::floor(internal);
    const JsonValue* choice = choices && index ? choices->at(static_cast<std::size_t>(internal)) : nullptr;
    if (choice != nullptr) return choice->isString() ? choice->text() : jsonText(*choice);
  }
  if (kind.starts_with("Int") && std::isfinite(internal)) return std::to_string(std::llround(internal));
  return shortestText(internal);
}

class OptunaFormat final : public RunFormat {
 public:
  SourceKind kind() const override { return SourceKind::Optuna; }
  std::string_view name() const override { return "optuna"; }
  std::string_view badge() const override { return "Optuna"; }
  std::string_view signs() const override { return "*.db"; }
  bool findInFile(const std::filesystem::path& file, FoundRuns& found) const override {
    if (!isSqliteStoreFile(file)) return false;
    std::vector<OptunaTrial> trials;
    try {
      trials = listOptunaTrials(file);
    } catch (const ImportError&) {
      return false;
    }
    for (OptunaTrial& trial : trials) found.add(kind(), file, trial.trialId, trial.name);
    return true;
  }
  ImportedRun read(const RunSource& source) const override { return readOptunaTrial(source.path, source.key); }
};

}  // namespace

std::vector<OptunaTrial> listOptunaTrials(const std::filesystem::path& database) {
  const SqliteDb db = openSqliteReadOnly(database);
  if (!isOptunaDatabase(db.get())) throw ImportError(database.string() + ": " + kNotOptuna);
  const SqliteStatement list = prepareSqlite(db.get(), database,
                                             "SELECT t.trial_id, s.study_name, t.number FROM trials t JOIN studies s "
                                             "ON s.study_id = t.study_id ORDER BY s.study_id, t.number",
                                             kNotOptuna);
  std::vector<OptunaTrial> trials;
  while (sqliteNextRow(db.get(), list.get(), database))
    trials.push_back(OptunaTrial{.trialId = sqliteText(list.get(), 0),
                                 .name = sqliteText(list.get(), 1) + " trial " + sqliteText(list.get(), 2)});
  return trials;
}

ImportedRun readOptunaTrial(const std::filesystem::path& database, const std::string& trialId) {
  const SqliteDb db = openSqliteReadOnly(database);
  if (!isOptunaDatabase(db.get())) throw ImportError(database.string() + ": " + kNotOptuna);
  sqlite3* raw = db.get();
  const auto bound = [&](const char* sql) {
    SqliteStatement statement = prepareSqlite(raw, database, sql, kNotOptuna);
    sqlite3_bind_text(statement.get(), 1, trialId.c_str(), -1, SQLITE_TRANSIENT);
    return statement;
  };

  const SqliteStatement trial = bound(
      "SELECT s.study_name, t.number, t.state, t.datetime_complete FROM trials t JOIN studies s "
      "ON s.study_id = t.study_id WHERE t.trial_id = ?1");
  if (!sqliteNextRow(raw, trial.get(), database))
    throw ImportError(database.string() + ": no trial " + trialId + " in this Optuna storage (deleted?)");
  const std::string study = sqliteText(trial.get(), 0), number = sqliteText(trial.get(), 1);
  RunBuilder builder(SourceKind::Optuna, study + " trial " + number, database.string());
  builder.setConfig("optuna.study", study);
  builder.setConfig("optuna.trial", number);
  builder.setConfig("optuna.state", sqliteText(trial.get(), 2));
  // Optuna writes datetime.now(), naive local time.
  const double completed = isoTimeToUnixSeconds(sqliteText(trial.get(), 3), NaiveTime::Local);

  const SqliteStatement params = bound(
      "SELECT param_name, param_value, distribution_json FROM trial_params WHERE trial_id = ?1 ORDER BY param_id");
  while (sqliteNextRow(raw, params.get(), database))
    builder.setConfig(sqliteText(params.get(), 0),
                      paramText(sqlite3_column_double(params.get(), 1), sqliteText(params.get(), 2)));

  std::int64_t lastStep = 0;
  if (sqliteHasColumns(raw, "trial_intermediate_values", {"step", "intermediate_value", "intermediate_value_type"})) {
    const SqliteStatement steps = bound(
        "SELECT step, intermediate_value, intermediate_value_type FROM trial_intermediate_values "
        "WHERE trial_id = ?1 ORDER BY step");
    const double noTime = std::numeric_limits<double>::quiet_NaN();
    while (sqliteNextRow(raw, steps.get(), database)) {
      lastStep = sqlite3_column_int64(steps.get(), 0);
      builder.add("intermediate_value", lastStep, noTime, storedValue(steps.get(), 1, 2));
    }
  }
  if (sqliteHasColumns(raw, "trial_values", {"objective", "value", "value_type"})) {
    const SqliteStatement values =
        bound("SELECT objective, value, value_type FROM trial_values WHERE trial_id = ?1 ORDER BY objective");
    while (sqliteNextRow(raw, values.get(), database)) {
      const std::int64_t objective = sqlite3_column_int64(values.get(), 0);
      const std::string name = objective == 0 ? "value" : "value_" + std::to_string(objective);
      builder.add(name, lastStep, completed, storedValue(values.get(), 1, 2));
    }
  }
  if (sqliteHasColumns(raw, "trial_user_attributes", {"key", "value_json"})) {
    const SqliteStatement attributes =
        bound("SELECT key, value_json FROM trial_user_attributes WHERE trial_id = ?1 ORDER BY key");
    while (sqliteNextRow(raw, attributes.get(), database)) {
      const JsonParseResult parsed = parseJson(sqliteText(attributes.get(), 1));
      const std::string key = "user_attrs." + sqliteText(attributes.get(), 0);
      builder.setConfig(key, parsed.value.isString() ? parsed.value.text() : sqliteText(attributes.get(), 1));
    }
  }
  return builder.take();
}

const RunFormat& optunaFormat() {
  static const OptunaFormat format;
  return format;
}

}  // namespace traindeck
