// A Trackio project file made through libsqlite3 with the tables and columns Trackio's
// sqlite_storage creates, rows written as Trackio writes them (metrics as JSON, NaN as "NaN",
// ISO 8601 times); and a file of Trackio before run_id, with a bare NaN.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>

#include "fixture_writers.h"
#include "imports/import_error.h"
#include "imports/run_discovery.h"
#include "imports/trackio_reader.h"

namespace traindeck {
namespace {

using namespace fixtures;

void execSql(const std::filesystem::path& file, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(TrackioReader, RunsByIdWithMetricsSystemMetricsAndConfig) {
  ScratchDir dir("trackio");
  const auto file = dir.path() / "trackio" / "gpt-sweep.db";
  std::filesystem::create_directories(file.parent_path());
  execSql(
      file,
      "CREATE TABLE metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, timestamp TEXT NOT NULL, "
      "run_name TEXT NOT NULL, step INTEGER NOT NULL, metrics TEXT NOT NULL);"
      "CREATE TABLE configs (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, run_name TEXT NOT NULL, "
      "config TEXT NOT NULL, created_at TEXT NOT NULL, UNIQUE(run_id));"
      "CREATE TABLE system_metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, timestamp TEXT NOT "
      "NULL, run_name TEXT NOT NULL, metrics TEXT NOT NULL);"
      "INSERT INTO metrics (run_id, timestamp, run_name, step, metrics) VALUES "
      "('r-one', '2025-08-21T16:00:00.500000+00:00', 'dainty-sunset-1', 0, '{\"train/loss\": 2.5, \"lr\": 0.001}'),"
      "('r-two', '2025-08-21T17:00:00+00:00', 'dainty-sunset-1', 0, '{\"train/loss\": 9.0}'),"
      "('r-one', '2025-08-21T16:00:01.500000+00:00', 'dainty-sunset-1', 1, "
      "'{\"train/loss\": \"NaN\", \"val/loss\": 2.75, \"samples\": {\"_type\": \"table\"}, \"acc\": \"Infinity\"}');"
      "INSERT INTO configs (run_id, run_name, config, created_at) VALUES ('r-one', 'dainty-sunset-1', "
      "'{\"lr\": 0.001, \"model\": {\"n_layer\": 12}, \"_Group\": \"sweep-a\", \"_Username\": \"ada\"}', 'x');"
      "INSERT INTO system_metrics (run_id, timestamp, run_name, metrics) VALUES "
      "('r-one', '2025-08-21T16:00:00+00:00', 'dainty-sunset-1', '{\"gpu/0/utilization\": 87.5}'),"
      "('r-one', '2025-08-21T16:00:10+00:00', 'dainty-sunset-1', '{\"gpu/0/utilization\": 90}');");

  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 2u);  // one name, two runs: told apart by run_id
  EXPECT_EQ(found[0].kind, SourceKind::Trackio);
  EXPECT_EQ(found[0].key, "r-one");
  EXPECT_EQ(found[0].name, "dainty-sunset-1 (r-one)");
  EXPECT_EQ(found[1].name, "dainty-sunset-1 (r-two)");

  const ImportedRun run = readRun(found[0]);
  EXPECT_EQ(run.name, "dainty-sunset-1 (r-one)");
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  const TrainColumns& t = run.metrics.train;
  ASSERT_EQ(t.size(), 1u);  // the NaN loss at step 1 is no point of the loss curve
  EXPECT_EQ(t.step[0], 0);
  EXPECT_FLOAT_EQ(t.loss[0], 2.5f);
  EXPECT_FLOAT_EQ(t.lr[0], 0.001f);
  EXPECT_DOUBLE_EQ(t.time[0], 1755792000.5);  // 2025-08-21T16:00:00.5Z
  ASSERT_EQ(run.metrics.eval.size(), 1u);
  EXPECT_EQ(run.metrics.eval.step[0], 1);
  EXPECT_FLOAT_EQ(run.metrics.eval.valLoss[0], 2.75f);
  ASSERT_NE(run.scalar("acc"), nullptr);
  EXPECT_TRUE(std::isinf(run.scalar("acc")->value[0]));
  EXPECT_EQ(run.scalar("samples"), nullptr);  // a table, not a number
  const ScalarSeries* gpu = run.scalar("system/gpu/0/utilization");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->step, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(gpu->value, (std::vector<double>{87.5, 90}));
  EXPECT_DOUBLE_EQ(gpu->time[1], 1755792010.0);
  EXPECT_EQ(*run.configValue("lr"), "0.001");
  EXPECT_EQ(*run.configValue("model.n_layer"), "12");
  EXPECT_EQ(*run.configValue("trackio.group"), "sweep-a");
  EXPECT_EQ(*run.configValue("trackio.project"), "gpt-sweep");

  const ImportedRun other = readRun(found[1]);
  ASSERT_EQ(other.metrics.train.size(), 1u);
  EXPECT_FLOAT_EQ(other.metrics.train.loss[0], 9.0f);
  EXPECT_EQ(other.configValue("lr"), nullptr);
}

TEST(TrackioReader, AFileFromBeforeRunIdWithABareNan) {
  ScratchDir dir("trackio-old");
  const auto file = dir.path() / "old.db";
  execSql(
      file,
      "CREATE TABLE metrics (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp TEXT NOT NULL, run_name TEXT NOT NULL, "
      "step INTEGER NOT NULL, metrics TEXT NOT NULL);"
      "INSERT INTO metrics (timestamp, run_name, step, metrics) VALUES "
      "('2025-06-01T10:00:00.250000', 'run-a', 0, '{\"loss\": NaN, \"note\": \"NaN in text\"}'),"
      "('2025-06-01T10:00:01', 'run-a', 1, '{\"loss\": 1.5}');");
  const std::vector<RunSource> found = findRuns(dir.path());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "run-a");
  const ImportedRun run = readRun(found[0]);
  EXPECT_TRUE(run.problems.empty()) << run.problems.front();
  ASSERT_EQ(run.metrics.train.size(), 1u);
  EXPECT_EQ(run.metrics.train.step[0], 1);
  EXPECT_FLOAT_EQ(run.metrics.train.loss[0], 1.5f);
  EXPECT_DOUBLE_EQ(run.metrics.train.time[0], 1748772001.0);  // no offset: taken as UTC
  EXPECT_THROW(readTrackioRun(file, "no-such-run"), ImportError);
}

}  // namespace
}  // namespace traindeck
