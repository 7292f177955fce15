// Optuna's RDB storage made through libsqlite3 with the tables and columns of optuna's
// storages/_rdb/models.py, filled as Optuna fills them: parameters as floats (a categorical one
// as its choice's index) with their distribution's JSON, enum columns by name, infinities as NULL
// with a type, and times as naive local time (datetime.now()).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

#include "fixture_writers.h"
#include "imports/run_discovery.h"

namespace traindeck {
namespace {

using namespace fixtures;

// This process's time zone set to `zone` for one test, then put back.
class ScopedTimeZone {
 public:
  explicit ScopedTimeZone(const char* zone) {
    if (const char* old = std::getenv("TZ")) m_old = old;
    setenv("TZ", zone, 1);
    tzset();
  }
  ~ScopedTimeZone() {
    if (m_old)
      setenv("TZ", m_old->c_str(), 1);
    else
      unsetenv("TZ");
    tzset();
  }
  ScopedTimeZone(const ScopedTimeZone&) = delete;
  ScopedTimeZone& operator=(const ScopedTimeZone&) = delete;

 private:
  std::optional<std::string> m_old;
};

void addToStudy(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

void makeStudy(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  const char* sql =
      "CREATE TABLE studies (study_id INTEGER PRIMARY KEY, study_name VARCHAR(512) NOT NULL UNIQUE);"
      "CREATE TABLE study_directions (study_direction_id INTEGER PRIMARY KEY, direction VARCHAR(8) NOT NULL, "
      "study_id INTEGER NOT NULL, objective INTEGER NOT NULL);"
      "CREATE TABLE trials (trial_id INTEGER PRIMARY KEY, number INTEGER, study_id INTEGER, state VARCHAR(8) NOT NULL, "
      "datetime_start DATETIME, datetime_complete DATETIME);"
      "CREATE TABLE trial_params (param_id INTEGER PRIMARY KEY, trial_id INTEGER, param_name VARCHAR(512), "
      "param_value FLOAT, distribution_json TEXT);"
      "CREATE TABLE trial_values (trial_value_id INTEGER PRIMARY KEY, trial_id INTEGER NOT NULL, objective INTEGER "
      "NOT NULL, value FLOAT, value_type VARCHAR(7) NOT NULL);"
      "CREATE TABLE trial_intermediate_values (trial_intermediate_value_id INTEGER PRIMARY KEY, trial_id INTEGER NOT "
      "NULL, step INTEGER NOT NULL, intermediate_value FLOAT, intermediate_value_type VARCHAR(7) NOT NULL);"
      "CREATE TABLE trial_user_attributes (trial_user_attribute_id INTEGER PRIMARY KEY, trial_id INTEGER, key "
      "VARCHAR(512), value_json TEXT);"
      "INSERT INTO studies VALUES (1, 'lr-search');"
      "INSERT INTO study_directions VALUES (1, 'MINIMIZE', 1, 0);"
      "INSERT INTO trials VALUES (1, 0, 1, 'COMPLETE', '2024-05-01 10:00:00.000000', '2024-05-01 10:05:00.500000'),"
      "(2, 1, 1, 'PRUNED', '2024-05-01 10:06:00', '2024-05-01 10:07:00'), (3, 2, 1, 'RUNNING', '2024-05-01 10:08:00', "
      "NULL);"
      "INSERT INTO trial_params VALUES "
      "(1, 1, 'lr', 0.003, '{\"name\": \"FloatDistribution\", \"attributes\": {\"step\": null, \"low\": 1e-05, "
      "\"high\": 0.1, \"log\": true}}'),"
      "(2, 1, 'optimizer', 1.0, '{\"name\": \"CategoricalDistribution\", \"attributes\": {\"choices\": [\"sgd\", "
      "\"adam\"]}}'),"
      "(3, 1, 'n_layer', 6.0, '{\"name\": \"IntDistribution\", \"attributes\": {\"log\": false, \"step\": 1, "
      "\"low\": 2, \"high\": 12}}'),"
      "(4, 2, 'lr', 0.09, '{\"name\": \"FloatDistribution\", \"attributes\": {\"step\": null, \"low\": 1e-05, "
      "\"high\": 0.1, \"log\": true}}');"
      "INSERT INTO trial_values VALUES (1, 1, 0, 0.25, 'FINITE');"
      "INSERT INTO trial_intermediate_values VALUES (1, 1, 0, 1.5, 'FINITE'), (2, 1, 1, 0.75, 'FINITE'), "
      "(3, 1, 2, 0.25, 'FINITE'), (4, 2, 0, NULL, 'INF_POS');"
      "INSERT INTO trial_user_attributes VALUES (1, 1, 'gpu', '\"A100\"');";
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(OptunaReader, EachTrialIsARunWithItsParametersAndValues) {
  const ScopedTimeZone zone("UTC+3");  // POSIX: three hours west of Greenwich, no summer time
  ScratchDir dir("optuna");
  makeStudy(dir.path() / "study.db");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].kind, SourceKind::Optuna);
  EXPECT_EQ(found[0].name, "lr-search trial 0");
  EXPECT_EQ(found[2].name, "lr-search trial 2");

  const ImportedRun best = readRun(found[0]);
  EXPECT_TRUE(best.problems.empty());
  const ScalarSeries* reported = best.scalar("intermediate_value");
  ASSERT_NE(reported, nullptr);
  EXPECT_EQ(reported->step, (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(reported->value, (std::vector<double>{1.5, 0.75, 0.25}));
  const ScalarSeries* value = best.scalar("value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->step, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(value->value, (std::vector<double>{0.25}));
  // 2024-05-01 10:05:00.5 local time is 13:05:00.5 UTC (1714557900.5 + 3 h), not 10:05 UTC.
  EXPECT_DOUBLE_EQ(value->time[0], 1714557900.5 + 3 * 3600);
  EXPECT_EQ(*best.configValue("lr"), "0.003");
  EXPECT_EQ(*best.configValue("optimizer"), "adam");
  EXPECT_EQ(*best.configValue("n_layer"), "6");
  EXPECT_EQ(*best.configValue("optuna.study"), "lr-search");
  EXPECT_EQ(*best.configValue("optuna.trial"), "0");
  EXPECT_EQ(*best.configValue("optuna.state"), "COMPLETE");
  EXPECT_EQ(*best.configValue("user_attrs.gpu"), "A100");

  const ImportedRun pruned = readRun(found[1]);
  EXPECT_EQ(*pruned.configValue("optuna.state"), "PRUNED");
  ASSERT_NE(pruned.scalar("intermediate_value"), nullptr);
  EXPECT_TRUE(std::isinf(pruned.scalar("intermediate_value")->value[0]));
  EXPECT_EQ(pruned.scalar("value"), nullptr);
  EXPECT_EQ(*pruned.configValue("lr"), "0.09");
}

TEST(OptunaReader, AChoiceIndexThatNoChoiceHasIsShownAsItsNumber) {
  ScratchDir dir("optuna-bad-index");
  makeStudy(dir.path() / "study.db");
  const std::string categorical =
      "'{\"name\": \"CategoricalDistribution\", \"attributes\": {\"choices\": [\"sgd\", \"adam\"]}}'";
  const std::string sql = "INSERT INTO trial_params VALUES (10, 3, 'huge', 1e300, " + categorical +
                          "), (11, 3, 'infinite', 9e999, " + categorical + "), (12, 3, 'past', 2.0, " + categorical +
                          "), (13, 3, 'half', 0.5, " + categorical + "), (14, 3, 'negative', -1.0, " + categorical +
                          "), (15, 3, 'first', 0.0, " + categorical + ");";
  addToStudy(dir.path() / "study.db", sql.c_str());
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 3u);
  const ImportedRun running = readRun(found[2]);
  EXPECT_EQ(*running.configValue("huge"), "1e+300");
  EXPECT_EQ(*running.configValue("infinite"), "inf");
  EXPECT_EQ(*running.configValue("past"), "2");
  EXPECT_EQ(*running.configValue("half"), "0.5");  // not truncated to "sgd"
  EXPECT_EQ(*running.configValue("negative"), "-1");
  EXPECT_EQ(*running.configValue("first"), "sgd");
}

}  // namespace
}  // namespace traindeck
